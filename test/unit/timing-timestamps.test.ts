// NTP timestamps as milliseconds, both ways (RFC 5905 6).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { againstUnixTime, againstWallClock, msToNtp, ntpMs, readTimestamp } from '../../src/timing';
import { writeTimestamp } from '../../src/timing/timestamps';

test('header timestamps are seconds and 2^-32 fractions: ms both ways', () => {
  assert.equal(ntpMs(3, 2 ** 31), 3500);
  assert.deepEqual(msToNtp(3500), { seconds: 3, fraction: 2 ** 31 });
  assert.deepEqual(msToNtp(1999.99999999999), { seconds: 2, fraction: 0 }, 'a fraction that rounds up carries into the seconds');
});

test('a timestamp written at a byte offset reads back to within 2^-32 s, big-endian seconds first', () => {
  const packet = new Uint8Array(20);
  writeTimestamp(packet, 4, 86_400_125);
  assert.deepEqual([...packet.subarray(4, 8)], [0x00, 0x01, 0x51, 0x80], '86400 s');
  assert.deepEqual([...packet.subarray(8, 12)], [0x20, 0x00, 0x00, 0x00], '0.125 s');
  assert.ok(Math.abs(readTimestamp(packet, 4) - 86_400_125) < 1e-6);
  assert.ok(packet.subarray(0, 4).every((byte) => byte === 0) && packet.subarray(12).every((byte) => byte === 0), 'nothing else written');
});

test('a sender clock counting from 1900 is said against Unix time with the epochs taken out', () => {
  assert.deepEqual(againstUnixTime(2_208_988_800_000 + 1.5), { ms: 1.5, ntpEra: true });
  assert.deepEqual(againstUnixTime(-3.25), { ms: -3.25, ntpEra: false });
  assert.deepEqual(againstUnixTime(12_345.678), { ms: 12_345.678, ntpEra: false });
});

test('an offset against the monotonic clock is said against the wall clock, in the words log lines use', () => {
  // Monotonic now 1000 is wall time 1_700_000_000_000; the sender reads wall + 12.5 ms.
  const plain = againstWallClock(1_700_000_000_000 - 1000 + 12.5, 1000, 1_700_000_000_000);
  assert.deepEqual(plain, { ms: 12.5, ntpEra: false, words: 'sender clock - wall clock 12.500 ms' });
  const era = againstWallClock(1_700_000_000_000 - 1000 + 2_208_988_800_000 - 3, 1000, 1_700_000_000_000);
  assert.equal(era.words, 'sender clock - wall clock -3.000 ms (its clock counts from 1900)');
});
