// Mutations of valid inputs: bit flips, byte changes, truncation, deletion, insertion, splicing
// from another input, repeated ranges (repeated fields), interesting numbers (huge lengths) and
// format tokens. Portable: ECMAScript only.

import { latin1Encode } from '../../src/bytes';
import type { Rng } from '../support/arbitrary';

const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, 0x0d, 0x0a, 0x20, 0x09, 0x3a, 0x3b, 0x3c, 0x3e, 0x2f, 0x26, 0x22, 0x30, 0x39, 0x61];
/** Numbers at the edges of every width a parser might store a length in. */
export const INTERESTING_NUMBERS = [
  '0', '-1', '1', '00', '-0', '+1', '0x10', '1e3', '127', '128', '255', '256', '1023', '1024', '1025', '65535', '65536',
  '2147483647', '2147483648', '4294967295', '4294967296', '9007199254740991', '9007199254740993', '18446744073709551616',
  '99999999999999999999999999999999', 'NaN', 'Infinity', ' 1', '1 ', '1,2',
];

export interface MutateOptions {
  /** Other inputs of the same format, for splicing. */
  corpus?: readonly Uint8Array[];
  /** Byte strings that mean something in the format (`\r\n`, `<dict>`, `Content-Length: `). */
  tokens?: readonly Uint8Array[];
  /** Most mutations applied (1 to this many). */
  maxEdits?: number;
}

const INTERESTING_NUMBER_BYTES = INTERESTING_NUMBERS.map((text) => latin1Encode(text));

function splice(bytes: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  remove = Math.min(remove, bytes.length - at);
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at), 0);
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

/** Replaces a run of ASCII digits (a length, a count, an offset) with an interesting number. */
function replaceNumber(rng: Rng, bytes: Uint8Array): Uint8Array {
  const starts: number[] = [];
  for (let i = 0; i < bytes.length && starts.length < 64; i++) {
    const digit = bytes[i] >= 0x30 && bytes[i] <= 0x39;
    const before = i > 0 && bytes[i - 1] >= 0x30 && bytes[i - 1] <= 0x39;
    if (digit && !before) starts.push(i);
  }
  if (starts.length === 0) return bytes;
  const at = rng.pick(starts);
  let end = at;
  while (end < bytes.length && bytes[end] >= 0x30 && bytes[end] <= 0x39) end++;
  return splice(bytes, at, end - at, rng.pick(INTERESTING_NUMBER_BYTES));
}

/** One mutation of `bytes` (a new array; `bytes` is not changed). */
export function mutateOnce(rng: Rng, bytes: Uint8Array, options: MutateOptions = {}): Uint8Array {
  const length = bytes.length;
  const at = (): number => rng.int(0, length);
  const inside = (): number => rng.int(0, Math.max(0, length - 1));
  switch (rng.int(0, 11)) {
    case 0: {
      if (length === 0) return rng.bytes(rng.int(1, 8));
      const out = bytes.slice();
      out[inside()] ^= 1 << rng.int(0, 7);
      return out;
    }
    case 1: {
      if (length === 0) return Uint8Array.of(rng.pick(INTERESTING_BYTES));
      const out = bytes.slice();
      out[inside()] = rng.next() < 0.5 ? rng.pick(INTERESTING_BYTES) : rng.int(0, 255);
      return out;
    }
    case 2:
      return bytes.slice(0, at()); // truncation
    case 3: {
      const from = at();
      return splice(bytes, from, rng.int(0, Math.min(length - from, 32)), new Uint8Array(0));
    }
    case 4:
      return splice(bytes, at(), 0, rng.bytes(rng.int(1, 16)));
    case 5: {
      // A repeated range: repeated fields, repeated frames, repeated items.
      const from = at();
      const range = bytes.subarray(from, from + rng.int(1, 64));
      const times = rng.next() < 0.1 ? rng.int(16, 400) : rng.int(1, 4);
      const copies = new Uint8Array(range.length * times);
      for (let i = 0; i < times; i++) copies.set(range, i * range.length);
      return splice(bytes, from, 0, copies);
    }
    case 6: {
      const corpus = options.corpus;
      if (!corpus || corpus.length === 0) return bytes.slice(0, at());
      const other = rng.pick(corpus);
      const from = rng.int(0, other.length);
      return splice(bytes, at(), rng.int(0, 16), other.subarray(from, from + rng.int(0, 128)));
    }
    case 7:
      return replaceNumber(rng, bytes);
    case 8: {
      const tokens = options.tokens;
      if (!tokens || tokens.length === 0) return splice(bytes, at(), 0, Uint8Array.of(rng.pick(INTERESTING_BYTES)));
      return splice(bytes, at(), rng.next() < 0.3 ? rng.int(0, 8) : 0, rng.pick(tokens));
    }
    case 9: {
      // Swap two ranges (reordered fields or frames).
      if (length < 4) return bytes.slice();
      const size = rng.int(1, Math.min(64, length >> 1));
      const a = rng.int(0, length - 2 * size);
      const b = rng.int(a + size, length - size);
      const out = bytes.slice();
      out.set(bytes.subarray(b, b + size), a);
      out.set(bytes.subarray(a, a + size), b);
      return out;
    }
    case 10: {
      // A 16- or 32-bit field set to an edge value (binary lengths and offsets).
      if (length < 4) return bytes.slice();
      const out = bytes.slice();
      const p = rng.int(0, length - 4);
      const value = rng.pick([0, 0xff, 0x7f, 0x80]);
      const width = rng.pick([2, 4]);
      for (let i = 0; i < width; i++) out[p + i] = i === 0 || value === 0 || value === 0xff ? value : 0xff;
      return out;
    }
    default: {
      // The same byte many times (runs of spaces, of `[`, of zeros).
      const byte = length > 0 && rng.next() < 0.5 ? bytes[inside()] : rng.pick(INTERESTING_BYTES);
      return splice(bytes, at(), 0, new Uint8Array(rng.int(2, 300)).fill(byte));
    }
  }
}

/** 1 to maxEdits mutations of `bytes`. */
export function mutate(rng: Rng, bytes: Uint8Array, options: MutateOptions = {}): Uint8Array {
  let out = bytes;
  const edits = rng.int(1, options.maxEdits ?? 4);
  for (let i = 0; i < edits; i++) out = mutateOnce(rng, out, options);
  return out;
}

/** `bytes` cut into pieces of random sizes (mostly small, sometimes one byte each, sometimes whole). */
export function randomSplit(rng: Rng, bytes: Uint8Array): Uint8Array[] {
  let style = rng.int(0, 3);
  // Byte by byte, or in tiny pieces, only where it stays cheap.
  if (style === 1 && bytes.length > 1024) style = 2;
  if (style === 2 && bytes.length > 16 * 1024) style = 3;
  if (style === 0 || bytes.length === 0) return [bytes];
  const pieces: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = style === 1 ? 1 : style === 2 ? rng.int(1, 16) : rng.int(1, 2048);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

export const tokens = (...texts: string[]): Uint8Array[] => texts.map((text) => latin1Encode(text));
