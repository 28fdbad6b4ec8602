// Modular exponentiation: small exact values, agreement with plain square-and-multiply on
// large operands, and edge cases.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modPow, portableModPow } from '../../src/pairing/modexp';
import { SRP_GROUP_3072 } from '../../src/pairing/srp';

/** Right-to-left binary exponentiation, written independently of the module under test. */
function reference(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n % modulus;
  let b = ((base % modulus) + modulus) % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

test('small exact values', () => {
  assert.equal(modPow(4n, 13n, 497n), 445n);
  assert.equal(modPow(2n, 10n, 1000n), 24n);
  assert.equal(modPow(5n, 0n, 7n), 1n);
  assert.equal(modPow(0n, 5n, 7n), 0n);
  assert.equal(modPow(123n, 456n, 1n), 0n);
  assert.equal(modPow(-2n, 3n, 7n), 6n); // (-8) mod 7
});

test('large exponents agree with square-and-multiply (window code path)', () => {
  const { N } = SRP_GROUP_3072;
  const exponents = [(1n << 64n) + 1n, (1n << 255n) + 0xfedcba9876543210n, (1n << 511n) - 1n, 0x100000000n];
  const modulus = (1n << 521n) - 1n; // a Mersenne prime, smaller than N for speed
  for (const exponent of exponents) {
    assert.equal(portableModPow(0x1234567890abcdefn, exponent, modulus), reference(0x1234567890abcdefn, exponent, modulus));
  }
  // one 3072-bit case, as SRP uses it
  const e = (1n << 255n) + 99n;
  assert.equal(portableModPow(5n, e, N), reference(5n, e, N));
});

test('Fermat: a^(p-1) = 1 mod a prime', () => {
  const p = (1n << 127n) - 1n;
  for (const a of [2n, 3n, 0xdeadbeefn]) assert.equal(modPow(a, p - 1n, p), 1n);
});

test('a zero or negative modulus and a negative exponent are RangeErrors', () => {
  assert.throws(() => modPow(2n, 3n, 0n), RangeError);
  assert.throws(() => modPow(2n, 3n, -5n), RangeError);
  assert.throws(() => modPow(2n, -1n, 5n), RangeError);
});
