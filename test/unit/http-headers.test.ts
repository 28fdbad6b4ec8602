// Headers, the status table and the limits of the HTTP/RTSP message layer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEADER, Headers, canonicalHeaderName, listTokens } from '../../src/http/headers';
import { DEFAULT_HTTP_LIMITS, resolveHttpLimits } from '../../src/http/limits';
import { STATUS, isDefinedStatus, reasonPhrase, statusForbidsBody } from '../../src/http/status';

test('lookups ignore case; iteration keeps spelling and order', () => {
  const headers = new Headers().append('Content-Type', 'a').append('cseq', '0').append('X-Vendor-Session-ID', 'S');
  assert.equal(headers.get('content-type'), 'a');
  assert.equal(headers.get('CSEQ'), '0');
  assert.equal(headers.has('x-vendor-session-id'), true);
  assert.equal(headers.has('Date'), false);
  assert.equal(headers.get('Date'), undefined);
  assert.deepEqual([...headers], [['Content-Type', 'a'], ['cseq', '0'], ['X-Vendor-Session-ID', 'S']]);
  assert.equal(headers.size, 3);
});

test('repeated fields: get returns the first, getAll every value in order', () => {
  const headers = new Headers([['Via', '1'], ['Other', 'x'], ['via', '2']]);
  assert.equal(headers.get('VIA'), '1');
  assert.deepEqual(headers.getAll('via'), ['1', '2']);
  assert.deepEqual(headers.getAll('none'), []);
});

test('set replaces the first field in place with the new spelling and drops the rest', () => {
  const headers = new Headers([['A', '1'], ['content-length', '5'], ['B', '2'], ['Content-Length', '6']]);
  headers.set('Content-Length', 7);
  assert.deepEqual([...headers.entries()], [['A', '1'], ['Content-Length', '7'], ['B', '2']]);
  headers.set('C', '3');
  assert.deepEqual([...headers].at(-1), ['C', '3']);
});

test('delete removes every field of a name and says whether there was one', () => {
  const headers = new Headers({ A: '1', b: 2 }).append('a', '3');
  assert.equal(headers.delete('A'), true);
  assert.equal(headers.delete('A'), false);
  assert.deepEqual([...headers], [['b', '2']]);
});

test('builds from a record, pairs or another Headers (a copy)', () => {
  const original = new Headers({ CSeq: 4, Server: 'S' });
  const copy = new Headers(original);
  copy.set('CSeq', 5);
  assert.equal(original.get('cseq'), '4');
  assert.equal(copy.get('cseq'), '5');
  assert.deepEqual([...new Headers([['X', 1]])], [['X', '1']]);
});

test('canonical spellings of well-known names', () => {
  assert.equal(canonicalHeaderName('cseq'), 'CSeq');
  assert.equal(canonicalHeaderName('CONTENT-LENGTH'), 'Content-Length');
  assert.equal(canonicalHeaderName('www-authenticate'), 'WWW-Authenticate');
  assert.equal(canonicalHeaderName('X-Custom-thing'), 'X-Custom-thing');
  assert.deepEqual(
    [HEADER.contentLength, HEADER.contentType, HEADER.cseq, HEADER.server, HEADER.date, HEADER.connection, HEADER.upgrade],
    ['Content-Length', 'Content-Type', 'CSeq', 'Server', 'Date', 'Connection', 'Upgrade'],
  );
});

test('listTokens splits list fields across lines, trims, lower-cases and drops empty elements', () => {
  const headers = new Headers([['Connection', 'Upgrade, , Keep-Alive'], ['connection', ' CLOSE ']]);
  assert.deepEqual(listTokens(headers, 'connection'), ['upgrade', 'keep-alive', 'close']);
});

test('status table: HTTP and RTSP phrases, RTSP-only codes, borrowing and unknown codes', () => {
  const http: [number, string][] = [
    [100, 'Continue'], [101, 'Switching Protocols'], [200, 'OK'], [400, 'Bad Request'], [401, 'Unauthorized'], [403, 'Forbidden'],
    [404, 'Not Found'], [405, 'Method Not Allowed'], [408, 'Request Timeout'], [411, 'Length Required'], [412, 'Precondition Failed'],
    [413, 'Content Too Large'], [414, 'URI Too Long'], [415, 'Unsupported Media Type'], [431, 'Request Header Fields Too Large'],
    [500, 'Internal Server Error'], [501, 'Not Implemented'], [503, 'Service Unavailable'], [505, 'HTTP Version Not Supported'],
  ];
  for (const [status, phrase] of http) assert.equal(reasonPhrase(status), phrase);
  const rtsp: [number, string][] = [
    [200, 'OK'], [408, 'Request Time-out'], [413, 'Request Entity Too Large'], [414, 'Request-URI Too Large'],
    [453, 'Not Enough Bandwidth'], [454, 'Session Not Found'], [455, 'Method Not Valid in This State'],
    [459, 'Aggregate operation not allowed'], [461, 'Unsupported transport'], [470, 'Connection Authorization Required'],
    [505, 'RTSP Version not supported'], [551, 'Option not supported'],
  ];
  for (const [status, phrase] of rtsp) assert.equal(reasonPhrase(status, 'RTSP'), phrase);
  assert.equal(isDefinedStatus(431, 'RTSP'), false);
  assert.equal(isDefinedStatus(454, 'HTTP'), false);
  assert.equal(isDefinedStatus(454, 'RTSP'), true);
  assert.equal(reasonPhrase(101, 'RTSP'), 'Switching Protocols');
  assert.equal(reasonPhrase(454, 'HTTP'), 'Session Not Found');
  assert.equal(reasonPhrase(299), '');
  assert.equal(STATUS.connectionAuthorizationRequired, 470);
  assert.equal(STATUS.requestHeaderFieldsTooLarge, 431);
});

test('1xx, 204 and 304 forbid a body; other statuses do not', () => {
  assert.deepEqual([100, 101, 199, 204, 304].map(statusForbidsBody), [true, true, true, true, true]);
  assert.deepEqual([200, 205, 303, 400, 470].map(statusForbidsBody), [false, false, false, false, false]);
});

test('limits: defaults, overrides, and refusal of nonsense values', () => {
  assert.deepEqual(resolveHttpLimits(), { ...DEFAULT_HTTP_LIMITS });
  assert.equal(resolveHttpLimits({ maxBodyBytes: 5 }).maxBodyBytes, 5);
  assert.equal(resolveHttpLimits({ maxBodyBytes: 5 }).maxHeadBytes, DEFAULT_HTTP_LIMITS.maxHeadBytes);
  assert.throws(() => resolveHttpLimits({ maxHeaderCount: -1 }), /maxHeaderCount must be a non-negative integer/);
  assert.throws(() => resolveHttpLimits({ maxHeadBytes: Number.NaN }), RangeError);
  assert.throws(() => resolveHttpLimits({ maxTargetLength: 1.5 }), RangeError);
});
