// The WebAssembly frame kernel (assemblyscript/, loaded by hosts/node/kernels/kernels.ts) against the RFC
// 8439 vectors, every vector of test/vectors/control-channel.json, the portable kernel on random
// frames of every length, and tampered frames. Node only: the XS suites cannot load WebAssembly.
// `npm test` builds the module first (assemblyscript/build.mjs).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { concat, fromHex, toHex } from '../../src/bytes';
import { createControlChannel, createSenderChannel, MAX_FRAME_PLAINTEXT } from '../../src/pairing/channel';
import { PairingError } from '../../src/pairing/errors';
import { withFrameKernel } from '../../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { portableFrameKernel, type FrameKernel } from '../../src/pairing/frame-kernel';
import type { LogLevel } from '../../src/platform';
import { createWasmFrameKernel, FRAME_KERNEL_SCALAR_WASM, FRAME_KERNEL_WASM, selectFrameKernel, selfTestFrameKernel, WasmChaCha20Poly1305 } from '../../hosts/node/kernels/kernels';
import { makeRng } from '../support/arbitrary';
import vectors from '../vectors/control-channel.json' with { type: 'json' };

const shared = fromHex(vectors.sharedSecret);

const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0));
const range = (from: number, count: number): Uint8Array => Uint8Array.from({ length: count }, (_, i) => (from + i) & 0xff);
const SUNSCREEN = latin1("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");

/** Poly1305 straight from RFC 8439 2.5 in BigInt: the reference for the edge cases below. */
function referencePoly1305(key: Uint8Array, message: Uint8Array): string {
  const le = (bytes: Uint8Array): bigint => bytes.reduceRight((value, byte) => (value << 8n) | BigInt(byte), 0n);
  const p = (1n << 130n) - 5n;
  const r = le(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = le(key.subarray(16, 32));
  let accumulator = 0n;
  for (let i = 0; i < message.length; i += 16) {
    const block = message.subarray(i, i + 16);
    accumulator = ((accumulator + le(block) + (1n << BigInt(8 * block.length))) * r) % p;
  }
  const tag = (accumulator + s) & ((1n << 128n) - 1n);
  return toHex(Uint8Array.from({ length: 16 }, (_, i) => Number((tag >> BigInt(8 * i)) & 0xffn)));
}

// Every test of the module runs on both builds: with SIMD (the host's) and without (its
// fallback, whose one-block path the SIMD build runs only on a frame's last blocks).
for (const [build, file] of [['SIMD build', FRAME_KERNEL_WASM], ['build without SIMD', FRAME_KERNEL_SCALAR_WASM]] as const) {
  const aead = WasmChaCha20Poly1305.fromFile(file);
  const kernel = createWasmFrameKernel(aead);
  const wasmCrypto = withFrameKernel(portableCryptoKernels, kernel);

  test(`${build}: RFC 8439 2.3.2: the ChaCha20 block function`, () => {
    const block = aead.chacha20Block(range(0, 32), 1, fromHex('000000090000004a00000000'));
    assert.equal(
      toHex(block),
      '10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e' + 'd2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e',
    );
  });

  test(`${build}: RFC 8439 2.4.2: ChaCha20 encryption of the sunscreen text from block 1`, () => {
    const ciphertext = aead.chacha20(range(0, 32), 1, fromHex('000000000000004a00000000'), SUNSCREEN);
    assert.equal(
      toHex(ciphertext),
      '6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b357' +
        '1639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736' +
        '5af90bbf74a35be6b40b8eedf2785e42874d',
    );
  });

  test(`${build}: RFC 8439 2.5.2: Poly1305 of "Cryptographic Forum Research Group"`, () => {
    const key = fromHex('85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b');
    assert.equal(toHex(aead.poly1305(key, latin1('Cryptographic Forum Research Group'))), 'a8061dc1305136c6c22b8baf0c0127a9');
  });

  test(`${build}: Poly1305 edge cases: h just below, at and above 2^130 - 5, carries out of s, every length 0..1040`, () => {
    // r = 1, s = 0: the tag is the sum of the blocks mod p, so two blocks can land exactly on p.
    const one = new Uint8Array(32);
    one[0] = 1;
    const ones = new Uint8Array(16).fill(0xff);
    for (let delta = -2; delta <= 3; delta++) {
      // c1 = 2^129 - 1 (16 bytes of 0xff + 2^128); c2 = 2^128 + m2 with m2 = 2^128 - 4 + delta,
      // so c1 + c2 = p + delta.
      const m2 = new Uint8Array(16).fill(0xff);
      m2[0] = 0xfc + delta;
      const message = concat(ones, m2);
      assert.equal(toHex(aead.poly1305(one, message)), referencePoly1305(one, message), `h = p + ${delta}`);
    }
    // Long enough for the four-lane path of the SIMD build (512 bytes and more): with r = 1, n
    // blocks of 2^128 + m_i sum to n 2^128 + the m_i; a few blocks of all ones and one chosen
    // block bring that to p + delta, the rest are zeros.
    const p = (1n << 130n) - 5n;
    for (const blocks of [32, 36, 64, 65, 66]) {
      const allOnes = 3 - (blocks % 4);
      for (let delta = -2n; delta <= 3n; delta++) {
        const chosen = p + delta - ((BigInt(blocks) << 128n) % p) - BigInt(allOnes) * ((1n << 128n) - 1n);
        assert.ok(chosen >= 0n && chosen < 1n << 128n, `${blocks} blocks: the chosen block fits`);
        const message = new Uint8Array(16 * blocks);
        message.fill(0xff, 0, 16 * allOnes);
        for (let i = 0; i < 16; i++) message[16 * allOnes + i] = Number((chosen >> BigInt(8 * i)) & 0xffn);
        assert.equal(toHex(aead.poly1305(one, message)), referencePoly1305(one, message), `${blocks} blocks, h = p + ${delta}`);
      }
    }
    // The largest r and s, all-ones messages: the widest products and a carry out of every word.
    const widest = concat(fromHex('ffffff0ffcffff0ffcffff0ffcffff0f'), ones);
    const rng = makeRng(8439);
    for (let length = 0; length <= MAX_FRAME_PLAINTEXT + 16; length++) {
      const full = new Uint8Array(length).fill(0xff);
      assert.equal(toHex(aead.poly1305(widest, full)), referencePoly1305(widest, full), `all ones, ${length} bytes`);
      const key = rng.bytes(32);
      const message = rng.bytes(length);
      assert.equal(toHex(aead.poly1305(key, message)), referencePoly1305(key, message), `random, ${length} bytes`);
    }
  });

  test(`${build}: RFC 8439 2.8.2: the AEAD seals the sunscreen text to its ciphertext and tag, and opens it`, () => {
    const key = range(0x80, 32);
    const nonce = fromHex('070000004041424344454647');
    const aad = fromHex('50515253c0c1c2c3c4c5c6c7');
    const sealed = aead.seal(key, nonce, aad, SUNSCREEN);
    assert.equal(
      toHex(sealed),
      'd31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b' +
        '1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc' +
        '3ff4def08e4b7a9de576d26586cec64b6116' +
        '1ae10b594f09e26a7e902ecbd0600691',
    );
    assert.deepEqual(aead.open(key, nonce, aad, sealed), SUNSCREEN);
    sealed[0] ^= 0x80;
    assert.equal(aead.open(key, nonce, aad, sealed), undefined);
  });

  test(`${build}: every single-frame vector of control-channel.json: exact seal, open, and a wrong counter refused`, () => {
    for (const vector of vectors.kernel) {
      const key = fromHex(vector.key);
      const counter = BigInt(vector.counter);
      const aad = fromHex(vector.aad);
      const sealed = kernel.seal(key, counter, aad, fromHex(vector.plaintext));
      assert.equal(toHex(sealed), vector.ciphertextAndTag, `counter ${vector.counter}`);
      assert.equal(toHex(kernel.open(key, counter, aad, sealed)), vector.plaintext);
      assert.throws(() => kernel.open(key, counter ^ 1n, aad, sealed), PairingError);
    }
  });

  test(`${build}: the channel on the WebAssembly kernel seals and opens every message of control-channel.json exactly`, () => {
    const receiver = createControlChannel(shared, wasmCrypto);
    for (const message of vectors.receiverToSender) assert.equal(toHex(receiver.seal(fromHex(message.plaintext))), message.framed);
    const sender = createSenderChannel(shared, wasmCrypto);
    for (const message of vectors.senderToReceiver) assert.equal(toHex(sender.seal(fromHex(message.plaintext))), message.framed);
    const opened = createControlChannel(shared, wasmCrypto).open(concat(...vectors.senderToReceiver.map((message) => fromHex(message.framed))));
    assert.equal(toHex(concat(...opened)), vectors.senderToReceiver.map((message) => message.plaintext).join(''));
    assert.equal(opened.length, vectors.senderToReceiver.reduce((count, message) => count + message.frames.length, 0));
    const back = createSenderChannel(shared, wasmCrypto).open(concat(...vectors.receiverToSender.map((message) => fromHex(message.framed))));
    assert.equal(toHex(concat(...back)), vectors.receiverToSender.map((message) => message.plaintext).join(''));
  });

  test(`${build}: random frames of every length 0..1024 match the portable kernel both ways (seeded)`, () => {
    const rng = makeRng(0x5eed);
    for (let length = 0; length <= MAX_FRAME_PLAINTEXT; length++) {
      const key = rng.bytes(32);
      const counter = BigInt(rng.int(0, 0xffffffff)) * BigInt(rng.pick([1, 0x10000, 0xffffffff]));
      const aad = rng.bytes(2);
      const plaintext = rng.bytes(length);
      const ours = kernel.seal(key, counter, aad, plaintext);
      const reference = portableFrameKernel.seal(key, counter, aad, plaintext);
      assert.equal(toHex(ours), toHex(reference), `length ${length}, counter ${counter}`);
      assert.equal(toHex(kernel.open(key, counter, aad, reference)), toHex(plaintext));
      assert.equal(toHex(portableFrameKernel.open(key, counter, aad, ours)), toHex(plaintext));
    }
  });

  test(`${build}: seal and open write into the output they are given and return it`, () => {
    const key = range(1, 32);
    const plaintext = range(9, 300);
    const sealedInto = new Uint8Array(316);
    assert.equal(kernel.seal(key, 7n, Uint8Array.of(0x2c, 0x01), plaintext, sealedInto), sealedInto);
    assert.equal(toHex(sealedInto), toHex(portableFrameKernel.seal(key, 7n, Uint8Array.of(0x2c, 0x01), plaintext)));
    const openedInto = new Uint8Array(300);
    assert.equal(kernel.open(key, 7n, Uint8Array.of(0x2c, 0x01), sealedInto, openedInto), openedInto);
    assert.deepEqual(openedInto, plaintext);
  });

  test(`${build}: a flipped bit in the tag, the ciphertext or the AAD, another key or counter: PairingError, output untouched`, () => {
    const rng = makeRng(1042);
    for (let round = 0; round < 200; round++) {
      const key = rng.bytes(32);
      const counter = BigInt(round);
      const length = rng.int(1, MAX_FRAME_PLAINTEXT);
      const aad = Uint8Array.of(length & 0xff, length >>> 8);
      const sealed = kernel.seal(key, counter, aad, rng.bytes(length));
      const output = new Uint8Array(length);
      const refused = (what: string, open: () => unknown): void => {
        assert.throws(open, (error: unknown) => error instanceof PairingError && /authentication tag does not match/.test(error.message), what);
        assert.ok(output.every((byte) => byte === 0), `${what}: output written`);
      };
      const tag = sealed.slice();
      tag[length + rng.int(0, 15)] ^= 1 << rng.int(0, 7);
      refused('tag', () => kernel.open(key, counter, aad, tag, output));
      const ciphertext = sealed.slice();
      ciphertext[rng.int(0, length - 1)] ^= 1 << rng.int(0, 7);
      refused('ciphertext', () => kernel.open(key, counter, aad, ciphertext, output));
      const otherAad = aad.slice();
      otherAad[rng.int(0, 1)] ^= 1 << rng.int(0, 7);
      refused('aad', () => kernel.open(key, counter, otherAad, sealed, output));
      const otherKey = key.slice();
      otherKey[rng.int(0, 31)] ^= 1 << rng.int(0, 7);
      refused('key', () => kernel.open(otherKey, counter, aad, sealed, output));
      refused('counter', () => kernel.open(key, counter + (1n << BigInt(rng.int(0, 63))), aad, sealed, output));
      assert.equal(kernel.open(key, counter, aad, sealed, output), output);
    }
  });

  test(`${build}: out-of-range input is refused as the portable kernel refuses it, or as more than one call takes (an audio packet, up to 16 KB)`, () => {
    const key = new Uint8Array(32);
    const aad = new Uint8Array(2);
    assert.throws(() => kernel.seal(key, 1n << 64n, aad, new Uint8Array(1)), PairingError);
    assert.throws(() => kernel.seal(key, -1n, aad, new Uint8Array(1)), PairingError);
    assert.equal(toHex(kernel.seal(key, (1n << 64n) - 1n, aad, new Uint8Array(1))), toHex(portableFrameKernel.seal(key, (1n << 64n) - 1n, aad, new Uint8Array(1))));
    assert.throws(() => kernel.open(key, 0n, aad, new Uint8Array(15)), /shorter than its tag/);
    assert.throws(() => kernel.seal(new Uint8Array(16), 0n, aad, new Uint8Array(1)), PairingError);
    // An audio packet's payload (1408 bytes of PCM, 352 frames) is one call; past maxFrame is not.
    const audio = range(0, 1408);
    assert.equal(toHex(kernel.seal(key, 5n, aad, audio)), toHex(portableFrameKernel.seal(key, 5n, aad, audio)));
    assert.throws(() => kernel.seal(key, 0n, aad, new Uint8Array(aead.maxLength + 1)), RangeError);
    assert.throws(() => kernel.open(key, 0n, aad, new Uint8Array(aead.maxLength + 17)), RangeError);
    assert.throws(() => kernel.seal(key, 0n, new Uint8Array(aead.maxAad + 1), new Uint8Array(1)), RangeError);
    // No key stays in linear memory after a call, one that was refused included.
    const memory = (aead as unknown as { memory: Uint8Array }).memory;
    const keyAt = (aead as unknown as { key: number }).key;
    kernel.seal(range(1, 32), 0n, aad, new Uint8Array(64));
    assert.deepEqual(memory.subarray(keyAt, keyAt + 32), new Uint8Array(32));
    assert.throws(() => kernel.open(range(1, 32), 0n, aad, new Uint8Array(aead.maxLength + 17)), RangeError);
    assert.deepEqual(memory.subarray(keyAt, keyAt + 32), new Uint8Array(32));
  });
}

test('the self-test passes both builds and catches a kernel that is wrong or accepts a bad tag', () => {
  assert.equal(selfTestFrameKernel(createWasmFrameKernel(WasmChaCha20Poly1305.fromFile(FRAME_KERNEL_WASM))), undefined);
  assert.equal(selfTestFrameKernel(createWasmFrameKernel(WasmChaCha20Poly1305.fromFile(FRAME_KERNEL_SCALAR_WASM))), undefined);
  const wrongSeal: FrameKernel = {
    seal: (key, counter, aad, plaintext) => portableFrameKernel.seal(key, counter + 1n, aad, plaintext),
    open: portableFrameKernel.open,
  };
  assert.match(selfTestFrameKernel(wrongSeal) ?? '', /known-answer/);
  const neverRefuses: FrameKernel = {
    seal: portableFrameKernel.seal,
    open: (key, counter, aad, sealed) => {
      try {
        return portableFrameKernel.open(key, counter, aad, sealed);
      } catch {
        return new Uint8Array(sealed.length - 16);
      }
    },
  };
  assert.equal(selfTestFrameKernel(neverRefuses), 'a tampered tag was accepted');
  const throws: FrameKernel = {
    seal: () => {
      throw new Error('no');
    },
    open: portableFrameKernel.open,
  };
  assert.match(selfTestFrameKernel(throws) ?? '', /threw no/);
});

test('selectFrameKernel: the module when it loads and passes, else the portable kernel with a log line saying why', () => {
  const lines: [LogLevel, string][] = [];
  const log = (level: LogLevel, message: string): void => void lines.push([level, message]);
  const directory = mkdtempSync(path.join(tmpdir(), 'vendorplay-kernels-'));
  try {
    const installed = selectFrameKernel(log, { choice: '' });
    assert.equal(installed.name, 'ours-wasm');
    assert.equal(installed.crypto.frame, installed.kernel);
    assert.match(lines.at(-1)![1], /^frame kernel: ours-wasm \(.*frame-kernel\.wasm\)$/);
    // A channel made with the port it returns uses it.
    assert.equal(toHex(createControlChannel(shared, installed.crypto).seal(fromHex(vectors.receiverToSender[0].plaintext))), vectors.receiverToSender[0].framed);

    const none = path.join(directory, 'none.wasm');
    const missing = selectFrameKernel(log, { file: none, scalarFile: none, choice: '' });
    assert.equal(missing.name, 'ours-ts');
    assert.equal(missing.crypto, portableCryptoKernels);
    assert.deepEqual(lines.at(-1), ['info', `frame kernel: ours-ts (portable TypeScript); ${none}: not built (npm run build:kernels)`]);

    const garbage = path.join(directory, 'garbage.wasm');
    writeFileSync(garbage, 'not a module');
    assert.equal(selectFrameKernel(log, { file: garbage, scalarFile: none, choice: '' }).name, 'ours-ts');
    assert.equal(lines.at(-1)![0], 'warn');
    assert.match(lines.at(-1)![1], /^frame kernel: ours-ts \(portable TypeScript\); .*garbage\.wasm: [^;]*$/);

    // An empty module (just the header) compiles but exports nothing.
    const empty = path.join(directory, 'empty.wasm');
    writeFileSync(empty, Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
    assert.equal(selectFrameKernel(log, { file: empty, scalarFile: garbage, choice: '' }).name, 'ours-ts');
    assert.match(lines.at(-1)![1], /empty\.wasm: the module does not export memory, keyRegion.*; .*garbage\.wasm: /);

    // The SIMD build refused: the build without SIMD, and the log says why.
    const fallback = selectFrameKernel(log, { file: empty, choice: '' });
    assert.equal(fallback.name, 'ours-wasm');
    assert.equal(selfTestFrameKernel(fallback.kernel), undefined);
    assert.equal(lines.at(-1)![0], 'warn');
    assert.match(lines.at(-1)![1], /^frame kernel: ours-wasm \(.*frame-kernel-scalar\.wasm, without SIMD\); .*empty\.wasm: the module does not export memory/);

    assert.equal(selectFrameKernel(log, { choice: 'ours-ts' }).name, 'ours-ts');
    assert.deepEqual(lines.at(-1), ['info', 'frame kernel: ours-ts (portable TypeScript); VENDORPLAY_FRAME_KERNEL=ours-ts']);
    assert.equal(selectFrameKernel(log, { choice: 'fast' }).name, 'ours-ts');
    assert.equal(lines.at(-1)![0], 'warn');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('an engine without WebAssembly SIMD (V8 on a CPU without SSE4.1) runs the build without SIMD', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'vendorplay-kernels-'));
  try {
    const probe = path.join(directory, 'probe.ts');
    const kernels = fileURLToPath(new URL('../../hosts/node/kernels/kernels.ts', import.meta.url));
    writeFileSync(
      probe,
      `import { selectFrameKernel, selfTestFrameKernel } from ${JSON.stringify(kernels)};\n` +
        `const selected = selectFrameKernel((level, message) => console.log(level + ' ' + message), { choice: '' });\n` +
        `console.log(selected.name + ' self-test ' + (selfTestFrameKernel(selected.kernel) ?? 'passed'));\n`,
    );
    // --no-enable-sse4-1: V8 then compiles no SIMD, as on such a CPU.
    const output = execFileSync(process.execPath, ['--no-enable-sse4-1', '--import', 'tsx', probe], { encoding: 'utf8' }).trim().split('\n');
    assert.match(output[0], /^warn frame kernel: ours-wasm \(.*frame-kernel-scalar\.wasm, without SIMD\); .*frame-kernel\.wasm: .*SIMD unsupported/);
    assert.equal(output[1], 'ours-wasm self-test passed');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
