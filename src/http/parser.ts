// Incremental HTTP/1.x and RTSP/1.0 message parser: bytes in, head/body/end/error events out (sans-I/O).
//
// Shaped like Python's h11: the caller feeds bytes with receive() and pulls events with next().
// next() parses only when called and never reads past the message it is on, so after an `end`
// event the caller may stop and hand the rest of the bytes elsewhere with takeRemaining()
// (spec 4.4: after POST /stream the connection carries raw packets; DESIGN 6: after a 101 a
// connection carries reverse requests).
//
// Statuses of error events: 400 malformed (start line, header line, framing, chunk syntax, EOF
// inside a message); 414 request-target too long; 431 head or trailers too large or too many
// header lines (400 in RTSP, which has no such code); 413 body over the limit; 501 a transfer
// coding other than chunked; 505 a well-formed version other than HTTP/1.0, HTTP/1.1, RTSP/1.0.

import { CR, DEL, HTAB, LF, SEMICOLON, SP, hexDigitValue, quoteBytes } from './_chars';
import {
  HeadProblem,
  checkMethod,
  fieldsTooLargeStatus,
  isKeepAlive,
  parseFieldLines,
  parseRequestLine,
  parseStatusLine,
  requestFraming,
  responseFraming,
} from './_head';
import { Headers } from './headers';
import { checkLimit, resolveHttpLimits, type HttpLimits } from './limits';
import type { MessageHeadOf, MessageKind, Protocol, ProtocolVersion, RequestHead, ResponseHead } from './message';
import { STATUS } from './status';

export interface HeadEvent<H> {
  readonly type: 'head';
  readonly head: H;
}

/** Part of the body, in order; a view into bytes given to receive(), not a copy. */
export interface BodyEvent {
  readonly type: 'body';
  readonly data: Uint8Array;
}

/** The message is complete; the next event, if any, belongs to the next message. */
export interface EndEvent {
  readonly type: 'end';
}

/**
 * The input is not an acceptable message. `status` is the status to answer a request with (for
 * a response parser, the same code classifies what was wrong). When `fatal`, the byte stream
 * cannot be resynchronised: answer, then close; next() returns null from then on. When not
 * fatal (only a 413 whose over-limit body has a known, small enough length), the parser drops
 * the rest of that body and carries on with the next message; no `end` event follows.
 */
export interface ErrorEvent {
  readonly type: 'error';
  readonly status: number;
  readonly reason: string;
  readonly fatal: boolean;
  /** The message's protocol when its start line was read, so the answer can be in it. */
  readonly protocol: Protocol | undefined;
  /** The message's CSeq when its headers were read (an RTSP answer echoes it, RFC 2326 12.17). */
  readonly cseq: string | undefined;
}

export type ParserEvent<H = RequestHead | ResponseHead> = HeadEvent<H> | BodyEvent | EndEvent | ErrorEvent;

const EMPTY = new Uint8Array(0);
const END_EVENT: EndEvent = Object.freeze({ type: 'end' });
/** Smallest buffer the parser allocates when it must hold bytes across receive() calls. */
const MIN_CAPACITY = 1024;

// States. One message: START -> HEAD -> BODY_START -> (body states) -> END -> START...
const START = 0; // between messages: skipping empty lines
const HEAD = 1; // reading a head
const BODY_START = 2; // head returned; framing is applied at the next call (after setBodyLimit)
const LENGTH = 3; // Content-Length body: `remaining` bytes to go
const CHUNK_SIZE = 4; // expecting a chunk-size line
const CHUNK_DATA = 5; // inside chunk data: `remaining` bytes to go
const CHUNK_DATA_END = 6; // expecting the CRLF after chunk data
const TRAILERS = 7; // after the last chunk: trailer section
const TO_EOF = 8; // body delimited by the end of the connection
const DISCARD = 9; // dropping an over-limit body after a non-fatal 413
const END = 10; // the end event is due
const SWITCHED = 11; // a 101 response ended: the bytes that follow are another protocol
const CLOSED = 12; // EOF between messages
const FAILED = 13; // a fatal error was reported
const TAKEN = 14; // takeRemaining() handed the bytes elsewhere

/** Returned by a step that changed state without producing an event: run the next step. */
const AGAIN = 1;

export class MessageParser<K extends MessageKind = MessageKind> {
  readonly kind: K;
  private readonly limits: HttpLimits;

  // Unparsed input is buf[pos, len). When `owned`, buf is the parser's own array and may be
  // appended to past len; `exposed` says views of it were handed out, so bytes before len must
  // never be overwritten (body events stay valid after later receive() calls).
  private buf: Uint8Array = EMPTY;
  private pos = 0;
  private len = 0;
  private owned = false;
  private exposed = false;
  private eof = false;
  private state = START;

  /** Where the current line or section scan resumes, relative to pos (no re-scanning). */
  private scan = 0;
  /** Offset of the start line's LF from pos, or -1 while the start line is incomplete. */
  private startLineEnd = -1;
  private space1 = -1;
  private space2 = -1;

  private protocol: Protocol | undefined;
  private cseq: string | undefined;
  private head: MessageHeadOf<K> | undefined;
  private method = '';
  private target = '';
  private status = 0;
  private reason = '';
  private version: ProtocolVersion = '1.1';
  private remaining = 0;
  private bodyBytes = 0;
  private bodyLimit: number;
  private readonly pendingMethods: string[] = [];

  constructor(kind: K, limits?: Partial<HttpLimits>) {
    if (kind !== 'request' && kind !== 'response') throw new TypeError(`MessageParser kind must be 'request' or 'response', not ${String(kind)}`);
    this.kind = kind;
    this.limits = resolveHttpLimits(limits);
    this.bodyLimit = this.limits.maxBodyBytes;
  }

  /**
   * Adds bytes from the connection. The parser keeps a view of `bytes` until it has parsed
   * them and body events are views of them: do not modify the array afterwards.
   */
  receive(bytes: Uint8Array): void {
    if (this.state === TAKEN) throw new Error('MessageParser.receive after takeRemaining: the bytes belong to another mode now');
    if (this.eof) throw new Error('MessageParser.receive after receiveEnd');
    if (this.state === FAILED) return; // the caller is closing; nothing more will be parsed
    const incoming = bytes.length;
    if (incoming === 0) return;
    const rest = this.len - this.pos;
    if (rest === 0) {
      // Nothing pending: adopt the caller's array, no copy (the common case for bodies).
      this.buf = bytes;
      this.pos = 0;
      this.len = incoming;
      this.owned = false;
      this.exposed = false;
      return;
    }
    if (this.owned && this.buf.length - this.len >= incoming) {
      this.buf.set(bytes, this.len);
      this.len += incoming;
      return;
    }
    const needed = rest + incoming;
    if (this.owned && !this.exposed && this.buf.length >= needed) {
      this.buf.copyWithin(0, this.pos, this.len);
    } else {
      // Grow by half again, so bytes arriving one at a time cost amortised O(1) each.
      const grown = new Uint8Array(Math.max(MIN_CAPACITY, needed + (needed >> 1)));
      grown.set(this.buf.subarray(this.pos, this.len));
      this.buf = grown;
      this.owned = true;
      this.exposed = false;
    }
    this.buf.set(bytes, rest);
    this.pos = 0;
    this.len = needed;
  }

  /** The connection's input has ended (a response without length ends here, RFC 9112 6.3). */
  receiveEnd(): void {
    this.eof = true;
  }

  /**
   * Sets the body limit of the current message, in bytes: call between its head event and its
   * body (the router knows the route's limit). Each message starts with limits.maxBodyBytes.
   */
  setBodyLimit(bytes: number): void {
    checkLimit('body limit', bytes);
    this.bodyLimit = bytes;
  }

  /**
   * For a response parser: the next request sent on this connection used `method`. Calls queue
   * up in request order (pipelining); a response to HEAD has no body (RFC 9110 9.3.2).
   */
  expectResponseTo(method: string): void {
    this.pendingMethods.push(method);
  }

  /** Bytes received and not yet parsed (for backpressure: stop reading when it grows). */
  get buffered(): number {
    return this.len - this.pos;
  }

  /** Bytes of an over-limit body still to drop after a non-fatal 413 (0 when none is being dropped). */
  get discarding(): number {
    return this.state === DISCARD ? this.remaining : 0;
  }

  /**
   * The unparsed bytes, as a view; the parser is finished afterwards. For a connection that
   * changes mode: after a 101, or after the `end` of POST /stream (spec 4.4).
   */
  takeRemaining(): Uint8Array {
    const rest = this.buf.subarray(this.pos, this.len);
    this.buf = EMPTY;
    this.pos = 0;
    this.len = 0;
    this.owned = false;
    this.state = TAKEN;
    return rest;
  }

  /** The next event, or null when more bytes are needed (or, after receiveEnd, none will come). */
  next(): ParserEvent<MessageHeadOf<K>> | null {
    for (;;) {
      let step: ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN;
      switch (this.state) {
        case START:
          step = this.skipEmptyLines();
          break;
        case HEAD:
          step = this.readHead();
          break;
        case BODY_START:
          step = this.startBody();
          break;
        case LENGTH:
          step = this.readLengthBody();
          break;
        case CHUNK_SIZE:
          step = this.readChunkSize();
          break;
        case CHUNK_DATA:
          step = this.readChunkData();
          break;
        case CHUNK_DATA_END:
          step = this.readChunkDataEnd();
          break;
        case TRAILERS:
          step = this.readTrailers();
          break;
        case TO_EOF:
          step = this.readToEof();
          break;
        case DISCARD:
          step = this.discard();
          break;
        case END:
          step = this.finishMessage();
          break;
        default:
          return null; // SWITCHED, CLOSED, FAILED, TAKEN
      }
      if (step !== AGAIN) return step;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Steps. Each returns an event, null (needs bytes), or AGAIN (state changed).

  private skipEmptyLines(): null | typeof AGAIN {
    // RFC 9112 2.2: ignore empty lines before a request line (some clients send CRLF after a
    // POST body). Responses get the same tolerance.
    const bytes = this.buf;
    let p = this.pos;
    while (p < this.len) {
      const byte = bytes[p];
      if (byte === LF) p++;
      else if (byte === CR && p + 1 < this.len && bytes[p + 1] === LF) p += 2;
      else break;
    }
    this.pos = p;
    if (p < this.len && !(bytes[p] === CR && p + 1 === this.len)) {
      this.beginMessage();
      return AGAIN;
    }
    if (p === this.len) this.release();
    if (this.eof) this.state = CLOSED;
    return null;
  }

  private beginMessage(): void {
    this.state = HEAD;
    this.scan = 0;
    this.startLineEnd = -1;
    this.space1 = -1;
    this.space2 = -1;
    this.protocol = undefined;
    this.cseq = undefined;
    this.head = undefined;
    this.bodyBytes = 0;
    this.remaining = 0;
    this.bodyLimit = this.limits.maxBodyBytes;
  }

  private readHead(): ParserEvent<MessageHeadOf<K>> | null {
    const bytes = this.buf;
    const base = this.pos;
    const length = this.len;
    const limits = this.limits;
    const request = this.kind === 'request';
    if (this.startLineEnd < 0) {
      // Checks that need only a prefix of the line run here, byte by byte, so the outcome is
      // the same however the bytes were split, and binary input or an endless target fails
      // at once instead of waiting for a line end that never comes.
      const what = request ? 'request' : 'status';
      let i = base + this.scan;
      for (; i < length; i++) {
        const byte = bytes[i];
        if (byte === LF) break;
        const offset = i - base;
        if (offset > 0 && bytes[i - 1] === CR) return this.fail(STATUS.badRequest, `${what} line has a bare CR (RFC 9112 2.2)`);
        if (byte === SP) {
          if (this.space1 < 0) {
            this.space1 = offset;
            if (request) {
              const problem = checkMethod(bytes, base, i);
              if (problem) return this.fail(problem.status, problem.reason);
            }
          } else if (this.space2 < 0) this.space2 = offset;
        } else if ((byte < 0x20 && byte !== CR && byte !== HTAB) || byte === DEL) {
          // A TLS ClientHello on a plain port starts with 0x16.
          return this.fail(STATUS.badRequest, `${what} line has control byte 0x${byte.toString(16).padStart(2, '0')} at offset ${offset}`);
        }
        if (request && this.space1 >= 0 && this.space2 < 0 && offset - this.space1 > limits.maxTargetLength) {
          return this.fail(STATUS.uriTooLong, `request-target exceeds ${limits.maxTargetLength} bytes`);
        }
        if (offset >= limits.maxHeadBytes) return this.fail(STATUS.badRequest, `${what} line exceeds ${limits.maxHeadBytes} bytes`);
      }
      this.scan = i - base;
      if (i === length) {
        if (this.eof) return this.fail(STATUS.badRequest, `connection closed before the head was complete (${length - base} bytes)`);
        return null;
      }
      this.startLineEnd = i - base;
      const lineEnd = i > base && bytes[i - 1] === CR ? i - 1 : i;
      if (request) {
        const space1 = this.space1 < 0 ? -1 : base + this.space1;
        const space2 = this.space2 < 0 ? -1 : base + this.space2;
        const line = parseRequestLine(bytes, base, lineEnd, space1, space2, limits.maxTargetLength);
        if (line instanceof HeadProblem) return this.fail(line.status, line.reason);
        this.protocol = line.protocol;
        this.version = line.version;
        this.method = line.method;
        this.target = line.target;
      } else {
        const line = parseStatusLine(bytes, base, lineEnd);
        if (line instanceof HeadProblem) return this.fail(line.status, line.reason);
        this.protocol = line.protocol;
        this.version = line.version;
        this.status = line.status;
        this.reason = line.reason;
      }
    }
    const protocol = this.protocol as Protocol;
    const end = this.findSectionEnd(base + this.scan);
    if (end < 0) {
      if (length - base > limits.maxHeadBytes) return this.fail(fieldsTooLargeStatus(protocol), `head exceeds ${limits.maxHeadBytes} bytes`);
      if (this.eof) return this.fail(STATUS.badRequest, `connection closed before the head was complete (${length - base} bytes)`);
      return null;
    }
    if (end - base > limits.maxHeadBytes) return this.fail(fieldsTooLargeStatus(protocol), `head exceeds ${limits.maxHeadBytes} bytes`);

    const headers = new Headers();
    const problem = parseFieldLines(bytes, base + this.startLineEnd + 1, end, headers, limits.maxHeaderCount, protocol, 'header');
    this.cseq = headers.get('cseq');
    if (problem) return this.fail(problem.status, problem.reason);
    const version = this.version;
    let head: RequestHead | ResponseHead;
    if (request) {
      const framing = requestFraming(headers, protocol, version);
      if (framing instanceof HeadProblem) return this.fail(framing.status, framing.reason);
      head = {
        kind: 'request',
        method: this.method,
        target: this.target,
        protocol,
        version,
        headers,
        keepAlive: isKeepAlive(headers, protocol, version),
        framing: framing.framing,
        contentLength: framing.contentLength,
      };
    } else {
      const status = this.status;
      // A final response (or a 101) answers the oldest outstanding request; 1xx do not.
      const final = status >= 200 || status === STATUS.switchingProtocols;
      const method = final ? this.pendingMethods.shift() : this.pendingMethods[0];
      const framing = responseFraming(headers, protocol, version, status, method === 'HEAD');
      if (framing instanceof HeadProblem) return this.fail(framing.status, framing.reason);
      head = {
        kind: 'response',
        status,
        reason: this.reason,
        protocol,
        version,
        headers,
        keepAlive: framing.framing !== 'eof' && isKeepAlive(headers, protocol, version),
        framing: framing.framing,
        contentLength: framing.contentLength,
      };
    }
    this.head = head as MessageHeadOf<K>;
    this.pos = end;
    this.state = BODY_START;
    return { type: 'head', head: this.head };
  }

  /**
   * Index just past the empty line that ends a section, searching from `from` (an LF or before
   * one), or -1; then `scan` records where to resume so no byte is examined twice.
   */
  private findSectionEnd(from: number): number {
    const bytes = this.buf;
    const length = this.len;
    let i = from;
    for (;;) {
      while (i < length && bytes[i] !== LF) i++;
      if (i + 1 >= length) break;
      const after = bytes[i + 1];
      if (after === LF) return i + 2;
      if (after === CR) {
        if (i + 2 >= length) break;
        if (bytes[i + 2] === LF) return i + 3;
      }
      i++;
    }
    this.scan = Math.min(i, length) - this.pos;
    return -1;
  }

  private startBody(): ParserEvent<MessageHeadOf<K>> | typeof AGAIN {
    const head = this.head as RequestHead | ResponseHead;
    switch (head.framing) {
      case 'length':
        this.remaining = head.contentLength as number;
        this.state = LENGTH;
        break;
      case 'chunked':
        this.scan = 0;
        this.state = CHUNK_SIZE;
        break;
      case 'eof':
        this.state = TO_EOF;
        break;
      default:
        this.state = END;
    }
    return AGAIN;
  }

  private readLengthBody(): ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN {
    if (this.bodyBytes + this.remaining > this.bodyLimit) {
      const reason = `body exceeds the limit of ${this.bodyLimit} bytes (Content-Length ${this.head?.contentLength})`;
      if (this.remaining <= this.limits.maxDiscardBytes) {
        // The length is known: drop the body and keep the connection (see HttpLimits).
        this.state = DISCARD;
        return this.error(STATUS.contentTooLarge, reason, false);
      }
      return this.fail(STATUS.contentTooLarge, reason);
    }
    if (this.remaining === 0) {
      this.state = END;
      return AGAIN;
    }
    const available = this.len - this.pos;
    if (available === 0) {
      if (this.eof) {
        const total = this.bodyBytes + this.remaining;
        return this.fail(STATUS.badRequest, `connection closed after ${this.bodyBytes} of ${total} body bytes`);
      }
      return null;
    }
    return this.bodyEvent(Math.min(available, this.remaining));
  }

  private readChunkSize(): ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN {
    const bytes = this.buf;
    const base = this.pos;
    const length = this.len;
    const maxLine = this.limits.maxChunkLineBytes;
    let i = base + this.scan;
    while (i < length && bytes[i] !== LF) i++;
    if (i === length) {
      this.scan = i - base;
      if (i - base > maxLine) return this.fail(STATUS.badRequest, `chunk-size line exceeds ${maxLine} bytes`);
      if (this.eof) return this.fail(STATUS.badRequest, `connection closed inside a chunked body after ${this.bodyBytes} bytes`);
      return null;
    }
    if (i - base + 1 > maxLine) return this.fail(STATUS.badRequest, `chunk-size line exceeds ${maxLine} bytes`);
    const lineEnd = i > base && bytes[i - 1] === CR ? i - 1 : i;
    // RFC 9112 7.1: chunk-size = 1*HEXDIG, then chunk extensions (ignored, 7.1.1).
    let size = 0;
    let p = base;
    let huge = false;
    while (p < lineEnd) {
      const digit = hexDigitValue(bytes[p]);
      if (digit < 0) break;
      size = size * 16 + digit;
      if (size > 0xffffffffffff) huge = true; // 256 TiB: beyond any limit, and still exact
      if (huge) size = 0xffffffffffff;
      p++;
    }
    if (p === base) {
      return this.fail(STATUS.badRequest, `chunk-size line ${quoteBytes(bytes, base, lineEnd)} does not start with a hexadecimal size`);
    }
    let q = p;
    while (q < lineEnd && (bytes[q] === SP || bytes[q] === HTAB)) q++;
    if (q < lineEnd && bytes[q] !== SEMICOLON) {
      return this.fail(STATUS.badRequest, `chunk-size line ${quoteBytes(bytes, base, lineEnd)} has text after the size that is not an extension`);
    }
    for (let k = q; k < lineEnd; k++) {
      if (bytes[k] === CR || bytes[k] === 0) return this.fail(STATUS.badRequest, 'chunk extension contains a bare CR or NUL');
    }
    if (size === 0) {
      // The last chunk. Keep pos on its LF: the trailer section ends at the next empty line.
      this.pos = i;
      this.scan = 0;
      this.state = TRAILERS;
      return AGAIN;
    }
    this.pos = i + 1;
    if (huge || this.bodyBytes + size > this.bodyLimit) {
      // The rest of a chunked body has no known length: the stream cannot be resynchronised.
      return this.fail(STATUS.contentTooLarge, `chunked body exceeds the limit of ${this.bodyLimit} bytes`);
    }
    this.remaining = size;
    this.state = CHUNK_DATA;
    return AGAIN;
  }

  private readChunkData(): ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN {
    if (this.bodyBytes + this.remaining > this.bodyLimit) {
      return this.fail(STATUS.contentTooLarge, `chunked body exceeds the limit of ${this.bodyLimit} bytes`);
    }
    if (this.remaining === 0) {
      this.state = CHUNK_DATA_END;
      return AGAIN;
    }
    const available = this.len - this.pos;
    if (available === 0) {
      if (this.eof) return this.fail(STATUS.badRequest, `connection closed inside a chunked body after ${this.bodyBytes} bytes`);
      return null;
    }
    return this.bodyEvent(Math.min(available, this.remaining));
  }

  private readChunkDataEnd(): ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN {
    const bytes = this.buf;
    const p = this.pos;
    const available = this.len - p;
    if (available >= 1 && bytes[p] === LF) {
      this.pos = p + 1; // bare LF, as some senders end lines
    } else if (available >= 2 && bytes[p] === CR && bytes[p + 1] === LF) {
      this.pos = p + 2;
    } else if (available === 0 || (available === 1 && bytes[p] === CR)) {
      if (this.eof) return this.fail(STATUS.badRequest, `connection closed inside a chunked body after ${this.bodyBytes} bytes`);
      return null;
    } else {
      const shown = quoteBytes(bytes, p, p + (bytes[p] === CR ? 2 : 1));
      return this.fail(STATUS.badRequest, `chunk data is not followed by CRLF (found ${shown})`);
    }
    this.scan = 0;
    this.state = CHUNK_SIZE;
    return AGAIN;
  }

  private readTrailers(): ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN {
    const base = this.pos; // the LF of the last-chunk line
    const maxBytes = this.limits.maxTrailerBytes;
    const protocol = this.protocol as Protocol;
    const end = this.findSectionEnd(base + this.scan);
    if (end < 0) {
      if (this.len - base - 1 > maxBytes) return this.fail(fieldsTooLargeStatus(protocol), `trailer section exceeds ${maxBytes} bytes`);
      if (this.eof) return this.fail(STATUS.badRequest, 'connection closed inside the trailer section of a chunked body');
      return null;
    }
    if (end - base - 1 > maxBytes) return this.fail(fieldsTooLargeStatus(protocol), `trailer section exceeds ${maxBytes} bytes`);
    // RFC 9112 7.1.2: trailers may be discarded; they are still checked for syntax.
    const problem = parseFieldLines(this.buf, base + 1, end, new Headers(), this.limits.maxHeaderCount, protocol, 'trailer');
    if (problem) return this.fail(problem.status, problem.reason);
    this.pos = end;
    this.state = END;
    return AGAIN;
  }

  private readToEof(): ParserEvent<MessageHeadOf<K>> | null | typeof AGAIN {
    const available = this.len - this.pos;
    if (available > 0) {
      // Deliver up to the limit first, so the outcome does not depend on how bytes arrived.
      const allowed = this.bodyLimit - this.bodyBytes;
      if (allowed <= 0) return this.fail(STATUS.contentTooLarge, `body read to EOF exceeds the limit of ${this.bodyLimit} bytes`);
      return this.bodyEvent(Math.min(available, allowed));
    }
    if (!this.eof) return null;
    this.state = END;
    return AGAIN;
  }

  private discard(): null | typeof AGAIN {
    const dropped = Math.min(this.len - this.pos, this.remaining);
    this.pos += dropped;
    this.remaining -= dropped;
    if (this.remaining > 0) {
      if (this.eof) this.state = CLOSED;
      return null;
    }
    this.state = START;
    return AGAIN;
  }

  private finishMessage(): EndEvent {
    const head = this.head as RequestHead | ResponseHead;
    // RFC 9110 15.2.2: after 101 the bytes that follow are the new protocol's.
    this.state = head.kind === 'response' && head.status === STATUS.switchingProtocols ? SWITCHED : START;
    return END_EVENT;
  }

  // -------------------------------------------------------------------------------------------

  private bodyEvent(count: number): BodyEvent {
    const data = this.buf.subarray(this.pos, this.pos + count);
    if (this.owned) this.exposed = true;
    this.pos += count;
    this.remaining -= count;
    this.bodyBytes += count;
    return { type: 'body', data };
  }

  /** Drops the input array once everything in it is parsed (an idle connection holds nothing). */
  private release(): void {
    this.buf = EMPTY;
    this.pos = 0;
    this.len = 0;
    this.owned = false;
    this.exposed = false;
  }

  private error(status: number, reason: string, fatal: boolean): ErrorEvent {
    return { type: 'error', status, reason, fatal, protocol: this.protocol, cseq: this.cseq };
  }

  private fail(status: number, reason: string): ErrorEvent {
    this.state = FAILED;
    return this.error(status, reason, true);
  }
}
