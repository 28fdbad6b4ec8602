// Text of a request head (method, target, header names and values) from its bytes, decoded as
// Latin-1. A sender repeats the same pieces request after request (`GET`, `/server-info`,
// `Host`, `127.0.0.1`), so each piece is kept in a small table found by a hash of its bytes and
// handed out again when the bytes match: a steady stream of requests decodes and allocates no
// strings for them (per-request cost on the keep-alive path).
//
// The table is direct-mapped: a piece whose slot holds another piece replaces it. A match is
// checked byte for byte, so what comes out is always exactly the bytes' text; the table only
// saves work. Shared by every connection (the text of equal bytes is the same string); it holds
// at most SLOTS pieces of at most MAX_KEPT_LENGTH characters.

import { latin1Decode } from '../bytes';

/** Number of slots: a power of two (the hash is masked). */
const SLOTS = 128;
/** Longer pieces (long targets, long values) are decoded each time and not kept. */
const MAX_KEPT_LENGTH = 48;

const kept: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

/** The Latin-1 text of bytes [from, to). */
export function headText(bytes: Uint8Array, from: number, to: number): string {
  const length = to - from;
  if (length === 0) return '';
  if (length > MAX_KEPT_LENGTH) return latin1Decode(bytes.subarray(from, to));
  let hash = length;
  for (let i = from; i < to; i++) hash = (Math.imul(hash, 31) + bytes[i]) | 0;
  const slot = (hash ^ (hash >>> 7) ^ (hash >>> 14)) & (SLOTS - 1);
  const text = kept[slot];
  if (text !== undefined && text.length === length && sameText(text, bytes, from)) return text;
  const decoded = latin1Decode(bytes.subarray(from, to));
  kept[slot] = decoded;
  return decoded;
}

function sameText(text: string, bytes: Uint8Array, from: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[from + i]) return false;
  return true;
}
