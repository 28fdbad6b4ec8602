// The shapes of parsed and written messages shared by the parser and the writer.

import type { Headers } from './headers';

export type MessageKind = 'request' | 'response';

/** HTTP (photo, video, mirroring, reverse connections) or RTSP (audio), spec 1.4. */
export type Protocol = 'HTTP' | 'RTSP';

/** HTTP/1.0, HTTP/1.1 or RTSP/1.0: the only versions the receiver speaks. */
export type ProtocolVersion = '1.0' | '1.1';

/**
 * How the body of a message is delimited (RFC 9112 6.3, RFC 2326 4.3):
 * `none` no body; `length` exactly contentLength bytes (possibly 0); `chunked` chunked transfer
 * coding; `eof` everything until the connection closes (HTTP responses only).
 */
export type BodyFraming = 'none' | 'length' | 'chunked' | 'eof';

export interface MessageHead {
  readonly protocol: Protocol;
  readonly version: ProtocolVersion;
  readonly headers: Headers;
  /**
   * Whether the connection stays open after this message (RFC 9112 9.3, RFC 2326 12.8):
   * HTTP/1.1 and RTSP unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`;
   * never for a response whose body runs to EOF.
   */
  readonly keepAlive: boolean;
  readonly framing: BodyFraming;
  /** The body length when framing is `length`, else undefined. */
  readonly contentLength: number | undefined;
}

export interface RequestHead extends MessageHead {
  readonly kind: 'request';
  /** Any token, as sent: GET, PUT, OPTIONS, SETUP, FLUSHBUFFERED, SET_PARAMETER... */
  readonly method: string;
  /** The request-target as sent (Latin-1); '' for the empty RTSP URI some senders send. */
  readonly target: string;
}

export interface ResponseHead extends MessageHead {
  readonly kind: 'response';
  readonly status: number;
  readonly reason: string;
}

export type MessageHeadOf<K extends MessageKind> = K extends 'request' ? RequestHead : ResponseHead;
