// Valid HTTP/1.1 and RTSP/1.0 messages in the shapes the spec's senders and receiver use (spec 1:
// requests with Content-Length or chunked bodies, RTSP with CSeq; responses with 1xx, 101, 204,
// bodies to EOF), as raw bytes for the fuzz campaigns to mutate. Portable: ECMAScript only.

import { concat, latin1Encode } from '../../src/bytes';
import type { Rng } from '../support/arbitrary';
import { tokens } from './mutate';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'OPTIONS', 'DELETE'];
const RTSP_METHODS = ['OPTIONS', 'ANNOUNCE', 'SETUP', 'RECORD', 'PLAY', 'TEARDOWN', 'FLUSH', 'GET_PARAMETER', 'SET_PARAMETER', 'POST', 'GET'];
const TARGETS = [
  '/', '*', '/server-info', '/info', '/photo', '/slideshows/1', '/slideshows/1/assets/1', '/slideshow-features', '/reverse',
  '/pair-setup', '/pair-verify', '/pair-pin-start', '/auth-setup', '/stop', '/play', '/scrub?position=1.5', '/rate?value=1.0',
  'rtsp://10.0.0.7/3413821438', 'http://frame:7000/photo', '/%00', '/a?b=c&d=%ZZ',
];
const HEADER_NAMES = [
  'Host', 'User-Agent', 'Content-Type', 'X-Vendor-Session-ID', 'X-Vendor-AssetKey', 'X-Vendor-Transition', 'X-Vendor-AssetAction',
  'X-Vendor-Device-ID', 'Accept-Language', 'Connection', 'Upgrade', 'Expect', 'Active-Remote', 'DACP-ID', 'X-Vendor-Purpose',
  'Date', 'Server', 'Transport', 'Session', 'Range', 'Authorization', 'Cookie',
];
const HEADER_VALUES = [
  'frame', 'VendorPlay/1.0', 'application/x-apple-binary-plist', 'text/x-apple-plist+xml', 'text/parameters',
  'application/octet-stream', 'image/jpeg', '1B9A5B15-9E2B-4B5E-B6B8-6E4C1D5D0A3C', 'Dissolve', 'cacheOnly', 'displayCached',
  'keep-alive', 'close', 'Upgrade', 'PTTH/1.0', '100-continue', '1234567890', 'en-US,en;q=0.9', '', ' padded ', 'a\tb',
  'RTP/AVP/UDP;unicast;mode=record', 'npt=0-', 'x'.repeat(200),
];

export const HTTP_TOKENS = tokens(
  '\r\n', '\n', '\r', '\r\n\r\n', ' ', ':', ': ', '\t', 'Content-Length: ', 'Content-Length: 5\r\n', 'Content-Length: 99999999999\r\n',
  'Transfer-Encoding: chunked\r\n', 'Transfer-Encoding: gzip, chunked\r\n', 'Transfer-Encoding: identity\r\n', 'CSeq: 7\r\n',
  'Connection: close\r\n', 'Expect: 100-continue\r\n', 'HTTP/1.1', 'HTTP/1.0', 'RTSP/1.0', 'HTTP/2.0', 'HTTP/1.1 ', '0\r\n\r\n',
  'ffffffffffffffff\r\n', '5;ext=1\r\n', ' \r\n', 'Foo: a\r\n b\r\n', 'GET / HTTP/1.1\r\n\r\n', 'POST /photo HTTP/1.1\r\n',
  'HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', 'Upgrade: PTTH/1.0\r\n',
);

function headerLines(rng: Rng, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += `${rng.pick(HEADER_NAMES)}: ${rng.pick(HEADER_VALUES)}\r\n`;
  return out;
}

/** A body, framed by Content-Length, chunked, or (responses) running to the end of input. */
function framedBody(rng: Rng, body: Uint8Array, allowEof: boolean): { headers: string; bytes: Uint8Array } {
  const framing = rng.int(0, allowEof ? 3 : 2);
  if (framing === 0 && body.length === 0) return { headers: '', bytes: body };
  if (framing <= 1) return { headers: `Content-Length: ${body.length}\r\n`, bytes: body };
  if (framing === 2) {
    const parts: Uint8Array[] = [];
    let offset = 0;
    while (offset < body.length) {
      const size = Math.min(body.length - offset, rng.int(1, 300));
      const ext = rng.next() < 0.1 ? ';name=value' : '';
      parts.push(latin1Encode(`${size.toString(16)}${ext}\r\n`), body.subarray(offset, offset + size), latin1Encode('\r\n'));
      offset += size;
    }
    parts.push(latin1Encode(rng.next() < 0.2 ? '0\r\nX-Trailer: 1\r\n\r\n' : '0\r\n\r\n'));
    return { headers: 'Transfer-Encoding: chunked\r\n', bytes: concat(...parts) };
  }
  return { headers: 'Connection: close\r\n', bytes: body };
}

export function randomBody(rng: Rng): Uint8Array {
  switch (rng.int(0, 5)) {
    case 0:
    case 4:
      return new Uint8Array(0);
    case 1:
      return latin1Encode('key: value\r\nother: 1\r\n');
    case 2:
    case 5:
      return rng.bytes(rng.int(1, 64));
    default:
      return rng.bytes(rng.int(64, 3000));
  }
}

/** One request as the spec's senders write it (with a body when given). */
export function requestBytes(
  rng: Rng,
  options: { method?: string; target?: string; protocol?: string; headers?: string; body?: Uint8Array; noHead?: boolean } = {},
): Uint8Array {
  const rtsp = options.protocol ? options.protocol.startsWith('RTSP') : rng.next() < 0.3;
  const protocol = options.protocol ?? (rtsp ? 'RTSP/1.0' : rng.pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0']));
  // A campaign that checks the answers leaves HEAD out: an answer to HEAD has no body, and only
  // the connection's own parser knows which mutated bytes made a HEAD request.
  const methods = rtsp ? RTSP_METHODS : options.noHead ? HTTP_METHODS.filter((method) => method !== 'HEAD') : HTTP_METHODS;
  const method = options.method ?? rng.pick(methods);
  const target = options.target ?? rng.pick(TARGETS);
  const body = options.body ?? (method === 'GET' || method === 'HEAD' ? new Uint8Array(0) : randomBody(rng));
  const framed = framedBody(rng, body, false);
  const cseq = rtsp ? `CSeq: ${rng.int(0, 1000)}\r\n` : '';
  const eol = rng.next() < 0.05 ? '\n' : '\r\n';
  const head = `${method} ${target} ${protocol}${eol}${cseq}${options.headers ?? headerLines(rng, rng.int(0, 5))}${framed.headers}${eol}`;
  return concat(latin1Encode(head), framed.bytes);
}

const STATUSES: [number, string][] = [
  [100, 'Continue'], [101, 'Switching Protocols'], [200, 'OK'], [204, 'No Content'], [206, 'Partial Content'], [304, 'Not Modified'],
  [400, 'Bad Request'], [403, 'Forbidden'], [404, 'Not Found'], [408, 'Request Timeout'], [412, 'Precondition Failed'], [453, 'Not Enough Bandwidth'],
  [470, 'Connection Authorization Required'], [500, 'Internal Server Error'], [503, 'Service Unavailable'], [999, ''],
];

/** One response as a receiver or a sender's reverse side writes it. */
export function responseBytes(rng: Rng, last: boolean): Uint8Array {
  const rtsp = rng.next() < 0.3;
  const protocol = rtsp ? 'RTSP/1.0' : rng.pick(['HTTP/1.1', 'HTTP/1.0']);
  const [status, reason] = rng.pick(STATUSES);
  const noBody = status < 200 || status === 204 || status === 304;
  const framed = noBody ? { headers: '', bytes: new Uint8Array(0) } : framedBody(rng, randomBody(rng), last);
  const cseq = rtsp ? `CSeq: ${rng.int(0, 1000)}\r\n` : '';
  return concat(latin1Encode(`${protocol} ${status} ${reason}\r\n${cseq}${headerLines(rng, rng.int(0, 4))}${framed.headers}\r\n`), framed.bytes);
}

/** 1 to `most` requests back to back (pipelined). */
export function requestStream(rng: Rng, most = 3): Uint8Array {
  const parts: Uint8Array[] = [];
  const count = rng.int(1, most);
  for (let i = 0; i < count; i++) parts.push(requestBytes(rng));
  return concat(...parts);
}
