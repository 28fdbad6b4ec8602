// src/pairing/errors.ts: a PairingError is a refusal (400) carrying its TLV error; stepFailure is
// the one place a failed step's error becomes the TLV error it answers (a store fault: Unknown,
// logged, never a 500).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestError } from '../../src/errors';
import { PairingError, StorageError, stepFailure } from '../../src/pairing/errors';
import { TLV_ERROR } from '../../src/pairing/tlv-types';

function recorder(): { lines: string[]; log: (level: string, message: string) => void } {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level} ${message}`) };
}

test('a PairingError is a 400 refusal whose reason is its message, with its TLV error kept', () => {
  const error = new PairingError('Proof item missing', TLV_ERROR.Authentication);
  assert.ok(error instanceof RequestError);
  assert.equal(error.name, 'PairingError');
  assert.equal(error.status, 400);
  assert.equal(error.message, 'Proof item missing');
  assert.equal(error.tlvError, TLV_ERROR.Authentication);
  assert.equal(new PairingError('pairing message without a State item').tlvError, undefined);
});

test('stepFailure: a store fault is Unknown for the sender, its cause logged under the step', () => {
  const { lines, log } = recorder();
  const failure = stepFailure(new StorageError('cannot write the "pairings" record: disk full'), 'pair-setup M5', log);
  assert.ok(failure instanceof PairingError);
  assert.equal(failure.tlvError, TLV_ERROR.Unknown);
  assert.equal(failure.message, 'storage failed: cannot write the "pairings" record: disk full');
  assert.deepEqual(lines, ['error pair-setup M5: cannot write the "pairings" record: disk full']);
});

test('stepFailure: a PairingError with a TLV error is answered as itself, nothing logged', () => {
  const { lines, log } = recorder();
  const error = new PairingError('sender 1A not paired', TLV_ERROR.Authentication);
  assert.equal(stepFailure(error, 'pair-verify M3', log), error);
  assert.deepEqual(lines, []);
});

test('stepFailure throws on what a TLV error cannot answer: a malformed message (400) or a fault (500)', () => {
  const { lines, log } = recorder();
  const malformed = new PairingError('State item of 2 bytes, not 1');
  assert.throws(() => stepFailure(malformed, 'pairing management', log), (error: unknown) => error === malformed);
  const fault = new TypeError('a bug');
  assert.throws(() => stepFailure(fault, 'pairing management', log), (error: unknown) => error === fault);
  assert.deepEqual(lines, []);
});
