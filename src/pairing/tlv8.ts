// TLV8 reader and writer: the type-length-value encoding of pairing messages (HAP 14.1), with
// long values split into 255-byte fragments and Separator items between repeated values.
//
// Decoding rules (what this module accepts, so every caller reads a message the same way):
// - Adjacent items of the same type are fragments of one value and are joined, whatever their
//   lengths (HAP says the fragments before the last are 255 bytes; senders that cut elsewhere
//   still mean one value).
// - A Separator (type 255) ends a group; its value is ignored.
// - `decodeTlv8` (a message: one value per type) keeps the FIRST value of a type when the type
//   comes again after a separator (a list: callers that want all use `decodeTlv8List` or
//   `decodeTlv8Groups`), and throws when a type comes again in the same group without a
//   separator, because such a message is ambiguous.
// - A truncated header or value throws a PairingError naming the offset.
// Unfragmented values are views into the input (no copy); joined fragments are new arrays.

import { PairingError } from './errors';
import { TLV } from './tlv-types';

/** Longest value one item carries; longer values are split into fragments. */
const FRAGMENT_BYTES = 255;

export type Tlv8Item = readonly [type: number, value: Uint8Array];

/**
 * Encodes items in order. A value over 255 bytes becomes consecutive fragments of its type; an
 * empty value is one item of length 0; two consecutive items of the same type are separate
 * values, so a Separator item is written between them.
 */
export function encodeTlv8(items: Iterable<readonly [type: number, value: Uint8Array]>): Uint8Array {
  const list = Array.isArray(items) ? (items as readonly Tlv8Item[]) : Array.from(items);
  let length = 0;
  let previous = -1;
  for (let i = 0; i < list.length; i++) {
    const [type, value] = list[i];
    checkType(type);
    if (type === previous && type !== TLV.Separator) length += 2;
    length += encodedLength(value.length);
    previous = type;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  previous = -1;
  for (let i = 0; i < list.length; i++) {
    const [type, value] = list[i];
    if (type === previous && type !== TLV.Separator) {
      out[offset] = TLV.Separator;
      out[offset + 1] = 0;
      offset += 2;
    }
    let start = 0;
    do {
      const size = Math.min(FRAGMENT_BYTES, value.length - start);
      out[offset] = type;
      out[offset + 1] = size;
      out.set(value.subarray(start, start + size), offset + 2);
      offset += 2 + size;
      start += size;
    } while (start < value.length);
    previous = type;
  }
  return out;
}

function encodedLength(valueLength: number): number {
  if (valueLength === 0) return 2;
  return valueLength + 2 * Math.ceil(valueLength / FRAGMENT_BYTES);
}

function checkType(type: number): void {
  if (!Number.isInteger(type) || type < 0 || type > 255) throw new PairingError(`TLV8: item type ${type} is not 0 to 255`);
}

/**
 * Calls `visit` for each item (fragments joined, separators included) with the offset of its
 * first header. Iterative, no allocation for unfragmented values.
 */
function scanTlv8(bytes: Uint8Array, visit: (type: number, value: Uint8Array, offset: number) => void): void {
  let offset = 0;
  while (offset < bytes.length) {
    const start = offset;
    const type = bytes[offset];
    offset = checkedEnd(bytes, offset);
    let value = bytes.subarray(start + 2, offset);
    if (offset < bytes.length && bytes[offset] === type) {
      // Fragments: measure the run first so the joined value is allocated once.
      let end = offset;
      let total = value.length;
      while (end < bytes.length && bytes[end] === type) {
        const next = checkedEnd(bytes, end);
        total += next - end - 2;
        end = next;
      }
      const joined = new Uint8Array(total);
      let position = 0;
      for (let item = start; item < end; item += 2 + bytes[item + 1]) {
        joined.set(bytes.subarray(item + 2, item + 2 + bytes[item + 1]), position);
        position += bytes[item + 1];
      }
      value = joined;
      offset = end;
    }
    visit(type, value, start);
  }
}

/** End offset of the item whose header is at `offset`; throws when header or value is cut off. */
function checkedEnd(bytes: Uint8Array, offset: number): number {
  if (offset + 2 > bytes.length) {
    throw new PairingError(`TLV8: truncated item header at offset ${offset} (1 of 2 bytes present)`);
  }
  const end = offset + 2 + bytes[offset + 1];
  if (end > bytes.length) {
    throw new PairingError(
      `TLV8: item of type ${bytes[offset]} at offset ${offset} declares ${bytes[offset + 1]} bytes but ${bytes.length - offset - 2} remain`,
    );
  }
  return end;
}

/**
 * Decodes a pairing message: one value per type (fragments joined). A type repeated after a
 * separator keeps its first value; a type repeated within one group is a PairingError.
 */
export function decodeTlv8(bytes: Uint8Array): Map<number, Uint8Array> {
  const values = new Map<number, Uint8Array>();
  const groupOf = new Map<number, number>();
  let group = 0;
  scanTlv8(bytes, (type, value, offset) => {
    if (type === TLV.Separator) {
      group++;
      return;
    }
    const seenIn = groupOf.get(type);
    if (seenIn === group) throw new PairingError(`TLV8: type ${type} at offset ${offset} repeats without a separator`);
    groupOf.set(type, group);
    if (seenIn === undefined) values.set(type, value);
  });
  return values;
}

/** Decodes every item in order (fragments joined, separators dropped), repeats included. */
export function decodeTlv8List(bytes: Uint8Array): [number, Uint8Array][] {
  const items: [number, Uint8Array][] = [];
  scanTlv8(bytes, (type, value) => {
    if (type !== TLV.Separator) items.push([type, value]);
  });
  return items;
}

/**
 * Decodes a list message (such as a List Pairings reply) into its separator-delimited groups,
 * one map per group; a type repeated within a group is a PairingError. Empty groups are dropped.
 */
export function decodeTlv8Groups(bytes: Uint8Array): Map<number, Uint8Array>[] {
  const groups: Map<number, Uint8Array>[] = [];
  let current = new Map<number, Uint8Array>();
  scanTlv8(bytes, (type, value, offset) => {
    if (type === TLV.Separator) {
      if (current.size > 0) groups.push(current);
      current = new Map();
      return;
    }
    if (current.has(type)) throw new PairingError(`TLV8: type ${type} at offset ${offset} repeats without a separator`);
    current.set(type, value);
  });
  if (current.size > 0) groups.push(current);
  return groups;
}

/** The value of `type` in a decoded message; a PairingError (with `tlvError`, if given) when absent. */
export function requireTlv(values: Map<number, Uint8Array>, type: number, tlvError?: number): Uint8Array {
  const value = values.get(type);
  if (value === undefined) throw new PairingError(`TLV8: required item of type ${type} is missing`, tlvError);
  return value;
}

/** An unsigned integer item value: little-endian in the fewest bytes (at least one), HAP 14.1. */
export function encodeTlvUint(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new PairingError(`TLV8: integer ${value} is not 0 to 2^32-1`);
  const size = value > 0xffffff ? 4 : value > 0xffff ? 3 : value > 0xff ? 2 : 1;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (value >>> (8 * i)) & 0xff;
  return out;
}

/** Reads an unsigned little-endian integer item value of 1 to 4 bytes. */
export function decodeTlvUint(value: Uint8Array): number {
  if (value.length < 1 || value.length > 4) throw new PairingError(`TLV8: integer value of ${value.length} bytes (1 to 4 expected)`);
  let n = 0;
  for (let i = value.length - 1; i >= 0; i--) n = n * 256 + value[i];
  return n;
}
