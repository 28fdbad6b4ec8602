// The frame kernels one by one first (channel-kernels.bench.ts: `channel.kernel`). Then the
// control channel (spec 5.4) decrypt throughput: our framed channel opening 1 MB of 1024-byte
// frames, with the portable TypeScript kernel and with the WebAssembly kernel (assemblyscript/,
// as the Node host installs it), against two baselines named for what they measure:
//
// - `node-crypto-per-frame`: node:crypto opening the same frames one createDecipheriv call each,
//   as a Node program using the library would. It measures node:crypto's per-call cost at least
//   as much as OpenSSL's cipher (1 KB frames are small).
// - `openssl-speed`: `openssl speed -evp chacha20-poly1305 -decrypt -aead -bytes 1024`, OpenSSL
//   itself opening 1 KB records in C with no per-call JavaScript: the batched ceiling.
//
// Every implementation's plaintext is checked against the original bytes before timing; each
// round opens the whole stream again (a fresh channel: frame counters start at 0).
//
// Then `channel.frame-size`: one frame opened again and again, by the WebAssembly kernel and by
// node:crypto (a createDecipheriv per frame), at sizes from a small RTSP message to a 16 KB
// audio payload: where node:crypto's fixed cost per call is paid back by OpenSSL's speed per
// byte, if anywhere in the sizes the protocol sends (control frames carry at most 1024 bytes,
// spec 5.4; a realtime audio packet's payload about 1.4 KB).

import { execFileSync } from 'node:child_process';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { equal } from '../../src/bytes';
import { createControlChannel, createSenderChannel } from '../../src/pairing/channel';
import { withFrameKernel } from '../../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { portableFrameKernel, type FrameKernel } from '../../src/pairing/frame-kernel';
import { PAIRING_HKDF, derivePairingKey } from '../../src/pairing/hkdf';
import { createWasmFrameKernel, FRAME_KERNEL_WASM, WasmChaCha20Poly1305 } from '../../hosts/node/kernels/kernels';
import { runChannelKernelBench } from './channel-kernels.bench';
import { compare, ratioFigure, report, spreadFields, verify } from './measure';

const TOTAL_BYTES = 1024 * 1024;
const FRAME = 1024;
const ROUNDS = 5;

/** OpenSSL's own 1 KB chacha20-poly1305 decrypt rate (bytes/s), or undefined without openssl. */
function opensslSpeed(): number | undefined {
  let out: string;
  try {
    out = execFileSync('openssl', ['speed', '-evp', 'chacha20-poly1305', '-decrypt', '-aead', '-bytes', String(FRAME), '-seconds', '1', '-mr'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return undefined;
  }
  // -mr: `+F:<n>:<cipher>:<bytes per second>`.
  const match = /^\+F:\d+:[^:]+:([0-9.]+)$/m.exec(out);
  return match ? Number(match[1]) : undefined;
}

export function runChannelBench(): void {
  runChannelKernelBench();
  const shared = new Uint8Array(randomBytes(64));
  const plaintext = new Uint8Array(randomBytes(TOTAL_BYTES));
  const framed = createSenderChannel(shared, portableCryptoKernels).seal(plaintext);
  const frames = TOTAL_BYTES / FRAME;
  const key = Buffer.from(derivePairingKey(shared, PAIRING_HKDF.ControlWrite, 32, portableCryptoKernels));
  const framedBuffer = Buffer.from(framed);
  const nonce = Buffer.alloc(12);

  // `npm run bench` builds the module first; without it the wasm figures are left out, and said so.
  let wasmKernel: FrameKernel | undefined;
  try {
    wasmKernel = createWasmFrameKernel(WasmChaCha20Poly1305.fromFile());
  } catch (error) {
    report({ bench: 'channel.open', lib: 'ours-wasm-kernel', skipped: `${FRAME_KERNEL_WASM}: ${(error as Error).message}` });
  }
  const open = (kernel: FrameKernel) => createControlChannel(shared, withFrameKernel(portableCryptoKernels, kernel)).open(framed);
  const nodeCryptoPerFrame = (): Buffer[] => {
    const out: Buffer[] = [];
    let offset = 0;
    for (let counter = 0; counter < frames; counter++) {
      const length = framedBuffer.readUInt16LE(offset);
      nonce.writeUInt32LE(counter, 4);
      const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
      decipher.setAAD(framedBuffer.subarray(offset, offset + 2), { plaintextLength: length });
      decipher.setAuthTag(framedBuffer.subarray(offset + 2 + length, offset + 18 + length));
      out.push(decipher.update(framedBuffer.subarray(offset + 2, offset + 2 + length)));
      decipher.final();
      offset += 18 + length;
    }
    return out;
  };

  // The plaintext, not just a frame count: a wrong key stream would pass a count.
  const joined = (parts: Uint8Array[]) => Buffer.concat(parts.map((part) => Buffer.from(part.buffer, part.byteOffset, part.byteLength)));
  verify(equal(joined(open(portableFrameKernel)), plaintext), 'ours-ts-kernel plaintext');
  if (wasmKernel) verify(equal(joined(open(wasmKernel)), plaintext), 'ours-wasm-kernel plaintext');
  verify(equal(joined(nodeCryptoPerFrame()), plaintext), 'node-crypto-per-frame plaintext');

  const fns: Record<string, () => unknown> = { 'ours-ts-kernel': () => open(portableFrameKernel), 'node-crypto-per-frame': nodeCryptoPerFrame };
  if (wasmKernel) fns['ours-wasm-kernel'] = () => open(wasmKernel);
  // Rounds alternate with one run of openssl speed each, so every pair saw the same machine.
  const megabytesPerSec: Record<string, number[]> = {};
  const openssl: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [rate]] of Object.entries(compare(fns, 1, 400))) (megabytesPerSec[name] ??= []).push((rate * TOTAL_BYTES) / (1024 * 1024));
    const speed = opensslSpeed();
    if (speed !== undefined) openssl.push(speed / (1024 * 1024));
  }
  const common = { bytes: TOTAL_BYTES, frameBytes: FRAME };
  for (const [lib, values] of Object.entries(megabytesPerSec)) report({ bench: 'channel.open', lib, ...spreadFields('mbPerSec', values, 1), ...common });
  const ours = megabytesPerSec['ours-ts-kernel'];
  report({ bench: 'channel.open', of: 'ours-ts-kernel/node-crypto-per-frame', ...ratioFigure(ours, megabytesPerSec['node-crypto-per-frame']), ...common });
  if (wasmKernel) {
    const wasm = megabytesPerSec['ours-wasm-kernel'];
    report({ bench: 'channel.open', of: 'ours-wasm-kernel/node-crypto-per-frame', ...ratioFigure(wasm, megabytesPerSec['node-crypto-per-frame']), ...common });
    report({ bench: 'channel.open', of: 'ours-wasm-kernel/ours-ts-kernel', ...ratioFigure(wasm, ours), ...common });
  }
  if (openssl.length !== ROUNDS) {
    report({ bench: 'channel.open', lib: 'openssl-speed', skipped: 'openssl speed did not run (is openssl installed?)' });
    return;
  }
  // openssl speed divides by the time it measured (its own CPU time on Linux): a ceiling.
  report({ bench: 'channel.open', lib: 'openssl-speed', ...spreadFields('mbPerSec', openssl, 1), ...common });
  const best = wasmKernel ? 'ours-wasm-kernel' : 'ours-ts-kernel';
  report({ bench: 'channel.open', of: `${best}/openssl-speed`, ...ratioFigure(megabytesPerSec[best], openssl), ...common });
  if (wasmKernel) frameSizes(wasmKernel, key);
}

const FRAME_SIZES = [64, 256, 1024, 4096, 16_000];

/** Microseconds to open one frame of each size: the WebAssembly kernel against node:crypto per frame. */
function frameSizes(wasmKernel: FrameKernel, key: Buffer): void {
  const aad = Buffer.alloc(2);
  const nonce = Buffer.alloc(12);
  const counter = 7n;
  nonce.writeUInt32LE(Number(counter), 4);
  for (const size of FRAME_SIZES) {
    const plaintext = new Uint8Array(randomBytes(size));
    const sealed = Buffer.from(wasmKernel.seal(key, counter, aad, plaintext));
    const nodeCrypto = (): Buffer => {
      const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
      decipher.setAAD(aad, { plaintextLength: size });
      decipher.setAuthTag(sealed.subarray(size));
      const opened = decipher.update(sealed.subarray(0, size));
      decipher.final();
      return opened;
    };
    const wasm = () => wasmKernel.open(key, counter, aad, sealed);
    verify(equal(new Uint8Array(nodeCrypto()), plaintext) && equal(wasm(), plaintext), `both open the ${size}-byte frame to its plaintext`);
    const rates = compare({ 'ours-wasm-kernel': wasm, 'node-crypto-per-frame': nodeCrypto }, ROUNDS, 100);
    const microseconds = (perSecond: number[]) => perSecond.map((rate) => 1e6 / rate);
    for (const [lib, perSecond] of Object.entries(rates)) report({ bench: 'channel.frame-size', lib, ...spreadFields('usPerFrame', microseconds(perSecond), 2), frameBytes: size });
    report({ bench: 'channel.frame-size', of: 'ours-wasm-kernel/node-crypto-per-frame time per frame (below 1: ours is faster)', ...ratioFigure(microseconds(rates['ours-wasm-kernel']), microseconds(rates['node-crypto-per-frame'])), frameBytes: size });
  }
}
