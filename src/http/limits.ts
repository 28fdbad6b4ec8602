// Bounds on what one message may make the parser hold or read (DESIGN 2.4, bounded memory).

export interface HttpLimits {
  /**
   * Most bytes of a head: start line, header lines and the empty line (leading empty lines
   * before a request line are not counted). Over it: 431 for HTTP, 400 for RTSP.
   */
  maxHeadBytes: number;
  /** Most header lines in a head. Over it: 431 for HTTP, 400 for RTSP. */
  maxHeaderCount: number;
  /** Longest request-target. Over it: 414 (both protocols define it). */
  maxTargetLength: number;
  /**
   * The body limit each message starts with; `MessageParser.setBodyLimit` changes it for the
   * current message (the router knows the route's limit). Over it: 413.
   */
  maxBodyBytes: number;
  /**
   * A body over its limit whose Content-Length is known and at most this many bytes is read
   * and dropped, so the connection survives the 413 (a sender whose photo is too big for a
   * small board keeps its session). A larger or chunked body makes the 413 fatal.
   */
  maxDiscardBytes: number;
  /** Longest chunk-size line, chunk extensions included. Over it: 400. */
  maxChunkLineBytes: number;
  /** Most bytes of a chunked body's trailer section. Over it: 431 (HTTP), 400 (RTSP). */
  maxTrailerBytes: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  maxHeadBytes: 8192,
  maxHeaderCount: 64,
  maxTargetLength: 2048,
  maxBodyBytes: 1024 * 1024,
  maxDiscardBytes: 4 * 1024 * 1024,
  maxChunkLineBytes: 1024,
  maxTrailerBytes: 4096,
});

/** The defaults overridden by `overrides`; throws a RangeError naming a bad value. */
export function resolveHttpLimits(overrides: Partial<HttpLimits> = {}): HttpLimits {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS };
  for (const key of Object.keys(DEFAULT_HTTP_LIMITS) as (keyof HttpLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    checkLimit(key, value);
    limits[key] = value;
  }
  return limits;
}

export function checkLimit(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`HTTP limit ${name} must be a non-negative integer, not ${value}`);
  }
}
