// The encrypted channel's benchmarks (spec 5.4), `npm run -s bench -- channel`:
//
// - `channel.kernel` (channel-kernels.bench.ts): each frame kernel on 1 KB frames, one at a time
//   and 64 KB through one ControlChannel call, beside `openssl speed`;
// - `channel.frame-size`: one frame opened again and again, by the WebAssembly kernel and by
//   node:crypto (a createDecipheriv per frame), at sizes from a small RTSP message to a 16 KB
//   audio payload: where node:crypto's fixed cost per call is paid back by OpenSSL's speed per
//   byte, if anywhere in the sizes the protocol sends (control frames carry at most 1024 bytes,
//   spec 5.4; a realtime audio packet's payload about 1.4 KB). Microseconds of CPU time per frame,
//   with the plaintext array each open allocates, as the channel's open does.

import { createDecipheriv, randomBytes } from 'node:crypto';
import { equal } from '../../src/bytes';
import type { FrameKernel } from '../../src/pairing/frame-kernel';
import { createWasmFrameKernel, FRAME_KERNEL_WASM, WasmChaCha20Poly1305 } from '../../hosts/node/kernels/kernels';
import { cpuMicrosecondsPerCall, runChannelKernelBench } from './channel-kernels.bench';
import { ratioFigure, report, spreadFields, verify } from './measure';

const ROUNDS = 5;
const FRAME_SIZES = [64, 256, 1024, 4096, 16_000];

export function runChannelBench(): void {
  runChannelKernelBench();
  // `npm run bench` builds the module first; without it the frame sizes are left out, and said so.
  let wasmKernel: FrameKernel;
  try {
    wasmKernel = createWasmFrameKernel(WasmChaCha20Poly1305.fromFile());
  } catch (error) {
    report({ bench: 'channel.frame-size', lib: 'ours-wasm-kernel', skipped: `${FRAME_KERNEL_WASM}: ${(error as Error).message}` });
    return;
  }
  frameSizes(wasmKernel, new Uint8Array(randomBytes(32)));
}

/** Microseconds to open one frame of each size: the WebAssembly kernel against node:crypto per frame. */
function frameSizes(wasmKernel: FrameKernel, key: Uint8Array): void {
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
    const microseconds: Record<'ours-wasm-kernel' | 'node-crypto-per-frame', number[]> = { 'ours-wasm-kernel': [], 'node-crypto-per-frame': [] };
    // Rounds alternate, so each pair saw the same machine.
    for (let round = 0; round < ROUNDS; round++) {
      microseconds['ours-wasm-kernel'].push(cpuMicrosecondsPerCall(wasm, 100));
      microseconds['node-crypto-per-frame'].push(cpuMicrosecondsPerCall(nodeCrypto, 100));
    }
    for (const [lib, us] of Object.entries(microseconds)) report({ bench: 'channel.frame-size', lib, clock: 'process CPU time', ...spreadFields('usPerFrame', us, 2), frameBytes: size });
    report({ bench: 'channel.frame-size', of: 'ours-wasm-kernel/node-crypto-per-frame time per frame (below 1: ours is faster)', ...ratioFigure(microseconds['ours-wasm-kernel'], microseconds['node-crypto-per-frame']), frameBytes: size });
  }
}
