// The small AES-128-CTR used by auth-setup: FIPS 197 and NIST SP 800-38A vectors.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { aes128Ctr, aes128EncryptBlock } from '../../src/pairing/aes128-ctr';

test('encrypts the FIPS 197 appendix C.1 block', () => {
  const key = fromHex('000102030405060708090a0b0c0d0e0f');
  const block = fromHex('00112233445566778899aabbccddeeff');
  assert.equal(toHex(aes128EncryptBlock(key, block)), '69c4e0d86a7b0430d8cdb78070b4c55a');
});

test('encrypts the FIPS 197 appendix B block (cipher example)', () => {
  const key = fromHex('2b7e151628aed2a6abf7158809cf4f3c');
  assert.equal(toHex(aes128EncryptBlock(key, fromHex('3243f6a8885a308d313198a2e0370734'))), '3925841d02dc09fbdc118597196a0b32');
});

// NIST SP 800-38A F.5.1 CTR-AES128.Encrypt
const KEY = fromHex('2b7e151628aed2a6abf7158809cf4f3c');
const COUNTER = fromHex('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff');
const PLAINTEXT = fromHex(
  '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710',
);
const CIPHERTEXT =
  '874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee';

test('matches NIST SP 800-38A F.5.1 (CTR-AES128), counter carrying across the low bytes', () => {
  assert.equal(toHex(aes128Ctr(KEY, COUNTER, PLAINTEXT)), CIPHERTEXT);
  assert.deepEqual(aes128Ctr(KEY, COUNTER, fromHex(CIPHERTEXT)), PLAINTEXT);
});

test('a partial last block uses the front of its key stream', () => {
  assert.equal(toHex(aes128Ctr(KEY, COUNTER, PLAINTEXT.subarray(0, 21))), CIPHERTEXT.slice(0, 42));
});

test('the counter block wraps as a 128-bit integer', () => {
  const allOnes = new Uint8Array(16).fill(0xff);
  const zero = new Uint8Array(16);
  const data = new Uint8Array(32);
  const twoBlocks = aes128Ctr(KEY, allOnes, data);
  assert.deepEqual(twoBlocks.subarray(16), aes128Ctr(KEY, zero, new Uint8Array(16)));
});

test('rejects keys and counter blocks of the wrong size', () => {
  assert.throws(() => aes128Ctr(new Uint8Array(15), COUNTER, PLAINTEXT), RangeError);
  assert.throws(() => aes128Ctr(KEY, new Uint8Array(8), PLAINTEXT), RangeError);
});
