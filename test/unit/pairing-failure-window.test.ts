// Wrong setup codes counted per key in a decaying window (src/pairing/failure-window.ts): a key
// past its allowance waits, doubling per failure up to a minute; one failure leaks away per
// decay interval; other keys are not slowed at all.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureWindow, MAX_BACKOFF_SECONDS } from '../../src/pairing/failure-window';
import { ManualClock } from '../support/memory-ports';

const LIMITS = { pairingFailuresBeforeBackoff: 3, pairingFailureDecayMs: 60_000 };

function window() {
  const clock = new ManualClock();
  return { clock, failures: new FailureWindow(LIMITS, clock) };
}

test('a key waits only past its allowance, 2^(n - allowance) s after its last failure; another key does not wait', () => {
  const { clock, failures } = window();
  const guesser = ['address 10.0.0.9'];
  for (let i = 0; i < 2; i++) failures.record(guesser);
  assert.equal(failures.wait(guesser).seconds, 0, 'two wrong PINs: a person mistyping');
  failures.record(guesser);
  assert.deepEqual(failures.wait(guesser), { seconds: 1, key: 'address 10.0.0.9', failures: 3 });
  failures.record(guesser);
  assert.equal(failures.wait(guesser).seconds, 2);
  assert.equal(failures.wait(['address 10.0.0.2']).seconds, 0, 'a sender on another address is not slowed');
  clock.advance(2000);
  assert.equal(failures.wait(guesser).seconds, 0, 'the wait is over');
});

test('the wait of a key that keeps failing stops doubling at a minute', () => {
  const { failures } = window();
  const key = ['sender X'];
  for (let i = 0; i < 40; i++) failures.record(key);
  assert.equal(failures.wait(key).seconds, MAX_BACKOFF_SECONDS);
});

test('failures leak away, one per decay interval: the count, and so the wait, goes down with time', () => {
  const { clock, failures } = window();
  const key = ['address a'];
  for (let i = 0; i < 6; i++) failures.record(key);
  assert.equal(failures.failures(key[0]), 6);
  clock.advance(LIMITS.pairingFailureDecayMs * 2);
  assert.equal(failures.failures(key[0]), 4);
  // 4 - 3 = 1: two seconds from the last failure, long passed.
  assert.equal(failures.wait(key).seconds, 0);
  failures.record(key);
  assert.equal(failures.failures(key[0]), 5, 'counted on from what was left');
  assert.equal(failures.wait(key).seconds, 4);
  clock.advance(LIMITS.pairingFailureDecayMs * 10);
  assert.equal(failures.failures(key[0]), 0, 'gone in the end: no permanent count here');
});

test('the longest wait of a request\'s keys applies (its identity and its address); a success clears only its keys; clearAll clears every key', () => {
  const { failures } = window();
  for (let i = 0; i < 5; i++) failures.record(['address a', 'sender X']);
  failures.record(['address b', 'sender X']);
  const wait = failures.wait(['address b', 'sender X']);
  assert.equal(wait.key, 'sender X', 'the identity counts across addresses');
  assert.equal(wait.seconds, 8);
  failures.clear(['address b', 'sender X']);
  assert.ok(failures.wait(['address a']).seconds > 0, 'address a keeps its count');
  failures.clearAll();
  assert.equal(failures.wait(['address a']).seconds, 0);
});
