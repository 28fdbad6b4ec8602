// The portable cryptographic kernels (src/pairing/portable-crypto-kernels.ts): RFC vectors and the
// refusals the contract promises (a low-order X25519 key, a bad signature: values, never throws).
// test/kernels/crypto-vectors.test.ts runs the shared JSON vectors on every build.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex, utf8Encode } from '../../src/bytes';
import { portableCryptoKernels as kernels } from '../../src/pairing/portable-crypto-kernels';

test('X25519 matches RFC 7748 6.1 both ways', () => {
  const alice = fromHex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
  const bob = fromHex('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb');
  assert.equal(toHex(kernels.x25519PublicKey(alice)), '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
  const shared = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';
  assert.equal(toHex(kernels.x25519Shared(alice, kernels.x25519PublicKey(bob))!), shared);
  assert.equal(toHex(kernels.x25519Shared(bob, kernels.x25519PublicKey(alice))!), shared);
});

test('a low-order X25519 peer key gives no shared secret rather than a throw', () => {
  const secret = fromHex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
  assert.equal(kernels.x25519Shared(secret, new Uint8Array(32)), undefined);
  const one = new Uint8Array(32);
  one[0] = 1;
  assert.equal(kernels.x25519Shared(secret, one), undefined);
});

const SEED = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PUBLIC = fromHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const SIGNATURE = fromHex(
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
);

test('Ed25519 matches RFC 8032 7.1 test 1', () => {
  assert.deepEqual(kernels.ed25519PublicKey(SEED), PUBLIC);
  assert.deepEqual(kernels.ed25519Sign(SEED, new Uint8Array(0)), SIGNATURE);
  assert.equal(kernels.ed25519Verify(PUBLIC, new Uint8Array(0), SIGNATURE), true);
});

test('Ed25519 verification is false, never a throw, for anything that does not verify', () => {
  assert.equal(kernels.ed25519Verify(PUBLIC, new Uint8Array([0]), SIGNATURE), false);
  const flipped = SIGNATURE.slice();
  flipped[10] ^= 1;
  assert.equal(kernels.ed25519Verify(PUBLIC, new Uint8Array(0), flipped), false);
  // A public key that is not a curve point, and an S at or above the group order (non-canonical).
  assert.equal(kernels.ed25519Verify(new Uint8Array(32).fill(0xff), new Uint8Array(0), SIGNATURE), false);
  const bigS = SIGNATURE.slice();
  bigS.fill(0xff, 32);
  assert.equal(kernels.ed25519Verify(PUBLIC, new Uint8Array(0), bigS), false);
});

test('SHA-512 of parts is SHA-512 of their concatenation (FIPS 180-4 "abc")', () => {
  const abc = 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f';
  assert.equal(toHex(kernels.sha512([utf8Encode('abc')])), abc);
  assert.equal(toHex(kernels.sha512([utf8Encode('a'), new Uint8Array(0), utf8Encode('bc')])), abc);
});

test('HMAC-SHA-512 matches RFC 4231 test case 2', () => {
  assert.equal(
    toHex(kernels.hmacSha512(utf8Encode('Jefe'), utf8Encode('what do ya want for nothing?'))),
    '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
  );
});

test('modPow computes modular powers', () => {
  assert.equal(kernels.modPow(4n, 13n, 497n), 445n);
  assert.equal(kernels.modPow(7n, 0n, 13n), 1n);
});
