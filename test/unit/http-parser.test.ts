// HTTP/1.x and RTSP/1.0 message parser: framing, tolerance, errors and limits, in any split.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, latin1Decode, latin1Encode } from '../../src/bytes';
import { MessageParser } from '../../src/http/parser';
import { makeRng } from '../support/arbitrary';
import { SPLITS, feed, split, wire, type FeedOptions, type PlainHead, type Recorded } from '../support/http-feed';

/** Parses `input` fed whole, byte by byte and in seeded random splits; all must agree. */
function parseEverySplit(kind: 'request' | 'response', input: string | Uint8Array, options: FeedOptions = {}): Recorded[] {
  const bytes = typeof input === 'string' ? wire(input) : input;
  const reference = feed(kind, split(bytes, 'whole'), options).events;
  for (const how of SPLITS) {
    assert.deepEqual(feed(kind, split(bytes, how), options).events, reference, `split ${how} disagrees with whole`);
  }
  return reference;
}

function request(fields: Record<string, unknown>, headers: [string, string][] = []): PlainHead {
  return {
    kind: 'request',
    protocol: 'HTTP',
    version: '1.1',
    keepAlive: true,
    framing: 'none',
    contentLength: undefined,
    ...fields,
    headers,
  };
}

function response(fields: Record<string, unknown>, headers: [string, string][] = []): PlainHead {
  return {
    kind: 'response',
    protocol: 'HTTP',
    version: '1.1',
    status: 200,
    reason: 'OK',
    keepAlive: true,
    framing: 'none',
    contentLength: undefined,
    ...fields,
    headers,
  };
}

const head = (h: PlainHead): Recorded => ({ type: 'head', head: h });
const body = (data: string | Uint8Array): Recorded => ({ type: 'body', data: typeof data === 'string' ? wire(data) : data });
const END: Recorded = { type: 'end' };

/** The first error event of a request parse (in every split), or a failure. */
function errorOf(input: string | Uint8Array, options: FeedOptions = {}, kind: 'request' | 'response' = 'request') {
  const events = parseEverySplit(kind, input, options);
  const error = events.find((event) => event.type === 'error');
  if (!error || error.type !== 'error') return assert.fail(`no error event in ${JSON.stringify(events.map((e) => e.type))}`);
  return error;
}

function assertError(input: string | Uint8Array, status: number, reason: RegExp, options: FeedOptions = {}, kind: 'request' | 'response' = 'request') {
  const error = errorOf(input, options, kind);
  assert.equal(error.status, status, `status for ${JSON.stringify(error.reason)}`);
  assert.match(error.reason, reason);
  assert.equal(error.fatal, true);
}

// ---------------------------------------------------------------------------------------------
// Requests

test('parses a GET head keeping header spelling and order, with case-insensitive lookup', () => {
  const text = 'GET /server-info HTTP/1.1\r\nHost: 10.0.0.2:7000\r\nX-Vendor-Device-ID: 0x1122\r\nuser-agent: MediaControl/1.0\r\n\r\n';
  const events = parseEverySplit('request', text);
  assert.deepEqual(events, [
    head(request({ method: 'GET', target: '/server-info' }, [['Host', '10.0.0.2:7000'], ['X-Vendor-Device-ID', '0x1122'], ['user-agent', 'MediaControl/1.0']])),
    END,
  ]);
  const parser = new MessageParser('request');
  parser.receive(wire(text));
  const event = parser.next();
  assert.ok(event && event.type === 'head');
  assert.equal(event.head.headers.get('USER-AGENT'), 'MediaControl/1.0');
  assert.equal(event.head.headers.get('x-vendor-device-id'), '0x1122');
  assert.equal(parser.next()?.type, 'end');
  assert.equal(parser.next(), null);
});

test('delivers a Content-Length body of binary bytes exactly', () => {
  const jpeg = new Uint8Array(300).map((_, i) => (i * 7 + 0xd8) & 0xff);
  const input = concat(wire('PUT /photo HTTP/1.1\r\nX-Vendor-AssetKey: 1F3A\r\nContent-Length: 300\r\n\r\n'), jpeg);
  assert.deepEqual(parseEverySplit('request', input), [
    head(request({ method: 'PUT', target: '/photo', framing: 'length', contentLength: 300 }, [['X-Vendor-AssetKey', '1F3A'], ['Content-Length', '300']])),
    body(jpeg),
    END,
  ]);
});

test('Content-Length 0 gives head and end with no body event', () => {
  assert.deepEqual(parseEverySplit('request', 'POST /stop HTTP/1.1\r\nContent-Length: 0\r\n\r\n'), [
    head(request({ method: 'POST', target: '/stop', framing: 'length', contentLength: 0 }, [['Content-Length', '0']])),
    END,
  ]);
});

test('pipelined requests in one piece come out as consecutive messages', () => {
  const text =
    'GET /slideshow-features HTTP/1.1\r\n\r\n' +
    'PUT /photo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello' +
    'POST /stop HTTP/1.1\r\nConnection: close\r\n\r\n';
  assert.deepEqual(parseEverySplit('request', text), [
    head(request({ method: 'GET', target: '/slideshow-features' })),
    END,
    head(request({ method: 'PUT', target: '/photo', framing: 'length', contentLength: 5 }, [['Content-Length', '5']])),
    body('hello'),
    END,
    head(request({ method: 'POST', target: '/stop', keepAlive: false }, [['Connection', 'close']])),
    END,
  ]);
});

test('chunked body with extensions and trailers is de-chunked; trailers are dropped', () => {
  const text =
    'POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n' +
    '5;name=value;flag\r\nhello\r\n' +
    '00000006 ; ext="quoted"\r\n world\r\n' +
    'A\r\n0123456789\r\n' +
    '0;last\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n' +
    'GET /next HTTP/1.1\r\n\r\n';
  assert.deepEqual(parseEverySplit('request', text), [
    head(request({ method: 'POST', target: '/upload', framing: 'chunked' }, [['Transfer-Encoding', 'chunked']])),
    body('hello world0123456789'),
    END,
    head(request({ method: 'GET', target: '/next' })),
    END,
  ]);
});

test('chunked body without trailers and with an empty chunk list', () => {
  const text = 'POST /a HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n0\r\n\r\n';
  assert.deepEqual(parseEverySplit('request', text), [
    head(request({ method: 'POST', target: '/a', framing: 'chunked' }, [['Transfer-Encoding', 'Chunked']])),
    END,
  ]);
});

test('accepts bare LF line endings in heads and chunked bodies (some senders)', () => {
  const text = 'POST /event HTTP/1.1\nContent-Type: text/plain\nTransfer-Encoding: chunked\n\n3\nabc\n0\nX-T: 1\n\nGET / HTTP/1.1\n\n';
  assert.deepEqual(parseEverySplit('request', text), [
    head(request({ method: 'POST', target: '/event', framing: 'chunked' }, [['Content-Type', 'text/plain'], ['Transfer-Encoding', 'chunked']])),
    body('abc'),
    END,
    head(request({ method: 'GET', target: '/' })),
    END,
  ]);
});

test('mixes CRLF and bare LF within one head', () => {
  const events = parseEverySplit('request', 'GET / HTTP/1.1\r\nA: 1\nB: 2\r\n\n');
  assert.deepEqual(events, [head(request({ method: 'GET', target: '/' }, [['A', '1'], ['B', '2']])), END]);
});

test('skips empty lines before a request line (RFC 9112 2.2)', () => {
  const events = parseEverySplit('request', '\r\n\n\r\nOPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n');
  assert.deepEqual(events, [head(request({ method: 'OPTIONS', target: '*', protocol: 'RTSP', version: '1.0' }, [['CSeq', '1']])), END]);
});

test('accepts the empty RTSP request URI (TEARDOWN with two spaces) as target ""', () => {
  const events = parseEverySplit('request', 'TEARDOWN  RTSP/1.0\r\nCSeq: 9\r\n\r\n');
  assert.deepEqual(events, [head(request({ method: 'TEARDOWN', target: '', protocol: 'RTSP', version: '1.0' }, [['CSeq', '9']])), END]);
});

test('refuses an empty HTTP request-target with 400', () => {
  assertError('GET  HTTP/1.1\r\n\r\n', 400, /request-target is empty/);
});

test('keeps CSeq 0 as a header and does not require CSeq', () => {
  const events = parseEverySplit('request', 'GET /info RTSP/1.0\r\nCSeq: 0\r\n\r\nSETUP rtsp://10.0.0.2/1 RTSP/1.0\r\n\r\n');
  assert.deepEqual(events, [
    head(request({ method: 'GET', target: '/info', protocol: 'RTSP', version: '1.0' }, [['CSeq', '0']])),
    END,
    head(request({ method: 'SETUP', target: 'rtsp://10.0.0.2/1', protocol: 'RTSP', version: '1.0' })),
    END,
  ]);
});

test('accepts any token as a method (RTSP and AirPlay-style methods)', () => {
  for (const method of ['OPTIONS', 'ANNOUNCE', 'SETUP', 'RECORD', 'FLUSH', 'TEARDOWN', 'GET_PARAMETER', 'SET_PARAMETER', 'SETPEERS', 'FLUSHBUFFERED', 'M-SEARCH', 'x~!']) {
    const events = parseEverySplit('request', `${method} rtsp://h/1 RTSP/1.0\r\nCSeq: 3\r\n\r\n`);
    assert.equal(events[0].type === 'head' && events[0].head.method, method);
  }
});

test('RTSP ANNOUNCE with a Content-Length body (SDP) parses', () => {
  const sdp = 'v=0\r\no=iTunes 1 0 IN IP4 10.0.0.3\r\n';
  const text = `ANNOUNCE rtsp://10.0.0.2/1 RTSP/1.0\r\nCSeq: 2\r\nContent-Type: application/sdp\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`;
  assert.deepEqual(parseEverySplit('request', text), [
    head(
      request({ method: 'ANNOUNCE', target: 'rtsp://10.0.0.2/1', protocol: 'RTSP', version: '1.0', framing: 'length', contentLength: sdp.length }, [
        ['CSeq', '2'],
        ['Content-Type', 'application/sdp'],
        ['Content-Length', String(sdp.length)],
      ]),
    ),
    body(sdp),
    END,
  ]);
});

test('keepAlive follows version and Connection tokens', () => {
  const cases: [string, boolean][] = [
    ['GET / HTTP/1.1\r\n\r\n', true],
    ['GET / HTTP/1.1\r\nConnection: close\r\n\r\n', false],
    ['GET / HTTP/1.1\r\nConnection: Upgrade, Close\r\n\r\n', false],
    ['GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n', false],
    ['GET / HTTP/1.0\r\n\r\n', false],
    ['GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n', true],
    ['GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n', false],
    ['OPTIONS * RTSP/1.0\r\n\r\n', true],
    ['OPTIONS * RTSP/1.0\r\nConnection: close\r\n\r\n', false],
  ];
  for (const [text, keepAlive] of cases) {
    const events = parseEverySplit('request', text);
    assert.equal(events[0].type === 'head' && events[0].head.keepAlive, keepAlive, text);
  }
});

test('decodes header values as Latin-1 and trims optional whitespace around them', () => {
  const input = concat(wire('GET / HTTP/1.1\r\nX-Name:\t caf'), new Uint8Array([0xe9]), wire(' \t\r\nEmpty:\r\nNoSpace:x\r\n\r\n'));
  const events = parseEverySplit('request', input);
  assert.deepEqual(events[0], head(request({ method: 'GET', target: '/' }, [['X-Name', 'caf\u00e9'], ['Empty', ''], ['NoSpace', 'x']])));
});

test('keeps a request-target with bytes above 0x7f as Latin-1 for the router to judge', () => {
  const input = concat(wire('GET /caf'), new Uint8Array([0xc3, 0xa9]), wire(' HTTP/1.1\r\n\r\n'));
  const events = parseEverySplit('request', input);
  assert.equal(events[0].type === 'head' && events[0].head.target, '/caf\u00c3\u00a9');
});

// ---------------------------------------------------------------------------------------------
// Request errors

test('400 when a header has whitespace before the colon, naming the line', () => {
  assertError('GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\nContent-Length : 5\r\n\r\nhello', 400, /^header line 3 has whitespace before the colon/);
});

test('400 for obsolete line folding', () => {
  assertError('GET / HTTP/1.1\r\nX-Long: a\r\n  continued\r\n\r\n', 400, /header line 2 starts with whitespace \(obsolete line folding/);
});

test('400 for a header line without a colon, or a name that is not a token', () => {
  assertError('GET / HTTP/1.1\r\nno colon here\r\n\r\n', 400, /header line 1 "no colon here" has no colon/);
  assertError('GET / HTTP/1.1\r\nX(bad): 1\r\n\r\n', 400, /header line 1 name "X\(bad\)" is not a token/);
  assertError('GET / HTTP/1.1\r\n: empty\r\n\r\n', 400, /header line 1 has an empty name/);
});

test('400 for NUL or a bare CR in a header value', () => {
  assertError(concat(wire('GET / HTTP/1.1\r\nX: a'), new Uint8Array([0]), wire('b\r\n\r\n')), 400, /header line 1 value contains a NUL byte/);
  assertError('GET / HTTP/1.1\r\nX: a\rb\r\n\r\n', 400, /header line 1 value contains a bare CR/);
});

test('400 for malformed request lines', () => {
  assertError('GARBAGE\r\n\r\n', 400, /has no spaces/);
  assertError('GET /\r\n\r\n', 400, /has no protocol version/);
  assertError('GET / HTTP/1.1 extra\r\n\r\n', 400, /more than two spaces/);
  assertError('G@T / HTTP/1.1\r\n\r\n', 400, /request method "G@T" is not a token/);
  assertError(' GET / HTTP/1.1\r\n\r\n', 400, /starts with a space/);
  assertError('GET /a\tb HTTP/1.1\r\n\r\n', 400, /control byte 0x09/);
  assertError('GET / HTTP/1.1\rX: 1\r\n\r\n', 400, /bare CR/);
});

test('400 at once for binary input such as a TLS ClientHello, without waiting for a line end', () => {
  const parser = new MessageParser('request');
  parser.receive(new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00]));
  const event = parser.next();
  assert.ok(event && event.type === 'error');
  assert.equal(event.status, 400);
  assert.match(event.reason, /control byte 0x16 at offset 0/);
});

test('505 for well-formed but unsupported versions, 400 for malformed ones', () => {
  assertError('GET / HTTP/2.0\r\n\r\n', 505, /HTTP\/2\.0 is not supported/);
  assertError('GET / HTTP/1.5\r\n\r\n', 505, /not supported/);
  assertError('GET / HTTP/0.9\r\n\r\n', 505, /not supported/);
  assertError('OPTIONS * RTSP/2.0\r\n\r\n', 505, /RTSP\/2\.0 is not supported/);
  assertError('OPTIONS * RTSP/1.1\r\n\r\n', 505, /not supported/);
  assertError('GET / http/1.1\r\n\r\n', 400, /malformed/);
  assertError('GET / HTTP/1.10\r\n\r\n', 400, /malformed/);
  assertError('GET / HTTPS/1.1\r\n\r\n', 400, /malformed/);
  assertError('GET / HTTP/1\r\n\r\n', 400, /malformed/);
});

test('the error of an RTSP request carries its protocol and CSeq for the answer', () => {
  const events = parseEverySplit('request', 'SETUP rtsp://h/1 RTSP/1.0\r\nCSeq: 7\r\nContent-Length: x\r\n\r\n');
  assert.equal(events.length, 1);
  const parser = new MessageParser('request');
  parser.receive(wire('SETUP rtsp://h/1 RTSP/1.0\r\nCSeq: 7\r\nContent-Length: x\r\n\r\n'));
  assert.deepEqual(parser.next(), {
    type: 'error',
    status: 400,
    reason: 'Content-Length "x" is not a number',
    fatal: true,
    protocol: 'RTSP',
    cseq: '7',
  });
});

test('400 for a Content-Length that is not a plain decimal number', () => {
  assertError('PUT /photo HTTP/1.1\r\nContent-Length: 12a\r\n\r\n', 400, /^Content-Length "12a" is not a number$/);
  assertError('PUT /photo HTTP/1.1\r\nContent-Length: -1\r\n\r\n', 400, /"-1" is not a number/);
  assertError('PUT /photo HTTP/1.1\r\nContent-Length: +5\r\n\r\n', 400, /is not a number/);
  assertError('PUT /photo HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n', 400, /is not a number/);
  assertError('PUT /photo HTTP/1.1\r\nContent-Length:\r\n\r\n', 400, /"" is not a number/);
  assertError('PUT /photo HTTP/1.1\r\nContent-Length: 5,\r\n\r\n', 400, /is not a number/);
});

test('identical duplicate Content-Length values are accepted, differing ones are 400', () => {
  const same = 'PUT /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc';
  assert.deepEqual(parseEverySplit('request', same).slice(1), [body('abc'), END]);
  const list = 'PUT /a HTTP/1.1\r\nContent-Length: 3, 03\r\n\r\nabc';
  assert.deepEqual(parseEverySplit('request', list).slice(1), [body('abc'), END]);
  assertError('PUT /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', 400, /Content-Length values differ: "3" and "4"/);
  assertError('PUT /a HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\nabcd', 400, /differ/);
});

test('smuggling shapes: Content-Length with Transfer-Encoding is 400 in any order or case', () => {
  for (const text of [
    'POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n',
    'POST / HTTP/1.1\r\ntransfer-encoding: CHUNKED\r\ncontent-length: 0\r\n\r\n',
  ]) {
    assertError(text, 400, /both Content-Length and Transfer-Encoding/);
  }
});

test('smuggling shapes: codings other than a final single chunked', () => {
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n', 400, /does not end with chunked/);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n', 400, /does not end with chunked/);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n', 400, /does not end with chunked/);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n', 400, /more than once/);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', 501, /"gzip, chunked" is not supported/);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: \r\n\r\n', 400, /Transfer-Encoding is empty/);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n', 400, /does not end with chunked/);
  assertError('POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, /HTTP\/1\.0 message has Transfer-Encoding/);
  assertError('SET_PARAMETER rtsp://h/1 RTSP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, /RTSP message has Transfer-Encoding/);
});

test('tolerates whitespace and case in a chunked Transfer-Encoding', () => {
  const events = parseEverySplit('request', 'POST / HTTP/1.1\r\nTransfer-Encoding:  Chunked \r\n\r\n1\r\nz\r\n0\r\n\r\n');
  assert.deepEqual(events.slice(1), [body('z'), END]);
});

test('431 when an HTTP head exceeds maxHeadBytes; RTSP gets 400', () => {
  const filler = 'X-Filler: ' + 'a'.repeat(100) + '\r\n';
  const big = 'GET / HTTP/1.1\r\n' + filler.repeat(90) + '\r\n';
  assertError(big, 431, /^head exceeds 8192 bytes$/);
  assertError('GET / RTSP/1.0\r\n' + filler.repeat(90) + '\r\n', 400, /^head exceeds 8192 bytes$/);
  // Unterminated: detected once more than the limit is buffered.
  assertError('GET / HTTP/1.1\r\n' + filler.repeat(90), 431, /head exceeds 8192 bytes/);
});

test('a head of exactly maxHeadBytes is accepted', () => {
  const start = 'GET / HTTP/1.1\r\nX: ';
  const text = start + 'a'.repeat(100 - start.length - 4) + '\r\n\r\n';
  assert.equal(text.length, 100);
  assert.equal(parseEverySplit('request', text, { limits: { maxHeadBytes: 100 } })[0].type, 'head');
  assertError(text.replace('X: ', 'X: a'), 431, /head exceeds 100 bytes/, { limits: { maxHeadBytes: 100 } });
});

test('431 when a head has more header lines than maxHeaderCount; RTSP gets 400', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `H${i}: v\r\n`).join('');
  assert.equal(parseEverySplit('request', `GET / HTTP/1.1\r\n${lines(64)}\r\n`)[0].type, 'head');
  assertError(`GET / HTTP/1.1\r\n${lines(65)}\r\n`, 431, /header section has more than 64 lines/);
  assertError(`OPTIONS * RTSP/1.0\r\n${lines(65)}\r\n`, 400, /more than 64 lines/);
  assertError(`GET / HTTP/1.1\r\n${lines(4)}\r\n`, 431, /more than 3 lines/, { limits: { maxHeaderCount: 3 } });
});

test('414 when the request-target exceeds maxTargetLength, complete or still arriving', () => {
  const long = '/' + 'a'.repeat(2048);
  assertError(`GET ${long} HTTP/1.1\r\n\r\n`, 414, /^request-target exceeds 2048 bytes$/);
  assertError(`GET ${long} RTSP/1.0\r\n\r\n`, 414, /exceeds 2048/);
  assert.equal(parseEverySplit('request', `GET ${long.slice(1)} HTTP/1.1\r\n\r\n`)[0].type, 'head');
  // Without a line end yet: the parser answers as soon as the target is too long.
  const parser = new MessageParser('request');
  parser.receive(wire(`GET ${long}`));
  const event = parser.next();
  assert.ok(event && event.type === 'error');
  assert.equal(event.status, 414);
});

test('400 when a start line runs past maxHeadBytes without ending', () => {
  assertError('X'.repeat(9000), 400, /^request line exceeds 8192 bytes$/);
  assertError('X'.repeat(9000) + '\r\n\r\n', 400, /^request line exceeds 8192 bytes$/);
  assertError('HTTP/1.1 200 ' + 'x'.repeat(9000), 400, /status line exceeds 8192 bytes/, {}, 'response');
});

test('413 for a Content-Length over the body limit; the body is skipped and the next request parses', () => {
  const text = 'PUT /photo HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789GET /next HTTP/1.1\r\n\r\n';
  const events = parseEverySplit('request', text, { limits: { maxBodyBytes: 9 } });
  assert.deepEqual(events, [
    head(request({ method: 'PUT', target: '/photo', framing: 'length', contentLength: 10 }, [['Content-Length', '10']])),
    { type: 'error', status: 413, fatal: false, reason: 'body exceeds the limit of 9 bytes (Content-Length 10)' },
    head(request({ method: 'GET', target: '/next' })),
    END,
  ]);
});

test('413 is fatal when the over-limit body is larger than maxDiscardBytes', () => {
  const text = 'PUT /photo HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789';
  const events = parseEverySplit('request', text, { limits: { maxBodyBytes: 9, maxDiscardBytes: 9 } });
  assert.deepEqual(events.slice(1), [{ type: 'error', status: 413, fatal: true, reason: 'body exceeds the limit of 9 bytes (Content-Length 10)' }]);
});

test('setBodyLimit between head and body applies to that message only', () => {
  const text = 'PUT /photo HTTP/1.1\r\nContent-Length: 6\r\n\r\nabcdefPUT /photo HTTP/1.1\r\nContent-Length: 6\r\n\r\nabcdef';
  let heads = 0;
  const events = parseEverySplit('request', text, {
    limits: { maxBodyBytes: 100 },
    onHead: (parser) => {
      if (heads++ % 2 === 0) parser.setBodyLimit(5);
    },
  }).map((event) => event.type + (event.type === 'error' ? event.status : ''));
  assert.deepEqual(events, ['head', 'error413', 'head', 'body', 'end']);
  // And raising it lets a large body through.
  const raised = parseEverySplit('request', text, { limits: { maxBodyBytes: 1 }, onHead: (parser) => parser.setBodyLimit(6) });
  assert.deepEqual(raised.map((event) => event.type), ['head', 'body', 'end', 'head', 'body', 'end']);
});

test('setBodyLimit refuses negative or fractional limits', () => {
  const parser = new MessageParser('request');
  assert.throws(() => parser.setBodyLimit(-1), RangeError);
  assert.throws(() => parser.setBodyLimit(1.5), RangeError);
  assert.throws(() => new MessageParser('request', { maxHeadBytes: -3 }), /maxHeadBytes/);
});

test('413 for a Content-Length beyond any safe integer', () => {
  assertError('PUT / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n', 413, /is too large/);
});

test('a chunked body over the limit is a fatal 413 after the chunks within it', () => {
  const text = 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n';
  const events = parseEverySplit('request', text, { limits: { maxBodyBytes: 6 } });
  assert.deepEqual(events.slice(1), [body('abcd'), { type: 'error', status: 413, fatal: true, reason: 'chunked body exceeds the limit of 6 bytes' }]);
  assertError('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n', 413, /chunked body exceeds/);
});

test('400 for malformed chunked framing', () => {
  const prefix = 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n';
  assertError(prefix + 'zz\r\n', 400, /chunk-size line "zz" does not start with a hexadecimal size/);
  assertError(prefix + '\r\n', 400, /does not start with a hexadecimal size/);
  assertError(prefix + '5 x\r\nhello\r\n', 400, /has text after the size/);
  assertError(prefix + '3\r\nabcX\r\n0\r\n\r\n', 400, /chunk data is not followed by CRLF \(found "X/);
  assertError(prefix + '3\r\nabc\rX', 400, /not followed by CRLF/);
  assertError(prefix + '1;' + 'e'.repeat(2000) + '\r\n', 400, /chunk-size line exceeds 1024 bytes/);
  assertError(prefix + '1;' + 'e'.repeat(2000), 400, /chunk-size line exceeds 1024 bytes/);
  assertError(prefix + '0\r\nbad trailer\r\n\r\n', 400, /trailer line 1 "bad trailer" has no colon/);
  assertError(prefix + '0\r\n' + 'T: xxxxxxxxxxxxxxxx\r\n'.repeat(300) + '\r\n', 431, /trailer section exceeds 4096 bytes/);
  assertError(prefix + '0\r\n' + 'T: xxxxxxxxxxxxxxxx\r\n'.repeat(300), 431, /trailer section exceeds 4096 bytes/);
});

test('EOF in the middle of a message is a 400 naming where', () => {
  assertError('GET / HTTP/1.1\r\nHost: a\r\n', 400, /connection closed before the head was complete/, { eof: true });
  assertError('GET / HT', 400, /connection closed before the head was complete \(8 bytes\)/, { eof: true });
  assertError('PUT / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc', 400, /^connection closed after 3 of 10 body bytes$/, { eof: true });
  assertError('PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab', 400, /inside a chunked body/, { eof: true });
  assertError('PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde', 400, /inside a chunked body/, { eof: true });
  assertError('PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5', 400, /inside a chunked body/, { eof: true });
  assertError('PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n', 400, /trailer section/, { eof: true });
});

test('EOF between messages (after empty lines too) ends quietly with null', () => {
  const events = parseEverySplit('request', 'GET / HTTP/1.1\r\n\r\n\r\n', { eof: true });
  assert.deepEqual(events.map((event) => event.type), ['head', 'end']);
  const parser = new MessageParser('request');
  parser.receiveEnd();
  assert.equal(parser.next(), null);
  assert.throws(() => parser.receive(wire('x')), /after receiveEnd/);
});

test('after a fatal error next() returns null and further bytes are ignored', () => {
  const parser = new MessageParser('request');
  parser.receive(wire('BAD\r\n\r\n'));
  assert.equal(parser.next()?.type, 'error');
  assert.equal(parser.next(), null);
  parser.receive(wire('GET / HTTP/1.1\r\n\r\n'));
  assert.equal(parser.next(), null);
});

test('takeRemaining after POST /stream hands over the raw packets that follow the body', () => {
  const plist = new Uint8Array([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0x08]);
  const packets = new Uint8Array(300).map((_, i) => (i * 13) & 0xff);
  const input = concat(wire(`POST /stream HTTP/1.1\r\nX-Vendor-Device-ID: 0x1\r\nContent-Length: ${plist.length}\r\n\r\n`), plist, packets);
  for (const how of SPLITS) {
    const { events, parser } = feed('request', split(input, how), { stopAfterEnds: 1 });
    assert.deepEqual(events.slice(1), [body(plist), END], `split ${how}`);
    assert.equal(parser.buffered, packets.length);
    assert.deepEqual(parser.takeRemaining(), packets, `split ${how}`);
    assert.equal(parser.next(), null);
    assert.throws(() => parser.receive(new Uint8Array(1)), /after takeRemaining/);
  }
});

test('next() parses lazily: bytes after an end stay unparsed until asked for', () => {
  const parser = new MessageParser('request');
  parser.receive(wire('POST /reverse HTTP/1.1\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\n\r\nHTTP/1.1 200 OK\r\n\r\n'));
  assert.equal(parser.next()?.type, 'head');
  assert.equal(parser.next()?.type, 'end');
  assert.deepEqual(parser.takeRemaining(), wire('HTTP/1.1 200 OK\r\n\r\n'));
});

test('body events stay valid while more bytes arrive one at a time', () => {
  const parser = new MessageParser('request');
  const input = wire('PUT /a HTTP/1.1\r\nContent-Length: 6\r\n\r\nabcdef');
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < input.length; i++) {
    parser.receive(input.slice(i, i + 1));
    for (let event = parser.next(); event; event = parser.next()) if (event.type === 'body') pieces.push(event.data);
  }
  assert.deepEqual(concat(...pieces), wire('abcdef'));
});

test('a large head fed one byte at a time parses (the end-of-head scan resumes where it stopped)', () => {
  const text = 'GET / HTTP/1.1\r\n' + 'X-Filler: 0123456789abcdef0123456789abcdef\r\n'.repeat(1000) + '\r\n';
  const { events } = feed('request', split(wire(text), 'bytes'), { limits: { maxHeadBytes: 65536, maxHeaderCount: 2000 } });
  assert.deepEqual(events.map((event) => event.type), ['head', 'end']);
});

// ---------------------------------------------------------------------------------------------
// Responses

test('response with Content-Length', () => {
  const text = 'HTTP/1.1 200 OK\r\nContent-Type: application/x-vendor-binary-plist\r\nContent-Length: 4\r\n\r\nbpli';
  assert.deepEqual(parseEverySplit('response', text), [
    head(response({ framing: 'length', contentLength: 4 }, [['Content-Type', 'application/x-vendor-binary-plist'], ['Content-Length', '4']])),
    body('bpli'),
    END,
  ]);
});

test('chunked response', () => {
  const text = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n';
  assert.deepEqual(parseEverySplit('response', text), [
    head(response({ framing: 'chunked' }, [['Transfer-Encoding', 'chunked']])),
    body('ok'),
    END,
    head(response({ status: 204, reason: 'No Content' })),
    END,
  ]);
});

test('an HTTP response without length is read to EOF and does not keep the connection', () => {
  const text = 'HTTP/1.0 200 OK\r\nServer: old\r\n\r\nall of this until close';
  assert.deepEqual(parseEverySplit('response', text, { eof: true }), [
    head(response({ version: '1.0', framing: 'eof', keepAlive: false }, [['Server', 'old']])),
    body('all of this until close'),
    END,
  ]);
  // Without EOF the message is not over yet.
  assert.deepEqual(feed('response', [wire(text)]).events.map((event) => event.type), ['head', 'body']);
});

test('an RTSP response without Content-Length has no body (RFC 2326 4.3)', () => {
  const text = 'RTSP/1.0 200 OK\r\nCSeq: 3\r\nServer: AirTunes/366.0\r\n\r\nRTSP/1.0 200 OK\r\nCSeq: 4\r\n\r\n';
  assert.deepEqual(parseEverySplit('response', text), [
    head(response({ protocol: 'RTSP', version: '1.0' }, [['CSeq', '3'], ['Server', 'AirTunes/366.0']])),
    END,
    head(response({ protocol: 'RTSP', version: '1.0' }, [['CSeq', '4']])),
    END,
  ]);
});

test('a response to HEAD has no body whatever its Content-Length; requests queue in order', () => {
  const text = 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi';
  const events = parseEverySplit('response', text, { expect: ['HEAD', 'GET'] });
  assert.deepEqual(events, [
    head(response({ framing: 'none' }, [['Content-Length', '100']])),
    END,
    head(response({ framing: 'length', contentLength: 2 }, [['Content-Length', '2']])),
    body('hi'),
    END,
  ]);
});

test('1xx, 204 and 304 responses have no body; a 1xx does not use up the expected method', () => {
  const text =
    'HTTP/1.1 100 Continue\r\n\r\n' +
    'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n' +
    'HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n' +
    'HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n';
  assert.deepEqual(
    parseEverySplit('response', text, { expect: ['HEAD', 'GET', 'GET'] }).map((event) => (event.type === 'head' ? `${event.head.status}:${event.head.framing}` : event.type)),
    ['100:none', 'end', '200:none', 'end', '304:none', 'end', '204:none', 'end'],
  );
});

test('101 Switching Protocols ends the parse; takeRemaining returns what follows', () => {
  const after = wire('POST /event HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  const input = concat(wire('HTTP/1.1 101 Switching Protocols\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\n\r\n'), after);
  for (const how of SPLITS) {
    const { events, parser } = feed('response', split(input, how));
    assert.deepEqual(events, [
      head(response({ status: 101, reason: 'Switching Protocols' }, [['Upgrade', 'PTTH/1.0'], ['Connection', 'Upgrade']])),
      END,
    ]);
    assert.equal(parser.next(), null);
    assert.deepEqual(parser.takeRemaining(), after, `split ${how}`);
  }
});

test('status lines: empty or missing reason, spaces in the reason', () => {
  const events = parseEverySplit('response', 'HTTP/1.1 200\r\nContent-Length: 0\r\n\r\nHTTP/1.1 404 \r\nContent-Length: 0\r\n\r\nRTSP/1.0 470 Connection Authorization Required\r\nCSeq: 5\r\n\r\n');
  assert.deepEqual(
    events.filter((event) => event.type === 'head').map((event) => event.type === 'head' && [event.head.status, event.head.reason]),
    [[200, ''], [404, ''], [470, 'Connection Authorization Required']],
  );
});

test('malformed status lines are errors', () => {
  assertError('HTTP/1.1 2x0 OK\r\n\r\n', 400, /status code "2x0 " is not three digits/, {}, 'response');
  assertError('HTTP/1.1 2000 OK\r\n\r\n', 400, /not three digits/, {}, 'response');
  assertError('HTTP/1.1 099 Low\r\n\r\n', 400, /outside 100 to 599/, {}, 'response');
  assertError('HTTP/1.1 600 High\r\n\r\n', 400, /outside 100 to 599/, {}, 'response');
  assertError('HTTP/1.1\r\n\r\n', 400, /has no status code/, {}, 'response');
  assertError('HTTP/3 200 OK\r\n\r\n', 400, /malformed/, {}, 'response');
  assertError('HTTP/2.0 200 OK\r\n\r\n', 505, /not supported/, {}, 'response');
  assertError('GET / HTTP/1.1\r\n\r\n', 400, /malformed/, {}, 'response');
});

test('response framing errors: smuggling shape, unsupported coding, truncated body', () => {
  assertError('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 400, /both Content-Length/, {}, 'response');
  assertError('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', 501, /"gzip" is not supported/, {}, 'response');
  assertError('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab', 400, /connection closed after 2 of 5 body bytes/, { eof: true }, 'response');
  const overLimit = parseEverySplit('response', 'HTTP/1.0 200 OK\r\n\r\n' + 'x'.repeat(20), { limits: { maxBodyBytes: 10 } });
  assert.deepEqual(overLimit.slice(1), [body('x'.repeat(10)), { type: 'error', status: 413, fatal: true, reason: 'body read to EOF exceeds the limit of 10 bytes' }]);
  assertError('HTTP/1.0 200 OK\r\n\r\n' + 'x'.repeat(20), 413, /body read to EOF exceeds the limit of 10 bytes/, { limits: { maxBodyBytes: 10 } }, 'response');
});

// ---------------------------------------------------------------------------------------------
// Robustness

const KNOWN_STATUSES = new Set([400, 413, 414, 431, 501, 505]);

const SEEDS = [
  'GET /server-info HTTP/1.1\r\nHost: a\r\n\r\n',
  'PUT /photo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello',
  'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n',
  'TEARDOWN  RTSP/1.0\r\nCSeq: 0\r\n\r\n',
  'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  'RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n',
];
const NOISE = ['\r', '\n', '\r\n', ' ', '\t', ':', ';', '0', 'f', 'chunked', 'Content-Length: ', 'Transfer-Encoding: ', '\x00', '\xff', 'HTTP/1.1', 'RTSP/1.0'];

test('random garbage and mutated messages only ever produce events, the same in any split', () => {
  const rng = makeRng(2024);
  const types = new Set(['head', 'body', 'end', 'error']);
  for (let round = 0; round < 3000; round++) {
    let input: Uint8Array;
    if (round % 3 === 0) {
      input = rng.bytes(rng.int(0, 200));
    } else {
      // Mutate a valid message: splice noise at random places.
      let text = rng.pick(SEEDS).repeat(rng.int(1, 3));
      for (let k = rng.int(1, 4); k > 0; k--) {
        const at = rng.int(0, text.length);
        const cut = rng.int(0, 3);
        text = text.slice(0, at) + rng.pick(NOISE) + text.slice(at + cut);
      }
      input = latin1Encode(text);
    }
    const kind = rng.next() < 0.5 ? 'request' : 'response';
    const limits = { maxHeadBytes: rng.int(16, 300), maxBodyBytes: rng.int(0, 50), maxDiscardBytes: rng.int(0, 20) };
    const options: FeedOptions = { limits, eof: rng.next() < 0.5, expect: ['GET', 'HEAD'] };
    const { events } = feed(kind, split(input, rng.int(1, 1e9)), options);
    // Whatever the split, the same events (body pieces joined), statuses and reasons.
    assert.deepEqual(feed(kind, [input], options).events, events, `whole and split disagree on ${JSON.stringify(latin1Decode(input))}`);
    if (round % 10 === 0) assert.deepEqual(feed(kind, split(input, 'bytes'), options).events, events);
    let fatal = false;
    for (const event of events) {
      assert.ok(types.has(event.type), `unknown event ${event.type}`);
      assert.ok(!fatal, 'an event followed a fatal error');
      if (event.type === 'error') {
        assert.ok(KNOWN_STATUSES.has(event.status), `unexpected status ${event.status}: ${event.reason}`);
        assert.ok(event.reason.length > 0);
        fatal = event.fatal;
      }
    }
  }
});
