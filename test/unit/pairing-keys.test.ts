// The curve, hash and cipher wrappers against their RFC vectors: ChaCha20-Poly1305 (RFC 8439),
// X25519 (RFC 7748), Ed25519 (RFC 8032), AES-128-CTR (NIST SP 800-38A), SHA-1 and SHA-512 (FIPS 180).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex, utf8Encode } from '../../src/bytes';
import { PairingError } from '../../src/pairing/errors';
import {
  aes128Ctr,
  chachaOpen,
  chachaSeal,
  ed25519KeyPair,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  sha1,
  sha512,
  x25519KeyPair,
  x25519PublicKey,
  x25519Shared,
} from '../../src/pairing/keys';
import { TLV_ERROR } from '../../src/pairing/tlv-types';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const h = (text: string) => fromHex(text.replace(/\s+/g, ''));
const fixedRandom = (byte: number) => (n: number) => new Uint8Array(n).fill(byte);

test('ChaCha20-Poly1305 matches RFC 8439 2.8.2', () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i);
  const nonce = h('07000000 4041424344454647');
  const aad = h('50515253c0c1c2c3c4c5c6c7');
  const plaintext = utf8Encode(
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
  );
  const ciphertext = h(`
    d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6
    3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36
    92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc
    3ff4def08e4b7a9de576d26586cec64b6116`);
  const tag = h('1ae10b594f09e26a7e902ecbd0600691');
  const sealed = chachaSeal(key, nonce, plaintext, aad);
  assert.equal(toHex(sealed), toHex(ciphertext) + toHex(tag));
  assert.deepEqual(chachaOpen(key, nonce, sealed, aad), plaintext);
});

test('ChaCha20-Poly1305 open refuses a changed tag, ciphertext or AAD with Authentication', () => {
  const key = new Uint8Array(32).fill(1);
  const nonce = new Uint8Array(12);
  const sealed = chachaSeal(key, nonce, utf8Encode('hello'), utf8Encode('aad'));
  const isAuthentication = (error: unknown) => error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication;
  for (const index of [0, sealed.length - 1]) {
    const tampered = sealed.slice();
    tampered[index] ^= 1;
    assert.throws(() => chachaOpen(key, nonce, tampered, utf8Encode('aad')), isAuthentication);
  }
  assert.throws(() => chachaOpen(key, nonce, sealed, utf8Encode('aae')), isAuthentication);
  assert.throws(() => chachaOpen(key, nonce, sealed.subarray(0, 15)), isAuthentication);
  assert.throws(() => chachaSeal(key.subarray(1), nonce, sealed), PairingError);
});

test('X25519 matches RFC 7748 5.2', () => {
  assert.equal(
    toHex(x25519Shared(h('a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4'), h('e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c'), portableCryptoKernels)),
    'c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552',
  );
  assert.equal(
    toHex(x25519Shared(h('4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d'), h('e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493'), portableCryptoKernels)),
    '95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957',
  );
});

test('X25519 key agreement matches RFC 7748 6.1', () => {
  const alicePrivate = h('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
  const bobPrivate = h('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb');
  assert.equal(toHex(x25519PublicKey(alicePrivate, portableCryptoKernels)), '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
  assert.equal(toHex(x25519PublicKey(bobPrivate, portableCryptoKernels)), 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
  const shared = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';
  assert.equal(toHex(x25519Shared(alicePrivate, x25519PublicKey(bobPrivate, portableCryptoKernels), portableCryptoKernels)), shared);
  assert.equal(toHex(x25519Shared(bobPrivate, x25519PublicKey(alicePrivate, portableCryptoKernels), portableCryptoKernels)), shared);
});

test('X25519 refuses a low-order peer key and a key of the wrong length with Authentication', () => {
  const isAuthentication = (error: unknown) => error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication;
  const secret = new Uint8Array(32).fill(9);
  assert.throws(() => x25519Shared(secret, new Uint8Array(32), portableCryptoKernels), isAuthentication); // u = 0
  assert.throws(() => x25519Shared(secret, new Uint8Array(31), portableCryptoKernels), isAuthentication);
});

test('x25519KeyPair takes its secret from the random source', () => {
  const pair = x25519KeyPair(fixedRandom(7), portableCryptoKernels);
  assert.deepEqual(pair.secretKey, new Uint8Array(32).fill(7));
  assert.deepEqual(pair.publicKey, x25519PublicKey(pair.secretKey, portableCryptoKernels));
});

test('Ed25519 matches RFC 8032 7.1 tests 1 and 2', () => {
  const cases = [
    {
      secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
      public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      message: '',
      signature:
        'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    },
    {
      secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
      public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
      message: '72',
      signature:
        '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
    },
  ];
  for (const vector of cases) {
    const secret = h(vector.secret);
    const message = h(vector.message);
    assert.equal(toHex(ed25519PublicKey(secret, portableCryptoKernels)), vector.public);
    assert.equal(toHex(ed25519Sign(secret, message, portableCryptoKernels)), vector.signature);
    assert.equal(ed25519Verify(h(vector.public), message, h(vector.signature), portableCryptoKernels), true);
  }
});

test('Ed25519 verify is false for a changed message, signature or key, and for malformed input', () => {
  const pair = ed25519KeyPair(fixedRandom(3), portableCryptoKernels);
  const message = utf8Encode('pair-verify');
  const signature = ed25519Sign(pair.secretKey, message, portableCryptoKernels);
  assert.equal(ed25519Verify(pair.publicKey, message, signature, portableCryptoKernels), true);
  assert.equal(ed25519Verify(pair.publicKey, utf8Encode('pair-verifz'), signature, portableCryptoKernels), false);
  const badSignature = signature.slice();
  badSignature[10] ^= 4;
  assert.equal(ed25519Verify(pair.publicKey, message, badSignature, portableCryptoKernels), false);
  assert.equal(ed25519Verify(ed25519PublicKey(new Uint8Array(32).fill(4), portableCryptoKernels), message, signature, portableCryptoKernels), false);
  assert.equal(ed25519Verify(pair.publicKey.subarray(1), message, signature, portableCryptoKernels), false);
  assert.equal(ed25519Verify(pair.publicKey, message, signature.subarray(1), portableCryptoKernels), false);
  assert.equal(ed25519Verify(new Uint8Array(32).fill(0xff), message, signature, portableCryptoKernels), false);
});

test('AES-128-CTR matches NIST SP 800-38A F.5.1 and is its own inverse', () => {
  const key = h('2b7e151628aed2a6abf7158809cf4f3c');
  const iv = h('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff');
  const plaintext = h(`
    6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
    30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710`);
  const ciphertext = aes128Ctr(key, iv, plaintext);
  assert.equal(
    toHex(ciphertext),
    '874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee',
  );
  assert.deepEqual(aes128Ctr(key, iv, ciphertext), plaintext);
  assert.equal(toHex(aes128Ctr(key, iv, plaintext.subarray(0, 5))), '874d6191b6');
});

test('SHA-1 and SHA-512 match FIPS 180 "abc"', () => {
  assert.equal(toHex(sha1(utf8Encode('abc'))), 'a9993e364706816aba3e25717850c26c9cd0d89d');
  assert.equal(
    toHex(sha512(utf8Encode('abc'), portableCryptoKernels)),
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  );
});
