// The WebAssembly kernels on Node (DESIGN 5): loads assemblyscript/build/frame-kernel.wasm, wraps
// it as a FrameKernel, and hands it to the receiver inside its CryptoKernels port when it loads
// and passes its self-test; otherwise the portable TypeScript kernel is used, and the log says why.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromHex, toHex } from '../../../src/bytes';
import { PairingError, withFrameKernel, type CryptoKernels, portableFrameKernel, type FrameKernel } from '../../../src/pairing';
import { portableCryptoKernels } from '../../../src/pairing/portable-crypto-kernels';
import type { Logger } from '../../../src/platform';
import { instantiateKernel } from './wasm-module';
import { describeError } from '../../../src/errors';

/** Where `npm run build:kernels` writes the frame kernel. */
export const FRAME_KERNEL_WASM = fileURLToPath(new URL('../../../assemblyscript/build/frame-kernel.wasm', import.meta.url));
/** The same kernel built without SIMD, for an engine or a CPU whose WebAssembly has none. */
export const FRAME_KERNEL_SCALAR_WASM = fileURLToPath(new URL('../../../assemblyscript/build/frame-kernel-scalar.wasm', import.meta.url));

const TAG_BYTES = 16;
const MAX_COUNTER = (1n << 64n) - 1n;

/** The exports of assemblyscript/frame-kernel.ts. */
interface FrameKernelExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  keyRegion(): number;
  nonceRegion(): number;
  aadRegion(): number;
  inputRegion(): number;
  outputRegion(): number;
  maxAad(): number;
  maxFrame(): number;
  setFrameCounter(counter: bigint): void;
  seal(aadLength: number, length: number): number;
  open(aadLength: number, length: number): number;
  chacha20Block(counter: number): void;
  chacha20(counter: number, length: number): number;
  poly1305(length: number): number;
}

const EXPORTED_FUNCTIONS = [
  'keyRegion',
  'nonceRegion',
  'aadRegion',
  'inputRegion',
  'outputRegion',
  'maxAad',
  'maxFrame',
  'setFrameCounter',
  'seal',
  'open',
  'chacha20Block',
  'chacha20',
  'poly1305',
] as const;

/**
 * The WebAssembly ChaCha20-Poly1305 of RFC 8439 with any 12-byte nonce: the AEAD (2.8) and its
 * parts (the block function of 2.3, the cipher of 2.4, Poly1305 of 2.5), each call copying its
 * inputs into the module's fixed regions and its result out. The frame kernel is built on it;
 * the parts are exported for the RFC's own vectors.
 */
export class WasmChaCha20Poly1305 {
  /** Most plaintext bytes in one call (one frame, spec 5.4). */
  readonly maxLength: number;
  /** Most AAD bytes in one call. */
  readonly maxAad: number;
  private readonly memory: Uint8Array;
  private readonly key: number;
  private readonly nonce: number;
  private readonly aad: number;
  private readonly input: number;
  private readonly output: number;
  /**
   * A view of OUTPUT's first bytes, kept while frames keep their size (a channel's are mostly
   * 1024 bytes): a new subarray of the module's memory per frame cost 3 to 7% of a 1 KB seal.
   */
  private outputView: Uint8Array = new Uint8Array(0);

  constructor(private readonly wasm: FrameKernelExports) {
    // The module's memory is fixed at one page (no allocator, maximum 1), so this view stays valid.
    this.memory = new Uint8Array(wasm.memory.buffer);
    this.key = wasm.keyRegion();
    this.nonce = wasm.nonceRegion();
    this.aad = wasm.aadRegion();
    this.input = wasm.inputRegion();
    this.output = wasm.outputRegion();
    this.maxAad = wasm.maxAad();
    this.maxLength = wasm.maxFrame();
  }

  /** Compiles and instantiates the module in `bytes` (synchronous: it is a few KB). */
  static fromBytes(bytes: Uint8Array): WasmChaCha20Poly1305 {
    return new WasmChaCha20Poly1305(instantiateKernel<FrameKernelExports>(bytes, EXPORTED_FUNCTIONS));
  }

  /** Reads and instantiates the module at `file` (default: the built frame kernel). */
  static fromFile(file = FRAME_KERNEL_WASM): WasmChaCha20Poly1305 {
    return WasmChaCha20Poly1305.fromBytes(readFileSync(file));
  }

  /** AEAD seal (2.8) under `key` and the 12-byte `nonce`: ciphertext || 16-byte tag. */
  seal(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array, output?: Uint8Array): Uint8Array {
    this.setKeyNonce(key, nonce);
    return this.sealAt(aad, plaintext, output);
  }

  /** AEAD open (2.8): the plaintext, or undefined when the tag does not match. */
  open(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array, output?: Uint8Array): Uint8Array | undefined {
    this.setKeyNonce(key, nonce);
    return this.openAt(aad, sealed, output);
  }

  /** The ChaCha20 block function (2.3): 64 bytes for `key`, block `counter` and `nonce`. */
  chacha20Block(key: Uint8Array, counter: number, nonce: Uint8Array): Uint8Array {
    this.setKeyNonce(key, nonce);
    this.wasm.chacha20Block(counter);
    return this.memory.slice(this.output, this.output + 64);
  }

  /** ChaCha20 encryption (2.4) of `data` from block `counter` (at most maxLength + 16 bytes). */
  chacha20(key: Uint8Array, counter: number, nonce: Uint8Array, data: Uint8Array): Uint8Array {
    if (data.length > this.maxLength + TAG_BYTES) throw new RangeError(`ChaCha20 of ${data.length} bytes: at most ${this.maxLength + TAG_BYTES} per call`);
    this.setKeyNonce(key, nonce);
    this.memory.set(data, this.input);
    this.wasm.chacha20(counter, data.length);
    return this.memory.slice(this.output, this.output + data.length);
  }

  /** Poly1305 (2.5) of `message` (at most maxLength + 16 bytes) under the 32-byte one-time `key`. */
  poly1305(key: Uint8Array, message: Uint8Array): Uint8Array {
    if (key.length !== 32) throw new RangeError(`Poly1305 key of ${key.length} bytes, not 32`);
    if (message.length > this.maxLength + TAG_BYTES) throw new RangeError(`Poly1305 of ${message.length} bytes: at most ${this.maxLength + TAG_BYTES} per call`);
    this.memory.set(key, this.key);
    this.memory.set(message, this.input);
    this.wasm.poly1305(message.length);
    return this.memory.slice(this.output, this.output + TAG_BYTES);
  }

  /** Copies the key in (the module wipes it after each call) and the frame nonce for `counter`. */
  setKeyCounter(key: Uint8Array, counter: bigint): void {
    if (key.length !== 32) throw new PairingError(`frame key of ${key.length} bytes, not 32`);
    if (counter < 0n || counter > MAX_COUNTER) throw new PairingError(`frame counter ${counter} is outside 0 to 2^64-1`);
    this.memory.set(key, this.key);
    // An i64 parameter takes the BigInt modulo 2^64: within range, exactly the counter.
    this.wasm.setFrameCounter(counter);
  }

  /** Seal with the key and nonce already in place. */
  sealAt(aad: Uint8Array, plaintext: Uint8Array, output?: Uint8Array): Uint8Array {
    this.checkLengths(aad, plaintext.length, 'plaintext');
    this.memory.set(aad, this.aad);
    this.memory.set(plaintext, this.input);
    this.wasm.seal(aad.length, plaintext.length);
    const size = plaintext.length + TAG_BYTES;
    const result = output !== undefined && output.length === size ? output : new Uint8Array(size);
    result.set(this.outputBytes(size));
    return result;
  }

  /** Open with the key and nonce already in place; undefined when the tag does not match. */
  openAt(aad: Uint8Array, sealed: Uint8Array, output?: Uint8Array): Uint8Array | undefined {
    if (sealed.length < TAG_BYTES) {
      this.wipeKey();
      return undefined;
    }
    this.checkLengths(aad, sealed.length - TAG_BYTES, 'ciphertext');
    this.memory.set(aad, this.aad);
    this.memory.set(sealed, this.input);
    if (this.wasm.open(aad.length, sealed.length) !== 1) return undefined;
    const size = sealed.length - TAG_BYTES;
    const result = output !== undefined && output.length === size ? output : new Uint8Array(size);
    result.set(this.outputBytes(size));
    return result;
  }

  /** OUTPUT's first `size` bytes, as a view that is only read, never handed out. */
  private outputBytes(size: number): Uint8Array {
    if (this.outputView.length !== size) this.outputView = this.memory.subarray(this.output, this.output + size);
    return this.outputView;
  }

  private setKeyNonce(key: Uint8Array, nonce: Uint8Array): void {
    if (key.length !== 32) throw new RangeError(`ChaCha20 key of ${key.length} bytes, not 32`);
    if (nonce.length !== 12) throw new RangeError(`ChaCha20 nonce of ${nonce.length} bytes, not 12`);
    this.memory.set(key, this.key);
    this.memory.set(nonce, this.nonce);
  }

  /** The module wipes its key region after each call; a call refused before reaching it does it here. */
  private wipeKey(): void {
    this.memory.fill(0, this.key, this.key + 32);
  }

  private checkLengths(aad: Uint8Array, length: number, what: string): void {
    if (aad.length <= this.maxAad && length <= this.maxLength) return;
    this.wipeKey();
    if (aad.length > this.maxAad) throw new RangeError(`AAD of ${aad.length} bytes: the WebAssembly kernel takes at most ${this.maxAad}`);
    if (length > this.maxLength) throw new RangeError(`${what} of ${length} bytes: the WebAssembly kernel takes one frame of at most ${this.maxLength}`);
  }
}

/**
 * The frame kernel (src/pairing/frame-kernel.ts) on the WebAssembly AEAD: the same nonce
 * (4 zero bytes || u64le counter), the same PairingErrors as the portable kernel. A control
 * frame holds at most 1024 bytes (spec 5.4), an audio packet's payload up to 16 KB: one call
 * takes the module's maxFrame(); longer input is a RangeError.
 */
export function createWasmFrameKernel(aead: WasmChaCha20Poly1305): FrameKernel {
  return {
    seal(key, counter, aad, plaintext, output) {
      aead.setKeyCounter(key, counter);
      return aead.sealAt(aad, plaintext, output);
    },
    open(key, counter, aad, sealed, output) {
      if (sealed.length < TAG_BYTES) throw new PairingError(`frame of ${sealed.length} bytes is shorter than its tag`);
      aead.setKeyCounter(key, counter);
      const plaintext = aead.openAt(aad, sealed, output);
      if (plaintext === undefined) throw new PairingError(`frame ${counter}: authentication tag does not match`);
      return plaintext;
    },
  };
}

// The self-test's known answer: the first single-frame vector of
// test/vectors/control-channel.json ("kernel"), made with Node's OpenSSL.
const SELF_TEST_KEY = 'c482ac574e8bf660e1f001efdef400cadd87e9be8be8bda69889bf67a5be00f3';
const SELF_TEST_AAD = '0100';
const SELF_TEST_PLAINTEXT = '91';
const SELF_TEST_SEALED = 'a56b7c9c3b1d7afab4a59c57fd501b0d52';

/**
 * Checks `kernel` before it carries real frames: the known-answer vector, then a full
 * 1024-byte frame at a counter above 2^32 sealed by each kernel and opened by the other
 * against the portable reference, and a tampered tag refused. Returns what failed, or
 * undefined when all passed.
 */
export function selfTestFrameKernel(kernel: FrameKernel): string | undefined {
  try {
    const key = fromHex(SELF_TEST_KEY);
    const aad = fromHex(SELF_TEST_AAD);
    const sealed = toHex(kernel.seal(key, 0n, aad, fromHex(SELF_TEST_PLAINTEXT)));
    if (sealed !== SELF_TEST_SEALED) return `seal of the known-answer vector gave ${sealed}`;
    const opened = toHex(kernel.open(key, 0n, aad, fromHex(SELF_TEST_SEALED)));
    if (opened !== SELF_TEST_PLAINTEXT) return `open of the known-answer vector gave ${opened}`;
    const frame = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7 + 3) & 0xff);
    const frameAad = Uint8Array.of(0x00, 0x04);
    const counter = (1n << 32n) + 5n;
    const reference = portableFrameKernel.seal(key, counter, frameAad, frame);
    if (toHex(kernel.seal(key, counter, frameAad, frame)) !== toHex(reference)) return 'seal of a 1024-byte frame differs from the portable kernel';
    if (toHex(kernel.open(key, counter, frameAad, reference)) !== toHex(frame)) return 'open of a 1024-byte frame differs from the portable kernel';
    reference[reference.length - 1] ^= 1;
    try {
      kernel.open(key, counter, frameAad, reference);
      return 'a tampered tag was accepted';
    } catch (error) {
      if (!(error instanceof PairingError)) throw error;
    }
    return undefined;
  } catch (error) {
    return `threw ${describeError(error)}`;
  }
}

/** What selectFrameKernel() chose: the kernel, the name the log gives it, and the port to pass. */
interface SelectedFrameKernel {
  readonly name: 'ours-wasm' | 'ours-ts';
  readonly kernel: FrameKernel;
  /** The portable kernels with this frame kernel: ReceiverPorts.crypto. */
  readonly crypto: CryptoKernels;
}

/** The environment variable that forces the portable kernel: VENDORPLAY_FRAME_KERNEL=ours-ts. */
export const FRAME_KERNEL_ENV = 'VENDORPLAY_FRAME_KERNEL';

/** A build of the module at `file` that loaded and passed its self-test, or why not. */
type LoadedFrameKernel = { readonly kernel: FrameKernel } | { readonly level: 'info' | 'warn'; readonly reason: string };

function loadFrameKernel(file: string): LoadedFrameKernel {
  let kernel: FrameKernel;
  try {
    kernel = createWasmFrameKernel(WasmChaCha20Poly1305.fromFile(file));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { level: missing ? 'info' : 'warn', reason: `${file}: ${missing ? 'not built (npm run build:kernels)' : (error as Error).message}` };
  }
  const failure = selfTestFrameKernel(kernel);
  return failure === undefined ? { kernel } : { level: 'warn', reason: `${file} failed its self-test: ${failure}` };
}

/**
 * Chooses the channel's frame kernel: the WebAssembly one with SIMD (`file`) when it loads and
 * passes selfTestFrameKernel(); else the same built without SIMD (`scalarFile`: an engine, or a
 * CPU without SSE4.1 under V8, compiles no SIMD); else the portable one, also when `choice`
 * (default: the VENDORPLAY_FRAME_KERNEL environment variable) is `ours-ts`. It is not timed at
 * start: the channel benchmark (`npm run bench -- channel`) has the SIMD build about 5 times
 * faster per 1 KB frame than node:crypto (whose cost is a cipher object per frame) and 1.5 to 2
 * times the build without SIMD, and that several times the portable kernel, so loading and being
 * correct are the whole rule. Logs one line naming the kernel in use.
 */
export function selectFrameKernel(log: Logger, options: { file?: string; scalarFile?: string; choice?: string } = {}): SelectedFrameKernel {
  const file = options.file ?? FRAME_KERNEL_WASM;
  const scalarFile = options.scalarFile ?? FRAME_KERNEL_SCALAR_WASM;
  const choice = options.choice ?? process.env[FRAME_KERNEL_ENV] ?? '';
  const portable = (level: 'info' | 'warn', reason: string): SelectedFrameKernel => {
    log(level, `frame kernel: ours-ts (portable TypeScript); ${reason}`);
    return { name: 'ours-ts', kernel: portableFrameKernel, crypto: portableCryptoKernels };
  };
  if (choice === 'ours-ts') return portable('info', `${FRAME_KERNEL_ENV}=ours-ts`);
  if (choice !== '' && choice !== 'ours-wasm') return portable('warn', `${FRAME_KERNEL_ENV}=${choice} is not ours-wasm or ours-ts`);
  const wasm = (kernel: FrameKernel, level: 'info' | 'warn', line: string): SelectedFrameKernel => {
    log(level, `frame kernel: ours-wasm ${line}`);
    return { name: 'ours-wasm', kernel, crypto: withFrameKernel(portableCryptoKernels, kernel, 'noble+ours-wasm') };
  };
  const simd = loadFrameKernel(file);
  if ('kernel' in simd) return wasm(simd.kernel, 'info', `(${file})`);
  const scalar = loadFrameKernel(scalarFile);
  if ('kernel' in scalar) return wasm(scalar.kernel, simd.level, `(${scalarFile}, without SIMD); ${simd.reason}`);
  return portable(simd.level, scalar.level === 'info' ? simd.reason : `${simd.reason}; ${scalar.reason}`);
}
