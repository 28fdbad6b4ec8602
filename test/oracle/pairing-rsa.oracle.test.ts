// Device-key signatures and POST /auth-setup against Node's OpenSSL (Node only): fresh RSA keys
// each run, signatures compared byte for byte, and auth-setup replies verified as a sender would.

import assert from 'node:assert/strict';
import { createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { test } from 'node:test';
import { authSetupReply } from '../../src/pairing/auth-setup';
import { parseRsaPrivateKey, rsaSignSha1 } from '../../src/pairing/rsa';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

test('our RSA-SHA1 signatures equal OpenSSL ones for fresh 1024- and 2048-bit keys, PKCS#1 and PKCS#8', () => {
  for (const modulusLength of [1024, 2048]) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength });
    const fromPkcs1 = parseRsaPrivateKey(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    const fromPkcs8 = parseRsaPrivateKey(new Uint8Array(privateKey.export({ type: 'pkcs8', format: 'der' })));
    for (let i = 0; i < 5; i++) {
      const message = randomBytes(i * 40);
      const expected = sign('sha1', message, privateKey);
      assert.deepEqual(Buffer.from(rsaSignSha1(fromPkcs1, new Uint8Array(message), portableCryptoKernels)), expected);
      assert.deepEqual(Buffer.from(rsaSignSha1(fromPkcs8, new Uint8Array(message), portableCryptoKernels)), expected);
    }
  }
});

const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

test('a sender with OpenSSL X25519 and AES-128-CTR decrypts and verifies the auth-setup signature', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const certificate = new Uint8Array(randomBytes(300));
  certificate[0] = 0x30; // the reply carries whatever DER the configuration gives
  const device = { privateKey: parseRsaPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()), certificate };
  for (let i = 0; i < 3; i++) {
    const senderKey = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' });
    const senderPublic = Buffer.from(createPublicKey(senderKey).export({ format: 'jwk' }).x!, 'base64url');
    const reply = Buffer.from(authSetupReply(new Uint8Array(Buffer.concat([Buffer.from([0x01]), senderPublic])), device, (n) => new Uint8Array(randomBytes(n)), portableCryptoKernels));
    const receiverPublic = reply.subarray(0, 32);
    assert.equal(reply.readUInt32BE(32), certificate.length);
    assert.deepEqual(new Uint8Array(reply.subarray(36, 36 + certificate.length)), certificate);
    const signatureLength = reply.readUInt32BE(36 + certificate.length);
    const encrypted = reply.subarray(40 + certificate.length);
    assert.equal(encrypted.length, signatureLength);
    const receiverKey = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: receiverPublic.toString('base64url') }, format: 'jwk' });
    const shared = diffieHellman({ privateKey: senderKey, publicKey: receiverKey });
    const key = createHash('sha1').update('AES-KEY').update(shared).digest().subarray(0, 16);
    const iv = createHash('sha1').update('AES-IV').update(shared).digest().subarray(0, 16);
    const decipher = createDecipheriv('aes-128-ctr', key, iv);
    const signature = Buffer.concat([decipher.update(encrypted), decipher.final()]);
    assert.equal(verify('sha1', Buffer.concat([receiverPublic, senderPublic]), publicKey, signature), true);
  }
});
