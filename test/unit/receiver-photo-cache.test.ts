// The photo cache (src/receiver/photo/photo-cache.ts): pictures by AssetKey, bounded in bytes and
// entries, the least recently used leaving first.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PhotoCache } from '../../src/receiver/photo/photo-cache';

const bytes = (length: number, fill = 1) => new Uint8Array(length).fill(fill);

test('puts and uses keep the least recently used first; has() is not a use', () => {
  const cache = new PhotoCache({ maxBytes: 100, maxEntries: 3 });
  cache.put('a', bytes(1), 's');
  cache.put('b', bytes(1), 's');
  cache.put('c', bytes(1), 's');
  assert.deepEqual(cache.keys(), ['a', 'b', 'c']);
  assert.equal(cache.use('a')?.key, 'a');
  assert.equal(cache.has('b'), true);
  assert.deepEqual(cache.keys(), ['b', 'c', 'a']);
  assert.equal(cache.use('missing'), undefined);
  assert.deepEqual(cache.keys(), ['b', 'c', 'a']);
});

test('past the entry limit the least recently used leaves', () => {
  const cache = new PhotoCache({ maxBytes: 100, maxEntries: 2 });
  cache.put('a', bytes(1), undefined);
  cache.put('b', bytes(1), undefined);
  cache.use('a');
  assert.deepEqual(cache.put('c', bytes(1), undefined), { stored: true, evicted: ['b'] });
  assert.deepEqual(cache.keys(), ['a', 'c']);
});

test('past the byte limit as many leave as it takes, oldest first', () => {
  const cache = new PhotoCache({ maxBytes: 10, maxEntries: 10 });
  cache.put('a', bytes(4), undefined);
  cache.put('b', bytes(3), undefined);
  cache.put('c', bytes(3), undefined);
  assert.equal(cache.bytes, 10);
  assert.deepEqual(cache.put('d', bytes(7), undefined), { stored: true, evicted: ['a', 'b'] });
  assert.deepEqual(cache.keys(), ['c', 'd']);
  assert.equal(cache.bytes, 10);
  assert.equal(cache.size, 2);
});

test('a picture of exactly the byte limit is stored; a larger one is not and evicts nothing', () => {
  const cache = new PhotoCache({ maxBytes: 10, maxEntries: 10 });
  cache.put('a', bytes(5), undefined);
  assert.deepEqual(cache.put('big', bytes(11), undefined), { stored: false, evicted: [] });
  assert.deepEqual(cache.keys(), ['a']);
  assert.deepEqual(cache.put('whole', bytes(10), undefined), { stored: true, evicted: ['a'] });
});

test('a key put again replaces its picture; too large, the old picture is dropped too', () => {
  const cache = new PhotoCache({ maxBytes: 10, maxEntries: 10 });
  cache.put('a', bytes(4, 1), 's1');
  cache.put('b', bytes(4), undefined);
  assert.deepEqual(cache.put('a', bytes(6, 2), 's2'), { stored: true, evicted: [] });
  assert.equal(cache.bytes, 10);
  assert.deepEqual(cache.keys(), ['b', 'a']);
  assert.deepEqual(cache.use('a'), { key: 'a', jpeg: bytes(6, 2), sessionId: 's2' });
  cache.put('a', bytes(11), undefined);
  assert.equal(cache.has('a'), false);
  assert.equal(cache.bytes, 4);
});

test('a view into a larger buffer is copied; a whole buffer is kept as is', () => {
  const cache = new PhotoCache({ maxBytes: 100, maxEntries: 10 });
  const socketRead = bytes(64, 7);
  cache.put('view', socketRead.subarray(8, 16), undefined);
  const kept = cache.use('view')!.jpeg;
  assert.equal(kept.buffer.byteLength, 8, 'only its own bytes are held');
  socketRead.fill(0);
  assert.deepEqual(kept, bytes(8, 7));
  const whole = bytes(8);
  cache.put('whole', whole, undefined);
  assert.equal(cache.use('whole')!.jpeg, whole);
});

test('deleting by key, by session, and clearing keep the byte count right', () => {
  const cache = new PhotoCache({ maxBytes: 100, maxEntries: 10 });
  cache.put('a', bytes(1), 's1');
  cache.put('b', bytes(2), 's2');
  cache.put('c', bytes(4), 's1');
  assert.equal(cache.deleteSession('s1'), 2);
  assert.deepEqual(cache.keys(), ['b']);
  assert.equal(cache.bytes, 2);
  assert.equal(cache.deleteSession('nobody'), 0);
  assert.equal(cache.delete('b'), true);
  assert.equal(cache.delete('b'), false);
  assert.equal(cache.bytes, 0);
  cache.put('d', bytes(3), undefined);
  cache.clear();
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
});
