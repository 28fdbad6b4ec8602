// text/parameters bodies (`name: value` lines): reading as senders write them, writing as receivers do.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Encode } from '../../src/bytes';
import {
  DEFAULT_PARAMETERS_LIMITS,
  decodeParameters,
  encodeParameters,
  encodeParametersBytes,
} from '../../src/plist/parameters';
import { PlistError } from '../../src/plist/value';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a PlistError whose message matches `pattern`. */
const throwsPlistError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, PlistError, pattern);


const entries = (map: Map<string, string>) => Array.from(map.entries());

test('reads a POST /play body with CRLF line ends, in order (spec 4.2)', () => {
  const body = 'Content-Location: http://192.168.1.18:7001/1/ab.mp4\r\nStart-Position: 0.174051\r\n';
  assert.deepEqual(entries(decodeParameters(utf8Encode(body))), [
    ['Content-Location', 'http://192.168.1.18:7001/1/ab.mp4'],
    ['Start-Position', '0.174051'],
  ]);
});

test('reads bare LF and bare CR line ends and a last line without an end', () => {
  assert.deepEqual(entries(decodeParameters('a: 1\nb: 2\rc: 3')), [['a', '1'], ['b', '2'], ['c', '3']]);
});

test('splits at the first colon, so values keep theirs (URLs, times)', () => {
  assert.deepEqual(entries(decodeParameters('url: http://h:80/p?q=a:b\ntime:12:30')), [
    ['url', 'http://h:80/p?q=a:b'],
    ['time', '12:30'],
  ]);
});

test('trims spaces and tabs around names and values, keeps inner ones', () => {
  assert.deepEqual(entries(decodeParameters(' \tname with space \t:\t value  here \t\r\n')), [['name with space', 'value  here']]);
  assert.deepEqual(entries(decodeParameters('empty:\nalso:   \n')), [['empty', ''], ['also', '']]);
});

test('skips blank and whitespace-only lines, and a leading BOM', () => {
  assert.deepEqual(entries(decodeParameters('\ufeff\r\n\r\na: 1\r\n \t \r\n\nb: 2\r\n\r\n')), [['a', '1'], ['b', '2']]);
  assert.equal(decodeParameters('').size, 0);
  assert.equal(decodeParameters(new Uint8Array(0)).size, 0);
});

test('a repeated name keeps its first position and its last value', () => {
  assert.deepEqual(entries(decodeParameters('a: 1\nb: 2\na: 3\n')), [['a', '3'], ['b', '2']]);
});

test('reads UTF-8 values', () => {
  assert.deepEqual(entries(decodeParameters(utf8Encode('title: Café 😀\n'))), [['title', 'Café 😀']]);
});

test('rejects a line without a colon or with an empty name, naming the line', () => {
  throwsPlistError(() => decodeParameters('a: 1\r\n\r\nnot a parameter\r\n'), /^text\/parameters: line 3 has no ':'$/);
  throwsPlistError(() => decodeParameters('a: 1\n  : value\n'), /^text\/parameters: line 2 has an empty name$/);
  throwsPlistError(() => decodeParameters(':x'), /line 1 has an empty name/);
});

test('rejects invalid UTF-8 and input that is neither bytes nor a string', () => {
  throwsPlistError(() => decodeParameters(new Uint8Array([0x61, 0x3a, 0x20, 0xff])), /utf-8: malformed sequence at offset 3/);
  throwsPlistError(() => decodeParameters(7 as unknown as string), /neither bytes nor a string/);
});

test('enforces the byte and line limits', () => {
  assert.equal(DEFAULT_PARAMETERS_LIMITS.maxBytes, 65536);
  assert.equal(DEFAULT_PARAMETERS_LIMITS.maxLines, 1000);
  const body = 'a: 1\nb: 2\nc: 3\n';
  assert.equal(decodeParameters(body, { maxBytes: body.length, maxLines: 3 }).size, 3);
  throwsPlistError(() => decodeParameters(utf8Encode(body), { maxBytes: body.length - 1 }), /15 bytes exceed the limit of 14/);
  throwsPlistError(() => decodeParameters(body, { maxBytes: body.length - 1 }), /exceeds the limit of 14 bytes/);
  throwsPlistError(() => decodeParameters('é: è\n', { maxBytes: 6 }), /exceeds the limit of 6 bytes/);
  throwsPlistError(() => decodeParameters(body, { maxLines: 2 }), /more than 2 lines/);
  throwsPlistError(() => decodeParameters('\n'.repeat(2000)), /more than 1000 lines/);
});

test('writes the GET /scrub reply as real receivers do: floats with six decimals (spec 4.2)', () => {
  assert.equal(encodeParameters({ duration: 83.124794, position: 14.467 }), 'duration: 83.124794\nposition: 14.467000\n');
  assert.equal(encodeParameters({ duration: 0, position: 0 }), 'duration: 0.000000\nposition: 0.000000\n');
  assert.equal(encodeParameters([['position', 1 / 3]]), 'position: 0.333333\n');
});

test('writes strings as given, in iteration order, from a Map, array or record', () => {
  const map = new Map<string, string | number>([
    ['Content-Location', 'http://h/a.mp4'],
    ['Start-Position', 0.5],
  ]);
  const expected = 'Content-Location: http://h/a.mp4\nStart-Position: 0.500000\n';
  assert.equal(encodeParameters(map), expected);
  assert.equal(encodeParameters(Array.from(map)), expected);
  assert.equal(encodeParameters({ 'Content-Location': 'http://h/a.mp4', 'Start-Position': 0.5 }), expected);
  assert.equal(encodeParameters([]), '');
  assert.equal(encodeParameters({ count: '3' }), 'count: 3\n', 'a string keeps an integer format');
});

test('writes UTF-8 bytes', () => {
  assert.deepEqual(encodeParametersBytes({ t: 'é' }), new Uint8Array([0x74, 0x3a, 0x20, 0xc3, 0xa9, 0x0a]));
});

test('refuses what could not be read back: bad names, line breaks in values, non-finite numbers', () => {
  throwsPlistError(() => encodeParameters({ 'a:b': 'x' }), /bad name "a:b"/);
  throwsPlistError(() => encodeParameters({ '': 'x' }), /bad name ""/);
  throwsPlistError(() => encodeParameters({ 'a\nb': 'x' }), /bad name/);
  throwsPlistError(() => encodeParameters({ 'a\rb': 'x' }), /bad name/);
  throwsPlistError(() => encodeParameters({ a: 'x\r\ny: 1' }), /value of a holds a line break/);
  throwsPlistError(() => encodeParameters({ a: 'x\n' }), /line break/);
  throwsPlistError(() => encodeParameters({ a: NaN }), /a is NaN, not a finite number/);
  throwsPlistError(() => encodeParameters({ a: Infinity }), /not a finite number/);
  throwsPlistError(() => encodeParameters({ a: true as unknown as string }), /a is a boolean/);
});

test('what is written reads back the same', () => {
  const written = encodeParameters({ 'Content-Location': 'http://h:1/x?a=b:c', 'Start-Position': 0.25, note: 'Café' });
  assert.deepEqual(entries(decodeParameters(utf8Encode(written))), [
    ['Content-Location', 'http://h:1/x?a=b:c'],
    ['Start-Position', '0.250000'],
    ['note', 'Café'],
  ]);
});
