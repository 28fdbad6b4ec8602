// Serialises HTTP/1.x and RTSP/1.0 requests and responses: head and body in one byte array.
//
// One array because some senders read a response's head and body with a single TCP read and
// misbehave when the body arrives in a second segment.

import { CR, LF, isToken, isTokenByte, quoteText } from './_chars';
import { flattenHeaders, type HeadersInit } from './headers';
import type { Protocol, ProtocolVersion } from './message';
import { reasonPhrase, statusForbidsBody } from './status';

/** A message the writer cannot put on the wire: a bug in the caller, named precisely. */
export class HttpWriteError extends Error {
  override name = 'HttpWriteError';
}

export interface ResponseToWrite {
  readonly protocol: Protocol;
  readonly version: ProtocolVersion;
  readonly status: number;
  /** Defaults to the status table's phrase for the protocol. */
  readonly reason?: string;
  readonly headers?: HeadersInit;
  readonly body?: Uint8Array;
}

export interface RequestToWrite {
  readonly method: string;
  readonly target: string;
  readonly protocol: Protocol;
  readonly version: ProtocolVersion;
  readonly headers?: HeadersInit;
  /** Omit for a request without content: then no Content-Length is written (RFC 9110 8.6). */
  readonly body?: Uint8Array;
}

/**
 * `protocol/version status reason`, the headers as spelled and in order, then the body.
 * Content-Length is added from the body (0 when there is none) unless the caller set
 * Content-Length or Transfer-Encoding, and never for 1xx, 204 and 304, which have no content
 * (RFC 9110 8.6 and 15.4.5: a 304's Content-Length would describe another response).
 */
export function writeResponse(response: ResponseToWrite): Uint8Array {
  const { protocol, version, status } = response;
  checkVersion(protocol, version);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new HttpWriteError(`status ${status} is not a code from 100 to 599 (RFC 9110 15)`);
  }
  const reason = response.reason ?? reasonPhrase(status, protocol);
  checkText(reason, 'reason phrase');
  const fields = flattenHeaders(response.headers, []);
  const body = response.body;
  let contentLength: number | undefined;
  if (statusForbidsBody(status)) {
    if (body && body.length > 0) throw new HttpWriteError(`a ${status} response has no content (RFC 9110 6.4.1), but a body was given`);
  } else {
    contentLength = frameBody(fields, body, true, protocol, version);
  }
  return serialize(`${protocol}/${version} ${status} ${reason}`, fields, contentLength, body);
}

/**
 * `method target protocol/version`, the headers as spelled and in order, then the body.
 * Content-Length is added when a body is given (even an empty one) unless the caller set
 * Content-Length or Transfer-Encoding.
 */
export function writeRequest(request: RequestToWrite): Uint8Array {
  const { method, target, protocol, version } = request;
  checkVersion(protocol, version);
  if (!isToken(method)) throw new HttpWriteError(`method ${quoteText(method)} is not a token (RFC 9110 9.1)`);
  if (target.length === 0) throw new HttpWriteError('request-target is empty');
  for (let i = 0; i < target.length; i++) {
    const code = target.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) {
      throw new HttpWriteError(`request-target ${quoteText(target)} has a space, control or non-ASCII character at index ${i}: percent-encode it`);
    }
  }
  const fields = flattenHeaders(request.headers, []);
  const contentLength = frameBody(fields, request.body, request.body !== undefined, protocol, version);
  return serialize(`${method} ${target} ${protocol}/${version}`, fields, contentLength, request.body);
}

function checkVersion(protocol: Protocol, version: ProtocolVersion): void {
  const ok = (protocol === 'HTTP' && (version === '1.1' || version === '1.0')) || (protocol === 'RTSP' && version === '1.0');
  if (!ok) throw new HttpWriteError(`${String(protocol)}/${String(version)} is not a version this writer speaks (HTTP/1.1, HTTP/1.0, RTSP/1.0)`);
}

/**
 * Checks the caller's framing of `body` in `fields` (flattened name, value pairs); returns the
 * Content-Length to add, or undefined when none is to be written (`addWhenAbsent` false, or the
 * caller set Content-Length or Transfer-Encoding).
 */
function frameBody(fields: readonly string[], body: Uint8Array | undefined, addWhenAbsent: boolean, protocol: Protocol, version: ProtocolVersion): number | undefined {
  let chunked = false;
  let lengths = 0;
  let given = '';
  for (let i = 0; i < fields.length; i += 2) {
    // Lengths first: most names are neither, and are not lower-cased to find that out.
    const name = fields[i];
    if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') chunked = true;
    else if (name.length === 14 && name.toLowerCase() === 'content-length') {
      if (lengths++ === 0) given = fields[i + 1];
    }
  }
  if (chunked) {
    // The caller framed the body itself (it is already chunked).
    if (protocol === 'RTSP') throw new HttpWriteError('RTSP messages cannot use Transfer-Encoding (RFC 2326 4.3)');
    if (version === '1.0') throw new HttpWriteError('HTTP/1.0 messages cannot use Transfer-Encoding (RFC 9112 6.1)');
    if (lengths > 0) throw new HttpWriteError('Content-Length and Transfer-Encoding together (RFC 9112 6.2 forbids it)');
    return undefined;
  }
  if (lengths === 0) return addWhenAbsent ? (body ? body.length : 0) : undefined;
  if (lengths > 1) throw new HttpWriteError(`Content-Length is set ${lengths} times`);
  if (!/^[0-9]+$/.test(given)) throw new HttpWriteError(`Content-Length ${quoteText(given)} is not a number`);
  if (body && Number(given) !== body.length) {
    throw new HttpWriteError(`Content-Length ${given} does not match the ${body.length}-byte body`);
  }
  return undefined;
}

/** RFC 9110 5.5: no CR, LF or NUL in a field value or reason; Latin-1 only, one byte each. */
function checkText(text: string, what: string): void {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === CR || code === LF || code === 0) {
      throw new HttpWriteError(`${what} ${quoteText(text)} contains CR, LF or NUL at index ${i}`);
    }
    if (code > 0xff) throw new HttpWriteError(`${what} ${quoteText(text)} has a character above U+00FF at index ${i}`);
  }
}

const CONTENT_LENGTH = 'Content-Length: ';

/**
 * The head (start line, fields, `Content-Length: contentLength` when given, empty line) and the
 * body in one array. Sized first from the strings' lengths, then written in one pass that also
 * checks each name and value (the checks name the field when one fails), so no head string is
 * built and copied.
 */
function serialize(startLine: string, fields: readonly string[], contentLength: number | undefined, body: Uint8Array | undefined): Uint8Array {
  const lengthText = contentLength === undefined ? '' : String(contentLength);
  let headLength = startLine.length + 2 + 2;
  for (let i = 0; i < fields.length; i += 2) headLength += fields[i].length + 2 + fields[i + 1].length + 2;
  if (contentLength !== undefined) headLength += CONTENT_LENGTH.length + lengthText.length + 2;
  const out = new Uint8Array(headLength + (body ? body.length : 0));
  // The start line's parts were checked by the callers: one byte per character.
  let at = putLatin1(out, 0, startLine);
  out[at++] = CR;
  out[at++] = LF;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    const value = fields[i + 1];
    if (name.length === 0) throw new HttpWriteError(`header name ${quoteText(name)} is not a token (RFC 9110 5.1)`);
    for (let j = 0; j < name.length; j++) {
      const code = name.charCodeAt(j);
      if (code > 0xff || !isTokenByte(code)) throw new HttpWriteError(`header name ${quoteText(name)} is not a token (RFC 9110 5.1)`);
      out[at++] = code;
    }
    out[at++] = 0x3a; // ':'
    out[at++] = 0x20;
    for (let j = 0; j < value.length; j++) {
      const code = value.charCodeAt(j);
      if (code === CR || code === LF || code === 0 || code > 0xff) checkText(value, `header ${name} value`);
      out[at++] = code;
    }
    out[at++] = CR;
    out[at++] = LF;
  }
  if (contentLength !== undefined) {
    at = putLatin1(out, at, CONTENT_LENGTH);
    at = putLatin1(out, at, lengthText);
    out[at++] = CR;
    out[at++] = LF;
  }
  out[at++] = CR;
  out[at++] = LF;
  if (body) out.set(body, at);
  return out;
}

/** Writes `text` (every character at most U+00FF) at `at`; returns the next index. */
function putLatin1(out: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}
