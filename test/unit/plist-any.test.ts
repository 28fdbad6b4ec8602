// Decoding a property list in either format by its content (src/plist/any.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Encode } from '../../src/bytes';
import { decodePlist } from '../../src/plist/any';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { PlistError, PlistReal, real } from '../../src/plist/value';
import { encodeXmlPlistBytes } from '../../src/plist/xml';
import { assertThrowsKind } from '../support/throws';

const VALUE = { rate: real(1), name: 'photo', count: 3 };

test('a binary plist is read as binary, an XML plist as XML, to the same value', () => {
  const expected = { rate: 1, name: 'photo', count: 3 };
  assert.deepEqual(decodePlist(encodeBinaryPlist(VALUE)), expected);
  assert.deepEqual(decodePlist(encodeXmlPlistBytes(VALUE)), expected);
});

test('options reach the reader chosen: exact reals in both formats', () => {
  for (const bytes of [encodeBinaryPlist(VALUE), encodeXmlPlistBytes(VALUE)]) {
    const decoded = decodePlist(bytes, { exactReals: true }) as Record<string, unknown>;
    assert.ok(decoded.rate instanceof PlistReal);
    assert.equal(decoded.count, 3);
  }
});

test('limits reach the reader chosen', () => {
  assertThrowsKind(() => decodePlist(encodeBinaryPlist(VALUE), { limits: { maxBytes: 10 } }), PlistError, /bplist: input of \d+ bytes exceeds the limit of 10/);
  assertThrowsKind(() => decodePlist(encodeXmlPlistBytes(VALUE), { limits: { maxBytes: 10 } }), PlistError, /xml plist: \d+ bytes exceed the limit of 10/);
});

test('any "bplist" prefix goes to the binary reader, so another version gets a binary error', () => {
  const other = encodeBinaryPlist(VALUE);
  other[7] = 0x31; // bplist01
  assertThrowsKind(() => decodePlist(other), PlistError, /^bplist: /);
  assertThrowsKind(() => decodePlist(latin1Encode('bplist')), PlistError, /^bplist: /);
});

test('shorter or other prefixes are read as XML', () => {
  assertThrowsKind(() => decodePlist(latin1Encode('bplis')), PlistError, /^xml plist/);
  assertThrowsKind(() => decodePlist(new Uint8Array(0)), PlistError, /^xml plist/);
  assertThrowsKind(() => decodePlist(latin1Encode('Bplist00')), PlistError, /^xml plist/);
});
