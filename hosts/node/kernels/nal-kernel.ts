// The mirroring stream's NAL kernel on Node (DESIGN 5): the WebAssembly build
// (assemblyscript/build/nal-kernel.wasm) wrapped as a NalKernel, and the choice between it and
// the portable TypeScript build that the host passes as ReceiverPorts.nalKernel.
//
// The choice is made when the first mirrored frame needs a kernel (NalKernelChosenOnFirstUse),
// not at start: timing both builds and instantiating the module take about 20 ms, which a start
// (start to first answer counts) and a receiver that never mirrors should not pay.
//
// The module cannot read the payload where it lies (a JavaScript ArrayBuffer outside its linear
// memory), so every call copies the payload in and the result out: two full copies that the
// portable build, which touches only the length fields with 4-byte lengths, never makes. The
// host therefore times both on a frame of the size mirroring sends and passes the faster.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { equal } from '../../../src/bytes';
import { annexB, lengthPrefixed, isNalLengthSize, lengthSizeError, NalError, nalErrorAt, portableNalKernel, readNalLength, type AnnexBUnit, type NalKernel } from '../../../src/mirror';
import type { Logger } from '../../../src/platform';
import { instantiateKernel } from './wasm-module';
import { describeError } from '../../../src/errors';
import { onFirstUse } from './on-first-use';

/** Where `npm run build:kernels` writes the NAL kernel. */
export const NAL_KERNEL_WASM = fileURLToPath(new URL('../../../assemblyscript/build/nal-kernel.wasm', import.meta.url));

/** The exports of assemblyscript/nal-kernel.ts. */
interface NalKernelExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  inputRegion(): number;
  outputRegion(length: number): number;
  reserveInput(length: number): number;
  toAnnexB(length: number, lengthSize: number): number;
  keyFrame(): number;
  faultUnit(): number;
  faultAt(): number;
}

const EXPORTED_FUNCTIONS = ['inputRegion', 'outputRegion', 'reserveInput', 'toAnnexB', 'keyFrame', 'faultUnit', 'faultAt'] as const;

/** The WebAssembly build of the NalKernel contract: the same results and errors as the portable one. */
export class WasmNalKernel implements NalKernel {
  readonly name = 'wasm';
  private readonly input: number;
  /** A view of the module's memory, made again when the memory grows (growing detaches the old buffer). */
  private bytes: Uint8Array;

  private constructor(private readonly wasm: NalKernelExports) {
    this.input = wasm.inputRegion();
    this.bytes = new Uint8Array(wasm.memory.buffer);
  }

  /** Compiles and instantiates the module in `bytes` (synchronous: it is under 1 KB). */
  static fromBytes(bytes: Uint8Array): WasmNalKernel {
    return new WasmNalKernel(instantiateKernel<NalKernelExports>(bytes, EXPORTED_FUNCTIONS));
  }

  /** Reads and instantiates the module at `file` (default: the built NAL kernel). */
  static fromFile(file = NAL_KERNEL_WASM): WasmNalKernel {
    return WasmNalKernel.fromBytes(readFileSync(file));
  }

  toAnnexB(payload: Uint8Array, lengthSize: 1 | 2 | 4): AnnexBUnit {
    if (!isNalLengthSize(lengthSize)) throw lengthSizeError(lengthSize);
    const length = payload.length;
    if (this.wasm.reserveInput(length) !== 1) throw new RangeError(`a payload of ${length} bytes does not fit the WebAssembly memory`);
    this.memory().set(payload, this.input);
    const units = this.wasm.toAnnexB(length, lengthSize);
    if (units === -1) throw nalErrorAt(payload, lengthSize, this.wasm.faultUnit(), this.wasm.faultAt());
    if (units < 0) throw new RangeError(`the WebAssembly NAL kernel refused a payload of ${length} bytes (${units})`);
    const keyFrame = this.wasm.keyFrame() === 1;
    const memory = this.memory();
    if (lengthSize === 4) {
      // Converted in place in the module: the payload gets its bytes back, start codes and all.
      payload.set(memory.subarray(this.input, this.input + length));
      return { accessUnit: payload, keyFrame, nalCount: units };
    }
    const output = this.wasm.outputRegion(length);
    return { accessUnit: memory.slice(output, output + length + units * (4 - lengthSize)), keyFrame, nalCount: units };
  }

  private memory(): Uint8Array {
    if (this.bytes.buffer !== this.wasm.memory.buffer) this.bytes = new Uint8Array(this.wasm.memory.buffer);
    return this.bytes;
  }
}

/**
 * A mirroring frame of the size a sender sends (1080p60 at about 20 Mbit/s: about 42 KB): an SEI
 * and three non-IDR slices behind 4-byte lengths, as senders' avcC declares, and its Annex B.
 */
export function sampleMirrorFrame(lengthSize: 1 | 2 | 4 = 4, sliceBytes = 14_000): { payload: Uint8Array; annexB: Uint8Array } {
  const units = [Uint8Array.of(0x06, 0x05, 0x01, 0x80)];
  for (let slice = 0; slice < 3; slice++) {
    // The walk reads only lengths and headers: filler bytes (built natively, this runs at start).
    const unit = new Uint8Array(sliceBytes).fill(0x5a + slice);
    unit[0] = 0x41; // a non-IDR slice
    units.push(unit);
  }
  return { payload: lengthPrefixed(units, lengthSize), annexB: annexB(units) };
}

/**
 * Checks `kernel` before it carries video: the sample frame with 4- and 2-byte lengths to its
 * Annex B, an IDR slice seen as a key frame, and a bad length refused with the portable kernel's
 * error and the payload untouched. Returns what failed, or undefined.
 */
export function selfTestNalKernel(kernel: NalKernel): string | undefined {
  try {
    for (const lengthSize of [4, 2] as const) {
      const { payload, annexB } = sampleMirrorFrame(lengthSize, 3000);
      const result = kernel.toAnnexB(payload, lengthSize);
      if (!equal(result.accessUnit, annexB) || result.nalCount !== 4 || result.keyFrame) return `the sample frame with ${lengthSize}-byte lengths gave other bytes`;
    }
    const idr = kernel.toAnnexB(Uint8Array.of(0, 2, 0x65, 0x88), 2);
    if (!idr.keyFrame || !equal(idr.accessUnit, Uint8Array.of(0, 0, 0, 1, 0x65, 0x88))) return 'an IDR slice was not a key frame';
    // Unit 1's length (9, at offset 6) runs past the end: the error must name that unit and place.
    const bad = Uint8Array.of(0, 0, 0, 2, 0x41, 0x9a, 0, 0, 0, 9, 0x41);
    const expected = nalErrorAt(bad, 4, 1, 6).message;
    try {
      kernel.toAnnexB(bad, 4);
      return 'a length past the end was accepted';
    } catch (error) {
      if (!(error instanceof NalError) || error.message !== expected) return `a length past the end gave "${(error as Error).message}"`;
    }
    if (!equal(bad, Uint8Array.of(0, 0, 0, 2, 0x41, 0x9a, 0, 0, 0, 9, 0x41))) return 'a refused payload was changed';
    return undefined;
  } catch (error) {
    return `threw ${describeError(error)}`;
  }
}

/** MB/s of `kernel` on `frame` (4-byte lengths, converted in place: the lengths are put back before each call). */
function nalThroughput(kernel: NalKernel, frame: Uint8Array, milliseconds: number): number {
  const payload = frame.slice();
  // Where the lengths are, to put them back: the conversion overwrites nothing else.
  const fields: { at: number; bytes: Uint8Array }[] = [];
  for (let at = 0; at < payload.length; ) {
    const length = readNalLength(payload, at, 4);
    fields.push({ at, bytes: payload.slice(at, at + 4) });
    at += 4 + length;
  }
  let calls = 0;
  const started = performance.now();
  let now = started;
  while (now - started < milliseconds) {
    for (let i = 0; i < 8; i++) {
      for (const field of fields) payload.set(field.bytes, field.at);
      kernel.toAnnexB(payload, 4);
    }
    calls += 8;
    now = performance.now();
  }
  return (calls * payload.length) / ((now - started) * 1000);
}

interface SelectedNalKernel {
  readonly kernel: NalKernel;
  /** The figures the choice rests on (MB/s on the sample frame), when both builds were timed. */
  readonly portableMbPerSec?: number;
  readonly wasmMbPerSec?: number;
}

/** The environment variable that forces a build: VENDORPLAY_NAL_KERNEL=portable or wasm. */
export const NAL_KERNEL_ENV = 'VENDORPLAY_NAL_KERNEL';

/** How long each build is timed at start, in a few alternating rounds after a warm-up (under 20 ms in all). */
const TIMING_ROUNDS = 3;
const TIMING_MS = 1;
const WARM_UP_MS = 2;

/**
 * Chooses the mirroring stream's NAL kernel: the WebAssembly build when it loads, passes
 * selfTestNalKernel() and converts the sample frame faster than the portable build in the same
 * rounds; the portable build otherwise. `choice` (default: VENDORPLAY_NAL_KERNEL) `portable` or
 * `wasm` skips the timing. Logs one line naming the build and why.
 */
export function selectNalKernel(log: Logger, options: { file?: string; choice?: string } = {}): SelectedNalKernel {
  const file = options.file ?? NAL_KERNEL_WASM;
  const choice = options.choice ?? process.env[NAL_KERNEL_ENV] ?? '';
  const portable = (level: 'info' | 'warn', reason: string): SelectedNalKernel => {
    log(level, `NAL kernel: portable (TypeScript); ${reason}`);
    return { kernel: portableNalKernel };
  };
  if (choice === 'portable') return portable('info', `${NAL_KERNEL_ENV}=portable`);
  if (choice !== '' && choice !== 'wasm') return portable('warn', `${NAL_KERNEL_ENV}=${choice} is not portable or wasm`);
  let wasm: WasmNalKernel;
  try {
    wasm = WasmNalKernel.fromFile(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return portable(missing ? 'info' : 'warn', `${file}: ${missing ? 'not built (npm run build:kernels)' : (error as Error).message}`);
  }
  const failure = selfTestNalKernel(wasm);
  if (failure !== undefined) return portable('warn', `${file} failed its self-test: ${failure}`);
  if (choice === 'wasm') {
    log('info', `NAL kernel: wasm (${file}); ${NAL_KERNEL_ENV}=wasm`);
    return { kernel: wasm };
  }
  const { payload } = sampleMirrorFrame();
  // Both warmed first, so that neither is timed while V8 still interprets or tiers it up.
  nalThroughput(portableNalKernel, payload, WARM_UP_MS);
  nalThroughput(wasm, payload, WARM_UP_MS);
  let portableBest = 0;
  let wasmBest = 0;
  for (let round = 0; round < TIMING_ROUNDS; round++) {
    portableBest = Math.max(portableBest, nalThroughput(portableNalKernel, payload, TIMING_MS));
    wasmBest = Math.max(wasmBest, nalThroughput(wasm, payload, TIMING_MS));
  }
  const figures = `portable ${Math.round(portableBest)} MB/s, wasm ${Math.round(wasmBest)} MB/s on a ${Math.round(payload.length / 1024)} KB frame with 4-byte lengths`;
  if (wasmBest > portableBest) {
    log('info', `NAL kernel: wasm (${file}); faster at start: ${figures}`);
    return { kernel: wasm, portableMbPerSec: portableBest, wasmMbPerSec: wasmBest };
  }
  log('info', `NAL kernel: portable (TypeScript); faster at start: ${figures}`);
  return { kernel: portableNalKernel, portableMbPerSec: portableBest, wasmMbPerSec: wasmBest };
}

/**
 * A NalKernel that chooses its build (`choose`, selectNalKernel in the host) on its first use,
 * and delegates to it from then on.
 */
export class NalKernelChosenOnFirstUse implements NalKernel {
  private readonly kernel: () => NalKernel;

  constructor(choose: () => NalKernel) {
    this.kernel = onFirstUse(choose);
  }

  /** The chosen build's name (choosing it now if no frame has needed it yet). */
  get name(): string {
    return this.kernel().name;
  }

  toAnnexB(payload: Uint8Array, lengthSize: 1 | 2 | 4): AnnexBUnit {
    return this.kernel().toAnnexB(payload, lengthSize);
  }
}
