// What the XS test host runs (xs-host.test.ts bundles this with the portable pairing suites of
// test/unit): the shared vectors and the pairing flows, for the portable build and for the C
// natives the host links (modules/native/vp-crypto.c, installed as globalThis.__vpNatives), and
// the NAL vectors for the portable NAL kernel and the C one (modules/native/vp-nal.c), and the ALAC
// vectors for the portable ALAC kernel and the C one (modules/native/vp-alac.c).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { portableNalKernel } from '../../src/mirror/nal-kernel';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { createNativeCryptoKernels } from '../../modules/native/kernels';
import { portableAlacKernel } from '../../src/audio/alac';
import { createNativeAlacKernel } from '../../modules/native/alac-kernel';
import { createNativeNalKernel } from '../../modules/native/nal-kernel';
import type { NativeAlac, NativeCrypto, NativeNal } from '../../modules/native/natives';
import { alacVectors, casePackets, registerAlacAgreementTest, registerAlacVectorTests } from './alac-vectors';
import { nalVectors, registerNalAgreementTest, registerNalVectorTests } from '../support/nal-vectors';
import { registerCryptoVectorTests } from './crypto-vectors';
import { registerPairingFlowTests } from './pairing-flows';

const natives = (globalThis as { __vpNatives?: NativeCrypto & NativeNal & NativeAlac }).__vpNatives;
if (natives === undefined) throw new Error('globalThis.__vpNatives is missing: not the XS test host (modules/native/xs-host)');
const native = createNativeCryptoKernels(natives);

registerCryptoVectorTests(portableCryptoKernels);
registerCryptoVectorTests(native);
registerPairingFlowTests(portableCryptoKernels);
registerPairingFlowTests(native);
registerNalVectorTests(portableNalKernel);
registerNalVectorTests(createNativeNalKernel(natives));
registerNalAgreementTest(createNativeNalKernel(natives), 1414, 300);
registerAlacVectorTests(portableAlacKernel);
registerAlacVectorTests(createNativeAlacKernel(natives));
registerAlacAgreementTest(createNativeAlacKernel(natives), 2024, 150, portableAlacKernel);

test('the raw ALAC native: RangeErrors for a config, output or work buffer the wrapper never passes', () => {
  const vector = alacVectors.cases[1]; // mono 16-bit, 4096-sample frames
  const cookie = fromHex(vector.cookie).subarray(24);
  const packet = casePackets(vector)[0];
  const output = new Uint8Array(4096 * 2);
  const work = new Uint8Array(4096 * 16);
  assert.equal(natives.alacDecode(cookie, packet, output, 2, work), vector.frames);
  const rangeError = (run: () => unknown) => assert.throws(run, RangeError);
  rangeError(() => natives.alacDecode(cookie.subarray(1), packet, output, 2, work));
  const deep = cookie.slice();
  deep[5] = 32;
  rangeError(() => natives.alacDecode(deep, packet, output, 2, work));
  rangeError(() => natives.alacDecode(cookie, packet, output.subarray(2), 2, work));
  rangeError(() => natives.alacDecode(cookie, packet, output, 4, work));
  rangeError(() => natives.alacDecode(cookie, packet, output, 3, work));
  rangeError(() => natives.alacDecode(cookie, packet, output, 2, work.subarray(0, 4096 * 16 - 1)));
  rangeError(() => natives.alacDecode(cookie, packet, output, 2, new Uint8Array(4096 * 16 + 2).subarray(2)));
});

test('the raw NAL natives: a report of the units or of the fault, and RangeErrors for what the wrapper never passes', () => {
  const vector = nalVectors.cases[1]; // 4-byte lengths: SEI and three non-IDR slices
  const bytes = new Uint8Array(12).fill(9);
  const report = new Uint32Array(bytes.buffer);
  assert.equal(natives.nalScan(fromHex(vector.payload), 4, bytes), true);
  assert.deepEqual([...report], [4, 0, 0]);
  const refused = nalVectors.errors[6]; // 2-byte lengths: the third length runs past the end
  assert.equal(natives.nalScan(fromHex(refused.payload), 2, bytes), false);
  assert.deepEqual([...report], [refused.unit, 0, refused.at]);

  const payload = fromHex(nalVectors.cases[6].payload); // 2-byte lengths, 4 units
  const rangeError = (run: () => unknown) => assert.throws(run, RangeError);
  rangeError(() => natives.nalScan(payload, 3, bytes));
  rangeError(() => natives.nalScan(payload, 2, new Uint8Array(8)));
  rangeError(() => natives.nalWrite(payload, 2, new Uint8Array(payload.length + 7))); // one byte short
  rangeError(() => natives.nalWrite(payload, 2, payload)); // not in place with 2-byte lengths
  const backing = new Uint8Array(payload.length + 8);
  backing.set(payload);
  rangeError(() => natives.nalWrite(backing.subarray(0, payload.length), 2, backing.subarray(0, payload.length + 8))); // overlapping
  const bad = fromHex(refused.payload);
  const untouched = new Uint8Array(bad.length + 2 * 2).fill(7);
  rangeError(() => natives.nalWrite(bad, 2, untouched));
  assert.deepEqual(untouched, new Uint8Array(bad.length + 4).fill(7));
  assert.equal(toHex(bad), refused.payload);
});

/** Each native of vp-crypto.c, vp-nal.c and vp-alac.c, the call its refusal names, and how many arguments it takes. */
const NATIVE_CALLS: readonly [keyof (NativeCrypto & NativeNal & NativeAlac), string, number][] = [
  ['aeadSeal', 'aeadSeal(key, nonce, aad, buffer, length)', 5],
  ['aeadOpen', 'aeadOpen(key, nonce, aad, sealed, output)', 5],
  ['x25519Base', 'x25519Base(out, secret)', 2],
  ['x25519', 'x25519(out, secret, peer)', 3],
  ['ed25519Public', 'ed25519Public(out, seed)', 2],
  ['ed25519Sign', 'ed25519Sign(out, seed, message)', 3],
  ['ed25519Verify', 'ed25519Verify(publicKey, message, signature)', 3],
  ['sha512', 'sha512(out, data)', 2],
  ['hmacSha512', 'hmacSha512(out, key, message)', 3],
  ['modexp', 'modexp(out, base, exponent, modulus)', 4],
  ['nalScan', 'nalScan(payload, lengthSize, report)', 3],
  ['nalWrite', 'nalWrite(payload, lengthSize, output)', 3],
  ['alacDecode', 'alacDecode(cookie, packet, output, sampleBytes, work)', 5],
];

test('every raw native called with too few arguments is a TypeError naming its call, before it reads any', () => {
  assert.deepEqual(NATIVE_CALLS.map(([name]) => name).sort(), Object.keys(natives).sort(), 'the table covers every native');
  for (const [name, call, count] of NATIVE_CALLS) {
    const native = natives[name] as (...args: unknown[]) => unknown;
    for (const given of [0, count - 1]) {
      const args = Array.from({ length: given }, () => new Uint8Array(64));
      assert.throws(
        () => native(...args),
        // A debugging XS (this host, mcsim) puts the C function's name first: `@xs_vp_aead_seal: `.
        (error: unknown) => error instanceof TypeError && error.message.endsWith(`${call}: ${count} arguments needed, ${given} given`),
        `${name} with ${given} arguments`,
      );
    }
  }
});

test('the raw natives refuse wrong lengths with a RangeError, zero what a failed open wrote, and seal in place', () => {
  const key = new Uint8Array(32).fill(7);
  const nonce = new Uint8Array(12);
  const aad = Uint8Array.of(3, 0);
  const tooShort = (run: () => unknown) => assert.throws(run, RangeError);
  tooShort(() => natives.aeadSeal(new Uint8Array(31), nonce, aad, new Uint8Array(19), 3));
  tooShort(() => natives.aeadSeal(key, new Uint8Array(8), aad, new Uint8Array(19), 3));
  tooShort(() => natives.aeadSeal(key, nonce, aad, new Uint8Array(18), 3)); // no room for the tag
  tooShort(() => natives.aeadOpen(key, nonce, aad, new Uint8Array(15), new Uint8Array(0)));
  tooShort(() => natives.aeadOpen(key, nonce, aad, new Uint8Array(19), new Uint8Array(2)));
  tooShort(() => natives.x25519(new Uint8Array(32), new Uint8Array(32), new Uint8Array(31)));
  tooShort(() => natives.ed25519Sign(new Uint8Array(63), new Uint8Array(32), new Uint8Array(1)));
  tooShort(() => natives.sha512(new Uint8Array(32), new Uint8Array(1)));
  tooShort(() => natives.modexp(new Uint8Array(1), Uint8Array.of(2), Uint8Array.of(3), Uint8Array.of(10))); // even modulus
  assert.throws(() => natives.sha512(new Uint8Array(64), 'text' as unknown as Uint8Array));

  // In place: the frame body holds the plaintext and receives ciphertext and tag, as portable seals it.
  const frame = new Uint8Array(3 + 16);
  frame.set([1, 2, 3]);
  natives.aeadSeal(key, nonce, aad, frame, 3);
  const reference = portableCryptoKernels.frame.seal(key, 0n, aad, Uint8Array.of(1, 2, 3));
  assert.deepEqual(frame, reference);
  const opened = new Uint8Array(3).fill(9);
  frame[18] ^= 1;
  assert.equal(natives.aeadOpen(key, nonce, aad, frame, opened), false);
  assert.deepEqual(opened, new Uint8Array(3));
  frame[18] ^= 1;
  assert.equal(natives.aeadOpen(key, nonce, aad, frame, opened), true);
  assert.deepEqual(opened, Uint8Array.of(1, 2, 3));
});
