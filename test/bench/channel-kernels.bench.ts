// The channel's frame kernels side by side (spec 5.4: frames of up to 1024 bytes, the 2 length
// bytes as AAD, a 64-bit counter as the nonce), in one run with alternating rounds, against
// OpenSSL in C:
//
// - `ours-wasm-simd`: the Node host's kernel (assemblyscript/build/frame-kernel.wasm, ChaCha20 on
//   four blocks at once in v128 lanes), as hosts/node/kernels/kernels.ts wraps it; the
//   `hostKernel` line gives the host's own log line for this machine.
// - `ours-wasm-scalar`: the same module built without SIMD (frame-kernel-scalar.wasm), the host's
//   fallback where WebAssembly has no SIMD.
// - `node-crypto`: node:crypto's createCipheriv('chacha20-poly1305'), one cipher object per frame
//   (node:crypto takes a nonce only at creation), the nonce buffer reused.
// - `ours-ts`: the portable kernel (@noble/ciphers), what Moddable runs without its native.
//
// Workloads, each timed as microseconds of CPU time per 1024-byte frame (the process's user +
// system time, as openssl speed counts its own):
// - `frame`: one frame sealed (or opened) per call, through the FrameKernel contract;
// - `batch`: 64 KB sealed by one ControlChannel.seal call (64 frames with their length bytes), and
//   those frames opened by one ControlChannel.open call: the channel's own loop around the kernel;
//   node-crypto-loop is the same 64 frames in a hand-written loop with no channel and no FrameKernel
//   (one output buffer, the nonce and cipher options reused): node:crypto's floor on Node;
// - `module`: the WebAssembly seal with the frame already in the module's memory, no JavaScript
//   copies around it: what the module itself costs, the floor of any batching on our side.
//
// The baseline, `openssl-speed-aead`, is `openssl speed -evp chacha20-poly1305 -aead -bytes 1024`
// (and `-decrypt` for open): OpenSSL's C code on 1 KB records, each with its own nonce, a 13-byte
// AAD and a tag, as TLS does. Raw AEAD throughput: no framing, no JavaScript, no copies; on Linux it
// divides by its own CPU time. A ceiling, not a like-for-like figure.
//
// Before anything is timed, each kernel passes RFC 8439 2.8.2 and agrees byte for byte with the
// others on the frame and the 64 KB message; the run stops if one does not.

import { execFileSync } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { equal, fromHex, toHex } from '../../src/bytes';
import { ControlChannel } from '../../src/pairing/channel';
import { PairingError } from '../../src/pairing/errors';
import { portableFrameKernel, setNonceCounter, type FrameKernel } from '../../src/pairing/frame-kernel';
import { createWasmFrameKernel, FRAME_KERNEL_SCALAR_WASM, FRAME_KERNEL_WASM, selectFrameKernel, WasmChaCha20Poly1305 } from '../../hosts/node/kernels/kernels';
import { instantiateKernel } from '../../hosts/node/kernels/wasm-module';
import { ratioFigure, report, spreadFields, verify } from './measure';

const FRAME = 1024;
const BATCH_FRAMES = 64;
const TAG = 16;
const ROUNDS = 7;
const MS_PER_ROUND = 150;

/** The exports of assemblyscript/frame-kernel.ts the module-only figure calls. */
interface FrameKernelModule {
  readonly memory: { readonly buffer: ArrayBuffer };
  keyRegion(): number;
  aadRegion(): number;
  inputRegion(): number;
  outputRegion(): number;
  setFrameCounter(counter: bigint): void;
  seal(aadLength: number, length: number): number;
}

/** A FrameKernel on node:crypto: a cipher object per frame, the nonce buffer reused. */
function createNodeCryptoFrameKernel(): FrameKernel {
  const nonce = Buffer.alloc(12);
  return {
    seal(key, counter, aad, plaintext, output) {
      setNonceCounter(nonce, counter);
      const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
      cipher.setAAD(aad, { plaintextLength: plaintext.length });
      const body = cipher.update(plaintext);
      cipher.final();
      const result = output !== undefined && output.length === plaintext.length + TAG ? output : new Uint8Array(plaintext.length + TAG);
      result.set(body, 0);
      result.set(cipher.getAuthTag(), plaintext.length);
      return result;
    },
    open(key, counter, aad, sealed, output) {
      if (sealed.length < TAG) throw new PairingError(`frame of ${sealed.length} bytes is shorter than its tag`);
      const length = sealed.length - TAG;
      setNonceCounter(nonce, counter);
      const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
      decipher.setAAD(aad, { plaintextLength: length });
      decipher.setAuthTag(sealed.subarray(length));
      const body = decipher.update(sealed.subarray(0, length));
      try {
        decipher.final();
      } catch {
        throw new PairingError(`frame ${counter}: authentication tag does not match`);
      }
      const result = output !== undefined && output.length === length ? output : new Uint8Array(length);
      result.set(body, 0);
      return result;
    },
  };
}

/** RFC 8439 2.8.2 (the AEAD on the sunscreen text): every kernel is checked against it before timing. */
const RFC8439_AEAD = {
  key: '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f',
  nonce: '070000004041424344454647',
  aad: '50515253c0c1c2c3c4c5c6c7',
  plaintext: Buffer.from("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.", 'latin1').toString('hex'),
  sealed:
    'd31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b' +
    '1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc' +
    '3ff4def08e4b7a9de576d26586cec64b6116' +
    '1ae10b594f09e26a7e902ecbd0600691',
};

/** Seals and opens the RFC vector with any-nonce `seal`/`open`, and refuses it with a flipped bit. */
function checkRfc8439(name: string, seal: (key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array) => Uint8Array, open: (key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array) => Uint8Array | undefined): void {
  const [key, nonce, aad, plaintext] = [RFC8439_AEAD.key, RFC8439_AEAD.nonce, RFC8439_AEAD.aad, RFC8439_AEAD.plaintext].map((hex) => fromHex(hex));
  const sealed = seal(key, nonce, aad, plaintext);
  verify(toHex(sealed) === RFC8439_AEAD.sealed, `${name} seals RFC 8439 2.8.2`);
  verify(toHex(open(key, nonce, aad, sealed) ?? new Uint8Array()) === RFC8439_AEAD.plaintext, `${name} opens RFC 8439 2.8.2`);
  sealed[0] ^= 1;
  verify(open(key, nonce, aad, sealed) === undefined, `${name} refuses RFC 8439 2.8.2 with a flipped bit`);
}

function nodeCryptoOpenAny(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array | undefined {
  const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
  decipher.setAAD(aad, { plaintextLength: sealed.length - TAG });
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  const body = decipher.update(sealed.subarray(0, sealed.length - TAG));
  try {
    decipher.final();
  } catch {
    return undefined;
  }
  return new Uint8Array(body);
}

function nodeCryptoSealAny(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
  cipher.setAAD(aad, { plaintextLength: plaintext.length });
  const body = cipher.update(plaintext);
  cipher.final();
  return new Uint8Array(Buffer.concat([body, cipher.getAuthTag()]));
}

/**
 * Microseconds of this process's CPU time (user + system) per call of `fn`, over about `ms` ms
 * after a warm-up: the clock openssl speed divides by on Linux, so the ratio to it holds on a
 * machine other work is sharing (wall-clock time would count the other work against us alone).
 */
export function cpuMicrosecondsPerCall(fn: () => unknown, ms: number): number {
  const warmUntil = performance.now() + ms / 4;
  while (performance.now() < warmUntil) fn();
  let calls = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 16; i++) fn();
    calls += 16;
  }
  const cpu = process.cpuUsage(cpuStart);
  return (cpu.user + cpu.system) / calls;
}

/** OpenSSL's 1 KB chacha20-poly1305 AEAD rate in MB/s (`-decrypt` for open), or undefined without openssl. */
function opensslSpeedAead(direction: 'seal' | 'open'): number | undefined {
  const args = ['speed', '-evp', 'chacha20-poly1305', '-aead', '-bytes', String(FRAME), '-seconds', '1', '-mr'];
  if (direction === 'open') args.push('-decrypt');
  let out: string;
  try {
    out = execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return undefined;
  }
  // -mr: `+F:<n>:<cipher>:<bytes per second>`.
  const match = /^\+F:\d+:[^:]+:([0-9.]+)$/m.exec(out);
  return match ? Number(match[1]) / (1024 * 1024) : undefined;
}

/** The 64 frames of `plaintext` sealed in a plain loop on node:crypto, into one output buffer. */
function nodeCryptoSealLoop(key: Uint8Array, plaintext: Uint8Array, output: Uint8Array, nonce: Buffer, options: { authTagLength: number }): void {
  let position = 0;
  for (let counter = 0, start = 0; start < plaintext.length; counter++, start += FRAME) {
    const length = Math.min(FRAME, plaintext.length - start);
    output[position] = length & 0xff;
    output[position + 1] = length >>> 8;
    nonce.writeUInt32LE(counter, 4);
    const cipher = createCipheriv('chacha20-poly1305', key, nonce, options);
    cipher.setAAD(output.subarray(position, position + 2), { plaintextLength: length });
    output.set(cipher.update(plaintext.subarray(start, start + length)), position + 2);
    cipher.final();
    output.set(cipher.getAuthTag(), position + 2 + length);
    position += 2 + length + TAG;
  }
}

/** The frames of `framed` opened in a plain loop on node:crypto: their plaintexts. */
function nodeCryptoOpenLoop(key: Uint8Array, framed: Uint8Array, nonce: Buffer, options: { authTagLength: number }): Buffer[] {
  const plaintexts: Buffer[] = [];
  for (let counter = 0, position = 0; position < framed.length; counter++) {
    const length = framed[position] | (framed[position + 1] << 8);
    nonce.writeUInt32LE(counter, 4);
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce, options);
    decipher.setAAD(framed.subarray(position, position + 2), { plaintextLength: length });
    decipher.setAuthTag(framed.subarray(position + 2 + length, position + 2 + length + TAG));
    plaintexts.push(decipher.update(framed.subarray(position + 2, position + 2 + length)));
    decipher.final();
    position += 2 + length + TAG;
  }
  return plaintexts;
}

export function runChannelKernelBench(): void {
  const kernels: Record<string, FrameKernel> = {};
  const modules: Record<string, WasmChaCha20Poly1305> = {};
  const moduleFiles: Record<string, string> = {};
  for (const [name, file] of [['ours-wasm-simd', FRAME_KERNEL_WASM], ['ours-wasm-scalar', FRAME_KERNEL_SCALAR_WASM]] as const) {
    if (!existsSync(file)) {
      report({ bench: 'channel.kernel', lib: name, skipped: `${file}: not built (npm run build:kernels)` });
      continue;
    }
    moduleFiles[name] = file;
    modules[name] = WasmChaCha20Poly1305.fromFile(file);
    kernels[name] = createWasmFrameKernel(modules[name]);
  }
  // What the Node host runs on this machine, in the words of its log line.
  const choice: string[] = [];
  selectFrameKernel((_level, message) => void choice.push(message), { choice: '' });
  report({ bench: 'channel.kernel', hostKernel: choice.join('; ') });
  kernels['node-crypto'] = createNodeCryptoFrameKernel();
  kernels['ours-ts'] = portableFrameKernel;

  for (const [name, aead] of Object.entries(modules)) checkRfc8439(name, (...args) => aead.seal(...args), (...args) => aead.open(...args));
  checkRfc8439('node-crypto', nodeCryptoSealAny, nodeCryptoOpenAny);
  checkRfc8439('ours-ts', (key, nonce, aad, plaintext) => chacha20poly1305(key, nonce, aad).encrypt(plaintext), (key, nonce, aad, sealed) => {
    try {
      return chacha20poly1305(key, nonce, aad).decrypt(sealed);
    } catch {
      return undefined;
    }
  });

  // One frame: every kernel seals it to the same bytes and opens it back.
  const key = new Uint8Array(randomBytes(32));
  const frame = new Uint8Array(randomBytes(FRAME));
  const aad = Uint8Array.of(FRAME & 0xff, FRAME >>> 8);
  const counter = (1n << 32n) + 3n;
  const sealedFrame = portableFrameKernel.seal(key, counter, aad, frame);
  for (const [name, kernel] of Object.entries(kernels)) {
    verify(equal(kernel.seal(key, counter, aad, frame), sealedFrame), `${name} seals the 1 KB frame as the others`);
    verify(equal(kernel.open(key, counter, aad, sealedFrame), frame), `${name} opens the 1 KB frame`);
  }

  // 64 KB as one channel message: the same framed bytes from every kernel and from the plain loop.
  const message = new Uint8Array(randomBytes(FRAME * BATCH_FRAMES));
  const framed = new ControlChannel(key, key, portableFrameKernel).seal(message);
  const loopNonce = Buffer.alloc(12);
  const loopOptions = { authTagLength: TAG };
  const loopOutput = new Uint8Array(framed.length);
  nodeCryptoSealLoop(key, message, loopOutput, loopNonce, loopOptions);
  verify(equal(loopOutput, framed), 'node-crypto-loop seals the 64 KB message as the channel');
  verify(equal(Buffer.concat(nodeCryptoOpenLoop(key, framed, loopNonce, loopOptions)), message), 'node-crypto-loop opens the 64 KB message');
  for (const [name, kernel] of Object.entries(kernels)) {
    verify(equal(new ControlChannel(key, key, kernel).seal(message), framed), `${name} seals the 64 KB message as the others`);
    verify(equal(Buffer.concat(new ControlChannel(key, key, kernel).open(framed)), message), `${name} opens the 64 KB message`);
  }

  // The timed functions. A frame's output array is reused, as the channel passes one.
  const sealOutput = new Uint8Array(FRAME + TAG);
  const openOutput = new Uint8Array(FRAME);
  let next = 0n;
  const fns: Record<string, () => unknown> = {};
  for (const [name, kernel] of Object.entries(kernels)) {
    fns[`frame.seal/${name}`] = () => kernel.seal(key, next++, aad, frame, sealOutput);
    fns[`frame.open/${name}`] = () => kernel.open(key, counter, aad, sealedFrame, openOutput);
    fns[`batch.seal/${name}`] = () => new ControlChannel(key, key, kernel).seal(message);
    fns[`batch.open/${name}`] = () => new ControlChannel(key, key, kernel).open(framed);
  }
  fns['batch.seal/node-crypto-loop'] = () => nodeCryptoSealLoop(key, message, loopOutput, loopNonce, loopOptions);
  fns['batch.open/node-crypto-loop'] = () => nodeCryptoOpenLoop(key, framed, loopNonce, loopOptions);
  for (const [name, file] of Object.entries(moduleFiles)) {
    // The frame is copied into the module once; each call seals it where it is (the module wipes
    // the key after every call, so the key goes back in first: 32 bytes, as the frame kernel does).
    const wasm = instantiateKernel<FrameKernelModule>(readFileSync(file), ['keyRegion', 'aadRegion', 'inputRegion', 'outputRegion', 'setFrameCounter', 'seal']);
    const memory = new Uint8Array(wasm.memory.buffer);
    memory.set(aad, wasm.aadRegion());
    memory.set(frame, wasm.inputRegion());
    const sealInPlace = () => {
      memory.set(key, wasm.keyRegion());
      wasm.setFrameCounter(counter);
      return wasm.seal(aad.length, FRAME);
    };
    sealInPlace();
    verify(equal(memory.subarray(wasm.outputRegion(), wasm.outputRegion() + FRAME + TAG), sealedFrame), `${name} seals the frame in its memory`);
    fns[`module.seal/${name}`] = sealInPlace;
  }

  // Rounds alternate through every function, then run openssl once each way, so every round's
  // figures saw the same machine.
  const usPerFrame: Record<string, number[]> = {};
  const openssl: Record<'seal' | 'open', number[]> = { seal: [], open: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      const frames = name.startsWith('batch.') ? BATCH_FRAMES : 1;
      (usPerFrame[name] ??= []).push(cpuMicrosecondsPerCall(fn, MS_PER_ROUND) / frames);
    }
    for (const direction of ['seal', 'open'] as const) {
      const speed = opensslSpeedAead(direction);
      if (speed !== undefined) openssl[direction].push(speed);
    }
  }

  const megabytesPerSec = (values: readonly number[]) => values.map((us) => FRAME / us / 1.048576);
  const hasOpenssl = openssl.seal.length === ROUNDS && openssl.open.length === ROUNDS;
  if (!hasOpenssl) report({ bench: 'channel.kernel', lib: 'openssl-speed-aead', skipped: 'openssl speed did not run (is openssl installed?)' });
  else {
    for (const direction of ['seal', 'open'] as const) {
      const us = openssl[direction].map((mbPerSec) => FRAME / (mbPerSec * 1.048576));
      report({ bench: 'channel.kernel', workload: direction, lib: 'openssl-speed-aead', measures: 'OpenSSL C, 1 KB records, own nonce + 13-byte AAD + tag each, no framing, no JavaScript', ...spreadFields('usPerFrame', us, 3), ...spreadFields('mbPerSec', openssl[direction], 1), frameBytes: FRAME });
    }
  }
  for (const [name, us] of Object.entries(usPerFrame)) {
    const [workload, lib] = name.split('/');
    const direction = workload.endsWith('seal') ? 'seal' : 'open';
    const mbPerSec = megabytesPerSec(us);
    const ratio: Record<string, number> = hasOpenssl ? { toOpenssl: ratioFigure(mbPerSec, openssl[direction]).ratioMedian } : {};
    report({ bench: 'channel.kernel', workload, lib, clock: 'process CPU time', ...spreadFields('usPerFrame', us, 3), ...spreadFields('mbPerSec', mbPerSec, 1), ...ratio, frameBytes: FRAME });
  }
  // The host's kernel against each other one, per round (below 1: the host's is faster).
  for (const workload of ['frame.seal', 'frame.open', 'batch.seal', 'batch.open']) {
    const ours = usPerFrame[`${workload}/ours-wasm-simd`];
    if (ours === undefined) continue;
    for (const [name, us] of Object.entries(usPerFrame)) {
      if (!name.startsWith(`${workload}/`) || name.endsWith('/ours-wasm-simd')) continue;
      report({ bench: 'channel.kernel', workload, of: `ours-wasm-simd/${name.slice(workload.length + 1)} time per frame`, ...ratioFigure(ours, us) });
    }
  }
}
