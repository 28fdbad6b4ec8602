// The ALAC decoder's kernel on Node: the WebAssembly build (assemblyscript/build/alac-kernel.wasm)
// wrapped as an AlacKernel, and the host's choice between it and the portable TypeScript build.
//
// The module cannot read the packet where it lies (a JavaScript ArrayBuffer outside its linear
// memory): each call copies the packet in (about 1.5 KB for RAOP's 352-sample frames) and the
// samples out. The audio bench (`npm run -s bench -- audio`) times both builds on the same
// packets; the choice follows it (see selectAlacKernel).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { alacFaultError, checkAlacOutput, createAlacDecoder, portableAlacKernel, type AlacConfig, type AlacKernel } from '../../../src/audio/alac';
import { describeError } from '../../../src/errors';
import type { Logger } from '../../../src/platform';
import { instantiateKernel } from './wasm-module';
import { onFirstUse } from './on-first-use';

/** Where `npm run build:kernels` writes the ALAC kernel. */
export const ALAC_KERNEL_WASM = fileURLToPath(new URL('../../../assemblyscript/build/alac-kernel.wasm', import.meta.url));

/** The exports of assemblyscript/alac-kernel.ts. */
interface AlacKernelExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  inputRegion(): number;
  outputRegion(packetLength: number, frameLength: number): number;
  reserve(packetLength: number, frameLength: number, channels: number): number;
  decode(packetLength: number, sampleBytes: number, frameLength: number, bitDepth: number, pb: number, mb: number, kb: number, channels: number): number;
}

const EXPORTED_FUNCTIONS = ['inputRegion', 'outputRegion', 'reserve', 'decode'] as const;

/** What the module's decode returns for a config or memory it cannot take (never a fault code). */
const REFUSED = -100;

/** The WebAssembly build of the AlacKernel contract: the same results and errors as the portable one. */
export class WasmAlacKernel implements AlacKernel {
  readonly name = 'wasm';
  private readonly input: number;

  private constructor(private readonly wasm: AlacKernelExports) {
    this.input = wasm.inputRegion();
  }

  /** Compiles and instantiates the module in `bytes` (synchronous: it is about 5 KB). */
  static fromBytes(bytes: Uint8Array): WasmAlacKernel {
    return new WasmAlacKernel(instantiateKernel<AlacKernelExports>(bytes, EXPORTED_FUNCTIONS));
  }

  /** Reads and instantiates the module at `file` (default: the built ALAC kernel). */
  static fromFile(file = ALAC_KERNEL_WASM): WasmAlacKernel {
    return WasmAlacKernel.fromBytes(readFileSync(file));
  }

  decode(config: AlacConfig, packet: Uint8Array, output: Int16Array | Int32Array): number {
    checkAlacOutput(config, output);
    const { frameLength, numChannels } = config;
    if (this.wasm.reserve(packet.length, frameLength, numChannels) !== 1) throw new RangeError(`an ALAC packet of ${packet.length} bytes does not fit the WebAssembly memory`);
    // Growing the memory detaches the old buffer: views are taken after reserve.
    const buffer = this.wasm.memory.buffer;
    new Uint8Array(buffer).set(packet, this.input);
    const sampleBytes = output.BYTES_PER_ELEMENT;
    const frames = this.wasm.decode(packet.length, sampleBytes, frameLength, config.bitDepth, config.pb, config.mb, config.kb, numChannels);
    if (frames === REFUSED) throw new RangeError(`the WebAssembly ALAC kernel refused the config (${config.bitDepth}-bit, ${frameLength} samples, ${numChannels} channels)`);
    if (frames < 0) throw alacFaultError(-frames, packet.length);
    const at = this.wasm.outputRegion(packet.length, frameLength);
    const count = frames * numChannels;
    output.set(sampleBytes === 2 ? new Int16Array(buffer, at, count) : new Int32Array(buffer, at, count));
    return frames;
  }
}

/** A 16-bit stereo RAOP stream's config (the fmtp of every classic sender). */
const SELF_TEST_CONFIG: AlacConfig = { frameLength: 8, compatibleVersion: 0, bitDepth: 16, pb: 40, mb: 10, kb: 14, numChannels: 2, maxRun: 255, maxFrameBytes: 0, avgBitRate: 0, sampleRate: 44100 };

/**
 * A hand-made packet: a verbatim channel pair of 3 samples (partial frame) then END, its samples
 * (-2, 3), (32767, -32768), (1, 0).
 */
const SELF_TEST_PACKET = Uint8Array.of(0x20, 0x00, 0x12, 0x00, 0x00, 0x00, 0x07, 0xff, 0xfc, 0x00, 0x06, 0xff, 0xff, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0xc0);

/**
 * Checks `kernel` before it carries audio: a hand-made packet against the portable build, and the
 * same packet cut short refused with the portable build's error. Returns what failed, or undefined.
 */
export function selfTestAlacKernel(kernel: AlacKernel): string | undefined {
  try {
    const expected = createAlacDecoder(SELF_TEST_CONFIG, portableAlacKernel).decode(SELF_TEST_PACKET);
    const actual = createAlacDecoder(SELF_TEST_CONFIG, kernel).decode(SELF_TEST_PACKET);
    if (actual.join() !== expected.join()) return `the self-test packet gave ${actual.join()}, expected ${expected.join()}`;
    const cut = SELF_TEST_PACKET.subarray(0, 10);
    let message = '';
    try {
      portableAlacKernel.decode(SELF_TEST_CONFIG, cut, new Int16Array(16));
    } catch (error) {
      message = (error as Error).message;
    }
    try {
      kernel.decode(SELF_TEST_CONFIG, cut, new Int16Array(16));
      return 'a packet cut short was decoded';
    } catch (error) {
      if ((error as Error).message !== message) return `a packet cut short gave "${(error as Error).message}"`;
    }
    return undefined;
  } catch (error) {
    return `threw ${describeError(error)}`;
  }
}

/** The environment variable that forces a build: VENDORPLAY_ALAC_KERNEL=portable or wasm. */
export const ALAC_KERNEL_ENV = 'VENDORPLAY_ALAC_KERNEL';

/**
 * Chooses the ALAC kernel: the WebAssembly build when `file` loads and passes selfTestAlacKernel(),
 * the portable one otherwise or when `choice` (default: the VENDORPLAY_ALAC_KERNEL environment
 * variable) is `portable`. Not timed at start: the audio bench shows the WebAssembly build
 * faster on the same packets (README, `npm run -s bench -- audio`). Logs one line naming it.
 */
export function selectAlacKernel(log: Logger, options: { file?: string; choice?: string } = {}): AlacKernel {
  const file = options.file ?? ALAC_KERNEL_WASM;
  const choice = options.choice ?? process.env[ALAC_KERNEL_ENV] ?? '';
  const portable = (level: 'info' | 'warn', reason: string): AlacKernel => {
    log(level, `ALAC kernel: portable (TypeScript); ${reason}`);
    return portableAlacKernel;
  };
  if (choice === 'portable') return portable('info', `${ALAC_KERNEL_ENV}=portable`);
  if (choice !== '' && choice !== 'wasm') return portable('warn', `${ALAC_KERNEL_ENV}=${choice} is not portable or wasm`);
  let kernel: WasmAlacKernel;
  try {
    kernel = WasmAlacKernel.fromFile(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return portable(missing ? 'info' : 'warn', `${file}: ${missing ? 'not built (npm run build:kernels)' : (error as Error).message}`);
  }
  const failure = selfTestAlacKernel(kernel);
  if (failure !== undefined) return portable('warn', `${file} failed its self-test: ${failure}`);
  log('info', `ALAC kernel: wasm (${file})`);
  return kernel;
}

/**
 * An AlacKernel that chooses its build (`choose`: selectAlacKernel in the host) when the first
 * ALAC packet is decoded or its name is asked, and delegates to it from then on: a start compiles
 * no module and runs no self-test for audio nobody may play.
 */
export class AlacKernelChosenOnFirstUse implements AlacKernel {
  private readonly kernel: () => AlacKernel;

  constructor(choose: () => AlacKernel) {
    this.kernel = onFirstUse(choose);
  }

  /** The chosen build's name (choosing it now if no packet has needed it yet). */
  get name(): string {
    return this.kernel().name;
  }

  decode(config: AlacConfig, packet: Uint8Array, output: Int16Array | Int32Array): number {
    return this.kernel().decode(config, packet, output);
  }
}
