// TXT record data (src/discovery/txt-bytes.ts, RFC 6763 6): entries to length-prefixed bytes and
// back. discovery-txt.test.ts checks the records of spec 2.1 and 2.2 through these; here, the edges.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Encode } from '../../src/bytes';
import { DiscoveryError } from '../../src/discovery/error';
import { parseTxtBytes, TXT_STRING_MAX, txtBytes, txtGet, type TxtEntry } from '../../src/discovery/txt-bytes';
import { assertThrowsKind } from '../support/throws';

function strings(...texts: string[]): Uint8Array {
  const parts = texts.map((text) => utf8Encode(text));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + 1 + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out[offset++] = part.length;
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

test('a boolean attribute is the bare key, an empty value is key=', () => {
  assert.deepEqual(txtBytes([['flag', null], ['empty', '']]), strings('flag', 'empty='));
  assert.deepEqual(parseTxtBytes(strings('flag', 'empty=')), [['flag', null], ['empty', '']]);
});

test('the 255-byte limit counts UTF-8 bytes, not characters', () => {
  // "k=" and 2-byte characters: 126 of them make 254 bytes, 127 make 256.
  const fits = txtBytes([['k', '\u00e9'.repeat(126)]]);
  assert.equal(fits[0], 254);
  assertThrowsKind(() => txtBytes([['k', '\u00e9'.repeat(127)]]), DiscoveryError, /k is 256 bytes; a TXT string holds at most 255/);
  assert.equal(txtBytes([['k', 'x'.repeat(TXT_STRING_MAX - 2)]])[0], 255);
});

test('keys must be printable US-ASCII without "=", and given once in any case', () => {
  assertThrowsKind(() => txtBytes([['', 'x']]), DiscoveryError, /empty key/);
  assertThrowsKind(() => txtBytes([['k\u00e9', 'x']]), DiscoveryError, /index 1/);
  assertThrowsKind(() => txtBytes([['a=b', 'x']]), DiscoveryError, /index 1/);
  assertThrowsKind(() => txtBytes([['a\tb', 'x']]), DiscoveryError, /index 1/);
  assertThrowsKind(() => txtBytes([['Model', 'a'], ['model', 'b']]), DiscoveryError, /"model" occurs twice/);
  // A space and "~" are printable: allowed.
  assert.deepEqual(parseTxtBytes(txtBytes([['a b~', '1']])), [['a b~', '1']]);
});

test('a value may hold "=": only the first one ends the key', () => {
  assert.deepEqual(parseTxtBytes(strings('a=b=c', '==x')), [['a', 'b=c']]);
});

test('reading keeps the first of keys that differ only in case, with its case', () => {
  assert.deepEqual(parseTxtBytes(strings('Key=1', 'KEY=2', 'key')), [['Key', '1']]);
});

test('no bytes and zero-length strings read as no entries', () => {
  assert.deepEqual(parseTxtBytes(new Uint8Array(0)), []);
  assert.deepEqual(parseTxtBytes(Uint8Array.from([0, 0, 1, 0x61, 0])), [['a', null]]);
});

test('a length byte past the end names where and how much is missing', () => {
  assertThrowsKind(() => parseTxtBytes(Uint8Array.from([1, 0x61, 5, 0x62])), DiscoveryError, /offset 2 claims 5 bytes but only 1 remain/);
});

test('txtGet: a string, null for a boolean attribute, undefined when absent, in any source', () => {
  const entries: TxtEntry[] = [['Flag', null], ['deviceid', 'AA'], ['DeviceID', 'BB']];
  assert.equal(txtGet(entries, 'flag'), null);
  assert.equal(txtGet(entries, 'DEVICEID'), 'AA');
  assert.equal(txtGet(entries, 'missing'), undefined);
  assert.equal(txtGet(new Map<string, string | null>([['Model', 'X']]), 'model'), 'X');
  assert.equal(txtGet({ Model: 'Y', flag: null }, 'MODEL'), 'Y');
  assert.equal(txtGet({ flag: null }, 'flag'), null);
  assert.equal(txtGet({}, 'toString'), undefined);
});
