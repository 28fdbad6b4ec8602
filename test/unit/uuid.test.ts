// Version 4 UUID text from random bytes (src/uuid.ts, RFC 9562 5.4) and the UUID shape check.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BytesError } from '../../src/bytes';
import { isUuid, uuidFromBytes } from '../../src/uuid';
import { assertThrowsKind } from '../support/throws';

test('all-zero bytes give the version 4, variant 10 UUID with nothing else set', () => {
  assert.equal(uuidFromBytes(new Uint8Array(16)), '00000000-0000-4000-8000-000000000000');
});

test('all-one bytes keep every bit but the version nibble and the two variant bits', () => {
  assert.equal(uuidFromBytes(new Uint8Array(16).fill(0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
});

test('bytes land in order, as lower-case hex in 8-4-4-4-12 groups', () => {
  const bytes = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
  assert.equal(uuidFromBytes(bytes), 'a0a1a2a3-a4a5-46a7-a8a9-aaabacadaeaf');
});

test('the caller\'s random bytes are not modified', () => {
  const bytes = new Uint8Array(16).fill(0xff);
  uuidFromBytes(bytes);
  assert.deepEqual(bytes, new Uint8Array(16).fill(0xff));
});

test('anything but 16 bytes is refused with the count', () => {
  assertThrowsKind(() => uuidFromBytes(new Uint8Array(15)), BytesError, /need 16 random bytes, got 15/);
  assertThrowsKind(() => uuidFromBytes(new Uint8Array(17)), BytesError, /got 17/);
});

test('isUuid takes the 8-4-4-4-12 hex form in either case and nothing else', () => {
  assert.equal(isUuid('5B1E2A3C-4d5e-4f60-8172-8394a5b6c7d8'), true);
  assert.equal(isUuid(uuidFromBytes(new Uint8Array(16))), true);
  assert.equal(isUuid('5b1e2a3c4d5e4f6081728394a5b6c7d8'), false);
  assert.equal(isUuid('{5b1e2a3c-4d5e-4f60-8172-8394a5b6c7d8}'), false);
  assert.equal(isUuid('5b1e2a3c-4d5e-4f60-8172-8394a5b6c7d'), false);
  assert.equal(isUuid('5b1e2a3c-4d5e-4f60-8172-8394a5b6c7dg'), false);
  assert.equal(isUuid(' 5b1e2a3c-4d5e-4f60-8172-8394a5b6c7d8'), false);
  assert.equal(isUuid(''), false);
});
