// The internal helpers of the pairing flows (src/pairing/_reply.ts): error replies in TLV8 and
// reading the items of a request.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PairingError } from '../../src/pairing/errors';
import { decodeTlv8, encodeTlv8 } from '../../src/pairing/tlv8';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { errorReply, readItem, readRequest, readUint, tlvErrorName } from '../../src/pairing/_reply';

test('an error reply holds the next State and the Error, and RetryDelay with Backoff', () => {
  const reply = errorReply(2, TLV_ERROR.Authentication, 'wrong PIN');
  assert.deepEqual(reply.body, encodeTlv8([[TLV.State, Uint8Array.of(2)], [TLV.Error, Uint8Array.of(2)]]));
  assert.deepEqual(reply.error, { code: TLV_ERROR.Authentication, reason: 'wrong PIN' });
  assert.equal(reply.secure, undefined);
  const backoff = decodeTlv8(errorReply(2, TLV_ERROR.Backoff, 'too fast', 300).body);
  assert.deepEqual(backoff.get(TLV.RetryDelay), Uint8Array.of(0x2c, 0x01), 'little-endian seconds');
});

test('error codes are named for log lines; an unknown one by its number', () => {
  assert.equal(tlvErrorName(TLV_ERROR.MaxPeers), 'MaxPeers');
  assert.equal(tlvErrorName(42), 'error 42');
});

test('a request is read with its State; without one, or a State of the wrong size, it is a 400', () => {
  const { items, state } = readRequest(encodeTlv8([[TLV.State, Uint8Array.of(3)], [TLV.Proof, Uint8Array.of(9)]]));
  assert.equal(state, 3);
  assert.deepEqual(items.get(TLV.Proof), Uint8Array.of(9));
  for (const [body, pattern] of [
    [encodeTlv8([[TLV.Method, Uint8Array.of(0)]]), /without a State item/],
    [encodeTlv8([[TLV.State, Uint8Array.of(1, 0)]]), /State item of 2 bytes, not 1/],
  ] as const) {
    assert.throws(() => readRequest(body), (error: unknown) => error instanceof PairingError && pattern.test(error.message) && error.tlvError === undefined);
  }
});

test('readUint gives the item as an integer, the fallback when absent', () => {
  const items = decodeTlv8(encodeTlv8([[TLV.Flags, Uint8Array.of(0x10, 0x00)]]));
  assert.equal(readUint(items, TLV.Flags, 0), 0x10);
  assert.equal(readUint(items, TLV.Method, 7), 7);
});

test('readItem checks presence and length, failing with the step\'s TLV error', () => {
  const items = decodeTlv8(encodeTlv8([[TLV.PublicKey, new Uint8Array(32)]]));
  assert.equal(readItem(items, TLV.PublicKey, 'PublicKey', TLV_ERROR.Authentication, { min: 32, max: 32 }).length, 32);
  assert.equal(readItem(items, TLV.PublicKey, 'PublicKey', TLV_ERROR.Authentication).length, 32);
  const fails = (fn: () => unknown, pattern: RegExp) =>
    assert.throws(fn, (error: unknown) => error instanceof PairingError && pattern.test(error.message) && error.tlvError === TLV_ERROR.Authentication);
  fails(() => readItem(items, TLV.Proof, 'Proof', TLV_ERROR.Authentication), /^Proof item missing$/);
  fails(() => readItem(items, TLV.PublicKey, 'PublicKey', TLV_ERROR.Authentication, { min: 33, max: 33 }), /PublicKey item of 32 bytes \(33 expected\)/);
  fails(() => readItem(items, TLV.PublicKey, 'PublicKey', TLV_ERROR.Authentication, { min: 1, max: 16 }), /\(1 to 16 expected\)/);
});
