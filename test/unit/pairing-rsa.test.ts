// RSA PKCS#1 v1.5 SHA-1 signing and the DER/PEM reading of device keys and certificates,
// against signatures made by Node's crypto (OpenSSL) with the same test key.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { DER_TAG, readCertificateDer, readDerChildren, readDerElement } from '../../src/pairing/der';
import { PairingError } from '../../src/pairing/errors';
import { parseRsaPrivateKey, pemToDer, rsaSignSha1 } from '../../src/pairing/rsa';
import vectors from '../vectors/rsa-sha1.json' with { type: 'json' };
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

test('PKCS#1 and PKCS#8 PEM give the same key, with the modulus and exponent of the vectors', () => {
  const pkcs1 = parseRsaPrivateKey(vectors.pkcs1Pem);
  const pkcs8 = parseRsaPrivateKey(vectors.pkcs8Pem);
  assert.equal(pkcs1.n, BigInt('0x' + vectors.n));
  assert.equal(pkcs1.e, BigInt('0x' + vectors.e));
  assert.equal(pkcs1.byteLength, 128);
  assert.deepEqual(pkcs8, pkcs1);
  assert.equal(pkcs1.p * pkcs1.q, pkcs1.n);
});

test('DER input (either structure) parses like PEM', () => {
  const fromPem = parseRsaPrivateKey(vectors.pkcs1Pem);
  assert.deepEqual(parseRsaPrivateKey(pemToDer(vectors.pkcs1Pem, 'RSA PRIVATE KEY')), fromPem);
  assert.deepEqual(parseRsaPrivateKey(pemToDer(vectors.pkcs8Pem)), fromPem);
});

test('signatures equal the ones OpenSSL made (PKCS#1 v1.5 is deterministic)', () => {
  const key = parseRsaPrivateKey(vectors.pkcs8Pem);
  for (const vector of vectors.signatures) {
    assert.equal(toHex(rsaSignSha1(key, fromHex(vector.message), portableCryptoKernels)), vector.signature, `message ${vector.message}`);
  }
});

test('a key whose CRT values are inconsistent never yields a signature', () => {
  const key = parseRsaPrivateKey(vectors.pkcs1Pem);
  assert.throws(() => rsaSignSha1({ ...key, dp: key.dp + 2n }, new Uint8Array(3), portableCryptoKernels), /signature check failed/);
});

test('malformed keys are PairingErrors that say what is wrong', () => {
  const der = pemToDer(vectors.pkcs1Pem);
  assert.throws(() => parseRsaPrivateKey(der.subarray(0, der.length - 1)), PairingError);
  assert.throws(() => parseRsaPrivateKey(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00])), /fields/);
  assert.throws(() => parseRsaPrivateKey(vectors.certificatePem), /is not RSA PRIVATE KEY or PRIVATE KEY/);
  assert.throws(() => parseRsaPrivateKey('no pem here'), PairingError);
  assert.throws(() => parseRsaPrivateKey(concatBytes(der, new Uint8Array([0]))), /after the DER element/);
  const encrypted = '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n';
  assert.throws(() => parseRsaPrivateKey(encrypted), /encrypted PEM/);
});

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

test('pemToDer finds the labelled block and reports a missing one', () => {
  const both = vectors.certificatePem + vectors.pkcs1Pem;
  assert.equal(toHex(pemToDer(both, 'CERTIFICATE')), vectors.certificateDer);
  assert.deepEqual(pemToDer(both, 'RSA PRIVATE KEY'), pemToDer(vectors.pkcs1Pem));
  assert.throws(() => pemToDer(both, 'PKCS7'), /no "BEGIN PKCS7" block/);
  assert.throws(() => pemToDer('-----BEGIN X-----\nAAAA\n'), /no END line/);
  assert.throws(() => pemToDer('-----BEGIN X-----\nA*AA\n-----END X-----'), /not base64/);
});

test('certificates are read from PEM or DER (X.509 or PKCS#7) and passed through unchanged', () => {
  assert.equal(toHex(readCertificateDer(vectors.certificatePem)), vectors.certificateDer);
  const pkcs7 = fromHex(vectors.certificatePkcs7Der);
  assert.equal(readCertificateDer(pkcs7), pkcs7);
  assert.throws(() => readCertificateDer(pkcs7.subarray(0, 100)), PairingError);
  assert.throws(() => readCertificateDer(new Uint8Array([0x02, 0x01, 0x00])), /DER tag 0x2/);
});

test('the DER reader handles long lengths and refuses BER forms', () => {
  const certificate = fromHex(vectors.certificateDer);
  const outer = readDerElement(certificate);
  assert.equal(outer.tag, DER_TAG.Sequence);
  assert.equal(outer.end, certificate.length);
  assert.equal(readDerChildren(outer.value).length, 3); // tbsCertificate, algorithm, signature
  assert.throws(() => readDerElement(new Uint8Array([0x30, 0x80, 0x00, 0x00])), /indefinite length/);
  assert.throws(() => readDerElement(new Uint8Array([0x04, 0x81, 0x05, 1, 2, 3, 4, 5])), /shortest form/);
  assert.throws(() => readDerElement(new Uint8Array([0x04, 0x82, 0x00, 0x90])), /shortest form/);
  assert.throws(() => readDerElement(new Uint8Array([0x04, 0x85, 1, 1, 1, 1, 1])), /too large/);
  assert.throws(() => readDerElement(new Uint8Array([0x1f, 0x01, 0x00])), /multi-byte tag/);
  assert.throws(() => readDerElement(new Uint8Array([0x04, 0x05, 1])), /declares 5 bytes/);
  assert.throws(() => readDerElement(new Uint8Array([0x04])), /truncated header/);
});
