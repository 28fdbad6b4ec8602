// Bounds on what one message may make the parser hold (src/http/limits.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLimit, DEFAULT_HTTP_LIMITS, resolveHttpLimits } from '../../src/http/limits';

test('no overrides give a copy of the defaults that can change without changing them', () => {
  const limits = resolveHttpLimits();
  assert.deepEqual(limits, { ...DEFAULT_HTTP_LIMITS });
  limits.maxHeadBytes = 1;
  assert.equal(DEFAULT_HTTP_LIMITS.maxHeadBytes, 8192);
  assert.ok(Object.isFrozen(DEFAULT_HTTP_LIMITS));
});

test('overrides replace their fields only; undefined keeps the default, 0 is a limit', () => {
  const limits = resolveHttpLimits({ maxBodyBytes: 10, maxHeaderCount: undefined, maxDiscardBytes: 0 });
  assert.equal(limits.maxBodyBytes, 10);
  assert.equal(limits.maxDiscardBytes, 0);
  assert.equal(limits.maxHeaderCount, DEFAULT_HTTP_LIMITS.maxHeaderCount);
  assert.equal(limits.maxTrailerBytes, DEFAULT_HTTP_LIMITS.maxTrailerBytes);
});

test('a field the limits do not have is not copied', () => {
  const limits = resolveHttpLimits({ maxBogus: 5 } as never);
  assert.equal('maxBogus' in limits, false);
});

test('negative, fractional, unsafe and non-number limits are refused by name', () => {
  for (const value of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
    assert.throws(() => resolveHttpLimits({ maxTargetLength: value }), (error: unknown) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, new RegExp(`^HTTP limit maxTargetLength must be a non-negative integer, not ${value}`));
      return true;
    });
  }
  assert.throws(() => checkLimit('x', '3' as unknown as number), RangeError);
  checkLimit('x', 0);
});
