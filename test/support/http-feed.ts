// Feeds the HTTP/RTSP message parser in chosen pieces and records its events comparably.
// Portable (runs in the XS suite too): ECMAScript only.

import { concat, latin1Encode } from '../../src/bytes';
import { MessageParser } from '../../src/http/parser';
import type { HttpLimits } from '../../src/http/limits';
import type { MessageKind, RequestHead, ResponseHead } from '../../src/http/message';
import { makeRng } from './arbitrary';

/** Latin-1 bytes of a message written as text (`\r\n` spelled out in the test). */
export const wire = (text: string): Uint8Array => latin1Encode(text);

/** A head as plain data, for deepEqual. */
export type PlainHead = Record<string, unknown> & { headers: [string, string][] };

/** Parser events as plain data; consecutive body events are joined into one. */
export type Recorded =
  | { type: 'head'; head: PlainHead }
  | { type: 'body'; data: Uint8Array }
  | { type: 'end' }
  | { type: 'error'; status: number; fatal: boolean; reason: string };

export function plainHead(head: RequestHead | ResponseHead): PlainHead {
  const { headers, ...rest } = head;
  return { ...rest, headers: [...headers.entries()] };
}

export interface FeedOptions {
  limits?: Partial<HttpLimits>;
  /** Call receiveEnd() after the last piece. */
  eof?: boolean;
  /** Methods of the requests the responses answer (response parsers). */
  expect?: string[];
  /** Called after each head event (to set a body limit, say). */
  onHead?: (parser: MessageParser, head: RequestHead | ResponseHead) => void;
  /** Stop calling next() after this many `end` events (the rest is for takeRemaining). */
  stopAfterEnds?: number;
  /** Leave error reasons out of the record (to compare only statuses). */
  noReasons?: boolean;
}

export interface FeedResult {
  events: Recorded[];
  parser: MessageParser;
}

/** Splits `bytes` into pieces: 'whole', 'bytes' (one at a time), or seeded random lengths. */
export function split(bytes: Uint8Array, how: 'whole' | 'bytes' | number): Uint8Array[] {
  if (how === 'whole') return [bytes];
  if (how === 'bytes') return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
  const rng = makeRng(how);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const length = rng.int(1, Math.max(1, Math.min(64, bytes.length - i)));
    // Fresh arrays, as a socket delivers them; the parser may keep views of them.
    pieces.push(bytes.slice(i, i + length));
    i += length;
  }
  return pieces;
}

export function feed(kind: MessageKind, pieces: Uint8Array[], options: FeedOptions = {}): FeedResult {
  const parser = new MessageParser(kind, options.limits);
  for (const method of options.expect ?? []) parser.expectResponseTo(method);
  const events: Recorded[] = [];
  const bodies: Uint8Array[] = [];
  let ends = 0;
  let stopped = false;
  const flushBody = () => {
    if (bodies.length > 0) events.push({ type: 'body', data: concat(...bodies) });
    bodies.length = 0;
  };
  const drain = () => {
    for (let guard = 0; !stopped; guard++) {
      if (guard > 1_000_000) throw new Error('parser produced more than a million events from one piece');
      const event = parser.next();
      if (event === null) return;
      if (event.type === 'body') {
        // Kept as views: joined only at the end, which proves later receive() calls left
        // earlier body views intact.
        bodies.push(event.data);
        continue;
      }
      flushBody();
      if (event.type === 'head') {
        events.push({ type: 'head', head: plainHead(event.head) });
        options.onHead?.(parser, event.head);
      } else if (event.type === 'end') {
        events.push({ type: 'end' });
        ends++;
        if (options.stopAfterEnds !== undefined && ends >= options.stopAfterEnds) stopped = true;
      } else {
        events.push({ type: 'error', status: event.status, fatal: event.fatal, reason: options.noReasons ? '' : event.reason });
      }
    }
  };
  for (const piece of pieces) {
    parser.receive(piece);
    drain();
  }
  if (options.eof) {
    parser.receiveEnd();
    drain();
  }
  flushBody();
  return { events, parser };
}

/** The split strategies every message is tried with: whole, byte by byte, and seeded splits. */
export const SPLITS: readonly ('whole' | 'bytes' | number)[] = ['whole', 'bytes', 1, 2, 3, 42, 1234];
