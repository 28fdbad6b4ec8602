// Seeded random generators for property tests: a small PRNG and random property-list values.
// Portable (runs in the XS suite too): ECMAScript only.

import { PlistReal, PlistUid, type PlistDict, type PlistValue } from '../../src/plist/value';

/** A deterministic PRNG (mulberry32). Same seed, same sequence, on every engine. */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  bytes(length: number): Uint8Array;
}

export function makeRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    bytes: (length) => {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}

export interface ArbitraryOptions {
  /** Deepest nesting of containers. */
  maxDepth?: number;
  /** Most entries in one array or dictionary. */
  maxEntries?: number;
  /** Include PlistUid values (binary plists only: XML cannot hold them). */
  uid?: boolean;
}

// Characters chosen to exercise the codecs: XML specials, non-ASCII BMP, astral (surrogate pairs).
const STRING_PIECES = [
  'a', 'Z', '0', ' ', '.', '<', '>', '&', '"', "'", ']]>', '\t', '\n', 'é', 'ß', 'Ж', '中', '€',
  '\u00a0', '😀', '𝄞', 'key', 'settings', 'slideDuration', '__proto__', 'toString',
];

export function randomString(rng: Rng, maxPieces = 8): string {
  let out = '';
  const pieces = rng.int(0, maxPieces);
  for (let i = 0; i < pieces; i++) out += rng.pick(STRING_PIECES);
  return out;
}

function randomInteger(rng: Rng): number | bigint {
  switch (rng.int(0, 5)) {
    case 0:
      return rng.int(-2, 300);
    case 1:
      return rng.int(-70000, 70000);
    case 2:
      return rng.int(-(2 ** 31), 2 ** 32);
    case 3:
      // Safe integers up to 2^53.
      return (rng.next() < 0.5 ? -1 : 1) * Math.floor(rng.next() * Number.MAX_SAFE_INTEGER);
    case 4:
      // Beyond 2^53 and up to the signed 64-bit limits: bigint.
      return rng.next() < 0.5 ? -(2n ** 62n) - BigInt(rng.int(0, 1000)) : 2n ** 60n + BigInt(rng.int(0, 1 << 30));
    default:
      // Unsigned 64-bit values above 2^63 (binary plists keep them in 16 bytes).
      return 2n ** 63n + BigInt(rng.int(0, 1 << 30));
  }
}

function randomReal(rng: Rng): PlistReal | number {
  switch (rng.int(0, 4)) {
    case 0:
      return new PlistReal(rng.int(-5, 5)); // integral reals keep their type
    case 1:
      return rng.int(-1000000, 1000000) / 64; // exact binary fractions
    case 2:
      return new PlistReal(rng.pick([0.1, 1 / 3, -2.5e-300, 1.7976931348623157e308, 5e-324, 0]));
    case 3:
      return (rng.next() - 0.5) * 10 ** rng.int(-20, 20);
    default:
      return new PlistReal(rng.pick([Infinity, -Infinity]));
  }
}

function randomDate(rng: Rng): Date {
  // Whole seconds between 1970 and 2100: XML dates have second precision.
  return new Date(rng.int(0, 4102444800) * 1000);
}

/** A random property-list value. Integers beyond 2^53 are bigint; reals may be PlistReal. */
export function randomPlistValue(rng: Rng, options: ArbitraryOptions = {}, depth = 0): PlistValue {
  const maxDepth = options.maxDepth ?? 4;
  const maxEntries = options.maxEntries ?? 6;
  const kinds = depth >= maxDepth ? 7 : 9;
  switch (rng.int(0, kinds)) {
    case 0:
      return randomString(rng);
    case 1:
      return randomInteger(rng);
    case 2:
      return randomReal(rng);
    case 3:
      return rng.next() < 0.5;
    case 4:
      return randomDate(rng);
    case 5:
      return rng.bytes(rng.int(0, 40));
    case 6:
      return options.uid ? new PlistUid(rng.int(0, 70000)) : randomString(rng, 2);
    case 7:
      return rng.next() < 0.3 ? randomString(rng, 2) : randomInteger(rng);
    case 8: {
      const array: PlistValue[] = [];
      const count = rng.int(0, maxEntries);
      for (let i = 0; i < count; i++) array.push(randomPlistValue(rng, options, depth + 1));
      return array;
    }
    default: {
      const dict: PlistDict = {};
      const count = rng.int(0, maxEntries);
      for (let i = 0; i < count; i++) {
        const key = randomString(rng, 3);
        const value = randomPlistValue(rng, options, depth + 1);
        if (key === '__proto__') Object.defineProperty(dict, key, { value, enumerable: true, writable: true, configurable: true });
        else dict[key] = value;
      }
      return dict;
    }
  }
}

/**
 * A NAL unit of `bytes` bytes: `header`, then filler from an LCG started at `seed`
 * (x = x * 1103515245 + 12345 mod 2^32, each byte x >>> 24). The NAL vectors' "large" units
 * (test/vectors/nal-annexb.json) are described this way; the mirroring benches use it too.
 */
export function fillerUnit(header: number, bytes: number, seed: number): Uint8Array {
  const out = new Uint8Array(bytes);
  out[0] = header;
  let x = seed;
  for (let i = 1; i < bytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
