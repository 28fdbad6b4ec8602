// Binary property list codec (Apple "bplist00"): decoding of untrusted network bodies and encoding of replies.
//
// Layout (CoreFoundation CFBinaryPList.c, also Python's plistlib): the 8-byte magic "bplist00",
// then the objects, then the offset table (one big-endian offset per object, offsetIntSize bytes
// each), then a 32-byte trailer: 5 unused bytes, sortVersion, offsetIntSize, objectRefSize,
// numObjects (u64), topObject (u64), offsetTableOffset (u64), all big-endian. Containers refer to
// their members by object index, objectRefSize bytes per reference.
//
// Object markers (high nibble type, low nibble size or count; count 0xF means an int object
// with the real count follows):
//   0x00 null  0x08 false  0x09 true  0x0F fill
//   0x1n int of 2^n bytes (n = 0..3; n = 4 is the 16-byte form plistlib uses for 2^63..2^64-1)
//   0x2n real of 2^n bytes (4 or 8)   0x33 date (float64 seconds since 2001-01-01T00:00:00Z)
//   0x4n data  0x5n ASCII string  0x6n UTF-16BE string (count in code units)  0x7n UTF-8 string
//   0x8n UID of n+1 bytes  0xAn array  0xCn set  0xDn dict (n key refs, then n value refs)

import { equal, utf8Decode } from '../bytes';
import {
  DEFAULT_PLIST_LIMITS,
  PlistError,
  PlistReal,
  PlistUid,
  setEntry,
  type PlistDict,
  type PlistLimits,
  type PlistValue,
} from './value';

export interface BinaryPlistDecodeOptions {
  /** Overrides of DEFAULT_PLIST_LIMITS; the input is untrusted. */
  limits?: Partial<PlistLimits>;
  /** Decode every real as PlistReal, so an integral real stays distinguishable from an integer. */
  exactReals?: boolean;
}

const MAGIC = [0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30]; // "bplist00"
const HEADER_SIZE = 8;
const TRAILER_SIZE = 32;
const TWO_32 = 4294967296;
/** Seconds from the Unix epoch to the plist epoch 2001-01-01T00:00:00Z, in milliseconds. */
const PLIST_EPOCH_MS = 978307200000;
/** Largest magnitude a JS Date may hold (ECMA-262 TimeClip). */
const MAX_DATE_MS = 8.64e15;

/** True when `bytes` starts with the binary plist magic "bplist00". */
export function isBinaryPlist(bytes: Uint8Array): boolean {
  if (bytes.length < HEADER_SIZE) return false;
  for (let i = 0; i < HEADER_SIZE; i++) if (bytes[i] !== MAGIC[i]) return false;
  return true;
}

// =============================================================================================
// Decoding

/** Marks a container whose members are being decoded, so a reference back to it is a cycle. */
const IN_PROGRESS: unknown = {};

/**
 * Decodes a binary plist. Every failure, including any malformed, truncated or hostile input,
 * is a PlistError. Objects referenced more than once decode once and are shared (as in the
 * document); a reference cycle is an error.
 */
export function decodeBinaryPlist(bytes: Uint8Array, options: BinaryPlistDecodeOptions = {}): PlistValue {
  const limits = mergeLimits(options.limits);
  try {
    if (!(bytes instanceof Uint8Array)) throw new PlistError('bplist: input is not a Uint8Array');
    const reader = new Reader(bytes, limits, options.exactReals === true);
    return reader.object(reader.topObject, 0);
  } catch (error) {
    if (error instanceof PlistError) throw error;
    // BytesError from UTF-8 decoding, or a RangeError (stack) when the caller raised maxDepth
    // beyond what the engine's stack allows: callers only ever see PlistError.
    const message = error instanceof Error ? error.message : String(error);
    throw new PlistError(`bplist: ${message}`);
  }
}

/** DEFAULT_PLIST_LIMITS with the caller's overrides; an override left undefined keeps the default. */
function mergeLimits(overrides: Partial<PlistLimits> | undefined): PlistLimits {
  const limits = { ...DEFAULT_PLIST_LIMITS };
  if (overrides) {
    if (overrides.maxBytes !== undefined) limits.maxBytes = overrides.maxBytes;
    if (overrides.maxDepth !== undefined) limits.maxDepth = overrides.maxDepth;
    if (overrides.maxObjects !== undefined) limits.maxObjects = overrides.maxObjects;
  }
  return limits;
}

class Reader {
  private readonly view: DataView;
  private readonly offsetIntSize: number;
  private readonly objectRefSize: number;
  private readonly numObjects: number;
  readonly topObject: number;
  /** Start of the offset table, which is also the end of the object area. */
  private readonly tableOffset: number;
  /** Decoded value per object index, or IN_PROGRESS; undefined before the first visit. */
  private readonly memo: unknown[];
  /**
   * Nesting height per decoded container (1 for one without containers inside). A shared
   * container reached again at a deeper place must still fit maxDepth there, or sharing could
   * build a value far deeper than the limit for whoever walks it next.
   */
  private readonly heights: number[];
  /** Height of the value the last object() call returned (0 for a scalar). */
  private height = 0;
  /** Position just after the length header read by readCount. */
  private cursor = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: PlistLimits,
    private readonly exactReals: boolean,
  ) {
    const length = bytes.length;
    if (length > limits.maxBytes) {
      throw new PlistError(`bplist: input of ${length} bytes exceeds the limit of ${limits.maxBytes} bytes`);
    }
    if (!isBinaryPlist(bytes)) throw new PlistError('bplist: missing "bplist00" magic at offset 0');
    // Smallest document: magic, one 1-byte object, a 1-byte offset table, the trailer.
    if (length < HEADER_SIZE + 2 + TRAILER_SIZE) {
      throw new PlistError(`bplist: ${length} bytes is too short for a binary plist (minimum 42)`);
    }
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const t = length - TRAILER_SIZE;
    const offsetIntSize = bytes[t + 6];
    const objectRefSize = bytes[t + 7];
    if (!isIntSize(offsetIntSize)) {
      throw new PlistError(`bplist: trailer offsetIntSize ${offsetIntSize} is not 1, 2, 4 or 8`);
    }
    if (!isIntSize(objectRefSize)) {
      throw new PlistError(`bplist: trailer objectRefSize ${objectRefSize} is not 1, 2, 4 or 8`);
    }
    const numObjects = readUint(bytes, t + 8, 8);
    const topObject = readUint(bytes, t + 16, 8);
    const tableOffset = readUint(bytes, t + 24, 8);
    if (numObjects < 1) throw new PlistError('bplist: trailer numObjects is 0');
    if (numObjects > limits.maxObjects) {
      throw new PlistError(`bplist: trailer numObjects ${numObjects} exceeds the limit of ${limits.maxObjects} objects`);
    }
    if (topObject >= numObjects) {
      throw new PlistError(`bplist: trailer topObject ${topObject} is not below numObjects ${numObjects}`);
    }
    if (tableOffset < HEADER_SIZE + 1 || tableOffset > t) {
      throw new PlistError(`bplist: trailer offsetTableOffset ${tableOffset} is outside the ${length}-byte input`);
    }
    if (numObjects * offsetIntSize > t - tableOffset) {
      throw new PlistError(
        `bplist: offset table of ${numObjects} x ${offsetIntSize} bytes at offset ${tableOffset} overruns the trailer at ${t}`,
      );
    }
    this.offsetIntSize = offsetIntSize;
    this.objectRefSize = objectRefSize;
    this.numObjects = numObjects;
    this.topObject = topObject;
    this.tableOffset = tableOffset;
    this.memo = new Array(numObjects);
    this.heights = new Array(numObjects);
  }

  /** Decodes object `index`; `depth` is the number of containers around it. */
  object(index: number, depth: number): PlistValue {
    const memo = this.memo;
    const known = memo[index];
    if (known !== undefined) {
      if (known === IN_PROGRESS) throw new PlistError(`bplist: reference cycle through object ${index}`);
      const height = this.heights[index];
      if (height === undefined) this.height = 0;
      else {
        if (depth + height > this.limits.maxDepth) throw this.tooDeep(index);
        this.height = height;
      }
      return known as PlistValue;
    }
    const bytes = this.bytes;
    const end = this.tableOffset;
    const offset = readUint(bytes, this.tableOffset + index * this.offsetIntSize, this.offsetIntSize);
    if (offset < HEADER_SIZE || offset >= end) {
      throw new PlistError(`bplist: object ${index} offset ${offset} is beyond the object table`);
    }
    const marker = bytes[offset];
    const low = marker & 0x0f;
    let value: PlistValue;
    switch (marker >> 4) {
      case 0x0:
        if (marker === 0x08) value = false;
        else if (marker === 0x09) value = true;
        else if (marker === 0x00) {
          // plistlib would return None; the value model has no null and CoreFoundation never writes it.
          throw new PlistError(`bplist: object ${index} at offset ${offset} is null (0x00), which has no plist value`);
        } else throw badMarker(index, offset, marker);
        break;
      case 0x1:
        value = this.integer(index, offset, low);
        break;
      case 0x2: {
        const start = offset + 1;
        let real: number;
        if (low === 3) {
          this.need(index, start, 8);
          real = this.view.getFloat64(start);
        } else if (low === 2) {
          this.need(index, start, 4);
          real = this.view.getFloat32(start);
        } else throw new PlistError(`bplist: object ${index} at offset ${offset} is a real of ${1 << low} bytes (only 4 or 8)`);
        value = this.exactReals ? new PlistReal(real) : real;
        break;
      }
      case 0x3: {
        if (marker !== 0x33) throw badMarker(index, offset, marker);
        this.need(index, offset + 1, 8);
        // JS dates hold whole milliseconds; plistlib's microseconds round to the nearest one.
        const ms = Math.round(this.view.getFloat64(offset + 1) * 1000) + PLIST_EPOCH_MS;
        // Written as a negated range test so that NaN is rejected too.
        if (!(ms >= -MAX_DATE_MS && ms <= MAX_DATE_MS)) {
          throw new PlistError(`bplist: object ${index} at offset ${offset} is a date outside the JavaScript Date range`);
        }
        value = new Date(ms);
        break;
      }
      case 0x4: {
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count);
        value = bytes.slice(start, start + count);
        break;
      }
      case 0x5: {
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count);
        value = asciiString(bytes, start, count, index);
        break;
      }
      case 0x6: {
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count * 2);
        value = utf16String(bytes, start, count);
        break;
      }
      case 0x7: {
        // UTF-8 strings (count in bytes) come from newer writers; accepting them costs nothing.
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count);
        value = utf8Decode(bytes.subarray(start, start + count));
        break;
      }
      case 0x8: {
        const size = low + 1;
        this.need(index, offset + 1, size);
        let uid = 0;
        for (let i = 0; i < size; i++) uid = uid * 256 + bytes[offset + 1 + i];
        if (!Number.isSafeInteger(uid)) {
          throw new PlistError(`bplist: object ${index} at offset ${offset} is a UID beyond 2^53`);
        }
        value = new PlistUid(uid);
        break;
      }
      case 0xa:
      case 0xc: {
        // A set (0xC) has the layout of an array; the value model has no set, so it reads as one.
        const count = this.readCount(index, offset, low);
        const refSize = this.objectRefSize;
        let p = this.cursor;
        this.need(index, p, count * refSize);
        if (depth >= this.limits.maxDepth) throw this.tooDeep(index);
        memo[index] = IN_PROGRESS;
        const array: PlistValue[] = new Array(count);
        let inner = 0;
        for (let i = 0; i < count; i++, p += refSize) {
          array[i] = this.object(this.ref(p, index), depth + 1);
          if (this.height > inner) inner = this.height;
        }
        this.heights[index] = inner + 1;
        memo[index] = array;
        this.height = inner + 1;
        return array;
      }
      case 0xd: {
        const count = this.readCount(index, offset, low);
        const refSize = this.objectRefSize;
        const keysStart = this.cursor;
        this.need(index, keysStart, count * 2 * refSize);
        if (depth >= this.limits.maxDepth) throw this.tooDeep(index);
        memo[index] = IN_PROGRESS;
        const dict: PlistDict = {};
        const valuesStart = keysStart + count * refSize;
        let inner = 0;
        for (let i = 0; i < count; i++) {
          const keyIndex = this.ref(keysStart + i * refSize, index);
          const key = this.object(keyIndex, depth + 1);
          if (typeof key !== 'string') {
            throw new PlistError(`bplist: dict object ${index} has key object ${keyIndex} that is not a string`);
          }
          setEntry(dict, key, this.object(this.ref(valuesStart + i * refSize, index), depth + 1));
          if (this.height > inner) inner = this.height;
        }
        this.heights[index] = inner + 1;
        memo[index] = dict;
        this.height = inner + 1;
        return dict;
      }
      default:
        throw badMarker(index, offset, marker);
    }
    memo[index] = value;
    this.height = 0;
    return value;
  }

  private integer(index: number, offset: number, low: number): number | bigint {
    const bytes = this.bytes;
    const p = offset + 1;
    switch (low) {
      case 0:
        this.need(index, p, 1);
        return bytes[p];
      case 1:
        this.need(index, p, 2);
        return (bytes[p] << 8) | bytes[p + 1];
      case 2:
        this.need(index, p, 4);
        return readUint(bytes, p, 4);
      case 3:
        this.need(index, p, 8);
        return readInt64(bytes, p);
      case 4: {
        // 128-bit signed. plistlib stores 2^63..2^64-1 here; CoreFoundation never needs more.
        this.need(index, p, 16);
        const upper = readUint(bytes, p, 4);
        if (upper === 0 && readUint(bytes, p + 4, 4) === 0) return readUint64(bytes, p + 8);
        // All-ones upper half with the sign bit set below it: a negative value that fits 64 bits.
        if (upper === 0xffffffff && readUint(bytes, p + 4, 4) === 0xffffffff && bytes[p + 8] >= 0x80) {
          return readInt64(bytes, p + 8);
        }
        throw new PlistError(`bplist: object ${index} at offset ${offset} is a 128-bit integer outside -2^63..2^64-1`);
      }
      default:
        throw new PlistError(`bplist: object ${index} at offset ${offset} is an integer of ${1 << low} bytes`);
    }
  }

  /** Reads a length nibble, or the int object that follows a 0xF nibble; sets `cursor` past it. */
  private readCount(index: number, offset: number, low: number): number {
    if (low !== 0x0f) {
      this.cursor = offset + 1;
      return low;
    }
    const p = offset + 1;
    this.need(index, p, 1);
    const marker = this.bytes[p];
    const size = 1 << (marker & 0x0f);
    if (marker >> 4 !== 0x1 || size > 8) {
      throw new PlistError(`bplist: object ${index} at offset ${offset} has a bad length marker 0x${hex2(marker)}`);
    }
    this.need(index, p + 1, size);
    const count = readUint(this.bytes, p + 1, size);
    this.cursor = p + 1 + size;
    return count;
  }

  /** Object reference at `position` inside container `index`. */
  private ref(position: number, index: number): number {
    const ref = readUint(this.bytes, position, this.objectRefSize);
    if (ref >= this.numObjects) {
      throw new PlistError(`bplist: object ${index} refers to object ${ref}, beyond the ${this.numObjects} objects`);
    }
    return ref;
  }

  /** Checks that `count` bytes from `start` lie inside the object area, before allocating anything. */
  private need(index: number, start: number, count: number): void {
    if (count > this.tableOffset - start) {
      throw new PlistError(
        `bplist: object ${index} needs ${count} bytes at offset ${start}, beyond the object table at ${this.tableOffset}`,
      );
    }
  }

  private tooDeep(index: number): PlistError {
    return new PlistError(`bplist: container object ${index} is nested deeper than ${this.limits.maxDepth} levels`);
  }
}

function isIntSize(size: number): boolean {
  return size === 1 || size === 2 || size === 4 || size === 8;
}

function badMarker(index: number, offset: number, marker: number): PlistError {
  return new PlistError(`bplist: object ${index} at offset ${offset} has unknown marker 0x${hex2(marker)}`);
}

function hex2(byte: number): string {
  return (byte < 16 ? '0' : '') + byte.toString(16);
}

/**
 * Unsigned big-endian integer of 1, 2, 4 or 8 bytes. Values above 2^53 come out inexact but
 * still above every limit they are compared with, which is all the callers need.
 */
function readUint(bytes: Uint8Array, p: number, size: number): number {
  switch (size) {
    case 1:
      return bytes[p];
    case 2:
      return (bytes[p] << 8) | bytes[p + 1];
    case 4:
      return bytes[p] * 0x1000000 + ((bytes[p + 1] << 16) | (bytes[p + 2] << 8) | bytes[p + 3]);
    default:
      return readUint(bytes, p, 4) * TWO_32 + readUint(bytes, p + 4, 4);
  }
}

/** Signed 64-bit big-endian: a number when safe, otherwise a bigint. */
function readInt64(bytes: Uint8Array, p: number): number | bigint {
  const high = readUint(bytes, p, 4) | 0;
  const low = readUint(bytes, p + 4, 4);
  // With |high| < 2^21 the value is below 2^53 in magnitude and the arithmetic is exact.
  if (high >= -0x200000 && high < 0x200000) {
    const value = high * TWO_32 + low;
    if (Number.isSafeInteger(value)) return value;
  }
  return BigInt(high) * 4294967296n + BigInt(low);
}

/** Unsigned 64-bit big-endian: a number when safe, otherwise a bigint. */
function readUint64(bytes: Uint8Array, p: number): number | bigint {
  const high = readUint(bytes, p, 4);
  const low = readUint(bytes, p + 4, 4);
  if (high < 0x200000) return high * TWO_32 + low;
  return BigInt(high) * 4294967296n + BigInt(low);
}

/** Reused code-unit buffer: long strings are built in chunks without per-character strings. */
const CHUNK = 2048;
const scratch = new Uint16Array(CHUNK);

function asciiString(bytes: Uint8Array, start: number, count: number, index: number): string {
  let bad = 0;
  if (count <= 24) {
    // Short strings (keys, mostly): building by concatenation beats an apply() call.
    let text = '';
    for (let i = start, end = start + count; i < end; i++) {
      const code = bytes[i];
      bad |= code;
      text += String.fromCharCode(code);
    }
    if (bad > 0x7f) throw nonAscii(index, start);
    return text;
  }
  let text = '';
  for (let chunkStart = start, end = start + count; chunkStart < end; chunkStart += CHUNK) {
    const chunkEnd = Math.min(chunkStart + CHUNK, end);
    const part = bytes.subarray(chunkStart, chunkEnd);
    for (let i = 0; i < part.length; i++) bad |= part[i];
    text += String.fromCharCode.apply(null, part as unknown as number[]);
  }
  if (bad > 0x7f) throw nonAscii(index, start);
  return text;
}

function nonAscii(index: number, start: number): PlistError {
  return new PlistError(`bplist: ASCII string object ${index} at offset ${start} has a byte above 0x7F`);
}

/** UTF-16BE code units as they are: surrogate pairs stay pairs (a JS string is UTF-16 too). */
function utf16String(bytes: Uint8Array, start: number, count: number): string {
  let text = '';
  let p = start;
  for (let done = 0; done < count; ) {
    const n = Math.min(CHUNK, count - done);
    if (n <= 24) {
      for (let i = 0; i < n; i++, p += 2) text += String.fromCharCode((bytes[p] << 8) | bytes[p + 1]);
    } else {
      for (let i = 0; i < n; i++, p += 2) scratch[i] = (bytes[p] << 8) | bytes[p + 1];
      text += String.fromCharCode.apply(null, scratch.subarray(0, n) as unknown as number[]);
    }
    done += n;
  }
  return text;
}

// =============================================================================================
// Encoding

// Object kinds collected by the first pass.
const K_FALSE = 0;
const K_TRUE = 1;
const K_INT = 2; // safe integer number
const K_INT64 = 3; // bigint in -2^63..2^63-1 outside the safe range
const K_INT128 = 4; // bigint in 2^63..2^64-1, written in the 16-byte form
const K_REAL = 5;
const K_DATE = 6; // payload: seconds since the plist epoch
const K_DATA = 7;
const K_ASCII = 8;
const K_UTF16 = 9;
const K_UID = 10;
const K_ARRAY = 11;
const K_DICT = 12; // payload: key refs followed by value refs

const MIN_INT64 = -(2n ** 63n);
const TWO_63 = 2n ** 63n;
const TWO_64 = 2n ** 64n;

/**
 * Encodes a value as a binary plist. Equal strings, numbers, booleans, dates, UIDs and data
 * are written once, as plistlib does; a container reached twice by identity is written once
 * too, and a container that contains itself is a PlistError. Dictionary keys keep the
 * object's own key order.
 */
export function encodeBinaryPlist(value: PlistValue): Uint8Array {
  const collector = new Collector();
  const top = collector.add(value);
  return collector.write(top);
}

class Collector {
  /** Per object: kind, payload (primitive, bytes, or member refs) and, for scalars, byte size. */
  private readonly kinds: number[] = [];
  private readonly payloads: unknown[] = [];
  private readonly sizes: number[] = [];
  private scalarBytes = 0;
  private containerCount = 0;

  private readonly strings = new Map<string, number>();
  private readonly ints = new Map<number | bigint, number>();
  private readonly reals = new Map<number, number>();
  private negativeZeroReal = -1;
  private falseRef = -1;
  private trueRef = -1;
  private readonly dates = new Map<number, number>();
  private readonly uids = new Map<number, number>();
  private readonly data = new Map<number, number[]>();
  private readonly containers = new Map<object, number>();
  private readonly active = new Set<object>();

  /** Keys and indexes from the top value to the one being added, for error messages. */
  private readonly path: (string | number)[] = [];

  /** Adds `value` (and its members, depth-first, keys before values) and returns its object index. */
  add(value: unknown): number {
    switch (typeof value) {
      case 'string':
        return this.string(value);
      case 'number':
        if (Number.isSafeInteger(value)) return this.integer(value);
        return this.real(value);
      case 'bigint':
        return this.bigint(value);
      case 'boolean':
        if (value) return this.trueRef >= 0 ? this.trueRef : (this.trueRef = this.push(K_TRUE, true, 1));
        return this.falseRef >= 0 ? this.falseRef : (this.falseRef = this.push(K_FALSE, false, 1));
      case 'undefined':
        throw this.fail('cannot encode undefined');
      case 'object':
        if (value === null) throw this.fail('cannot encode null');
        break;
      default:
        throw this.fail(`cannot encode a value of type ${typeof value}`);
    }
    if (value instanceof Uint8Array) return this.bytes(value);
    if (value instanceof PlistReal) {
      if (typeof value.value !== 'number') throw this.fail('PlistReal holds a non-number');
      return this.real(value.value);
    }
    if (value instanceof Date) return this.date(value);
    if (value instanceof PlistUid) return this.uid(value.value);

    const object = value as object;
    const known = this.containers.get(object);
    if (known !== undefined) {
      if (this.active.has(object)) throw this.fail('cannot encode a container that contains itself');
      return known;
    }
    const path = this.path;
    if (Array.isArray(object)) {
      const index = this.enter(object, K_ARRAY);
      const refs: number[] = new Array(object.length);
      for (let i = 0; i < object.length; i++) {
        path.push(i);
        refs[i] = this.add(object[i]);
        path.pop();
      }
      this.payloads[index] = refs;
      this.active.delete(object);
      return index;
    }
    const prototype: unknown = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      const name = (object as { constructor?: { name?: unknown } }).constructor?.name;
      throw this.fail(`cannot encode an object of kind ${typeof name === 'string' && name ? name : 'unknown'}`);
    }
    const index = this.enter(object, K_DICT);
    const dict = object as Record<string, unknown>;
    const keys = Object.keys(dict);
    const count = keys.length;
    const refs: number[] = new Array(count * 2);
    for (let i = 0; i < count; i++) refs[i] = this.string(keys[i]);
    for (let i = 0; i < count; i++) {
      const key = keys[i];
      path.push(key);
      refs[count + i] = this.add(dict[key]);
      path.pop();
    }
    this.payloads[index] = refs;
    this.active.delete(object);
    return index;
  }

  /** Starts a container: checks depth, marks it active (to catch cycles) and gives it its index. */
  private enter(object: object, kind: number): number {
    if (this.path.length >= DEFAULT_PLIST_LIMITS.maxDepth) {
      throw this.fail(`containers nested deeper than ${DEFAULT_PLIST_LIMITS.maxDepth} levels`);
    }
    this.active.add(object);
    this.containerCount++;
    const index = this.push(kind, null, 0);
    this.containers.set(object, index);
    return index;
  }

  /** An error naming the place, e.g. `bplist: cannot encode undefined at $.settings["theme"]`. */
  private fail(message: string): PlistError {
    let where = '$';
    for (const step of this.path) where += typeof step === 'number' ? `[${step}]` : `[${JSON.stringify(step)}]`;
    return new PlistError(`bplist: ${message} at ${where}`);
  }

  private push(kind: number, payload: unknown, size: number): number {
    const index = this.kinds.length;
    this.kinds.push(kind);
    this.payloads.push(payload);
    this.sizes.push(size);
    this.scalarBytes += size;
    return index;
  }

  private string(text: string): number {
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    let ascii = true;
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    // UTF-16 counts code units, exactly the JS string length.
    const index = ascii
      ? this.push(K_ASCII, text, lengthHeaderSize(text.length) + text.length)
      : this.push(K_UTF16, text, lengthHeaderSize(text.length) + 2 * text.length);
    this.strings.set(text, index);
    return index;
  }

  private integer(value: number): number {
    const known = this.ints.get(value);
    if (known !== undefined) return known;
    const index = this.push(K_INT, value, 1 + intWidth(value));
    this.ints.set(value, index);
    return index;
  }

  private bigint(value: bigint): number {
    if (value >= -9007199254740991n && value <= 9007199254740991n) return this.integer(Number(value));
    const known = this.ints.get(value);
    if (known !== undefined) return known;
    let index: number;
    if (value >= MIN_INT64 && value < TWO_63) index = this.push(K_INT64, value, 9);
    else if (value >= TWO_63 && value < TWO_64) index = this.push(K_INT128, value, 17);
    else throw this.fail(`integer ${value} is outside -2^63..2^64-1`);
    this.ints.set(value, index);
    return index;
  }

  private real(value: number): number {
    // Map keys treat -0 as 0; -0 is a distinct real, so it has its own slot.
    if (value === 0 && 1 / value < 0) {
      if (this.negativeZeroReal < 0) this.negativeZeroReal = this.push(K_REAL, value, 9);
      return this.negativeZeroReal;
    }
    const known = this.reals.get(value);
    if (known !== undefined) return known;
    const index = this.push(K_REAL, value, 9);
    this.reals.set(value, index);
    return index;
  }

  private date(date: Date): number {
    const ms = date.getTime();
    if (Number.isNaN(ms)) throw this.fail('cannot encode an invalid Date');
    const known = this.dates.get(ms);
    if (known !== undefined) return known;
    const index = this.push(K_DATE, (ms - PLIST_EPOCH_MS) / 1000, 9);
    this.dates.set(ms, index);
    return index;
  }

  private uid(value: number): number {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw this.fail(`UID ${String(value)} is not a non-negative safe integer`);
    }
    const known = this.uids.get(value);
    if (known !== undefined) return known;
    // Widths 1, 2, 4, 8 bytes, as plistlib writes them.
    const index = this.push(K_UID, value, 1 + (value < 0x100 ? 1 : value < 0x10000 ? 2 : value < TWO_32 ? 4 : 8));
    this.uids.set(value, index);
    return index;
  }

  private bytes(bytes: Uint8Array): number {
    // Bucketed by length, then compared byte for byte: no copy or hash string of large data.
    let bucket = this.data.get(bytes.length);
    if (bucket === undefined) {
      bucket = [];
      this.data.set(bytes.length, bucket);
    } else {
      for (const index of bucket) {
        const other = this.payloads[index] as Uint8Array;
        if (other === bytes || equal(other, bytes)) return index;
      }
    }
    const index = this.push(K_DATA, bytes, lengthHeaderSize(bytes.length) + bytes.length);
    bucket.push(index);
    return index;
  }

  /** Second pass: sizes are known once the object count fixes the reference size. */
  write(top: number): Uint8Array {
    const kinds = this.kinds;
    const payloads = this.payloads;
    const sizes = this.sizes;
    const count = kinds.length;
    const refSize = uintSize(count - 1);

    // Container sizes, then the offset of the last object, which fixes the offset size.
    let objectBytes = this.scalarBytes;
    if (this.containerCount > 0) {
      for (let i = 0; i < count; i++) {
        const kind = kinds[i];
        if (kind === K_ARRAY || kind === K_DICT) {
          const refs = (payloads[i] as number[]).length;
          const members = kind === K_DICT ? refs / 2 : refs;
          const size = lengthHeaderSize(members) + refs * refSize;
          sizes[i] = size;
          objectBytes += size;
        }
      }
    }
    const tableOffset = HEADER_SIZE + objectBytes;
    const offsetSize = uintSize(tableOffset - sizes[count - 1]);
    const total = tableOffset + count * offsetSize + TRAILER_SIZE;

    const out = new Uint8Array(total);
    const view = new DataView(out.buffer);
    for (let i = 0; i < HEADER_SIZE; i++) out[i] = MAGIC[i];
    let p = HEADER_SIZE;
    let t = tableOffset;
    for (let i = 0; i < count; i++) {
      writeUint(out, t, offsetSize, p);
      t += offsetSize;
      const payload = payloads[i];
      switch (kinds[i]) {
        case K_FALSE:
          out[p++] = 0x08;
          break;
        case K_TRUE:
          out[p++] = 0x09;
          break;
        case K_INT: {
          const n = payload as number;
          const width = intWidth(n);
          out[p++] = 0x10 | (width === 1 ? 0 : width === 2 ? 1 : width === 4 ? 2 : 3);
          if (width === 8) {
            const high = Math.floor(n / TWO_32);
            writeUint(out, p, 4, high >>> 0);
            writeUint(out, p + 4, 4, n - high * TWO_32);
          } else writeUint(out, p, width, n);
          p += width;
          break;
        }
        case K_INT64:
        case K_INT128: {
          if (kinds[i] === K_INT128) {
            // plistlib's form for 2^63..2^64-1: 16-byte two's complement, high half zero.
            out[p++] = 0x14;
            p += 8;
          } else out[p++] = 0x13;
          const bits = BigInt.asUintN(64, payload as bigint);
          writeUint(out, p, 4, Number(bits >> 32n));
          writeUint(out, p + 4, 4, Number(bits & 0xffffffffn));
          p += 8;
          break;
        }
        case K_REAL:
          out[p] = 0x23;
          view.setFloat64(p + 1, payload as number);
          p += 9;
          break;
        case K_DATE:
          out[p] = 0x33;
          view.setFloat64(p + 1, payload as number);
          p += 9;
          break;
        case K_DATA: {
          const bytes = payload as Uint8Array;
          p = writeLengthHeader(out, p, 0x40, bytes.length);
          out.set(bytes, p);
          p += bytes.length;
          break;
        }
        case K_ASCII: {
          const text = payload as string;
          const n = text.length;
          p = writeLengthHeader(out, p, 0x50, n);
          for (let k = 0; k < n; k++) out[p + k] = text.charCodeAt(k);
          p += n;
          break;
        }
        case K_UTF16: {
          const text = payload as string;
          const n = text.length;
          p = writeLengthHeader(out, p, 0x60, n);
          for (let k = 0; k < n; k++, p += 2) {
            const code = text.charCodeAt(k);
            out[p] = code >> 8;
            out[p + 1] = code;
          }
          break;
        }
        case K_UID: {
          const uid = payload as number;
          const width = sizes[i] - 1;
          out[p++] = 0x80 | (width - 1);
          if (width === 8) {
            writeUint(out, p, 4, Math.floor(uid / TWO_32));
            writeUint(out, p + 4, 4, uid % TWO_32);
          } else writeUint(out, p, width, uid);
          p += width;
          break;
        }
        default: {
          // K_ARRAY or K_DICT
          const refs = payload as number[];
          const n = refs.length;
          p = writeLengthHeader(out, p, kinds[i] === K_ARRAY ? 0xa0 : 0xd0, kinds[i] === K_ARRAY ? n : n / 2);
          if (refSize === 1) {
            for (let k = 0; k < n; k++) out[p++] = refs[k];
          } else {
            for (let k = 0; k < n; k++, p += refSize) writeUint(out, p, refSize, refs[k]);
          }
        }
      }
    }

    // Trailer: 5 unused bytes and sortVersion stay zero.
    const trailer = total - TRAILER_SIZE;
    out[trailer + 6] = offsetSize;
    out[trailer + 7] = refSize;
    writeUint(out, trailer + 8, 8, count);
    writeUint(out, trailer + 16, 8, top);
    writeUint(out, trailer + 24, 8, tableOffset);
    return out;
  }
}

/** Bytes of a non-negative safe integer, or 8 for a negative one (plistlib and CF widths). */
function intWidth(n: number): number {
  if (n < 0) return 8;
  return n < 0x100 ? 1 : n < 0x10000 ? 2 : n < TWO_32 ? 4 : 8;
}

/** Smallest of 1, 2, 4, 8 bytes that holds `n` unsigned. */
function uintSize(n: number): number {
  return n < 0x100 ? 1 : n < 0x10000 ? 2 : n < TWO_32 ? 4 : 8;
}

/** Marker byte plus, for counts of 15 and more, the int object holding the count. */
function lengthHeaderSize(count: number): number {
  return count < 15 ? 1 : 2 + uintSize(count);
}

function writeLengthHeader(out: Uint8Array, p: number, type: number, count: number): number {
  if (count < 15) {
    out[p] = type | count;
    return p + 1;
  }
  out[p] = type | 0x0f;
  const size = uintSize(count);
  out[p + 1] = 0x10 | (size === 1 ? 0 : size === 2 ? 1 : size === 4 ? 2 : 3);
  writeUint(out, p + 2, size, count);
  return p + 2 + size;
}

/** Unsigned big-endian write of 1, 2, 4 or 8 bytes of a non-negative safe integer. */
function writeUint(out: Uint8Array, p: number, size: number, n: number): void {
  switch (size) {
    case 1:
      out[p] = n;
      return;
    case 2:
      out[p] = n >>> 8;
      out[p + 1] = n;
      return;
    case 4:
      out[p] = n >>> 24;
      out[p + 1] = n >>> 16;
      out[p + 2] = n >>> 8;
      out[p + 3] = n;
      return;
    default: {
      const high = Math.floor(n / TWO_32);
      writeUint(out, p, 4, high);
      writeUint(out, p + 4, 4, n - high * TWO_32);
    }
  }
}

