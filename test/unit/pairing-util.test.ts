// The internal helpers of the pairing primitives (src/pairing/_util.ts): OS2IP/I2OSP, padding,
// constant-time comparison and input checks.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { PairingError } from '../../src/pairing/errors';
import { asciiBytes, bigIntToBytes, bytesToBigInt, checkBytes, constantTimeEqual, padLeft, stripLeadingZeros } from '../../src/pairing/_util';
import { assertThrowsKind } from '../support/throws';

test('bytesToBigInt reads unsigned big-endian, leading zeros and all; no bytes is 0', () => {
  assert.equal(bytesToBigInt(new Uint8Array(0)), 0n);
  assert.equal(bytesToBigInt(Uint8Array.from([0, 0, 1, 0])), 256n);
  assert.equal(bytesToBigInt(new Uint8Array(9).fill(0xff)), 2n ** 72n - 1n);
});

test('bigIntToBytes writes the fewest bytes, or exactly the length asked, padded left', () => {
  assert.equal(toHex(bigIntToBytes(0n)), '00');
  assert.equal(toHex(bigIntToBytes(0xabcn)), '0abc');
  assert.equal(toHex(bigIntToBytes(0xabcn, 4)), '00000abc');
  assert.equal(toHex(bigIntToBytes(0xabcn, 2)), '0abc');
  assert.equal(bytesToBigInt(bigIntToBytes(2n ** 3072n - 5n, 384)), 2n ** 3072n - 5n);
});

test('bigIntToBytes refuses negative values and values longer than asked', () => {
  assert.throws(() => bigIntToBytes(-1n), /negative value/);
  assert.throws(() => bigIntToBytes(0x10000n, 2), /needs 3 bytes, more than 2/);
});

test('stripLeadingZeros keeps at least one byte, as a view', () => {
  const bytes = Uint8Array.from([0, 0, 5, 0]);
  const stripped = stripLeadingZeros(bytes);
  assert.equal(toHex(stripped), '0500');
  assert.equal(stripped.buffer, bytes.buffer);
  assert.equal(toHex(stripLeadingZeros(new Uint8Array(3))), '00');
  assert.equal(stripLeadingZeros(new Uint8Array(0)).length, 0);
});

test('padLeft pads to the length, gives the same array when already there, refuses longer', () => {
  const bytes = Uint8Array.from([1, 2]);
  assert.equal(toHex(padLeft(bytes, 4)), '00000102');
  assert.equal(padLeft(bytes, 2), bytes);
  assert.throws(() => padLeft(bytes, 1), /2 bytes exceed 1/);
});

test('constantTimeEqual compares content, and lengths first', () => {
  assert.equal(constantTimeEqual(Uint8Array.from([1, 2]), Uint8Array.from([1, 2])), true);
  assert.equal(constantTimeEqual(Uint8Array.from([1, 2]), Uint8Array.from([1, 3])), false);
  assert.equal(constantTimeEqual(Uint8Array.from([0x80, 2]), Uint8Array.from([0, 2])), false);
  assert.equal(constantTimeEqual(Uint8Array.from([1]), Uint8Array.from([1, 0])), false);
  assert.equal(constantTimeEqual(new Uint8Array(0), new Uint8Array(0)), true);
});

test('checkBytes wants a Uint8Array, of the length when one is given', () => {
  checkBytes(new Uint8Array(32), 'key', 32);
  checkBytes(new Uint8Array(3), 'salt');
  assertThrowsKind(() => checkBytes([1, 2], 'salt'), PairingError, /^salt: expected bytes$/);
  assertThrowsKind(() => checkBytes(new Uint8Array(31), 'key', 32), PairingError, /^key: 31 bytes, expected 32$/);
});

test('asciiBytes encodes ASCII labels and refuses anything else', () => {
  assert.equal(toHex(asciiBytes('Pair-Setup')), '506169722d5365747570');
  assert.equal(asciiBytes('').length, 0);
  assertThrowsKind(() => asciiBytes('caf\u00e9'), PairingError, /label "caf\u00e9" is not ASCII/);
});
