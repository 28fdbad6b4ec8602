// Helpers shared by the plist suites: seeded batches of random values, values rearranged into
// the key order plistlib receives them in, and a binary document's trailer. Portable.

import { PlistReal, PlistUid, type PlistDict, type PlistValue } from '../../src/plist/value';
import { makeRng, randomPlistValue, type ArbitraryOptions } from './arbitrary';

/** One seeded batch of random values (an oracle suite sends each batch in one python3 run). */
export function randomBatch(seed: number, count: number, options: ArbitraryOptions): PlistValue[] {
  const rng = makeRng(seed);
  const values: PlistValue[] = [];
  for (let i = 0; i < count; i++) values.push(randomPlistValue(rng, options));
  return values;
}

/** A key JS objects enumerate first whatever the insertion order (an array index). */
function isIndexKey(key: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/**
 * The value with every dict's keys inserted in toTagged's order, which is the order the bridge
 * hands them to plistlib (dumps with sort_keys=False); undefined when a dict has an index-like
 * key, which a JS object would move to the front.
 */
export function sortedCopy(value: PlistValue): PlistValue | undefined {
  if (Array.isArray(value)) {
    const out: PlistValue[] = [];
    for (const member of value) {
      const copy = sortedCopy(member);
      if (copy === undefined) return undefined;
      out.push(copy);
    }
    return out;
  }
  if (typeof value !== 'object' || value instanceof Uint8Array || value instanceof Date || value instanceof PlistReal || value instanceof PlistUid) {
    return value;
  }
  const out: PlistDict = {};
  for (const key of Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (isIndexKey(key)) return undefined;
    const copy = sortedCopy(value[key]);
    if (copy === undefined) return undefined;
    Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export interface BplistTrailer {
  offsetSize: number;
  refSize: number;
  numObjects: number;
  top: number;
  tableOffset: number;
}

/** The 32-byte trailer fields of a binary plist document. */
export function bplistTrailer(doc: Uint8Array): BplistTrailer {
  const t = doc.length - 32;
  const u64 = (p: number) => {
    let n = 0;
    for (let i = 0; i < 8; i++) n = n * 256 + doc[p + i];
    return n;
  };
  return { offsetSize: doc[t + 6], refSize: doc[t + 7], numObjects: u64(t + 8), top: u64(t + 16), tableOffset: u64(t + 24) };
}
