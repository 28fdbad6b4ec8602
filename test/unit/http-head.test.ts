// Reading one complete head (src/http/_head.ts): request and status lines, body framing and
// persistence, each refusal with its status. http-parser.test.ts drives these through the parser.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Encode } from '../../src/bytes';
import { Headers } from '../../src/http/headers';
import { checkMethod, fieldsTooLargeStatus, HeadProblem, isKeepAlive, parseRequestLine, parseStatusLine, requestFraming, responseFraming } from '../../src/http/_head';

/** parseRequestLine of `line` as the parser calls it: its first two spaces found. */
function requestLine(line: string, maxTargetLength = 100) {
  const bytes = latin1Encode(line);
  const space1 = line.indexOf(' ');
  const space2 = space1 < 0 ? -1 : line.indexOf(' ', space1 + 1);
  return parseRequestLine(bytes, 0, bytes.length, space1, space2, maxTargetLength);
}

function problem(result: unknown): [number, string] | undefined {
  return result instanceof HeadProblem ? [result.status, result.reason] : undefined;
}

test('a request line gives method, target, protocol and version', () => {
  assert.deepEqual(requestLine('GET /server-info HTTP/1.1'), { method: 'GET', target: '/server-info', protocol: 'HTTP', version: '1.1' });
  assert.deepEqual(requestLine('OPTIONS * RTSP/1.0'), { method: 'OPTIONS', target: '*', protocol: 'RTSP', version: '1.0' });
  assert.deepEqual(requestLine('GET /caf\u00e9 HTTP/1.0'), { method: 'GET', target: '/caf\u00e9', protocol: 'HTTP', version: '1.0' });
});

test('an empty target is an RTSP accommodation only', () => {
  assert.deepEqual(requestLine('TEARDOWN  RTSP/1.0'), { method: 'TEARDOWN', target: '', protocol: 'RTSP', version: '1.0' });
  assert.deepEqual(problem(requestLine('GET  HTTP/1.1')), [400, 'request-target is empty (only RTSP senders are allowed that)']);
});

test('a request line of the wrong shape is a 400 naming it', () => {
  assert.deepEqual(problem(requestLine('GET')), [400, 'request line "GET" has no spaces (expected METHOD SP target SP version)']);
  assert.deepEqual(problem(requestLine('GET /')), [400, 'request line "GET /" has no protocol version']);
  assert.deepEqual(problem(requestLine('GET / HTTP/1.1 x')), [400, 'request line "GET / HTTP/1.1 x" has more than two spaces']);
  assert.deepEqual(problem(requestLine('GET /a\tb HTTP/1.1')), [400, 'request-target has control byte 0x09 at offset 2']);
});

test('versions: served ones byte for byte; well-formed others 505; anything else 400', () => {
  assert.deepEqual(problem(requestLine('GET / HTTP/2.0')), [505, 'protocol version HTTP/2.0 is not supported (HTTP/1.1, HTTP/1.0 and RTSP/1.0 are)']);
  assert.deepEqual(problem(requestLine('GET / RTSP/1.1')), [505, 'protocol version RTSP/1.1 is not supported (HTTP/1.1, HTTP/1.0 and RTSP/1.0 are)']);
  assert.deepEqual(problem(requestLine('GET / http/1.1')), [400, 'protocol version "http/1.1" is malformed (expected HTTP/1.1, HTTP/1.0 or RTSP/1.0)']);
  assert.equal(problem(requestLine('GET / HTTP/1.10'))?.[0], 400);
});

test('a target over the limit is 414, judged before the rest of the line', () => {
  assert.deepEqual(problem(requestLine(`GET /${'a'.repeat(10)} HTTP/1.1`, 10)), [414, 'request-target exceeds 10 bytes']);
  assert.deepEqual(problem(requestLine(`GET /${'a'.repeat(10)}`, 10)), [414, 'request-target exceeds 10 bytes']);
  assert.equal(requestLine(`GET /${'a'.repeat(9)} HTTP/1.1`, 10) instanceof HeadProblem, false);
});

test('a method must be a non-empty token', () => {
  const bytes = latin1Encode(' GET@ x');
  assert.deepEqual(problem(checkMethod(bytes, 0, 0)), [400, 'request line starts with a space (no method)']);
  assert.deepEqual(problem(checkMethod(bytes, 1, 5)), [400, 'request method "GET@" is not a token']);
  assert.equal(checkMethod(latin1Encode('SET_PARAMETER '), 0, 13), undefined);
});

function statusLine(line: string) {
  const bytes = latin1Encode(line);
  return parseStatusLine(bytes, 0, bytes.length);
}

test('a status line gives version, code and reason; the reason may be missing', () => {
  assert.deepEqual(statusLine('HTTP/1.1 200 OK'), { protocol: 'HTTP', version: '1.1', status: 200, reason: 'OK' });
  assert.deepEqual(statusLine('RTSP/1.0 470 Connection Authorization Required'), { protocol: 'RTSP', version: '1.0', status: 470, reason: 'Connection Authorization Required' });
  assert.deepEqual(statusLine('HTTP/1.1 204'), { protocol: 'HTTP', version: '1.1', status: 204, reason: '' });
  assert.deepEqual(statusLine('HTTP/1.1 200 '), { protocol: 'HTTP', version: '1.1', status: 200, reason: '' });
});

test('a status line with a bad code, a bare CR or no code is a 400', () => {
  assert.deepEqual(problem(statusLine('HTTP/1.1 20 OK')), [400, 'status code "20 O" is not three digits']);
  assert.deepEqual(problem(statusLine('HTTP/1.1 2000')), [400, 'status code "2000" is not three digits']);
  assert.deepEqual(problem(statusLine('HTTP/1.1 099 Low')), [400, 'status code 99 is outside 100 to 599']);
  assert.deepEqual(problem(statusLine('HTTP/1.1 600 High')), [400, 'status code 600 is outside 100 to 599']);
  assert.deepEqual(problem(statusLine('HTTP/1.1 200 O\rK')), [400, 'status line has a bare CR (RFC 9112 2.2)']);
  assert.deepEqual(problem(statusLine('HTTP/1.1')), [400, 'status line "HTTP/1.1" has no status code']);
});

test('request framing: chunked, a length, or no body', () => {
  assert.deepEqual(requestFraming(new Headers(), 'HTTP', '1.1'), { framing: 'none', contentLength: undefined });
  assert.deepEqual(requestFraming(new Headers({ 'Content-Length': '12' }), 'RTSP', '1.0'), { framing: 'length', contentLength: 12 });
  assert.deepEqual(requestFraming(new Headers({ 'Transfer-Encoding': 'Chunked' }), 'HTTP', '1.1'), { framing: 'chunked', contentLength: undefined });
});

test('repeated Content-Length values are one length when equal, a 400 when not', () => {
  assert.deepEqual(requestFraming(new Headers([['Content-Length', '5'], ['Content-Length', ' 5 , 5']]), 'HTTP', '1.1'), { framing: 'length', contentLength: 5 });
  assert.deepEqual(problem(requestFraming(new Headers([['Content-Length', '5'], ['Content-Length', '6']]), 'HTTP', '1.1')), [400, 'Content-Length values differ: "5" and "6"']);
  assert.deepEqual(problem(requestFraming(new Headers({ 'Content-Length': '-1' }), 'HTTP', '1.1')), [400, 'Content-Length "-1" is not a number']);
  assert.deepEqual(problem(requestFraming(new Headers({ 'Content-Length': '0x10' }), 'HTTP', '1.1')), [400, 'Content-Length "0x10" is not a number']);
  assert.deepEqual(problem(requestFraming(new Headers({ 'Content-Length': '99999999999999999999' }), 'HTTP', '1.1')), [413, 'Content-Length "99999999999999999999" is too large']);
});

test('Transfer-Encoding is refused where it cannot frame a body, and unknown codings are 501', () => {
  const refused = (headers: Record<string, string>, protocol: 'HTTP' | 'RTSP', version: '1.0' | '1.1') => problem(requestFraming(new Headers(headers), protocol, version));
  assert.deepEqual(refused({ 'Content-Length': '3', 'Transfer-Encoding': 'chunked' }, 'HTTP', '1.1'), [400, 'both Content-Length and Transfer-Encoding are present (a request smuggling shape)']);
  assert.equal(refused({ 'Transfer-Encoding': 'chunked' }, 'RTSP', '1.0')?.[0], 400);
  assert.equal(refused({ 'Transfer-Encoding': 'chunked' }, 'HTTP', '1.0')?.[0], 400);
  assert.deepEqual(refused({ 'Transfer-Encoding': ' , ' }, 'HTTP', '1.1'), [400, 'Transfer-Encoding is empty']);
  assert.equal(refused({ 'Transfer-Encoding': 'chunked, chunked' }, 'HTTP', '1.1')?.[0], 400);
  assert.deepEqual(refused({ 'Transfer-Encoding': 'gzip' }, 'HTTP', '1.1'), [400, 'Transfer-Encoding "gzip" does not end with chunked, so the body length is unknown']);
  assert.deepEqual(refused({ 'Transfer-Encoding': 'gzip, chunked' }, 'HTTP', '1.1'), [501, 'Transfer-Encoding "gzip, chunked" is not supported (only chunked is)']);
});

test('response framing: none for HEAD, 1xx, 204 and 304; else chunked, a length, EOF (HTTP) or none (RTSP)', () => {
  const length = new Headers({ 'Content-Length': '5' });
  assert.deepEqual(responseFraming(length, 'HTTP', '1.1', 200, true), { framing: 'none', contentLength: undefined });
  for (const status of [101, 204, 304]) assert.deepEqual(responseFraming(length, 'HTTP', '1.1', status, false), { framing: 'none', contentLength: undefined });
  assert.deepEqual(responseFraming(length, 'HTTP', '1.1', 200, false), { framing: 'length', contentLength: 5 });
  assert.deepEqual(responseFraming(new Headers(), 'HTTP', '1.0', 200, false), { framing: 'eof', contentLength: undefined });
  assert.deepEqual(responseFraming(new Headers(), 'RTSP', '1.0', 200, false), { framing: 'none', contentLength: undefined });
  // A response with another coding is readable to EOF only in theory: 501, as for requests.
  assert.equal(problem(responseFraming(new Headers({ 'Transfer-Encoding': 'gzip' }), 'HTTP', '1.1', 200, false))?.[0], 501);
});

test('persistence: HTTP/1.1 and RTSP unless close; HTTP/1.0 only with keep-alive', () => {
  const keeps = (connection: string | undefined, protocol: 'HTTP' | 'RTSP', version: '1.0' | '1.1') =>
    isKeepAlive(new Headers(connection === undefined ? {} : { Connection: connection }), protocol, version);
  assert.equal(keeps(undefined, 'HTTP', '1.1'), true);
  assert.equal(keeps(undefined, 'RTSP', '1.0'), true);
  assert.equal(keeps(undefined, 'HTTP', '1.0'), false);
  assert.equal(keeps('Close', 'HTTP', '1.1'), false);
  assert.equal(keeps('keep-alive, close', 'RTSP', '1.0'), false);
  assert.equal(keeps('Keep-Alive', 'HTTP', '1.0'), true);
  assert.equal(keeps('upgrade', 'HTTP', '1.0'), false);
  assert.equal(keeps('upgrade', 'HTTP', '1.1'), true);
});

test('a head too large is 431 in HTTP and 400 in RTSP, which has no such code', () => {
  assert.equal(fieldsTooLargeStatus('HTTP'), 431);
  assert.equal(fieldsTooLargeStatus(undefined), 431);
  assert.equal(fieldsTooLargeStatus('RTSP'), 400);
});
