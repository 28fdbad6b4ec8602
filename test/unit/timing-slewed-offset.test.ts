// A clock offset followed at a bounded rate (src/timing/slewed-offset.ts): the first estimate
// taken, small moves slewed at 500 ppm, large ones stepped, time going back moving nothing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlewedOffset } from '../../src/timing';

test('the first estimate is taken; a move of 3 ms is followed at 500 ppm (6 s), not at once', () => {
  const offset = new SlewedOffset();
  assert.equal(offset.follow(undefined, 0), undefined);
  assert.equal(offset.follow(1000, 0), 1000);
  assert.equal(offset.follow(1003, 1000), 1000.5, '0.5 ms in a second');
  assert.equal(offset.follow(1003, 3000), 1001.5);
  assert.equal(offset.follow(1003, 10_000), 1003, 'there, and no further');
  assert.equal(offset.follow(undefined, 11_000), 1003, 'without an estimate, the last');
});

test('a rate difference under the slew rate (a crystal 100 ppm off) is followed in full', () => {
  const offset = new SlewedOffset();
  let followed = 0;
  for (let now = 0; now <= 600_000; now += 1000) followed = offset.follow(5000 + now * 100e-6, now)!;
  assert.ok(Math.abs(followed - (5000 + 60)) < 1e-9, `${followed}`);
});

test('a move past the step threshold (128 ms) is taken at once; time going back moves nothing', () => {
  const offset = new SlewedOffset();
  offset.follow(0, 0);
  assert.equal(offset.follow(500, 10), 500);
  assert.equal(offset.follow(510, 5), 500);
  assert.equal(offset.follow(510, 2010), 501);
});

test('while free (nothing plays yet), every estimate is taken as it is', () => {
  const offset = new SlewedOffset();
  offset.follow(10, 0, true);
  assert.equal(offset.follow(7, 100, true), 7);
  assert.equal(offset.follow(9, 1100), 7.5, 'then slewed');
});
