// What `vendorplay-send pair` says when the receiver refuses a step: the receiver's answer (a TLV8
// body with State and Error, RetryDelay with Backoff, as src/pairing's errorReply writes it) is
// read by sender/pairing-messages.ts into the error's name and delay, and pairing.ts puts it in
// words a person can act on. Also: an answer with the wrong State, or none, is no pairing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorReply } from '../../src/pairing';
import { encodeTlv8 } from '../../src/pairing/tlv8';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { answerItems, PairingBroken, PairingRefused } from '../../sender/pairing-messages';
import { refusalAdvice } from '../../sender/pairing';

/** The sender's message for the receiver's reply to M3 refused with `code` (and `delay`). */
function saidFor(code: number, delay?: number): string {
  try {
    answerItems('pair-setup M4', errorReply(4, code, 'reason', delay).body, 4);
  } catch (error) {
    assert.ok(error instanceof PairingRefused);
    assert.equal(error.code, code);
    assert.equal(error.retryDelaySeconds, delay);
    return refusalAdvice(error, '127.0.0.1:7000');
  }
  assert.fail('no refusal');
}

test('each TLV error in words: wrong PIN, Backoff with its delay, MaxTries, Busy, MaxPeers, Unavailable', () => {
  assert.match(saidFor(TLV_ERROR.Authentication), /^wrong PIN: pair-setup M4: the receiver answered Authentication; run pair again/);
  assert.equal(saidFor(TLV_ERROR.Backoff, 30), 'pair-setup M4: the receiver answered Backoff (retry in 30 s): too many attempts; try again in 30 s');
  assert.match(saidFor(TLV_ERROR.MaxTries), /answered MaxTries: the receiver takes no more wrong PINs/);
  assert.match(saidFor(TLV_ERROR.Busy), /answered Busy: the receiver is pairing with another sender/);
  assert.match(saidFor(TLV_ERROR.MaxPeers), /answered MaxPeers: the receiver has no room/);
  assert.match(saidFor(TLV_ERROR.Unavailable), /answered Unavailable: 127\.0\.0\.1:7000 does not take this pairing now/);
  assert.equal(saidFor(TLV_ERROR.Unknown), 'pair-setup M4: the receiver answered Unknown');
});

test('an answer with another State, no State, or not TLV8 is a PairingBroken naming the step', () => {
  assert.throws(() => answerItems('pair-setup M2', encodeTlv8([[TLV.State, new Uint8Array([4])]]), 2), (error: Error) => error instanceof PairingBroken && /pair-setup M2: the answer has State 4, not 2/.test(error.message));
  assert.throws(() => answerItems('pair-verify M2', new Uint8Array(0), 2), (error: Error) => error instanceof PairingBroken && /State none/.test(error.message));
  assert.throws(() => answerItems('pair-verify M2', new Uint8Array([6, 5, 1]), 2), (error: Error) => error instanceof PairingBroken && /is not TLV8/.test(error.message));
  assert.equal(answerItems('pair-setup M2', encodeTlv8([[TLV.State, new Uint8Array([2])]]), 2).get(TLV.State)?.[0], 2);
});
