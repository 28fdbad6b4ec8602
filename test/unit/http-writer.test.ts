// HTTP/1.x and RTSP/1.0 writer: exact bytes of responses and requests, validation, httpDate.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Decode } from '../../src/bytes';
import { httpDate } from '../../src/http/date';
import { HEADER, Headers } from '../../src/http/headers';
import { MessageParser } from '../../src/http/parser';
import { HttpWriteError, writeRequest, writeResponse } from '../../src/http/writer';
import { wire } from '../support/http-feed';

const text = (bytes: Uint8Array) => latin1Decode(bytes);

test('writes an HTTP 200 with headers as spelled, in order, then Content-Length and the body', () => {
  const out = writeResponse({
    protocol: 'HTTP',
    version: '1.1',
    status: 200,
    headers: [
      [HEADER.date, 'Sun, 06 Nov 1994 08:49:37 GMT'],
      ['Content-Type', 'text/x-vendor-plist+xml'],
      ['x-lower-case', 'kept'],
    ],
    body: wire('<plist/>'),
  });
  assert.equal(
    text(out),
    'HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: text/x-vendor-plist+xml\r\nx-lower-case: kept\r\nContent-Length: 8\r\n\r\n<plist/>',
  );
});

test('writes Content-Length: 0 for a response without a body', () => {
  assert.equal(text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 200 })), 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
  assert.equal(
    text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 412, headers: { Date: 'x' } })),
    'HTTP/1.1 412 Precondition Failed\r\nDate: x\r\nContent-Length: 0\r\n\r\n',
  );
});

test('writes an RTSP answer with CSeq echoed and the RTSP reason phrase', () => {
  const out = writeResponse({
    protocol: 'RTSP',
    version: '1.0',
    status: 200,
    headers: { [HEADER.server]: 'AirTunes/366.0', [HEADER.cseq]: 0, [HEADER.contentType]: 'application/octet-stream' },
    body: new Uint8Array([1, 2, 0xff]),
  });
  assert.deepEqual(
    out,
    new Uint8Array([
      ...wire('RTSP/1.0 200 OK\r\nServer: AirTunes/366.0\r\nCSeq: 0\r\nContent-Type: application/octet-stream\r\nContent-Length: 3\r\n\r\n'),
      1,
      2,
      0xff,
    ]),
  );
  assert.equal(text(writeResponse({ protocol: 'RTSP', version: '1.0', status: 505 })), 'RTSP/1.0 505 RTSP Version not supported\r\nContent-Length: 0\r\n\r\n');
  assert.equal(text(writeResponse({ protocol: 'RTSP', version: '1.0', status: 413 })), 'RTSP/1.0 413 Request Entity Too Large\r\nContent-Length: 0\r\n\r\n');
  assert.equal(text(writeResponse({ protocol: 'RTSP', version: '1.0', status: 454 })), 'RTSP/1.0 454 Session Not Found\r\nContent-Length: 0\r\n\r\n');
});

test('1xx, 204 and 304 responses get no Content-Length and refuse a body', () => {
  assert.equal(
    text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 101, headers: { Upgrade: 'PTTH/1.0', Connection: 'Upgrade' } })),
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\n\r\n',
  );
  assert.equal(text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 100 })), 'HTTP/1.1 100 Continue\r\n\r\n');
  assert.equal(text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 204 })), 'HTTP/1.1 204 No Content\r\n\r\n');
  assert.equal(text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 304 })), 'HTTP/1.1 304 Not Modified\r\n\r\n');
  assert.equal(text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 204, body: new Uint8Array(0) })), 'HTTP/1.1 204 No Content\r\n\r\n');
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 204, body: wire('x') }), /204 response has no content/);
});

test('the reason phrase comes from the status table unless given', () => {
  const statusLine = (status: number, protocol: 'HTTP' | 'RTSP' = 'HTTP', reason?: string) =>
    text(writeResponse({ protocol, version: protocol === 'HTTP' ? '1.1' : '1.0', status, reason })).split('\r\n')[0];
  assert.equal(statusLine(505), 'HTTP/1.1 505 HTTP Version Not Supported');
  assert.equal(statusLine(431), 'HTTP/1.1 431 Request Header Fields Too Large');
  assert.equal(statusLine(413), 'HTTP/1.1 413 Content Too Large');
  assert.equal(statusLine(470), 'HTTP/1.1 470 Connection Authorization Required');
  assert.equal(statusLine(470, 'RTSP'), 'RTSP/1.0 470 Connection Authorization Required');
  assert.equal(statusLine(599), 'HTTP/1.1 599 ');
  assert.equal(statusLine(200, 'HTTP', 'Fine'), 'HTTP/1.1 200 Fine');
});

test("keeps the caller's Content-Length and refuses one that disagrees with the body", () => {
  assert.equal(
    text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'content-length': '3' }, body: wire('abc') })),
    'HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc',
  );
  // A HEAD answer states the length of the body it does not send.
  assert.equal(text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'Content-Length': 1234 } })), 'HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n');
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'Content-Length': '4' }, body: wire('abc') }), /does not match the 3-byte body/);
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'Content-Length': 'x' } }), /is not a number/);
  assert.throws(
    () => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: [['Content-Length', '1'], ['Content-Length', '1']], body: wire('a') }),
    /set 2 times/,
  );
});

test('a caller-framed chunked body is written as given, without Content-Length', () => {
  const chunked = wire('3\r\nabc\r\n0\r\n\r\n');
  assert.equal(
    text(writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'Transfer-Encoding': 'chunked' }, body: chunked })),
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
  );
  assert.throws(() => writeResponse({ protocol: 'RTSP', version: '1.0', status: 200, headers: { 'Transfer-Encoding': 'chunked' } }), /RTSP messages cannot use Transfer-Encoding/);
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.0', status: 200, headers: { 'Transfer-Encoding': 'chunked' } }), /HTTP\/1\.0/);
  assert.throws(
    () => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'Transfer-Encoding': 'chunked', 'Content-Length': 1 } }),
    /together/,
  );
});

test('refuses header values with CR, LF or NUL, names that are not tokens, and non-Latin-1 text', () => {
  const attempt = (headers: Record<string, string>) => () => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers });
  assert.throws(attempt({ 'X-A': 'a\r\nInjected: yes' }), HttpWriteError);
  assert.throws(attempt({ 'X-A': 'a\nb' }), /header X-A value "a\\x0ab" contains CR, LF or NUL at index 1/);
  assert.throws(attempt({ 'X-A': 'a\u0000' }), /contains CR, LF or NUL/);
  assert.throws(attempt({ 'X A': 'v' }), /header name "X A" is not a token/);
  assert.throws(attempt({ '': 'v' }), /is not a token/);
  assert.throws(attempt({ 'X-A': 'snow \u2603' }), /above U\+00FF/);
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, reason: 'OK\r\nX: y' }), /reason phrase/);
  // Latin-1 values are written one byte per character.
  const out = writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'X-Name': 'caf\u00e9' } });
  assert.equal(out[out.indexOf(0xe9)], 0xe9);
  assert.equal(text(out), 'HTTP/1.1 200 OK\r\nX-Name: caf\u00e9\r\nContent-Length: 0\r\n\r\n');
});

test('refuses statuses and versions the wire cannot carry', () => {
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 99 }), /status 99/);
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 600 }), /status 600/);
  assert.throws(() => writeResponse({ protocol: 'HTTP', version: '1.1', status: 200.5 }), /status 200.5/);
  assert.throws(() => writeResponse({ protocol: 'RTSP', version: '1.1', status: 200 }), /RTSP\/1\.1 is not a version/);
  assert.throws(() => writeResponse({ protocol: 'HTTP' as 'RTSP', version: '2.0' as '1.0', status: 200 }), HttpWriteError);
});

test('writes a reverse-connection POST /event with its body and Content-Length', () => {
  const plist = wire('<?xml version="1.0"?><plist/>');
  const out = writeRequest({
    method: 'POST',
    target: '/event',
    protocol: 'HTTP',
    version: '1.1',
    headers: { 'Content-Type': 'text/x-vendor-plist+xml', 'X-Vendor-Session-ID': '00000000-0000-0000-0000-000000000001' },
    body: plist,
  });
  assert.equal(
    text(out),
    'POST /event HTTP/1.1\r\nContent-Type: text/x-vendor-plist+xml\r\nX-Vendor-Session-ID: 00000000-0000-0000-0000-000000000001\r\nContent-Length: 29\r\n\r\n<?xml version="1.0"?><plist/>',
  );
});

test('a request without a body gets no Content-Length; an empty body gets Content-Length: 0', () => {
  assert.equal(
    text(writeRequest({ method: 'GET', target: '/slideshows/1/assets/1', protocol: 'HTTP', version: '1.1', headers: { Accept: 'application/x-vendor-binary-plist' } })),
    'GET /slideshows/1/assets/1 HTTP/1.1\r\nAccept: application/x-vendor-binary-plist\r\n\r\n',
  );
  assert.equal(text(writeRequest({ method: 'POST', target: '/stop', protocol: 'HTTP', version: '1.1', body: new Uint8Array(0) })), 'POST /stop HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  assert.equal(
    text(writeRequest({ method: 'OPTIONS', target: '*', protocol: 'RTSP', version: '1.0', headers: new Headers().append('CSeq', 1) })),
    'OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n',
  );
});

test('refuses request methods that are not tokens and targets that need encoding', () => {
  const attempt = (method: string, target: string) => () => writeRequest({ method, target, protocol: 'HTTP', version: '1.1' });
  assert.throws(attempt('GE T', '/'), /method "GE T" is not a token/);
  assert.throws(attempt('', '/'), /is not a token/);
  assert.throws(attempt('GET', ''), /request-target is empty/);
  assert.throws(attempt('GET', '/a b'), /percent-encode/);
  assert.throws(attempt('GET', '/caf\u00e9'), /percent-encode/);
  assert.throws(attempt('GET', '/a\r\n'), /percent-encode/);
});

test('written messages parse back to the same head and body', () => {
  const body = new Uint8Array(1000).map((_, i) => i & 0xff);
  const requestBytes = writeRequest({ method: 'PUT', target: '/photo', protocol: 'HTTP', version: '1.1', headers: { 'X-Vendor-AssetKey': 'K' }, body });
  const requests = new MessageParser('request');
  requests.receive(requestBytes);
  const head = requests.next();
  assert.ok(head && head.type === 'head');
  assert.equal(head.head.method, 'PUT');
  assert.deepEqual([...head.head.headers], [['X-Vendor-AssetKey', 'K'], ['Content-Length', '1000']]);
  assert.deepEqual(requests.next(), { type: 'body', data: body });
  assert.equal(requests.next()?.type, 'end');

  const responses = new MessageParser('response');
  responses.receive(writeResponse({ protocol: 'RTSP', version: '1.0', status: 453, headers: { CSeq: 12 } }));
  const answer = responses.next();
  assert.ok(answer && answer.type === 'head');
  assert.deepEqual([answer.head.protocol, answer.head.status, answer.head.reason, answer.head.headers.get('cseq')], ['RTSP', 453, 'Not Enough Bandwidth', '12']);
  assert.equal(responses.next()?.type, 'end');
});

test('httpDate formats IMF-fixdate (RFC 9110 5.6.7 example and edges)', () => {
  assert.equal(httpDate(784111777000), 'Sun, 06 Nov 1994 08:49:37 GMT');
  assert.equal(httpDate(784111777999), 'Sun, 06 Nov 1994 08:49:37 GMT');
  assert.equal(httpDate(0), 'Thu, 01 Jan 1970 00:00:00 GMT');
  assert.equal(httpDate(-1), 'Wed, 31 Dec 1969 23:59:59 GMT');
  assert.equal(httpDate(951782400000), 'Tue, 29 Feb 2000 00:00:00 GMT');
  assert.equal(httpDate(1709164800000), 'Thu, 29 Feb 2024 00:00:00 GMT');
  assert.equal(httpDate(253402300799000), 'Fri, 31 Dec 9999 23:59:59 GMT');
  assert.equal(httpDate(-62167219200000), 'Sat, 01 Jan 0000 00:00:00 GMT');
  assert.throws(() => httpDate(253402300800000), RangeError);
  assert.throws(() => httpDate(-62167219200001), RangeError);
  assert.throws(() => httpDate(Number.NaN), RangeError);
  assert.throws(() => httpDate(Number.POSITIVE_INFINITY), RangeError);
});
