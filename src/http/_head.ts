// Parsing of one complete head: start line, field lines, body framing and persistence.
// The parser (parser.ts) finds where a head ends; these functions read the bytes in place.

import { latin1Decode, latin1Encode } from '../bytes';
import { COLON, CR, HTAB, LF, SP, isTokenByte, quoteBytes, quoteText } from './_chars';
import { headText } from './_head-text';
import { Headers, listTokens } from './headers';
import type { BodyFraming, Protocol, ProtocolVersion } from './message';
import { STATUS, statusForbidsBody } from './status';

/** Why a head was refused: the status to answer (or, for a response, to classify) and why. */
export class HeadProblem {
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {}
}

interface RequestLine {
  readonly method: string;
  readonly target: string;
  readonly protocol: Protocol;
  readonly version: ProtocolVersion;
}

interface StatusLine {
  readonly protocol: Protocol;
  readonly version: ProtocolVersion;
  readonly status: number;
  readonly reason: string;
}

interface Framing {
  readonly framing: BodyFraming;
  readonly contentLength: number | undefined;
}

/**
 * The status for a head or trailer section that is too large: 431 in HTTP (RFC 6585 5). RTSP
 * defines no such code (RFC 2326 7.1.1 and RFC 7826 17 list none; 413 and 414 are about the
 * body and the URI), so RTSP gets its generic 400.
 */
export function fieldsTooLargeStatus(protocol: Protocol | undefined): number {
  return protocol === 'RTSP' ? STATUS.badRequest : STATUS.requestHeaderFieldsTooLarge;
}

const VERSION_PATTERN = /^(HTTP|RTSP)\/([0-9])\.([0-9])$/;

type ParsedVersion = { readonly protocol: Protocol; readonly version: ProtocolVersion };

/** The versions served, by their bytes: every well-formed message matches one without a string or a regex. */
const SERVED_VERSIONS: readonly { readonly bytes: Uint8Array; readonly parsed: ParsedVersion }[] = (
  [
    ['HTTP', '1.1'],
    ['HTTP', '1.0'],
    ['RTSP', '1.0'],
  ] as const
).map(([protocol, version]) => ({ bytes: latin1Encode(`${protocol}/${version}`), parsed: { protocol, version } }));

/** The served versions named in a refusal: `HTTP/1.1, HTTP/1.0 or RTSP/1.0` ('or'; 'and' likewise). */
function servedNames(conjunction: 'or' | 'and'): string {
  const names = SERVED_VERSIONS.map(({ parsed }) => `${parsed.protocol}/${parsed.version}`);
  return `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

/** RFC 9112 2.3 (HTTP-version, case-sensitive name) and RFC 2326 3.1 (RTSP-Version). */
function parseVersion(bytes: Uint8Array, from: number, to: number): ParsedVersion | HeadProblem {
  for (const served of SERVED_VERSIONS) if (rangeEquals(bytes, from, to, served.bytes)) return served.parsed;
  // Not one of them: the regex says whether it is malformed or a version not supported.
  const text = to - from <= 16 ? latin1Decode(bytes.subarray(from, to)) : '';
  if (!VERSION_PATTERN.test(text)) return new HeadProblem(STATUS.badRequest, `protocol version ${quoteBytes(bytes, from, to)} is malformed (expected ${servedNames('or')})`);
  // Well formed, and not byte for byte one of the served: a version not supported.
  return new HeadProblem(STATUS.versionNotSupported, `protocol version ${text} is not supported (${servedNames('and')} are)`);
}

function rangeEquals(bytes: Uint8Array, from: number, to: number, expected: Uint8Array): boolean {
  if (to - from !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[from + i] !== expected[i]) return false;
  return true;
}

function findByte(bytes: Uint8Array, byte: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (bytes[i] === byte) return i;
  return -1;
}

/**
 * `method SP request-target SP protocol/x.y` (RFC 9112 3, RFC 2326 6.1) from bytes [from, to),
 * line ending excluded, after the parser's byte-by-byte scan of it (parser.ts readHead): the
 * line has no CR and no control byte but HTAB, its method is a token when it has a space, and
 * `space1` and `space2` are its first two spaces (-1: none). So what is left is read once. One
 * accommodation: an empty RTSP request-target (`TEARDOWN  RTSP/1.0`, two spaces), which some
 * RTSP senders send; it becomes ''.
 */
export function parseRequestLine(bytes: Uint8Array, from: number, to: number, space1: number, space2: number, maxTargetLength: number): RequestLine | HeadProblem {
  if (space1 < 0) {
    return new HeadProblem(STATUS.badRequest, `request line ${quoteBytes(bytes, from, to)} has no spaces (expected METHOD SP target SP version)`);
  }
  const targetLength = (space2 < 0 ? to : space2) - space1 - 1;
  if (targetLength > maxTargetLength) return new HeadProblem(STATUS.uriTooLong, `request-target exceeds ${maxTargetLength} bytes`);
  if (space2 < 0) {
    return new HeadProblem(STATUS.badRequest, `request line ${quoteBytes(bytes, from, to)} has no protocol version`);
  }
  if (findByte(bytes, SP, space2 + 1, to) >= 0) {
    return new HeadProblem(STATUS.badRequest, `request line ${quoteBytes(bytes, from, to)} has more than two spaces`);
  }
  const version = parseVersion(bytes, space2 + 1, to);
  if (version instanceof HeadProblem) return version;
  if (targetLength === 0 && version.protocol !== 'RTSP') {
    return new HeadProblem(STATUS.badRequest, 'request-target is empty (only RTSP senders are allowed that)');
  }
  // RFC 9112 3.2: no whitespace or controls in the target. The scan refused every control but
  // HTAB; spaces end the target. Bytes above 0x7f are kept (decoded as Latin-1) for the router
  // to judge: some clients send raw UTF-8 paths.
  const tab = findByte(bytes, HTAB, space1 + 1, space2);
  if (tab >= 0) return new HeadProblem(STATUS.badRequest, `request-target has control byte 0x09 at offset ${tab - space1 - 1}`);
  return {
    method: headText(bytes, from, space1),
    target: headText(bytes, space1 + 1, space2),
    protocol: version.protocol,
    version: version.version,
  };
}

/** The method, bytes [from, space): a non-empty token (RFC 9110 9.1), or the problem with it. */
export function checkMethod(bytes: Uint8Array, from: number, space: number): HeadProblem | undefined {
  if (space === from) return new HeadProblem(STATUS.badRequest, 'request line starts with a space (no method)');
  for (let i = from; i < space; i++) {
    if (!isTokenByte(bytes[i])) return new HeadProblem(STATUS.badRequest, `request method ${quoteBytes(bytes, from, space)} is not a token`);
  }
  return undefined;
}

/**
 * `protocol/x.y SP 3DIGIT SP reason` (RFC 9112 4, RFC 2326 7.1) from bytes [from, to). The
 * space and reason may be missing (`HTTP/1.1 200`): RFC 9112 4 asks clients to accept that.
 */
export function parseStatusLine(bytes: Uint8Array, from: number, to: number): StatusLine | HeadProblem {
  if (findByte(bytes, CR, from, to) >= 0) return new HeadProblem(STATUS.badRequest, 'status line has a bare CR (RFC 9112 2.2)');
  const space = findByte(bytes, SP, from, to);
  if (space < 0) return new HeadProblem(STATUS.badRequest, `status line ${quoteBytes(bytes, from, to)} has no status code`);
  const version = parseVersion(bytes, from, space);
  if (version instanceof HeadProblem) return version;
  const codeEnd = space + 4;
  let status = 0;
  let digits = codeEnd <= to && (codeEnd === to || bytes[codeEnd] === SP);
  for (let i = space + 1; digits && i < codeEnd; i++) {
    const byte = bytes[i];
    if (byte < 0x30 || byte > 0x39) digits = false;
    else status = status * 10 + byte - 0x30;
  }
  if (!digits) {
    return new HeadProblem(STATUS.badRequest, `status code ${quoteBytes(bytes, space + 1, Math.min(to, codeEnd + 1))} is not three digits`);
  }
  // RFC 9110 15: status codes are 100 to 599.
  if (status < 100 || status > 599) return new HeadProblem(STATUS.badRequest, `status code ${status} is outside 100 to 599`);
  const reason = codeEnd < to ? latin1Decode(bytes.subarray(codeEnd + 1, to)) : '';
  return { protocol: version.protocol, version: version.version, status, reason };
}

/**
 * Appends the field lines in bytes [from, end) to `headers`; the range ends with the empty line
 * that closes the section (it is there: the parser found it). `what` is 'header' or 'trailer',
 * for reasons such as `header line 3 has whitespace before the colon` (lines counted from 1
 * after the start line).
 */
export function parseFieldLines(
  bytes: Uint8Array,
  from: number,
  end: number,
  headers: Headers,
  maxCount: number,
  protocol: Protocol,
  what: 'header' | 'trailer',
): HeadProblem | undefined {
  let line = 0;
  let lineStart = from;
  while (lineStart < end) {
    let lf = lineStart;
    while (lf < end && bytes[lf] !== LF) lf++;
    let lineEnd = lf;
    // Lines end with CRLF or, from some senders, bare LF (RFC 9112 2.2 allows accepting it).
    if (lineEnd > lineStart && bytes[lineEnd - 1] === CR) lineEnd--;
    if (lineEnd === lineStart) return undefined;
    line++;
    if (line > maxCount) {
      return new HeadProblem(fieldsTooLargeStatus(protocol), `${what} section has more than ${maxCount} lines`);
    }
    const first = bytes[lineStart];
    if (first === SP || first === HTAB) {
      // RFC 9112 5.2: obs-fold is deprecated; a server may reject it with 400.
      return new HeadProblem(STATUS.badRequest, `${what} line ${line} starts with whitespace (obsolete line folding is not accepted)`);
    }
    let nameEnd = lineStart;
    while (nameEnd < lineEnd && isTokenByte(bytes[nameEnd])) nameEnd++;
    if (nameEnd === lineEnd || bytes[nameEnd] !== COLON) {
      const colon = findByte(bytes, COLON, nameEnd, lineEnd);
      if (colon < 0) return new HeadProblem(STATUS.badRequest, `${what} line ${line} ${quoteBytes(bytes, lineStart, lineEnd)} has no colon`);
      let gap = nameEnd;
      while (gap < colon && (bytes[gap] === SP || bytes[gap] === HTAB)) gap++;
      if (gap === colon && nameEnd > lineStart) {
        // RFC 9112 5.1: whitespace between name and colon must be rejected with 400 (smuggling).
        return new HeadProblem(STATUS.badRequest, `${what} line ${line} has whitespace before the colon (${quoteBytes(bytes, lineStart, colon + 1)})`);
      }
      return new HeadProblem(STATUS.badRequest, `${what} line ${line} name ${quoteBytes(bytes, lineStart, colon)} is not a token`);
    }
    if (nameEnd === lineStart) return new HeadProblem(STATUS.badRequest, `${what} line ${line} has an empty name`);
    let valueStart = nameEnd + 1;
    while (valueStart < lineEnd && (bytes[valueStart] === SP || bytes[valueStart] === HTAB)) valueStart++;
    let valueEnd = lineEnd;
    while (valueEnd > valueStart && (bytes[valueEnd - 1] === SP || bytes[valueEnd - 1] === HTAB)) valueEnd--;
    for (let i = valueStart; i < valueEnd; i++) {
      const byte = bytes[i];
      // RFC 9110 5.5: CR, LF and NUL are never valid in a field value. Other controls are kept.
      if (byte === 0) return new HeadProblem(STATUS.badRequest, `${what} line ${line} value contains a NUL byte`);
      if (byte === CR) return new HeadProblem(STATUS.badRequest, `${what} line ${line} value contains a bare CR`);
    }
    headers.append(headText(bytes, lineStart, nameEnd), headText(bytes, valueStart, valueEnd));
    lineStart = lf + 1;
  }
  return undefined;
}

function trimOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text.charCodeAt(start) === SP || text.charCodeAt(start) === HTAB)) start++;
  while (end > start && (text.charCodeAt(end - 1) === SP || text.charCodeAt(end - 1) === HTAB)) end--;
  return text.slice(start, end);
}

const DIGITS = /^[0-9]+$/;

/**
 * The Content-Length, undefined when absent. RFC 9112 6.3 (5): digits only; repeated fields or
 * a list (`5, 5`) are accepted when every value is the same number, and refused otherwise.
 */
function readContentLength(headers: Headers): number | undefined | HeadProblem {
  if (!headers.has('content-length')) return undefined;
  const values = headers.getAll('content-length');
  let length: number | undefined;
  let lengthText = '';
  for (const value of values) {
    for (const element of value.split(',')) {
      const text = trimOws(element);
      if (!DIGITS.test(text)) return new HeadProblem(STATUS.badRequest, `Content-Length ${quoteText(value)} is not a number`);
      const number = Number(text);
      if (!Number.isSafeInteger(number)) return new HeadProblem(STATUS.contentTooLarge, `Content-Length ${quoteText(text)} is too large`);
      if (length !== undefined && number !== length) {
        return new HeadProblem(STATUS.badRequest, `Content-Length values differ: ${quoteText(lengthText)} and ${quoteText(text)}`);
      }
      length = number;
      lengthText = text;
    }
  }
  return length;
}

/** Transfer-Encoding and Content-Length together, or the coding list, decide chunked framing. */
function readTransferEncoding(
  headers: Headers,
  protocol: Protocol,
  version: ProtocolVersion,
  kind: 'request' | 'response',
  hasContentLength: boolean,
): boolean | HeadProblem {
  if (!headers.has('transfer-encoding')) return false;
  if (hasContentLength) {
    // RFC 9112 6.3 (3): "ought to be handled as an error"; it is the classic smuggling shape.
    return new HeadProblem(STATUS.badRequest, 'both Content-Length and Transfer-Encoding are present (a request smuggling shape)');
  }
  if (protocol === 'RTSP') {
    return new HeadProblem(STATUS.badRequest, 'RTSP message has Transfer-Encoding (RFC 2326 4.3: RTSP bodies are framed by Content-Length only)');
  }
  if (version === '1.0') {
    return new HeadProblem(STATUS.badRequest, 'HTTP/1.0 message has Transfer-Encoding (RFC 9112 6.1: its framing is faulty)');
  }
  const codings = listTokens(headers, 'transfer-encoding');
  const shown = quoteText(headers.getAll('transfer-encoding').join(', '));
  if (codings.length === 0) return new HeadProblem(STATUS.badRequest, 'Transfer-Encoding is empty');
  let chunkedCount = 0;
  for (const coding of codings) if (coding === 'chunked') chunkedCount++;
  if (chunkedCount > 1) return new HeadProblem(STATUS.badRequest, `Transfer-Encoding ${shown} applies chunked more than once (RFC 9112 7)`);
  if (codings[codings.length - 1] !== 'chunked' && kind === 'request') {
    // RFC 9112 6.3 (4): the body length of such a request cannot be determined: 400, close.
    return new HeadProblem(STATUS.badRequest, `Transfer-Encoding ${shown} does not end with chunked, so the body length is unknown`);
  }
  if (codings.length > 1 || codings[0] !== 'chunked') {
    // RFC 9112 6.1: a transfer coding the server does not understand gets 501. We never send
    // TE, so a response with other codings is just as unreadable (RFC 9110 10.1.4).
    return new HeadProblem(STATUS.notImplemented, `Transfer-Encoding ${shown} is not supported (only chunked is)`);
  }
  return true;
}

/** The framings that carry no length: shared, as most messages have one of them. */
const NO_BODY: Framing = Object.freeze({ framing: 'none', contentLength: undefined });
const CHUNKED: Framing = Object.freeze({ framing: 'chunked', contentLength: undefined });
const TO_EOF: Framing = Object.freeze({ framing: 'eof', contentLength: undefined });

/** RFC 9112 6.3 for requests: chunked, Content-Length, or no body at all (rule 7). */
export function requestFraming(headers: Headers, protocol: Protocol, version: ProtocolVersion): Framing | HeadProblem {
  const length = readContentLength(headers);
  if (length instanceof HeadProblem) return length;
  const chunked = readTransferEncoding(headers, protocol, version, 'request', length !== undefined);
  if (chunked instanceof HeadProblem) return chunked;
  if (chunked) return CHUNKED;
  if (length !== undefined) return { framing: 'length', contentLength: length };
  return NO_BODY;
}

/**
 * RFC 9112 6.3 for responses: none for HEAD, 1xx, 204 and 304 whatever the fields say; then
 * chunked or Content-Length; otherwise HTTP reads to EOF while RTSP has no body (RFC 2326 4.3:
 * without Content-Length the body is empty).
 */
export function responseFraming(
  headers: Headers,
  protocol: Protocol,
  version: ProtocolVersion,
  status: number,
  answersHead: boolean,
): Framing | HeadProblem {
  if (answersHead || statusForbidsBody(status)) return NO_BODY;
  const length = readContentLength(headers);
  if (length instanceof HeadProblem) return length;
  const chunked = readTransferEncoding(headers, protocol, version, 'response', length !== undefined);
  if (chunked instanceof HeadProblem) return chunked;
  if (chunked) return CHUNKED;
  if (length !== undefined) return { framing: 'length', contentLength: length };
  return protocol === 'RTSP' ? NO_BODY : TO_EOF;
}

/** RFC 9112 9.3 and RFC 2326 12.8: whether the connection persists after this message. */
export function isKeepAlive(headers: Headers, protocol: Protocol, version: ProtocolVersion): boolean {
  if (!headers.has('connection')) return protocol !== 'HTTP' || version !== '1.0';
  const tokens = listTokens(headers, 'connection');
  if (tokens.includes('close')) return false;
  if (protocol === 'HTTP' && version === '1.0') return tokens.includes('keep-alive');
  return true;
}
