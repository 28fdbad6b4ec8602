// The pair-setup lock and its queue (src/pairing/setup-lock.ts): a sender refused Busy goes first
// when the lock frees, in arrival order, however quickly a fresh connection asks after an expiry;
// one place per address; a waiter that stops asking or closes loses its place.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_WAITERS, PairSetupLock } from '../../src/pairing/setup-lock';
import { ManualClock } from '../support/memory-ports';

const TIMEOUT_MS = 30_000;

interface Session {
  closed: boolean;
  readonly name: string;
}
const session = (name: string): Session => ({ closed: false, name });

function lock() {
  const clock = new ManualClock();
  const abandoned: string[] = [];
  return { clock, abandoned, lock: new PairSetupLock<Session>(TIMEOUT_MS, clock, (s) => abandoned.push(s.name)) };
}

test('the sender refused Busy gets the lock when it frees, before a fresh connection that asks 1 ms after the expiry', () => {
  const { clock, lock: setupLock, abandoned } = lock();
  const hog = session('hog');
  const waiting = session('waiting');
  assert.equal(setupLock.request(hog, '10.0.0.66').kind, 'granted');
  clock.advance(1000);
  assert.equal(setupLock.request(waiting, '10.0.0.2').kind, 'busy');
  // The waiting sender asks again every 10 s; the hog's attempt runs out at 30 s, and the hog
  // (or a fresh connection of the attacker's) asks right after.
  for (let t = 11_000; t < TIMEOUT_MS; t += 10_000) {
    clock.advance(t - clock.now());
    assert.equal(setupLock.request(waiting, '10.0.0.2').kind, 'busy');
  }
  clock.advance(TIMEOUT_MS + 1 - clock.now());
  const fresh = session('fresh');
  assert.equal(setupLock.request(fresh, '10.0.0.67').kind, 'busy', 'a fresh connection does not take the lock from the one that waited');
  assert.equal(setupLock.request(hog, '10.0.0.66').kind, 'busy', 'nor does the attempt that ran out');
  assert.deepEqual(abandoned, ['hog']);
  clock.advance(2000);
  assert.equal(setupLock.request(waiting, '10.0.0.2').kind, 'granted');
  assert.deepEqual(setupLock.queue.map((s) => s.name), ['fresh', 'hog'], 'then the others, in arrival order');
});

test('waiters are served in arrival order, each when the one before it ends', () => {
  const { clock, lock: setupLock } = lock();
  const holder = session('holder');
  const [a, b, c] = ['a', 'b', 'c'].map(session);
  setupLock.request(holder, 'h');
  setupLock.request(a, 'A');
  setupLock.request(b, 'B');
  setupLock.request(c, 'C');
  assert.deepEqual(setupLock.queue.map((s) => s.name), ['a', 'b', 'c']);
  assert.equal(setupLock.release(holder), true);
  assert.equal(setupLock.request(c, 'C').kind, 'busy', 'c is third');
  assert.equal(setupLock.request(b, 'B').kind, 'busy', 'b is second');
  assert.equal(setupLock.request(a, 'A').kind, 'granted');
  assert.equal(setupLock.request(a, 'A').kind, 'retry', 'the holder repeating M1 retries its attempt');
  clock.advance(1000);
  setupLock.release(a);
  assert.equal(setupLock.request(b, 'B').kind, 'granted');
  setupLock.release(b);
  assert.equal(setupLock.request(c, 'C').kind, 'granted');
});

test('a waiter that closes, or stops asking for pairingTimeoutMs, loses its place to the next', () => {
  const { clock, lock: setupLock } = lock();
  const holder = session('holder');
  const [gone, quiet, patient] = ['gone', 'quiet', 'patient'].map(session);
  setupLock.request(holder, 'h');
  setupLock.request(gone, 'G');
  setupLock.request(quiet, 'Q');
  setupLock.request(patient, 'P');
  gone.closed = true;
  clock.advance(20_000);
  setupLock.request(patient, 'P'); // asks again: keeps its place
  clock.advance(11_000); // the holder ran out; quiet last asked 31 s ago
  assert.equal(setupLock.request(patient, 'P').kind, 'granted');
  assert.deepEqual(setupLock.queue, []);
});

test('one place per address and at most MAX_WAITERS places: many connections cannot push a sender back', () => {
  const { lock: setupLock } = lock();
  setupLock.request(session('holder'), 'h');
  const first = session('first of 10.0.0.66');
  setupLock.request(first, '10.0.0.66');
  for (let i = 0; i < 20; i++) {
    const answer = setupLock.request(session(`more ${i}`), '10.0.0.66');
    assert.equal(answer.kind, 'busy');
  }
  const bystander = session('bystander');
  setupLock.request(bystander, '10.0.0.2');
  assert.deepEqual(setupLock.queue.map((s) => s.name), ['first of 10.0.0.66', 'bystander']);
  for (let i = 0; i < MAX_WAITERS + 4; i++) setupLock.request(session(`addr ${i}`), `10.1.0.${i}`);
  assert.equal(setupLock.queue.length, MAX_WAITERS);
  assert.equal(setupLock.queue[1], bystander, 'the bystander keeps its place');
});
