// POST /auth-setup (spec 5.6): the exact reply made with Node's crypto for fixed keys, and the
// sender's view: decrypt the signature and verify it with the key's public part.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, fromHex, toHex, utf8Encode } from '../../src/bytes';
import { AUTH_SETUP_TYPE, authSetupCipherKeys, authSetupReply } from '../../src/pairing/auth-setup';
import { PairingError } from '../../src/pairing/errors';
import { aes128Ctr, sha1, x25519PublicKey, x25519Shared } from '../../src/pairing/keys';
import { modPow } from '../../src/pairing/modexp';
import { parseRsaPrivateKey } from '../../src/pairing/rsa';
import vectors from '../vectors/auth-setup.json' with { type: 'json' };
import keyVectors from '../vectors/rsa-sha1.json' with { type: 'json' };
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const device = { privateKey: parseRsaPrivateKey(keyVectors.pkcs1Pem), certificate: fromHex(keyVectors.certificatePkcs7Der) };
const fixedRandom = (bytes: Uint8Array) => (n: number) => {
  assert.equal(n, bytes.length);
  return bytes.slice();
};
const u32 = (bytes: Uint8Array, offset: number) =>
  ((bytes[offset] << 24) >>> 0) + (bytes[offset + 1] << 16) + (bytes[offset + 2] << 8) + bytes[offset + 3];

test('the reply equals the one computed with Node crypto, byte for byte', () => {
  for (const vector of vectors.cases) {
    const reply = authSetupReply(fromHex(vector.body), device, fixedRandom(fromHex(vector.receiverRandom)), portableCryptoKernels);
    assert.equal(toHex(reply), vector.reply);
  }
});

test('the AES key and IV are SHA-1 of AES-KEY / AES-IV and the shared secret, cut to 16 bytes', () => {
  for (const vector of vectors.cases) {
    const { key, iv } = authSetupCipherKeys(fromHex(vector.shared));
    assert.equal(toHex(key), vector.aesKey);
    assert.equal(toHex(iv), vector.aesIv);
  }
});

test('the sender decrypts the signature and verifies it with the public key', () => {
  const vector = vectors.cases[1];
  const senderSecret = fromHex(vector.senderSecret);
  const body = concat(new Uint8Array([AUTH_SETUP_TYPE.EncryptedAesKey]), x25519PublicKey(senderSecret, portableCryptoKernels));
  const reply = authSetupReply(body, device, fixedRandom(fromHex(vector.receiverRandom)), portableCryptoKernels);

  const receiverPublic = reply.subarray(0, 32);
  const certificateLength = u32(reply, 32);
  assert.deepEqual(reply.subarray(36, 36 + certificateLength), device.certificate);
  const signatureLength = u32(reply, 36 + certificateLength);
  assert.equal(signatureLength, 128);
  const encrypted = reply.subarray(40 + certificateLength);
  assert.equal(encrypted.length, signatureLength);

  const shared = x25519Shared(senderSecret, receiverPublic, portableCryptoKernels);
  const key = sha1(concat(utf8Encode('AES-KEY'), shared)).subarray(0, 16);
  const iv = sha1(concat(utf8Encode('AES-IV'), shared)).subarray(0, 16);
  const signature = aes128Ctr(key, iv, encrypted);

  // RSAVP1 with the public part, then EMSA-PKCS1-v1_5 (RFC 8017 8.2.2) rebuilt here
  const n = BigInt('0x' + keyVectors.n);
  const e = BigInt('0x' + keyVectors.e);
  const m = modPow(BigInt('0x' + toHex(signature)), e, n);
  const digest = toHex(sha1(concat(receiverPublic, body.subarray(1))));
  const expected = '0001' + 'ff'.repeat(128 - 3 - 35) + '00' + '3021300906052b0e03021a05000414' + digest;
  assert.equal(m.toString(16).padStart(256, '0'), expected);
});

test('a body that is not 33 bytes with type 0x01 or 0x10 is a PairingError', () => {
  const random = () => new Uint8Array(32).fill(1);
  const key = x25519PublicKey(new Uint8Array(32).fill(2), portableCryptoKernels);
  assert.throws(() => authSetupReply(concat(new Uint8Array([1]), key.subarray(1)), device, random, portableCryptoKernels), /32 bytes, expected 33/);
  assert.throws(() => authSetupReply(concat(new Uint8Array([1]), key, new Uint8Array(1)), device, random, portableCryptoKernels), /34 bytes/);
  assert.throws(() => authSetupReply(concat(new Uint8Array([0]), key), device, random, portableCryptoKernels), /encryption type 0x00/);
  assert.throws(() => authSetupReply(concat(new Uint8Array([2]), key), device, random, portableCryptoKernels), PairingError);
  assert.throws(() => authSetupReply(new Uint8Array(33).fill(1).fill(0, 1), device, random, portableCryptoKernels), PairingError); // low-order key
  assert.equal(authSetupReply(concat(new Uint8Array([1]), key), device, random, portableCryptoKernels).length, 32 + 4 + device.certificate.length + 4 + 128);
});
