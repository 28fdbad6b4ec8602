// Byte classes of heads and the quoting of input in error reasons (src/http/_chars.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Encode } from '../../src/bytes';
import { hexDigitValue, isToken, isTokenByte, quoteBytes, quoteText } from '../../src/http/_chars';

test('tokens are RFC 9110 tchars: letters, digits and !#$%&\'*+-.^_`|~', () => {
  assert.equal(isToken('GET'), true);
  assert.equal(isToken('SET_PARAMETER'), true);
  assert.equal(isToken("!#$%&'*+-.^_`|~09azAZ"), true);
  for (const text of ['', 'a b', 'a:b', 'a,b', 'a"b', 'a(b', 'a/b', 'a\tb', '\u00fc', '\u0100', 'a\u007f']) {
    assert.equal(isToken(text), false, JSON.stringify(text));
  }
});

test('isTokenByte agrees with isToken byte by byte', () => {
  for (let byte = 0; byte < 256; byte++) assert.equal(isTokenByte(byte), isToken(String.fromCharCode(byte)), `byte ${byte}`);
});

test('hexDigitValue reads both cases and refuses the neighbours of the ranges', () => {
  assert.deepEqual([...'09afAF'].map((c) => hexDigitValue(c.charCodeAt(0))), [0, 9, 10, 15, 10, 15]);
  for (const c of '/:`g@G ') assert.equal(hexDigitValue(c.charCodeAt(0)), -1, c);
});

test('quoteBytes shows ASCII as is and escapes quotes, backslashes, controls and high bytes', () => {
  const bytes = Uint8Array.from([0x41, 0x22, 0x5c, 0x0a, 0x00, 0x7f, 0xff, 0x20]);
  assert.equal(quoteBytes(bytes, 0, bytes.length), '"A\\x22\\x5c\\x0a\\x00\\x7f\\xff "');
  assert.equal(quoteBytes(bytes, 1, 3), '"\\x22\\x5c"');
  assert.equal(quoteBytes(bytes, 2, 2), '""');
});

test('quoteBytes stops at max bytes and says there was more', () => {
  const bytes = latin1Encode('abcdefghij');
  assert.equal(quoteBytes(bytes, 0, 10, 4), '"abcd..."');
  assert.equal(quoteBytes(bytes, 0, 4, 4), '"abcd"');
  assert.equal(quoteBytes(bytes, 0, 10).length, 12);
});

test('quoteText escapes like quoteBytes, and code units above Latin-1 as \\u', () => {
  assert.equal(quoteText('a"\u00e9\u20ac'), '"a\\x22\\xe9\\u20ac"');
  assert.equal(quoteText('abcdef', 3), '"abc..."');
  assert.equal(quoteText(''), '""');
});
