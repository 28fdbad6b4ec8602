// DNS TXT record data (RFC 6763 section 6): key/value entries to and from length-prefixed bytes.

import { utf8Decode, utf8Encode } from '../bytes';
import { DiscoveryError } from './error';

/**
 * One TXT attribute in record order. A string value is written `key=value` (an empty string
 * gives `key=`); a null value is a boolean attribute written as the bare key (RFC 6763 6.4).
 */
export type TxtEntry = readonly [key: string, value: string | null];

/** A TXT record: its entries in the order they are written. */
export type TxtRecord = readonly TxtEntry[];

/** Anything a TXT value can be looked up in: a list of entries, a Map, or a plain object. */
export type TxtSource = Iterable<TxtEntry> | Readonly<Record<string, string | null>>;

/** RFC 6763 6.1: each string is prefixed by one length byte. */
export const TXT_STRING_MAX = 255;

/**
 * The TXT RDATA of `entries` (RFC 6763 6): each entry as one length-prefixed UTF-8 string.
 * An empty record is a single zero byte (RFC 6763 6.1). Throws a DiscoveryError for a string
 * longer than 255 bytes, an empty key, a key holding `=` or a character outside printable
 * US-ASCII (RFC 6763 6.4), and a key given twice (case-insensitively: RFC 6763 6.4 has
 * readers ignore all but the first, so a repeated key would be a silent loss).
 */
export function txtBytes(entries: TxtRecord): Uint8Array {
  if (entries.length === 0) return new Uint8Array([0]);
  const strings: Uint8Array[] = [];
  const seen = new Set<string>();
  let length = 0;
  for (const [key, value] of entries) {
    checkKey(key);
    const folded = key.toLowerCase();
    if (seen.has(folded)) throw new DiscoveryError(`txt: key ${JSON.stringify(key)} occurs twice`);
    seen.add(folded);
    const bytes = utf8Encode(value === null ? key : `${key}=${value}`);
    if (bytes.length > TXT_STRING_MAX) {
      throw new DiscoveryError(`txt: ${key} is ${bytes.length} bytes; a TXT string holds at most ${TXT_STRING_MAX}`);
    }
    strings.push(bytes);
    length += 1 + bytes.length;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const bytes of strings) {
    out[offset++] = bytes.length;
    out.set(bytes, offset);
    offset += bytes.length;
  }
  return out;
}

function checkKey(key: string): void {
  if (key.length === 0) throw new DiscoveryError('txt: empty key');
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x3d) {
      throw new DiscoveryError(`txt: key ${JSON.stringify(key)} has a character RFC 6763 6.4 forbids at index ${i}`);
    }
  }
}

/**
 * Reads TXT RDATA into entries in record order, following RFC 6763 6.4: a zero-length string
 * (the empty record's single zero byte) is skipped, a string starting with `=` (no key) is
 * ignored, only the first occurrence of a key counts (keys compare case-insensitively), and a
 * string without `=` is a boolean attribute (value null). Keys keep their case. Values are
 * decoded as UTF-8, a malformed sequence becoming U+FFFD: the values of these records are
 * text, and one odd byte should not hide the rest. A length byte running past the end throws.
 */
export function parseTxtBytes(bytes: Uint8Array): TxtEntry[] {
  const entries: TxtEntry[] = [];
  const seen = new Set<string>();
  let offset = 0;
  while (offset < bytes.length) {
    const length = bytes[offset];
    const start = offset + 1;
    const end = start + length;
    if (end > bytes.length) {
      throw new DiscoveryError(
        `txt: string at offset ${offset} claims ${length} bytes but only ${bytes.length - start} remain`,
      );
    }
    offset = end;
    if (length === 0) continue;
    let equals = start;
    while (equals < end && bytes[equals] !== 0x3d) equals++;
    if (equals === start) continue; // RFC 6763 6.4: no key; silently ignored
    const key = utf8Decode(bytes.subarray(start, equals), false);
    const folded = key.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    entries.push([key, equals === end ? null : utf8Decode(bytes.subarray(equals + 1, end), false)]);
  }
  return entries;
}

/**
 * The value of `key` (case-insensitive, first occurrence): a string, null for a boolean
 * attribute without `=`, or undefined when the key is absent.
 */
export function txtGet(record: TxtSource, key: string): string | null | undefined {
  const folded = key.toLowerCase();
  if (isIterable(record)) {
    for (const [name, value] of record) if (name.toLowerCase() === folded) return value;
    return undefined;
  }
  for (const name of Object.keys(record)) if (name.toLowerCase() === folded) return record[name];
  return undefined;
}

function isIterable(record: TxtSource): record is Iterable<TxtEntry> {
  return typeof (record as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}
