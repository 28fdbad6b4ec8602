// Serialized answers of reusable responses (Response.reusable: a cached reply, reply-cache.ts),
// shared by every connection: such a reply is written once per second (its Date) instead of once
// per request.
//
// An RTSP answer carries the request's CSeq (RFC 2326 12.17), which differs from request to
// request: it is kept with that line cut out, and each answer puts the request's line back where
// it was. A request without CSeq gets the kept bytes as they are, which is what writing its
// answer afresh gives (the connection then writes no CSeq line).

import { BytesError, indexOf, latin1Encode, latin1EncodeInto } from '../../bytes';
import { HEADER, Headers, type RequestHead } from '../../http';
import type { Response } from './router';

interface KeptAnswer {
  /** The Date header the bytes carry. */
  readonly date: string;
  readonly version: string;
  /** Whether the answer closed the connection (HTTP/1.1 says so in a header). */
  readonly close: boolean;
  readonly bytes: Uint8Array;
  /** RTSP: where the CSeq line goes in `bytes`; -1 for HTTP. */
  readonly cseqAt: number;
  /**
   * RTSP: the CSeq of the last answer spliced, and that answer. A sender that asks again with
   * the same CSeq (a keep-alive OPTIONS, a retry) gets the same bytes without a new array; they
   * are never written to once made, so handing them out again is safe.
   */
  lastCSeq: string | undefined;
  lastBytes: Uint8Array | undefined;
}

/**
 * Made at its first use, not when the module loads: a board preloads this module, and XS keeps a
 * collection made at preload in read-only memory, where its first set would throw.
 */
let keptByResponse: WeakMap<Response, KeptAnswer> | undefined;
const keptAnswers = (): WeakMap<Response, KeptAnswer> => (keptByResponse ??= new WeakMap());

/** `\r\n\r\n`, the end of a head. */
const HEAD_END = latin1Encode('\r\n\r\n');
/** The CRLF before a CSeq line and the line up to its value. */
const CSEQ_PREFIX = latin1Encode(`\r\n${HEADER.cseq}: `);

/**
 * Keeps `bytes`, the answer to `head` just written afresh for the reusable `response`, with
 * `date` its Date header. An RTSP answer is kept only when the request had a CSeq (so where the
 * line goes is known) and the response did not set one itself.
 */
export function keepAnswer(response: Response, head: RequestHead, close: boolean, date: string, bytes: Uint8Array): void {
  if (head.protocol === 'HTTP') {
    keptAnswers().set(response, { date, version: head.version, close, bytes, cseqAt: -1, lastCSeq: undefined, lastBytes: undefined });
    return;
  }
  const cseq = head.headers.get(HEADER.cseq);
  if (cseq === undefined || hasCSeq(response)) return;
  // The line with the CRLFs around it, so no other field can match; what is cut is the CRLF
  // before the line and the line, and that goes back at `at`.
  const lineLength = CSEQ_PREFIX.length + cseq.length;
  const at = indexOf(bytes, latin1Encode(`\r\n${HEADER.cseq}: ${cseq}\r\n`));
  if (at < 0 || at > indexOf(bytes, HEAD_END)) return;
  const kept = new Uint8Array(bytes.length - lineLength);
  kept.set(bytes.subarray(0, at));
  kept.set(bytes.subarray(at + lineLength), at);
  // The answer as written is the one for this CSeq.
  keptAnswers().set(response, { date, version: head.version, close, bytes: kept, cseqAt: at, lastCSeq: cseq, lastBytes: bytes });
}

/**
 * The bytes of `response`'s answer to `head` from what was kept, or undefined when nothing
 * kept fits: another HTTP version, keep-alive or Date (a new second) than the kept answer's.
 */
export function keptAnswer(response: Response, head: RequestHead, close: boolean, date: string): Uint8Array | undefined {
  const kept = keptByResponse?.get(response);
  if (!kept || kept.version !== head.version || kept.close !== close || kept.date !== date) return undefined;
  if ((kept.cseqAt < 0) !== (head.protocol === 'HTTP')) return undefined;
  if (kept.cseqAt < 0) return kept.bytes;
  const cseq = head.headers.get(HEADER.cseq);
  if (cseq === undefined) return kept.bytes;
  if (cseq === kept.lastCSeq) return kept.lastBytes;
  const bytes = withCSeq(kept.bytes, kept.cseqAt, cseq);
  if (bytes === undefined) return undefined;
  kept.lastCSeq = cseq;
  kept.lastBytes = bytes;
  return bytes;
}

/**
 * `kept` with the CSeq line of `cseq` put back at `at`: one array, filled in place (no views, no
 * encoded line: this runs once per request). Undefined for a value that is not Latin-1, which a
 * parsed head never has (the answer is then written afresh, as before).
 */
function withCSeq(kept: Uint8Array, at: number, cseq: string): Uint8Array | undefined {
  const lineLength = CSEQ_PREFIX.length + cseq.length;
  const bytes = new Uint8Array(kept.length + lineLength);
  bytes.set(kept);
  bytes.copyWithin(at + lineLength, at, kept.length);
  bytes.set(CSEQ_PREFIX, at);
  try {
    latin1EncodeInto(cseq, bytes, at + CSEQ_PREFIX.length);
  } catch (error) {
    if (error instanceof BytesError) return undefined;
    throw error;
  }
  return bytes;
}

function hasCSeq(response: Response): boolean {
  return response.headers !== undefined && new Headers(response.headers).has(HEADER.cseq);
}
