// Byte helpers for the whole core: concat, views, hex, base64, UTF-8, integer reads and writes.
// Plain ECMAScript only (no TextEncoder, no Buffer): this file runs unchanged on XS.

/** Thrown for malformed hex, base64 or UTF-8 input and out-of-range reads or writes. */
export class BytesError extends Error {
  override name = 'BytesError';
}

/** Joins byte arrays into one new array. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  return joinBytes(parts);
}

/**
 * Joins a list of byte arrays (a body that arrived in pieces). Takes the list itself, not
 * spread arguments: a slow sender's body can come in thousands of pieces, more arguments than
 * an XS stack on a board holds. A single piece is returned as it is, without a copy.
 */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A DataView over exactly the bytes of `bytes` (no copy). */
export function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** `length` bytes of `bytes` from `offset`, as a view (no copy); throws when out of range. */
export function slice(bytes: Uint8Array, offset: number, length: number): Uint8Array {
  checkRange(bytes, offset, length);
  return bytes.subarray(offset, offset + length);
}

export function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Index of `needle` in `haystack` at or after `from`, or -1. */
export function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  if (needle.length === 0) return from <= haystack.length ? from : -1;
  const first = needle[0];
  const last = haystack.length - needle.length;
  outer: for (let i = from; i <= last; i++) {
    if (haystack[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Hex

const HEX_DIGITS = '0123456789abcdef';
const HEX_CODES = new Uint8Array(16);
for (let i = 0; i < 16; i++) HEX_CODES[i] = HEX_DIGITS.charCodeAt(i);
const HEX_PAIRS: string[] = [];
for (let i = 0; i < 256; i++) HEX_PAIRS.push(HEX_DIGITS[i >> 4] + HEX_DIGITS[i & 15]);

export function toHex(bytes: Uint8Array, separator = ''): string {
  if (separator) {
    const parts: string[] = [];
    for (let i = 0; i < bytes.length; i++) parts.push(HEX_PAIRS[bytes[i]]);
    return parts.join(separator);
  }
  // ASCII codes into one array, then one conversion: see toBase64.
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = HEX_CODES[bytes[i] >> 4];
    out[2 * i + 1] = HEX_CODES[bytes[i] & 15];
  }
  return latin1Decode(out);
}

/** Parses hex digits (either case); `separator` characters (such as ':' in a MAC) are skipped. */
export function fromHex(text: string, separator = ''): Uint8Array {
  const digits = separator ? text.split(separator).join('') : text;
  if (digits.length % 2 !== 0) throw new BytesError(`hex: odd number of digits (${digits.length})`);
  const out = new Uint8Array(digits.length / 2);
  let index = 0;
  let high = -1;
  for (const char of digits) {
    const value = hexValue(char.charCodeAt(0));
    if (value < 0) throw new BytesError(`hex: invalid digit ${JSON.stringify(char)} at index ${index}`);
    if (high < 0) high = value;
    else {
      out[index >> 1] = (high << 4) | value;
      high = -1;
    }
    index++;
  }
  return out;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Base64 (RFC 4648 section 4, standard alphabet with padding)

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Int16Array(128).fill(-1);
const BASE64_CODES = new Uint8Array(64);
for (let i = 0; i < BASE64_ALPHABET.length; i++) {
  BASE64_CODES[i] = BASE64_ALPHABET.charCodeAt(i);
  BASE64_VALUES[BASE64_CODES[i]] = i;
}

export function toBase64(bytes: Uint8Array): string {
  // Written as ASCII codes into one array, then turned into a string in chunks: growing a string
  // character by character copies it each time on XS.
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = BASE64_CODES[n >> 18];
    out[o++] = BASE64_CODES[(n >> 12) & 63];
    out[o++] = BASE64_CODES[(n >> 6) & 63];
    out[o++] = BASE64_CODES[n & 63];
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i] << 16) | (rest === 2 ? bytes[i + 1] << 8 : 0);
    out[o++] = BASE64_CODES[n >> 18];
    out[o++] = BASE64_CODES[(n >> 12) & 63];
    out[o++] = rest === 2 ? BASE64_CODES[(n >> 6) & 63] : 61; // '='
    out[o++] = 61;
  }
  return latin1Decode(out);
}

/**
 * Decodes base64. ASCII whitespace is ignored (XML plists wrap their data lines) and missing
 * padding is accepted; any other character, or a lone trailing digit, is an error.
 */
export function fromBase64(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let length = 0;
  let accumulator = 0;
  let bits = 0;
  let digits = 0;
  let padding = 0;
  let i = -1;
  for (const char of text) {
    i++;
    const code = char.charCodeAt(0);
    if (code === 32 || code === 9 || code === 10 || code === 13 || code === 12) continue;
    if (code === 61) {
      padding++;
      continue;
    }
    const value = code < 128 ? BASE64_VALUES[code] : -1;
    if (value < 0 || padding > 0) {
      throw new BytesError(`base64: invalid character ${JSON.stringify(char)} at index ${i}`);
    }
    digits++;
    accumulator = (accumulator << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (accumulator >> bits) & 0xff;
    }
  }
  if (digits % 4 === 1) throw new BytesError('base64: truncated input (one digit left over)');
  if (padding > 2) throw new BytesError(`base64: too much padding (${padding} '=')`);
  return out.slice(0, length);
}

// ---------------------------------------------------------------------------------------------
// UTF-8 (RFC 3629)

/**
 * Encodes a string as UTF-8; lone surrogates become U+FFFD, as TextEncoder does.
 *
 * Strings are walked with for...of, never indexed: XS keeps strings as UTF-8, so charCodeAt(i)
 * scans from the start and an indexed loop is quadratic there.
 */
export function utf8Encode(text: string): Uint8Array {
  // First pass counts bytes so the output is allocated once.
  let length = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  const out = new Uint8Array(length);
  let o = 0;
  for (const char of text) {
    let code = char.codePointAt(0)!;
    if (code < 0x80) {
      out[o++] = code;
    } else if (code < 0x800) {
      out[o++] = 0xc0 | (code >> 6);
      out[o++] = 0x80 | (code & 63);
    } else if (code < 0x10000) {
      // for...of yields a lone surrogate as itself; it has no UTF-8 form.
      if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
      out[o++] = 0xe0 | (code >> 12);
      out[o++] = 0x80 | ((code >> 6) & 63);
      out[o++] = 0x80 | (code & 63);
    } else {
      out[o++] = 0xf0 | (code >> 18);
      out[o++] = 0x80 | ((code >> 12) & 63);
      out[o++] = 0x80 | ((code >> 6) & 63);
      out[o++] = 0x80 | (code & 63);
    }
  }
  return out;
}

/**
 * Decodes UTF-8. With `fatal` (the default) malformed input throws a BytesError naming the
 * offset; otherwise each malformed sequence becomes U+FFFD. Overlong forms, surrogates and
 * code points above U+10FFFF are malformed.
 */
export function utf8Decode(bytes: Uint8Array, fatal = true): string {
  const parts: string[] = [];
  let units: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const start = i;
    const b0 = bytes[i++];
    let code: number;
    if (b0 < 0x80) {
      code = b0;
    } else {
      let needed: number;
      let min: number;
      if (b0 >= 0xc2 && b0 <= 0xdf) {
        needed = 1;
        min = 0x80;
        code = b0 & 0x1f;
      } else if (b0 >= 0xe0 && b0 <= 0xef) {
        needed = 2;
        min = 0x800;
        code = b0 & 0x0f;
      } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        needed = 3;
        min = 0x10000;
        code = b0 & 0x07;
      } else {
        needed = -1;
        min = 0;
        code = 0;
      }
      let valid = needed > 0;
      for (let k = 0; valid && k < needed; k++) {
        const next = bytes[i];
        if (i >= bytes.length || (next & 0xc0) !== 0x80) valid = false;
        else {
          code = (code << 6) | (next & 0x3f);
          i++;
        }
      }
      if (valid && (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))) valid = false;
      if (!valid) {
        if (fatal) throw new BytesError(`utf-8: malformed sequence at offset ${start}`);
        // Resynchronise one byte after the lead byte, as the WHATWG decoder does.
        i = start + 1;
        while (i < bytes.length && i < start + 4 && (bytes[i] & 0xc0) === 0x80 && needed > 0) i++;
        code = 0xfffd;
      }
    }
    if (code >= 0x10000) {
      code -= 0x10000;
      units.push(0xd800 + (code >> 10), 0xdc00 + (code & 0x3ff));
    } else units.push(code);
    // Flush in small chunks: String.fromCharCode takes its arguments on the stack, and an XS
    // machine on a board has a stack of a few hundred slots.
    if (units.length >= CHAR_CODE_CHUNK) {
      parts.push(String.fromCharCode.apply(null, units));
      units = [];
    }
  }
  parts.push(String.fromCharCode.apply(null, units));
  return parts.join('');
}

/** Arguments passed to String.fromCharCode at once: small enough for an XS stack on a board. */
const CHAR_CODE_CHUNK = 64;

/** Latin-1 view of bytes: each byte one UTF-16 unit. Used for HTTP heads, which are ASCII. */
export function latin1Decode(bytes: Uint8Array): string {
  // One call for the short pieces of a request head (method, target, each header name and
  // value): no parts array and no join on the path of every request.
  if (bytes.length <= CHAR_CODE_CHUNK) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHAR_CODE_CHUNK) {
    parts.push(String.fromCharCode.apply(null, bytes.subarray(i, Math.min(i + CHAR_CODE_CHUNK, bytes.length)) as unknown as number[]));
  }
  return parts.join('');
}

/** Latin-1 bytes of a string; characters above U+00FF are an error. */
export function latin1Encode(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  latin1EncodeInto(text, out, 0);
  return out;
}

/**
 * Writes the Latin-1 bytes of `text` (one a character) into `target` from `offset`, with no array
 * of its own; characters above U+00FF are an error.
 */
export function latin1EncodeInto(text: string, target: Uint8Array, offset: number): void {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) throw new BytesError(`latin-1: character U+${code.toString(16)} at index ${i} is not encodable`);
    target[offset + i] = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Integers, big-endian and little-endian. 64-bit values are BigInt.

function checkRange(bytes: Uint8Array, offset: number, length: number): void {
  if (!Number.isInteger(offset) || offset < 0 || length < 0 || offset + length > bytes.length) {
    throw new BytesError(`read of ${length} bytes at offset ${offset} is beyond the ${bytes.length}-byte buffer`);
  }
}

export function readU8(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 1);
  return bytes[offset];
}
export function readU16BE(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 2);
  return (bytes[offset] << 8) | bytes[offset + 1];
}
export function readU16LE(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 2);
  return bytes[offset] | (bytes[offset + 1] << 8);
}
export function readU32BE(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 4);
  return ((bytes[offset] << 24) >>> 0) + ((bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3]);
}
export function readU32LE(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 4);
  return ((bytes[offset + 3] << 24) >>> 0) + ((bytes[offset + 2] << 16) | (bytes[offset + 1] << 8) | bytes[offset]);
}
export function readI32LE(bytes: Uint8Array, offset: number): number {
  return readU32LE(bytes, offset) | 0;
}
export function readU64BE(bytes: Uint8Array, offset: number): bigint {
  return (BigInt(readU32BE(bytes, offset)) << 32n) | BigInt(readU32BE(bytes, offset + 4));
}
export function readU64LE(bytes: Uint8Array, offset: number): bigint {
  return (BigInt(readU32LE(bytes, offset + 4)) << 32n) | BigInt(readU32LE(bytes, offset));
}
export function readI64BE(bytes: Uint8Array, offset: number): bigint {
  return BigInt.asIntN(64, readU64BE(bytes, offset));
}
export function readI64LE(bytes: Uint8Array, offset: number): bigint {
  return BigInt.asIntN(64, readU64LE(bytes, offset));
}

/** Unsigned big-endian integer of 1 to 6 bytes as a number (6 bytes stay below 2^53). */
export function readUintBE(bytes: Uint8Array, offset: number, size: number): number {
  if (size < 1 || size > 6) throw new BytesError(`readUintBE: size ${size} is not 1 to 6`);
  checkRange(bytes, offset, size);
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + bytes[offset + i];
  return value;
}

function checkWrite(bytes: Uint8Array, offset: number, length: number): void {
  if (!Number.isInteger(offset) || offset < 0 || offset + length > bytes.length) {
    throw new BytesError(`write of ${length} bytes at offset ${offset} is beyond the ${bytes.length}-byte buffer`);
  }
}

export function writeU16BE(bytes: Uint8Array, offset: number, value: number): void {
  checkWrite(bytes, offset, 2);
  bytes[offset] = value >>> 8;
  bytes[offset + 1] = value;
}
export function writeU16LE(bytes: Uint8Array, offset: number, value: number): void {
  checkWrite(bytes, offset, 2);
  bytes[offset] = value;
  bytes[offset + 1] = value >>> 8;
}
export function writeU32BE(bytes: Uint8Array, offset: number, value: number): void {
  checkWrite(bytes, offset, 4);
  bytes[offset] = value >>> 24;
  bytes[offset + 1] = value >>> 16;
  bytes[offset + 2] = value >>> 8;
  bytes[offset + 3] = value;
}
export function writeU32LE(bytes: Uint8Array, offset: number, value: number): void {
  checkWrite(bytes, offset, 4);
  bytes[offset] = value;
  bytes[offset + 1] = value >>> 8;
  bytes[offset + 2] = value >>> 16;
  bytes[offset + 3] = value >>> 24;
}
/** Writes the low 64 bits of `value` (signed or unsigned) big-endian. */
export function writeU64BE(bytes: Uint8Array, offset: number, value: bigint): void {
  const v = BigInt.asUintN(64, value);
  writeU32BE(bytes, offset, Number(v >> 32n));
  writeU32BE(bytes, offset + 4, Number(v & 0xffffffffn));
}
/** Writes the low 64 bits of `value` (signed or unsigned) little-endian. */
export function writeU64LE(bytes: Uint8Array, offset: number, value: bigint): void {
  const v = BigInt.asUintN(64, value);
  writeU32LE(bytes, offset, Number(v & 0xffffffffn));
  writeU32LE(bytes, offset + 4, Number(v >> 32n));
}
/** Unsigned big-endian integer of 1 to 6 bytes. */
export function writeUintBE(bytes: Uint8Array, offset: number, size: number, value: number): void {
  if (size < 1 || size > 6) throw new BytesError(`writeUintBE: size ${size} is not 1 to 6`);
  checkWrite(bytes, offset, size);
  for (let i = size - 1; i >= 0; i--) {
    bytes[offset + i] = value % 256;
    value = Math.floor(value / 256);
  }
}
