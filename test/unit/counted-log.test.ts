// One log line per interval for a flood of the same event (src/counted-log.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CountedLog } from '../../src/counted-log';

test('the first occurrence is reported at once, alone', () => {
  assert.equal(new CountedLog(1000).note(5), 1);
});

test('occurrences within the interval are counted and reported with the first one after it', () => {
  const log = new CountedLog(1000);
  assert.equal(log.note(0), 1);
  assert.equal(log.note(1), 0);
  assert.equal(log.note(999), 0);
  // 1000 ms after the last line: this one and the two held back.
  assert.equal(log.note(1000), 3);
  assert.equal(log.note(1001), 0);
  assert.equal(log.note(2000), 2);
});

test('the interval runs from the last line, not from the first occurrence', () => {
  const log = new CountedLog(1000);
  log.note(0);
  assert.equal(log.note(1500), 1);
  assert.equal(log.note(2400), 0);
  assert.equal(log.note(2500), 2);
});

test('a quiet spell longer than the interval reports the next one alone', () => {
  const log = new CountedLog(1000);
  log.note(0);
  assert.equal(log.note(50_000), 1);
});

test('the default interval is ten seconds', () => {
  const log = new CountedLog();
  assert.equal(log.intervalMs, 10_000);
  log.note(0);
  assert.equal(log.note(9_999), 0);
  assert.equal(log.note(10_000), 2);
});
