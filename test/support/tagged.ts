// A canonical, JSON-able form of property-list values, for exact comparison across languages.
// Integers and reals stay distinct, dictionaries are sorted by key, data is hex, dates are ms.

import { toHex } from '../../src/bytes';
import { PlistReal, PlistUid, type PlistValue } from '../../src/plist/value';

export type Tagged =
  | { t: 'str'; v: string }
  | { t: 'int'; v: string }
  | { t: 'real'; v: number | 'nan' | 'inf' | '-inf' }
  | { t: 'bool'; v: boolean }
  | { t: 'date'; v: number }
  | { t: 'data'; v: string }
  | { t: 'uid'; v: number }
  | { t: 'array'; v: Tagged[] }
  | { t: 'dict'; v: [string, Tagged][] };

function taggedReal(value: number): Tagged {
  if (Number.isNaN(value)) return { t: 'real', v: 'nan' };
  if (value === Infinity) return { t: 'real', v: 'inf' };
  if (value === -Infinity) return { t: 'real', v: '-inf' };
  return { t: 'real', v: value };
}

/**
 * The tagged form of a value as our codecs treat it: a safe-integer number is an integer, any
 * other number a real, a PlistReal always a real, a bigint an integer.
 */
export function toTagged(value: PlistValue): Tagged {
  if (typeof value === 'string') return { t: 'str', v: value };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'bigint') return { t: 'int', v: value.toString() };
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? { t: 'int', v: String(value) } : taggedReal(value);
  }
  if (value instanceof PlistReal) return taggedReal(value.value);
  if (value instanceof PlistUid) return { t: 'uid', v: value.value };
  if (value instanceof Date) return { t: 'date', v: value.getTime() };
  if (value instanceof Uint8Array) return { t: 'data', v: toHex(value) };
  if (Array.isArray(value)) return { t: 'array', v: value.map(toTagged) };
  const entries = Object.keys(value).map((key): [string, Tagged] => [key, toTagged(value[key])]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { t: 'dict', v: entries };
}
