// The property-list value model (src/plist/value.ts): reals, UIDs, dictionaries and safe entries.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_PLIST_LIMITS, getEntry, isPlistDict, PlistError, PlistReal, PlistUid, real, setEntry, type PlistDict } from '../../src/plist/value';

test('a real keeps its number and reads as it in arithmetic', () => {
  const rate = real(1);
  assert.ok(rate instanceof PlistReal);
  assert.equal(rate.value, 1);
  assert.equal(+rate, 1);
  assert.equal(rate.valueOf() * 2, 2);
});

test('only plain objects are dictionaries', () => {
  assert.equal(isPlistDict({}), true);
  assert.equal(isPlistDict({ a: 1 }), true);
  assert.equal(isPlistDict(Object.create(null)), true);
  for (const value of [null, undefined, 1, 'a', true, [], new Uint8Array(1), new Date(0), real(1), new PlistUid(1)]) {
    assert.equal(isPlistDict(value), false, String(value));
  }
});

test('setEntry makes a key named __proto__ an own entry, and leaves the prototype alone', () => {
  const dict: PlistDict = {};
  setEntry(dict, '__proto__', 'x');
  setEntry(dict, 'a', 1);
  assert.equal(Object.getPrototypeOf(dict), Object.prototype);
  assert.deepEqual(Object.keys(dict), ['__proto__', 'a']);
  assert.equal(getEntry(dict, '__proto__'), 'x');
  setEntry(dict, '__proto__', 'y');
  assert.equal(getEntry(dict, '__proto__'), 'y');
});

test('getEntry gives own entries only, never inherited properties', () => {
  const dict: PlistDict = { name: 'a' };
  assert.equal(getEntry(dict, 'name'), 'a');
  assert.equal(getEntry(dict, 'toString'), undefined);
  assert.equal(getEntry(dict, 'constructor'), undefined);
  assert.equal(getEntry(dict, 'hasOwnProperty'), undefined);
});

test('PlistError is an Error named for its type', () => {
  const error = new PlistError('bplist: offset 812 beyond table');
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'PlistError');
  assert.equal(String(error), 'PlistError: bplist: offset 812 beyond table');
});

test('the default limits bound size, depth and object count', () => {
  assert.deepEqual(DEFAULT_PLIST_LIMITS, { maxBytes: 16 * 1024 * 1024, maxDepth: 64, maxObjects: 1 << 20 });
});
