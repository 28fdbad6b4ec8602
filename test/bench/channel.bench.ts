// Control channel (spec 5.4) decrypt throughput: our framed channel with the portable TypeScript
// kernel and with the WebAssembly kernel (assemblyscript/, as the Node host installs it) against
// Node's own chacha20-poly1305 (OpenSSL) opening the same 1 MB of 1024-byte frames, in one run,
// reported as MB/s and as ratios (below 1 means slower).

import { createDecipheriv, randomBytes } from 'node:crypto';
import { createControlChannel, createSenderChannel } from '../../src/pairing/channel';
import { portableCryptoKernels, withFrameKernel } from '../../src/pairing/crypto-kernels';
import type { FrameKernel } from '../../src/pairing/frame-kernel';
import { PAIRING_HKDF, derivePairingKey } from '../../src/pairing/hkdf';
import { createWasmFrameKernel, FRAME_KERNEL_WASM, WasmChaCha20Poly1305 } from '../../hosts/node/kernels';
import { compare, report, round } from './measure';

const TOTAL_BYTES = 1024 * 1024;
const FRAME = 1024;

export function runChannelBench(): void {
  const shared = new Uint8Array(randomBytes(64));
  const framed = createSenderChannel(shared).seal(new Uint8Array(randomBytes(TOTAL_BYTES)));
  const frames = TOTAL_BYTES / FRAME;
  const key = Buffer.from(derivePairingKey(shared, PAIRING_HKDF.ControlWrite));
  const framedBuffer = Buffer.from(framed);
  const nonce = Buffer.alloc(12);

  // Each round opens the whole stream from counter 0, so each needs a fresh channel (one HKDF).
  const ours = () => {
    const opened = createControlChannel(shared, portableCryptoKernels).open(framed);
    if (opened.length !== frames) throw new Error('ours: lost frames');
  };
  // `npm run bench` builds the module first; without it the wasm figures are left out, and said so.
  let wasmKernel: FrameKernel | undefined;
  try {
    wasmKernel = createWasmFrameKernel(WasmChaCha20Poly1305.fromFile());
  } catch (error) {
    report({ bench: 'channel.open', lib: 'ours-wasm-kernel', skipped: `${FRAME_KERNEL_WASM}: ${(error as Error).message}` });
  }
  const oursWasm = () => {
    const opened = createControlChannel(shared, withFrameKernel(portableCryptoKernels, wasmKernel!)).open(framed);
    if (opened.length !== frames) throw new Error('ours-wasm: lost frames');
  };
  const openssl = () => {
    let offset = 0;
    for (let counter = 0; counter < frames; counter++) {
      const length = framedBuffer.readUInt16LE(offset);
      nonce.writeUInt32LE(counter, 4);
      const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
      decipher.setAAD(framedBuffer.subarray(offset, offset + 2), { plaintextLength: length });
      decipher.setAuthTag(framedBuffer.subarray(offset + 2 + length, offset + 18 + length));
      decipher.update(framedBuffer.subarray(offset + 2, offset + 2 + length));
      decipher.final();
      offset += 18 + length;
    }
  };
  const rates = compare({ ours, 'node-openssl': openssl, ...(wasmKernel && { 'ours-wasm': oursWasm }) }, 5, 400);
  const common = { bytes: TOTAL_BYTES, frameBytes: FRAME };
  const megabytes = TOTAL_BYTES / (1024 * 1024);
  report({ bench: 'channel.open', lib: 'ours-ts-kernel', mbPerSec: round(rates.ours * megabytes, 1), ...common });
  report({ bench: 'channel.open', lib: 'node-openssl', mbPerSec: round(rates['node-openssl'] * megabytes, 1), ...common });
  report({ bench: 'channel.open', ratio: round(rates.ours / rates['node-openssl']), of: 'ours/node-openssl', ...common });
  if (wasmKernel) {
    report({ bench: 'channel.open', lib: 'ours-wasm-kernel', mbPerSec: round(rates['ours-wasm'] * megabytes, 1), ...common });
    report({ bench: 'channel.open', ratio: round(rates['ours-wasm'] / rates['node-openssl']), of: 'ours-wasm/node-openssl', ...common });
    report({ bench: 'channel.open', ratio: round(rates['ours-wasm'] / rates.ours), of: 'ours-wasm/ours-ts', ...common });
  }
}
