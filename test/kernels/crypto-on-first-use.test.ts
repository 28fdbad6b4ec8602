// The Node host's crypto port (hosts/node/crypto-on-first-use.ts): the portable build with its
// curves loaded and its frame kernel chosen when first needed. It passes the shared vectors, the
// curves are taken (and said at debug) at the first X25519 or Ed25519 operation only, and the
// frame kernel is chosen once, at the first frame. That the built command does not evaluate
// @noble/curves before then is test/e2e/crypto-on-first-use.test.ts's.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { portableFrameKernel, type FrameKernel } from '../../src/pairing/frame-kernel';
import { CURVES_LOADED, cryptoOnFirstUse } from '../../hosts/node/crypto-on-first-use';
import { registerCryptoVectorTests } from './crypto-vectors';

const noLog = () => {};

test('the curves are taken at the first curve operation, not before: not when made, nor for SHA-512, HMAC or modPow', () => {
  const lines: string[] = [];
  const crypto = cryptoOnFirstUse((_level, message) => lines.push(message), () => portableFrameKernel);
  crypto.sha512([Uint8Array.of(1, 2, 3)]);
  crypto.hmacSha512(new Uint8Array(32), Uint8Array.of(1));
  crypto.modPow(3n, 5n, 7n);
  assert.deepEqual(lines, [], 'nothing taken before a curve operation');
  crypto.ed25519PublicKey(new Uint8Array(32));
  crypto.x25519PublicKey(new Uint8Array(32));
  assert.deepEqual(lines, [CURVES_LOADED], 'taken once, at the first');
});

test('the frame kernel is chosen at the first frame, once, and seals and opens with the build chosen', () => {
  let choices = 0;
  const crypto = cryptoOnFirstUse(noLog, (): FrameKernel => {
    choices++;
    return portableFrameKernel;
  });
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const aad = Uint8Array.of(0x05, 0x00);
  const plaintext = Uint8Array.of(0x40, 0x41, 0x42);
  crypto.x25519PublicKey(new Uint8Array(32).fill(7));
  assert.equal(choices, 0, 'not chosen by pairing\'s curve operations');
  const sealed = crypto.frame.seal(key, 7n, aad, plaintext);
  assert.equal(choices, 1);
  assert.equal(toHex(sealed), toHex(portableFrameKernel.seal(key, 7n, aad, plaintext)));
  assert.equal(toHex(crypto.frame.open(key, 7n, aad, sealed)), toHex(plaintext));
  assert.equal(choices, 1, 'chosen once');
});

registerCryptoVectorTests(cryptoOnFirstUse(noLog, () => portableFrameKernel));
// The host's own choice of frame kernel (the WebAssembly one where it is built), as the receiver runs.
registerCryptoVectorTests(cryptoOnFirstUse(noLog));
