// The portable frame kernel at its edges: results land in the output it is given on
// every engine, the SDK's linked XS included (its functions have no `length`, which is how
// @noble/ciphers decides whether a cipher takes an output), and a failure that is not a tag
// mismatch is reported as what it is. The XS test host (test/kernels/xs-host.test.ts) runs this
// file with function lengths stripped as the SDK's linker strips them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { PairingError } from '../../src/pairing/errors';
import { createPortableFrameKernel, portableFrameKernel } from '../../src/pairing/frame-kernel';
import vectors from '../vectors/control-channel.json' with { type: 'json' };

const vector = vectors.kernel[0];
const key = fromHex(vector.key);
const aad = fromHex(vector.aad);

test('seal and open write into the output they are given and return it', () => {
  const kernel = createPortableFrameKernel();
  const plaintext = fromHex(vector.plaintext);
  const sealed = new Uint8Array(plaintext.length + 16);
  assert.equal(kernel.seal(key, BigInt(vector.counter), aad, plaintext, sealed), sealed);
  assert.equal(toHex(sealed), vector.ciphertextAndTag);
  const opened = new Uint8Array(plaintext.length);
  assert.equal(kernel.open(key, BigInt(vector.counter), aad, sealed, opened), opened);
  assert.equal(toHex(opened), vector.plaintext);
});

test('an output of another size is left alone and a new array returned', () => {
  const output = new Uint8Array(3);
  const sealed = portableFrameKernel.seal(key, 0n, aad, fromHex(vector.plaintext), output);
  assert.notEqual(sealed, output);
  assert.deepEqual(output, new Uint8Array(3));
});

test('a wrong key length is reported as such, never as a tag mismatch', () => {
  const sealed = fromHex(vector.ciphertextAndTag);
  const refused = (error: unknown) => error instanceof PairingError && /frame key of 16 bytes, not 32/.test(error.message);
  assert.throws(() => portableFrameKernel.open(new Uint8Array(16), 0n, aad, sealed), refused);
  assert.throws(() => portableFrameKernel.seal(new Uint8Array(16), 0n, aad, new Uint8Array(1)), refused);
});

test('a tag mismatch is a PairingError saying so, and the output stays untouched', () => {
  const sealed = fromHex(vector.ciphertextAndTag);
  sealed[sealed.length - 1] ^= 1;
  const output = new Uint8Array(sealed.length - 16);
  assert.throws(
    () => portableFrameKernel.open(key, BigInt(vector.counter), aad, sealed, output),
    (error: unknown) => error instanceof PairingError && error.message === `frame ${vector.counter}: authentication tag does not match`,
  );
  assert.deepEqual(output, new Uint8Array(output.length));
});
