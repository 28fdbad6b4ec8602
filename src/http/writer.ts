// Serialises HTTP/1.x and RTSP/1.0 requests and responses: head and body in one byte array.
//
// One array because some senders read a response's head and body with a single TCP read and
// misbehave when the body arrives in a second segment.

import { CR, LF, isToken, quoteText } from './_chars';
import { HEADER, Headers, type HeadersInit } from './headers';
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
  const headers = new Headers(response.headers);
  const body = response.body;
  if (statusForbidsBody(status)) {
    if (body && body.length > 0) throw new HttpWriteError(`a ${status} response has no content (RFC 9110 6.4.1), but a body was given`);
  } else {
    frameBody(headers, body, true, protocol, version);
  }
  return serialize(`${protocol}/${version} ${status} ${reason}\r\n`, headers, body);
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
  const headers = new Headers(request.headers);
  frameBody(headers, request.body, request.body !== undefined, protocol, version);
  return serialize(`${method} ${target} ${protocol}/${version}\r\n`, headers, request.body);
}

function checkVersion(protocol: Protocol, version: ProtocolVersion): void {
  const ok = (protocol === 'HTTP' && (version === '1.1' || version === '1.0')) || (protocol === 'RTSP' && version === '1.0');
  if (!ok) throw new HttpWriteError(`${String(protocol)}/${String(version)} is not a version this writer speaks (HTTP/1.1, HTTP/1.0, RTSP/1.0)`);
}

/** Adds or checks Content-Length for `body`; `addWhenAbsent` writes `Content-Length: 0` without one. */
function frameBody(headers: Headers, body: Uint8Array | undefined, addWhenAbsent: boolean, protocol: Protocol, version: ProtocolVersion): void {
  if (headers.has(HEADER.transferEncoding)) {
    // The caller framed the body itself (it is already chunked).
    if (protocol === 'RTSP') throw new HttpWriteError('RTSP messages cannot use Transfer-Encoding (RFC 2326 4.3)');
    if (version === '1.0') throw new HttpWriteError('HTTP/1.0 messages cannot use Transfer-Encoding (RFC 9112 6.1)');
    if (headers.has(HEADER.contentLength)) throw new HttpWriteError('Content-Length and Transfer-Encoding together (RFC 9112 6.2 forbids it)');
    return;
  }
  const given = headers.getAll(HEADER.contentLength);
  if (given.length === 0) {
    if (addWhenAbsent) headers.append(HEADER.contentLength, body ? body.length : 0);
    return;
  }
  if (given.length > 1) throw new HttpWriteError(`Content-Length is set ${given.length} times`);
  if (!/^[0-9]+$/.test(given[0])) throw new HttpWriteError(`Content-Length ${quoteText(given[0])} is not a number`);
  if (body && Number(given[0]) !== body.length) {
    throw new HttpWriteError(`Content-Length ${given[0]} does not match the ${body.length}-byte body`);
  }
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

function serialize(startLine: string, headers: Headers, body: Uint8Array | undefined): Uint8Array {
  let head = startLine;
  for (const [name, value] of headers) {
    if (!isToken(name)) throw new HttpWriteError(`header name ${quoteText(name)} is not a token (RFC 9110 5.1)`);
    checkText(value, `header ${name} value`);
    head += `${name}: ${value}\r\n`;
  }
  head += '\r\n';
  const bodyLength = body ? body.length : 0;
  const out = new Uint8Array(head.length + bodyLength);
  // Every character was checked to be at most U+00FF: one byte each (Latin-1).
  for (let i = 0; i < head.length; i++) out[i] = head.charCodeAt(i);
  if (body) out.set(body, head.length);
  return out;
}
