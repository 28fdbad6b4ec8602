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
import { describeError } from '../errors';

interface BinaryPlistDecodeOptions {
  /** Overrides of DEFAULT_PLIST_LIMITS; the input is untrusted. */
  limits?: Partial<PlistLimits>;
  /** Decode every real as PlistReal, so an integral real stays distinguishable from an integer. */
  exactReals?: boolean;
  /**
   * Copy data objects out of the input. By default they are views into `bytes` (no copy: a
   * picture in a slideshow reply is most of the body, and small devices cannot afford it twice),
   * so set this when the input buffer will be reused or changed after decoding.
   */
  copyData?: boolean;
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
/** Returned by visit() when it opened a container instead of producing a value. */
const OPENED: unknown = {};

/**
 * Decodes a binary plist. Every failure, including any malformed, truncated or hostile input,
 * is a PlistError. Objects referenced more than once decode once and are shared (as in the
 * document); a reference cycle is an error. Data values are views into `bytes` unless
 * `copyData` is set.
 */
export function decodeBinaryPlist(bytes: Uint8Array, options: BinaryPlistDecodeOptions = {}): PlistValue {
  const limits = mergeLimits(options.limits);
  try {
    if (!(bytes instanceof Uint8Array)) throw new PlistError('bplist: input is not a Uint8Array');
    return new Reader(bytes, limits, options.exactReals === true, options.copyData === true).decode();
  } catch (error) {
    if (error instanceof PlistError) throw error;
    // BytesError from UTF-8 decoding, or an engine RangeError (memory): callers only ever see
    // PlistError.
    throw wrap(error);
  }
}

/** A PlistError carrying any other error (as its cause), so callers need to catch one type. */
function wrap(error: unknown): PlistError {
  const message = describeError(error);
  return new PlistError(`bplist: ${message}`, { cause: error });
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
  private readonly topObject: number;
  /** Start of the offset table, which is also the end of the object area. */
  private readonly tableOffset: number;
  /** Decoded value per object index, or IN_PROGRESS; undefined before the first visit. */
  private readonly memo: unknown[];
  /**
   * Nesting height per decoded container (1 for one without containers inside; 0 for scalars
   * and objects not decoded yet). A shared
   * container reached again at a deeper place must still fit maxDepth there, or sharing could
   * build a value far deeper than the limit for whoever walks it next.
   */
  private readonly heights: Uint32Array;
  /** Height of the value the last visit() returned (0 for a scalar). */
  private height = 0;
  /** Open containers, innermost last: `sp` of them, as parallel arrays (no object per frame). */
  private sp = 0;
  private readonly fIndex: number[] = [];
  private readonly fValue: (PlistValue[] | PlistDict | undefined)[] = [];
  private readonly fDict: boolean[] = [];
  private readonly fCount: number[] = [];
  /** Position of the first member reference (of the keys, for a dict). */
  private readonly fRefs: number[] = [];
  private readonly fNext: number[] = [];
  /** Greatest height among the members so far. */
  private readonly fInner: number[] = [];
  /** Key waiting for its value while that value, a container, is being filled. */
  private readonly fKey: string[] = [];
  /** Position just after the length header read by readCount. */
  private cursor = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: PlistLimits,
    private readonly exactReals: boolean,
    private readonly copyData: boolean,
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
    // Filled, not holey: XS makes each store into a `new Array(n)` cost O(n).
    this.memo = new Array(numObjects).fill(undefined);
    this.heights = new Uint32Array(numObjects);
  }

  /**
   * Decodes the top object. The walk is iterative, with an explicit stack of open containers:
   * XS engines run with small fixed stacks (a few hundred frames; overflowing one aborts the
   * whole machine rather than throwing), so nesting depth must cost heap, not native stack.
   */
  decode(): PlistValue {
    const first = this.visit(this.topObject, 0);
    if (first !== OPENED) return first as PlistValue;
    const refSize = this.objectRefSize;
    const memo = this.memo;
    const fIndex = this.fIndex;
    const fValue = this.fValue;
    const fDict = this.fDict;
    const fCount = this.fCount;
    const fRefs = this.fRefs;
    const fNext = this.fNext;
    const fInner = this.fInner;
    const fKey = this.fKey;
    for (;;) {
      const s = this.sp - 1;
      const next = fNext[s];
      if (next < fCount[s]) {
        fNext[s] = next + 1;
        const container = fValue[s];
        let member: unknown;
        if (fDict[s]) {
          const key = this.key(this.ref(fRefs[s] + next * refSize, fIndex[s]), fIndex[s]);
          member = this.visit(this.ref(fRefs[s] + (fCount[s] + next) * refSize, fIndex[s]), s + 1);
          if (member === OPENED) {
            fKey[s] = key;
            continue;
          }
          setEntry(container as PlistDict, key, member as PlistValue);
        } else {
          member = this.visit(this.ref(fRefs[s] + next * refSize, fIndex[s]), s + 1);
          if (member === OPENED) continue;
          (container as PlistValue[]).push(member as PlistValue);
        }
        if (this.height > fInner[s]) fInner[s] = this.height;
        continue;
      }
      // Every member is in: the container is finished and goes to its parent.
      const value = fValue[s] as PlistValue;
      const height = fInner[s] + 1;
      memo[fIndex[s]] = value;
      this.heights[fIndex[s]] = height;
      fValue[s] = undefined;
      this.sp = s;
      if (s === 0) return value;
      const parent = s - 1;
      if (fDict[parent]) setEntry(fValue[parent] as PlistDict, fKey[parent], value);
      else (fValue[parent] as PlistValue[]).push(value);
      if (height > fInner[parent]) fInner[parent] = height;
    }
  }

  /**
   * Object `index` at `depth` (containers around it): its value when it is a scalar or already
   * decoded, or OPENED after pushing a frame for a container whose members are still to come.
   */
  private visit(index: number, depth: number): unknown {
    const known = this.memo[index];
    if (known !== undefined) {
      if (known === IN_PROGRESS) throw new PlistError(`bplist: reference cycle through object ${index}`);
      const height = this.heights[index];
      if (height > 0 && depth + height > this.limits.maxDepth) throw this.tooDeep(index);
      this.height = height;
      return known;
    }
    const offset = this.offsetOf(index);
    const marker = this.bytes[offset];
    const type = marker >> 4;
    if (type === 0xa || type === 0xc || type === 0xd) {
      // A set (0xC) has the layout of an array; the value model has no set, so it reads as one.
      const count = this.readCount(index, offset, marker & 0x0f);
      const dict = type === 0xd;
      this.need(index, this.cursor, (dict ? 2 : 1) * count * this.objectRefSize);
      if (depth >= this.limits.maxDepth) throw this.tooDeep(index);
      this.memo[index] = IN_PROGRESS;
      const s = this.sp++;
      this.fIndex[s] = index;
      // Members arrive in order, so arrays grow by push (cheap on XS, unlike stores into new Array(n)).
      this.fValue[s] = dict ? {} : [];
      this.fDict[s] = dict;
      this.fCount[s] = count;
      this.fRefs[s] = this.cursor;
      this.fNext[s] = 0;
      this.fInner[s] = 0;
      return OPENED;
    }
    const value = this.scalar(index, offset, marker);
    this.memo[index] = value;
    this.height = 0;
    return value;
  }

  /** A dictionary key: object `index` must be a string. */
  private key(index: number, dict: number): string {
    let key = this.memo[index];
    if (key === undefined) {
      const offset = this.offsetOf(index);
      const marker = this.bytes[offset];
      const type = marker >> 4;
      // Containers are never keys: reject before opening one.
      if (type !== 0xa && type !== 0xc && type !== 0xd) {
        key = this.scalar(index, offset, marker);
        this.memo[index] = key;
      }
    } else if (key === IN_PROGRESS) throw new PlistError(`bplist: reference cycle through object ${index}`);
    if (typeof key !== 'string') {
      throw new PlistError(`bplist: dict object ${dict} has key object ${index} that is not a string`);
    }
    return key;
  }

  /** Offset of object `index`, checked to lie in the object area. */
  private offsetOf(index: number): number {
    const offset = readUint(this.bytes, this.tableOffset + index * this.offsetIntSize, this.offsetIntSize);
    if (offset < HEADER_SIZE || offset >= this.tableOffset) {
      throw new PlistError(`bplist: object ${index} offset ${offset} is beyond the object table`);
    }
    return offset;
  }

  /** Decodes a non-container object. */
  private scalar(index: number, offset: number, marker: number): PlistValue {
    const bytes = this.bytes;
    const low = marker & 0x0f;
    switch (marker >> 4) {
      case 0x0:
        if (marker === 0x08) return false;
        if (marker === 0x09) return true;
        if (marker === 0x00) {
          // plistlib would return None; the value model has no null and CoreFoundation never writes it.
          throw new PlistError(`bplist: object ${index} at offset ${offset} is null (0x00), which has no plist value`);
        }
        throw badMarker(index, offset, marker);
      case 0x1:
        return this.integer(index, offset, low);
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
        return this.exactReals ? new PlistReal(real) : real;
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
        return new Date(ms);
      }
      case 0x4: {
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count);
        return this.copyData ? bytes.slice(start, start + count) : bytes.subarray(start, start + count);
      }
      case 0x5: {
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count);
        return asciiString(bytes, start, count, index);
      }
      case 0x6: {
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count * 2);
        return utf16String(bytes, start, count);
      }
      case 0x7: {
        // UTF-8 strings (count in bytes) come from newer writers; accepting them costs nothing.
        const count = this.readCount(index, offset, low);
        const start = this.cursor;
        this.need(index, start, count);
        return utf8Decode(bytes.subarray(start, start + count));
      }
      case 0x8: {
        const size = low + 1;
        this.need(index, offset + 1, size);
        let uid = 0;
        for (let i = 0; i < size; i++) uid = uid * 256 + bytes[offset + 1 + i];
        if (!Number.isSafeInteger(uid)) {
          throw new PlistError(`bplist: object ${index} at offset ${offset} is a UID beyond 2^53`);
        }
        return new PlistUid(uid);
      }
      default:
        throw badMarker(index, offset, marker);
    }
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

/**
 * Long strings are built from chunks of this many code units, each one String.fromCharCode
 * call: its arguments go on the engine stack, which is small on XS.
 */
const CHUNK = 1024;
/** Strings up to this length are built by concatenation, which beats an apply() call. */
const SHORT = 24;
/**
 * Reused code-unit buffer for UTF-16 chunks: no allocation per character. Made on first use: a
 * board preloads this module, and XS keeps a typed array made at preload read-only.
 */
let scratchBuffer: Uint16Array | undefined;

function asciiString(bytes: Uint8Array, start: number, count: number, index: number): string {
  let bad = 0;
  const end = start + count;
  if (count <= SHORT) {
    let text = '';
    for (let i = start; i < end; i++) {
      const code = bytes[i];
      bad |= code;
      text += String.fromCharCode(code);
    }
    if (bad > 0x7f) throw nonAscii(index, start);
    return text;
  }
  // Parts joined once at the end: repeated += of a long string copies it each time on XS.
  const parts: string[] = [];
  for (let chunkStart = start; chunkStart < end; chunkStart += CHUNK) {
    const part = bytes.subarray(chunkStart, Math.min(chunkStart + CHUNK, end));
    for (let i = 0; i < part.length; i++) bad |= part[i];
    parts.push(String.fromCharCode.apply(null, part as unknown as number[]));
  }
  if (bad > 0x7f) throw nonAscii(index, start);
  return parts.length === 1 ? parts[0] : parts.join('');
}

function nonAscii(index: number, start: number): PlistError {
  return new PlistError(`bplist: ASCII string object ${index} at offset ${start} has a byte above 0x7F`);
}

/** UTF-16BE code units as they are: surrogate pairs stay pairs (a JS string is UTF-16 too). */
function utf16String(bytes: Uint8Array, start: number, count: number): string {
  if (count <= SHORT) {
    let text = '';
    for (let i = 0, p = start; i < count; i++, p += 2) text += String.fromCharCode((bytes[p] << 8) | bytes[p + 1]);
    return text;
  }
  const parts: string[] = [];
  const scratch = (scratchBuffer ??= new Uint16Array(CHUNK));
  for (let done = 0, p = start; done < count; ) {
    const n = Math.min(CHUNK, count - done);
    for (let i = 0; i < n; i++, p += 2) scratch[i] = (bytes[p] << 8) | bytes[p + 1];
    parts.push(String.fromCharCode.apply(null, scratch.subarray(0, n) as unknown as number[]));
    done += n;
  }
  return parts.length === 1 ? parts[0] : parts.join('');
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

/** visit() result for a container it opened (object indexes are never negative). */
const OPENED_REF = -1;

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
  try {
    const collector = new Collector();
    const top = collector.add(value);
    return collector.write(top);
  } catch (error) {
    // A throwing getter or a failed allocation of the output still surfaces as a PlistError.
    if (error instanceof PlistError) throw error;
    throw wrap(error);
  }
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

  /**
   * Open containers, innermost last (`sp` of them), as parallel arrays. Like the decoder, the
   * walk is iterative so that nesting costs heap rather than the engine's small native stack.
   */
  private sp = 0;
  private readonly fObject: object[] = [];
  /** Own keys of a dict, or null for an array. */
  private readonly fKeys: (string[] | null)[] = [];
  private readonly fRefs: number[][] = [];
  private readonly fIndex: number[] = [];
  /** Member being added; its reference is pushed onto fRefs once complete. */
  private readonly fNext: number[] = [];
  private readonly fCount: number[] = [];

  /** Adds `value` and its members (pre-order, a dict's keys before its values); returns its object index. */
  add(value: unknown): number {
    const first = this.visit(value);
    if (first !== OPENED_REF) return first;
    const { fObject, fKeys, fRefs, fNext, fCount } = this;
    for (;;) {
      const s = this.sp - 1;
      const next = fNext[s];
      if (next < fCount[s]) {
        const keys = fKeys[s];
        const member = keys === null ? (fObject[s] as unknown[])[next] : (fObject[s] as Record<string, unknown>)[keys[next]];
        const ref = this.visit(member);
        if (ref === OPENED_REF) continue;
        // Members complete in order (after a dict's keys), so push puts each reference in place.
        fRefs[s].push(ref);
        fNext[s] = next + 1;
        continue;
      }
      // All members added: the container's reference goes to its parent.
      const index = this.fIndex[s];
      this.active.delete(fObject[s]);
      this.sp = s;
      if (s === 0) return index;
      const parent = s - 1;
      fRefs[parent].push(index);
      fNext[parent]++;
    }
  }

  /** The object index of a scalar or known container, or OPENED_REF after opening a new container. */
  private visit(value: unknown): number {
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
    let keys: string[] | null = null;
    if (!Array.isArray(object)) {
      const prototype: unknown = Object.getPrototypeOf(object);
      if (prototype !== Object.prototype && prototype !== null) {
        const name = (object as { constructor?: { name?: unknown } }).constructor?.name;
        throw this.fail(`cannot encode an object of kind ${typeof name === 'string' && name ? name : 'unknown'}`);
      }
      keys = Object.keys(object);
    }
    if (this.sp >= DEFAULT_PLIST_LIMITS.maxDepth) {
      throw this.fail(`containers nested deeper than ${DEFAULT_PLIST_LIMITS.maxDepth} levels`);
    }
    const count = keys === null ? (object as unknown[]).length : keys.length;
    const index = this.push(keys === null ? K_ARRAY : K_DICT, null, 0);
    this.containers.set(object, index);
    this.active.add(object);
    this.containerCount++;
    const refs: number[] = [];
    this.payloads[index] = refs;
    // Keys first, as plistlib orders them: they are strings, so no container opens here.
    if (keys !== null) for (let i = 0; i < count; i++) refs.push(this.string(keys[i]));
    const s = this.sp++;
    this.fObject[s] = object;
    this.fKeys[s] = keys;
    this.fRefs[s] = refs;
    this.fIndex[s] = index;
    this.fNext[s] = 0;
    this.fCount[s] = count;
    return OPENED_REF;
  }

  /** An error naming the place, e.g. `bplist: cannot encode undefined at $["settings"]["theme"]`. */
  private fail(message: string): PlistError {
    let where = '$';
    for (let s = 0; s < this.sp; s++) {
      const keys = this.fKeys[s];
      where += keys === null ? `[${this.fNext[s]}]` : `[${JSON.stringify(keys[this.fNext[s]])}]`;
    }
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
    // Bucketed by a hash of the length and a sample of the bytes, then compared in full: no
    // copy, and no pass over all of a large picture just to hash it.
    const hash = sampleHash(bytes);
    let bucket = this.data.get(hash);
    if (bucket === undefined) {
      bucket = [];
      this.data.set(hash, bucket);
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

/** FNV-1a over the length and at most about 64 bytes spread over the data (the last included). */
function sampleHash(bytes: Uint8Array): number {
  const length = bytes.length;
  let hash = Math.imul(0x811c9dc5 ^ length, 16777619);
  const step = length > 64 ? Math.floor(length / 64) : 1;
  for (let i = 0; i < length; i += step) hash = Math.imul(hash ^ bytes[i], 16777619);
  if (length > 0) hash = Math.imul(hash ^ bytes[length - 1], 16777619);
  return hash;
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

