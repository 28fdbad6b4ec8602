// IMF-fixdate for Date headers (src/http/date.ts, RFC 9110 5.6.7).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpDate } from '../../src/http/date';

test('formats the RFC 9110 example time', () => {
  assert.equal(httpDate(784111777000), 'Sun, 06 Nov 1994 08:49:37 GMT');
});

test('drops milliseconds rather than rounding', () => {
  assert.equal(httpDate(784111777999), 'Sun, 06 Nov 1994 08:49:37 GMT');
  assert.equal(httpDate(784111778000), 'Sun, 06 Nov 1994 08:49:38 GMT');
});

test('a time before the epoch belongs to the second that began before it', () => {
  assert.equal(httpDate(-1), 'Wed, 31 Dec 1969 23:59:59 GMT');
  assert.equal(httpDate(0), 'Thu, 01 Jan 1970 00:00:00 GMT');
});

test('pads day, hours, minutes, seconds and year to their widths', () => {
  assert.equal(httpDate(Date.UTC(2026, 0, 2, 3, 4, 5)), 'Fri, 02 Jan 2026 03:04:05 GMT');
  assert.equal(httpDate(-62167219200000), 'Sat, 01 Jan 0000 00:00:00 GMT');
  assert.equal(httpDate(253402300799000), 'Fri, 31 Dec 9999 23:59:59 GMT');
});

test('the text kept for a second is not given for another one', () => {
  // Back and forth across seconds: each call formats its own second, kept text or not.
  assert.equal(httpDate(1_000), 'Thu, 01 Jan 1970 00:00:01 GMT');
  assert.equal(httpDate(1_500), 'Thu, 01 Jan 1970 00:00:01 GMT');
  assert.equal(httpDate(2_000), 'Thu, 01 Jan 1970 00:00:02 GMT');
  assert.equal(httpDate(1_999), 'Thu, 01 Jan 1970 00:00:01 GMT');
});

test('throws a RangeError outside years 0000 to 9999 and for a time that is not a number', () => {
  assert.throws(() => httpDate(253402300800000), RangeError);
  assert.throws(() => httpDate(-62167219200001), RangeError);
  assert.throws(() => httpDate(Number.NaN), /not a time in years 0000 to 9999/);
  assert.throws(() => httpDate(Number.POSITIVE_INFINITY), RangeError);
});
