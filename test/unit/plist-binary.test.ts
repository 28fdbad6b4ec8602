// Binary plist codec: hand-made byte vectors, round trips of every type, reference and offset
// widths, deduplication, and hostile input (every failure a PlistError, never a hang).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { decodeBinaryPlist, encodeBinaryPlist, isBinaryPlist } from '../../src/plist/binary';
import { PlistError, PlistReal, PlistUid, type PlistDict, type PlistValue } from '../../src/plist/value';
import { makeRng, randomPlistValue } from '../support/arbitrary';
import { toTagged } from '../support/tagged';
import { bplistTrailer } from '../support/plist-cases';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a PlistError whose message matches `pattern`. */
const throwsPlistError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, PlistError, pattern);


const MAGIC_HEX = '62706c6973743030'; // "bplist00"

/** Compares two values in the canonical tagged form (integers and reals kept apart). */
function assertSameValue(actual: PlistValue, expected: PlistValue): void {
  assert.deepEqual(toTagged(actual), toTagged(expected));
}

function roundTrip(value: PlistValue): PlistValue {
  return decodeBinaryPlist(encodeBinaryPlist(value), { exactReals: true });
}

/** Big-endian unsigned bytes of `n` in `size` bytes. */
function be(n: number, size: number): number[] {
  const out: number[] = [];
  for (let i = size - 1; i >= 0; i--) out.push(Math.floor(n / 2 ** (8 * i)) % 256);
  return out;
}

interface BuildOptions {
  refSize?: number;
  offsetSize?: number;
  top?: number;
  numObjects?: number;
  tableOffset?: number;
  /** Replaces the computed offset of object i. */
  offsets?: Record<number, number>;
}

/**
 * An independent writer for test documents: objects are given as bytes (references already
 * encoded with `ref`), and the offset table and trailer are computed here, or overridden to
 * make hostile documents.
 */
function build(objects: number[][], options: BuildOptions = {}): Uint8Array {
  const offsetSize = options.offsetSize ?? 1;
  const bytes: number[] = Array.from(fromHex(MAGIC_HEX));
  const offsets: number[] = [];
  for (const object of objects) {
    offsets.push(bytes.length);
    bytes.push(...object);
  }
  const tableOffset = bytes.length;
  offsets.forEach((offset, i) => bytes.push(...be(options.offsets?.[i] ?? offset, offsetSize)));
  bytes.push(0, 0, 0, 0, 0, 0, offsetSize, options.refSize ?? 1);
  bytes.push(...be(options.numObjects ?? objects.length, 8));
  bytes.push(...be(options.top ?? 0, 8));
  bytes.push(...be(options.tableOffset ?? tableOffset, 8));
  return new Uint8Array(bytes);
}

/** ASCII text as byte values (no TextEncoder in the portable suites). */
const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0));

describe('bplist byte-exact vectors', () => {
  test('{a: 1} encodes to the same bytes as plistlib', () => {
    // dict(1 entry: key ref 1, value ref 2), "a", int 1, offsets 08 0b 0d, 1-byte sizes, 3 objects.
    const expected =
      MAGIC_HEX + 'd10102' + '5161' + '1001' + '080b0d' + '000000000000' + '0101' +
      '0000000000000003' + '0000000000000000' + '000000000000000f';
    assert.equal(toHex(encodeBinaryPlist({ a: 1 })), expected);
    assert.deepEqual(decodeBinaryPlist(fromHex(expected)), { a: 1 });
  });

  test('a lone true is the smallest document: magic, one byte, one offset, trailer', () => {
    const expected = MAGIC_HEX + '09' + '08' + '0000000000000101' + '0000000000000001' + '0000000000000000' + '0000000000000009';
    assert.equal(toHex(encodeBinaryPlist(true)), expected);
    assert.equal(decodeBinaryPlist(fromHex(expected)), true);
  });

  test('scalar markers match the format for each integer width, reals, dates, data and strings', () => {
    const body = (value: PlistValue) => {
      const doc = encodeBinaryPlist(value);
      return toHex(doc.subarray(8, bplistTrailer(doc).tableOffset));
    };
    assert.equal(body(false), '08');
    assert.equal(body(0), '1000');
    assert.equal(body(255), '10ff');
    assert.equal(body(256), '110100');
    assert.equal(body(65536), '1200010000');
    assert.equal(body(2 ** 32), '130000000100000000');
    assert.equal(body(-1), '13ffffffffffffffff');
    assert.equal(body(Number.MAX_SAFE_INTEGER), '13001fffffffffffff');
    assert.equal(body(-(2 ** 53) + 1), '13ffe0000000000001');
    assert.equal(body(9223372036854775807n), '137fffffffffffffff');
    assert.equal(body(-9223372036854775808n), '138000000000000000');
    assert.equal(body(1.5), '233ff8000000000000');
    assert.equal(body(new PlistReal(2)), '234000000000000000');
    assert.equal(body(2 ** 53), '234340000000000000');
    assert.equal(body(new Date(Date.UTC(2001, 0, 1, 0, 0, 1))), '333ff0000000000000');
    assert.equal(body(new Uint8Array([1, 2, 3])), '43010203');
    assert.equal(body(''), '50');
    assert.equal(body('abc'), '53616263');
    assert.equal(body('é'), '6100e9');
    assert.equal(body(new PlistUid(5)), '8005');
    assert.equal(body(new PlistUid(0x1234)), '811234');
    assert.equal(body(new PlistUid(0x12345)), '8300012345');
    assert.equal(body(new PlistUid(2 ** 40)), '870000010000000000');
  });

  test('counts of 15 and more use the 0xF nibble followed by an int object', () => {
    const doc = encodeBinaryPlist('abcdefghijklmno'); // 15 characters
    assert.equal(toHex(doc.subarray(8, 11)), '5f100f');
    const long = 'x'.repeat(300);
    const longDoc = encodeBinaryPlist(long);
    assert.equal(toHex(longDoc.subarray(8, 12)), '5f11012c');
    assert.equal(decodeBinaryPlist(longDoc), long);
    const array = Array.from({ length: 20 }, (_, i) => i);
    assert.equal(toHex(encodeBinaryPlist(array).subarray(8, 11)), 'af1014');
    assert.deepEqual(decodeBinaryPlist(encodeBinaryPlist(array)), array);
  });

  test('an array of two strings lays out the container, then its members in order', () => {
    const expected =
      MAGIC_HEX + 'a20102' + '5178' + '6100e9' + '080b0d' + '000000000000' + '0101' +
      '0000000000000003' + '0000000000000000' + '0000000000000010';
    assert.equal(toHex(encodeBinaryPlist(['x', 'é'])), expected);
  });

  test('a dict lays out all keys before all values, values depth-first', () => {
    // {k: [1], j: 2}: dict, "k", "j", array, 1, 2.
    const doc = encodeBinaryPlist({ k: [1], j: 2 });
    assert.equal(toHex(doc.subarray(8, bplistTrailer(doc).tableOffset)), 'd201020305' + '516b' + '516a' + 'a104' + '1001' + '1002');
  });
});

describe('bplist isBinaryPlist', () => {
  test('recognises the bplist00 magic only', () => {
    assert.equal(isBinaryPlist(encodeBinaryPlist({})), true);
    assert.equal(isBinaryPlist(fromHex('62706c697374')), false);
    assert.equal(isBinaryPlist(fromHex('62706c6973743135')), false); // bplist15
    assert.equal(isBinaryPlist(new Uint8Array(ascii('<?xml version="1.0"?>'))), false);
  });
});

describe('bplist round trips', () => {
  test('each scalar type survives encode then decode', () => {
    const values: PlistValue[] = [
      '', 'plain', 'ünïcödé', '😀 and 𝄞', 'x'.repeat(3000), 'é'.repeat(3000),
      0, 1, -1, 255, 256, 65535, 65536, 2 ** 31, 2 ** 32, 2 ** 32 + 1, -(2 ** 31), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER,
      2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n), 2n ** 63n, 2n ** 64n - 1n,
      new PlistReal(0), new PlistReal(-0), new PlistReal(1), 0.1, -2.5e-300, 1.7976931348623157e308, 5e-324, NaN, Infinity, -Infinity,
      true, false,
      new Date(0), new Date(Date.UTC(2001, 0, 1)), new Date(Date.UTC(1900, 5, 1, 12, 30, 15, 250)), new Date(Date.UTC(2099, 11, 31, 23, 59, 59, 999)),
      new Uint8Array(0), new Uint8Array([0, 255, 128]), new Uint8Array(3000).fill(0xa5),
      new PlistUid(0), new PlistUid(255), new PlistUid(65536), new PlistUid(Number.MAX_SAFE_INTEGER),
    ];
    for (const value of values) {
      assertSameValue(roundTrip(value), value);
      // And nested, so the container paths see every type as a member too.
      assertSameValue(roundTrip([value, { v: value }]), [value, { v: value }]);
    }
  });

  test('integers decode as number when safe and as bigint beyond 2^53', () => {
    assert.equal(decodeBinaryPlist(encodeBinaryPlist(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
    assert.equal(decodeBinaryPlist(encodeBinaryPlist(2n ** 53n)), 2n ** 53n);
    assert.equal(decodeBinaryPlist(encodeBinaryPlist(-(2n ** 53n))), -(2n ** 53n));
    assert.equal(decodeBinaryPlist(encodeBinaryPlist(-(2n ** 53n) + 1n)), -(2 ** 53) + 1);
    // A bigint in the safe range is just an integer.
    assert.equal(decodeBinaryPlist(encodeBinaryPlist(42n)), 42);
  });

  test('reals decode as number, or as PlistReal with exactReals', () => {
    const doc = encodeBinaryPlist([new PlistReal(3), 2.5]);
    assert.deepEqual(decodeBinaryPlist(doc), [3, 2.5]);
    const exact = decodeBinaryPlist(doc, { exactReals: true }) as PlistValue[];
    assert.ok(exact[0] instanceof PlistReal && exact[0].value === 3);
    assert.ok(exact[1] instanceof PlistReal && exact[1].value === 2.5);
  });

  test('numbers that are not safe integers encode as reals', () => {
    for (const value of [0.5, 2 ** 53, -(2 ** 60), NaN, Infinity]) {
      const doc = encodeBinaryPlist(value);
      assert.equal(doc[8], 0x23, `marker of ${value}`);
    }
  });

  test('data decodes as a view into the input, or as a copy with copyData', () => {
    const doc = encodeBinaryPlist({ data: new Uint8Array([1, 2, 3]) });
    const view = (decodeBinaryPlist(doc) as PlistDict).data as Uint8Array;
    const copy = (decodeBinaryPlist(doc, { copyData: true }) as PlistDict).data as Uint8Array;
    assert.equal(view.buffer, doc.buffer);
    assert.notEqual(copy.buffer, doc.buffer);
    doc[view.byteOffset] = 9;
    assert.deepEqual(view, new Uint8Array([9, 2, 3]));
    assert.deepEqual(copy, new Uint8Array([1, 2, 3]));
  });

  test('nested containers, empty containers and key order survive', () => {
    const value: PlistValue = {
      z: [],
      a: {},
      m: [[[]], { inner: [1, 'two', new PlistReal(3)] }],
      'key with spaces': 'v',
    };
    const decoded = roundTrip(value) as PlistDict;
    assertSameValue(decoded, value);
    assert.deepEqual(Object.keys(decoded), ['z', 'a', 'm', 'key with spaces']);
  });

  test('a __proto__ key becomes an own entry and does not touch the prototype', () => {
    const value: PlistDict = {};
    Object.defineProperty(value, '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    const decoded = decodeBinaryPlist(encodeBinaryPlist(value)) as PlistDict;
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.ok(Object.prototype.hasOwnProperty.call(decoded, '__proto__'));
    assert.deepEqual(Object.keys(decoded), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('dates keep millisecond precision, before and after the 2001 epoch', () => {
    for (const ms of [978307200000, 978307200001, 978307199999, 0, -1, 1700000000123, -62135596800000]) {
      const decoded = decodeBinaryPlist(encodeBinaryPlist(new Date(ms))) as Date;
      assert.equal(decoded.getTime(), ms);
    }
  });

  test('random values round-trip exactly (seeded)', () => {
    const rng = makeRng(2024);
    for (let i = 0; i < 300; i++) {
      const value = randomPlistValue(rng, { uid: true });
      assertSameValue(roundTrip(value), value);
    }
  });
});

describe('bplist reference and offset sizes', () => {
  test('small documents use 1-byte references and offsets', () => {
    const t = bplistTrailer(encodeBinaryPlist({ a: [1, 2, 3] }));
    assert.equal(t.refSize, 1);
    assert.equal(t.offsetSize, 1);
  });

  test('256 objects still fit 1-byte references, 257 need 2', () => {
    const fits = Array.from({ length: 255 }, (_, i) => i); // 255 ints + the array
    assert.equal(bplistTrailer(encodeBinaryPlist(fits)).numObjects, 256);
    assert.equal(bplistTrailer(encodeBinaryPlist(fits)).refSize, 1);
    const over = Array.from({ length: 256 }, (_, i) => i);
    const doc = encodeBinaryPlist(over);
    assert.equal(bplistTrailer(doc).refSize, 2);
    assert.equal(bplistTrailer(doc).offsetSize, 2);
    assert.deepEqual(decodeBinaryPlist(doc), over);
  });

  test('more than 65535 objects take 4-byte references and offsets', () => {
    const values = Array.from({ length: 70000 }, (_, i) => i);
    const doc = encodeBinaryPlist(values);
    const t = bplistTrailer(doc);
    assert.equal(t.numObjects, 70001);
    assert.equal(t.refSize, 4);
    assert.equal(t.offsetSize, 4);
    const decoded = decodeBinaryPlist(doc) as number[];
    assert.equal(decoded.length, 70000);
    assert.equal(decoded[69999], 69999);
    assert.equal(decoded[12345], 12345);
  });

  test('a large object alone moves offsets to 4 bytes while references stay 1 byte', () => {
    const doc = encodeBinaryPlist([new Uint8Array(70000), 'after']);
    const t = bplistTrailer(doc);
    assert.equal(t.refSize, 1);
    assert.equal(t.offsetSize, 4);
    assert.equal((decodeBinaryPlist(doc) as PlistValue[])[1], 'after');
  });

  test('8-byte references and offsets are read', () => {
    const r8 = (n: number) => be(n, 8);
    const doc = build([[0xa2, ...r8(1), ...r8(2)], [0x51, 0x61], [0x10, 0x07]], { refSize: 8, offsetSize: 8 });
    assert.deepEqual(decodeBinaryPlist(doc), ['a', 7]);
  });

  test('2-byte and 4-byte references are read from hand-built documents', () => {
    for (const size of [2, 4]) {
      const doc = build([[0xd1, ...be(1, size), ...be(2, size)], [0x51, 0x6b], [0x09]], { refSize: size, offsetSize: size });
      assert.deepEqual(decodeBinaryPlist(doc), { k: true });
    }
  });
});

describe('bplist 16-byte integers and UIDs', () => {
  test('2^63..2^64-1 are written in the 16-byte form, as plistlib writes them', () => {
    const doc = encodeBinaryPlist(2n ** 64n - 1n);
    assert.equal(toHex(doc.subarray(8, 25)), '14' + '0000000000000000' + 'ffffffffffffffff');
    assert.equal(decodeBinaryPlist(doc), 2n ** 64n - 1n);
    assert.equal(toHex(encodeBinaryPlist(2n ** 63n).subarray(8, 25)), '14' + '0000000000000000' + '8000000000000000');
  });

  test('the 16-byte form is read for -2^63..2^64-1 and small values', () => {
    const int16 = (hex: string) => decodeBinaryPlist(build([[0x14, ...fromHex(hex)]]));
    assert.equal(int16('00000000000000000000000000000005'), 5);
    assert.equal(int16('0000000000000000ffffffffffffffff'), 2n ** 64n - 1n);
    assert.equal(int16('ffffffffffffffffffffffffffffffff'), -1);
    assert.equal(int16('ffffffffffffffff8000000000000000'), -(2n ** 63n));
  });

  test('16-byte integers outside -2^63..2^64-1 are a PlistError', () => {
    const int16 = (hex: string) => () => decodeBinaryPlist(build([[0x14, ...fromHex(hex)]]));
    throwsPlistError(int16('00000000000000010000000000000000'), /128-bit integer/); // 2^64
    throwsPlistError(int16('ffffffffffffffff7fffffffffffffff'), /128-bit integer/); // -2^63 - 1
    throwsPlistError(int16('80000000000000000000000000000000'), /128-bit integer/);
  });

  test('integers beyond 2^64-1 or below -2^63 cannot be encoded', () => {
    throwsPlistError(() => encodeBinaryPlist(2n ** 64n), /outside -2\^63\.\.2\^64-1/);
    throwsPlistError(() => encodeBinaryPlist([-(2n ** 63n) - 1n]), /outside .* at \$\[0\]/);
  });

  test('UIDs of 1 to 16 bytes decode as PlistUid', () => {
    const uid = (bytes: number[]) => decodeBinaryPlist(build([[0x80 | (bytes.length - 1), ...bytes]])) as PlistUid;
    assert.ok(uid([7]) instanceof PlistUid);
    assert.equal(uid([7]).value, 7);
    assert.equal(uid([1, 2]).value, 0x102);
    assert.equal(uid([1, 2, 3]).value, 0x10203);
    assert.equal(uid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]).value, 9);
    throwsPlistError(() => uid([1, 0, 0, 0, 0, 0, 0, 0]), /UID beyond 2\^53/);
  });

  test('UIDs inside a keyed-archive-like dict are read', () => {
    const doc = build([[0xd1, 1, 2], [0x54, ...ascii('$top')], [0x80, 0x01]]);
    const decoded = decodeBinaryPlist(doc) as PlistDict;
    assert.ok(decoded.$top instanceof PlistUid);
    assert.equal((decoded.$top as PlistUid).value, 1);
  });

  test('negative or fractional UIDs cannot be encoded', () => {
    throwsPlistError(() => encodeBinaryPlist(new PlistUid(-1)), /UID/);
    throwsPlistError(() => encodeBinaryPlist(new PlistUid(1.5)), /UID/);
  });
});

describe('bplist strings', () => {
  test('non-ASCII strings are UTF-16BE with the length in code units, surrogate pairs kept', () => {
    const doc = encodeBinaryPlist('a😀');
    // 3 UTF-16 units: 0061 d83d de00
    assert.equal(toHex(doc.subarray(8, 15)), '630061d83dde00');
    assert.equal(decodeBinaryPlist(doc), 'a😀');
  });

  test('a hand-built UTF-16 string with a surrogate pair decodes to the astral character', () => {
    const doc = build([[0x62, 0xd8, 0x34, 0xdd, 0x1e]]);
    assert.equal(decodeBinaryPlist(doc), '𝄞');
  });

  test('UTF-8 strings (0x7n, length in bytes) are read', () => {
    assert.equal(decodeBinaryPlist(build([[0x72, 0xc3, 0xa9]])), 'é');
    throwsPlistError(() => decodeBinaryPlist(build([[0x71, 0xff]])), /utf-8/);
  });

  test('an ASCII string with a byte above 0x7F is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0x52, 0x61, 0xe9]])), /ASCII string object 0 .* above 0x7F/);
    const long = [0x5f, 0x10, 40, ...new Array(39).fill(0x61), 0x80];
    throwsPlistError(() => decodeBinaryPlist(build([long])), /above 0x7F/);
  });

  test('long strings decode across chunk boundaries', () => {
    for (const length of [24, 25, 1023, 1024, 1025, 5000]) {
      const text = 'ab'.repeat(length).slice(0, length);
      assert.equal(decodeBinaryPlist(encodeBinaryPlist(text)), text);
      const wide = 'ж😀'.repeat(length).slice(0, length);
      assert.equal(decodeBinaryPlist(encodeBinaryPlist(wide)), wide);
    }
  });
});

describe('bplist deduplication', () => {
  test('two equal strings are written once', () => {
    const doc = encodeBinaryPlist({ a: 'same', b: 'same' });
    assert.equal(bplistTrailer(doc).numObjects, 4); // dict, "a", "b", "same"
    assert.deepEqual(decodeBinaryPlist(doc), { a: 'same', b: 'same' });
  });

  test('a key equal to a value string shares the object', () => {
    assert.equal(bplistTrailer(encodeBinaryPlist({ x: 'x' })).numObjects, 2);
  });

  test('numbers dedupe by type and value: 1 and real 1 stay two objects', () => {
    const doc = encodeBinaryPlist([1, 1, new PlistReal(1), new PlistReal(1), 1n]);
    assert.equal(bplistTrailer(doc).numObjects, 3);
    assertSameValue(decodeBinaryPlist(doc, { exactReals: true }), [1, 1, new PlistReal(1), new PlistReal(1), 1]);
  });

  test('reals 0 and -0 stay distinct; NaN dedupes', () => {
    const doc = encodeBinaryPlist([new PlistReal(0), new PlistReal(-0), NaN, NaN]);
    assert.equal(bplistTrailer(doc).numObjects, 4);
    const decoded = decodeBinaryPlist(doc) as number[];
    assert.ok(Object.is(decoded[0], 0) && Object.is(decoded[1], -0) && Number.isNaN(decoded[3]));
  });

  test('booleans, dates, UIDs and equal data are written once', () => {
    const value = [
      true, true, false, false,
      new Date(1000), new Date(1000),
      new PlistUid(3), new PlistUid(3),
      new Uint8Array([1, 2]), new Uint8Array([1, 2]), new Uint8Array([1, 3]),
    ];
    const doc = encodeBinaryPlist(value);
    assert.equal(bplistTrailer(doc).numObjects, 1 + 2 + 1 + 1 + 2);
    assertSameValue(decodeBinaryPlist(doc), value);
  });

  test('data blobs that differ only between sampled bytes stay distinct', () => {
    const a = new Uint8Array(1000);
    const b = new Uint8Array(1000);
    b[1] = 1; // the dedup hash samples every 15th byte of 1000; the full comparison decides
    const doc = encodeBinaryPlist([a, b, new Uint8Array(1000)]);
    assert.equal(bplistTrailer(doc).numObjects, 3);
    const decoded = decodeBinaryPlist(doc) as Uint8Array[];
    assert.equal(decoded[1][1], 1);
    assert.equal(decoded[2][1], 0);
  });

  test('many distinct data blobs of one length are all kept', () => {
    const blobs = Array.from({ length: 300 }, (_, i) => new Uint8Array([i & 255, i >> 8, 0, 0]));
    const doc = encodeBinaryPlist([...blobs, ...blobs.map((blob) => blob.slice())]);
    assert.equal(bplistTrailer(doc).numObjects, 301);
    assertSameValue(decodeBinaryPlist(doc), [...blobs, ...blobs]);
  });

  test('a container shared by identity is written once and decodes shared', () => {
    const shared = { name: 'entry' };
    const doc = encodeBinaryPlist([shared, shared]);
    assert.equal(bplistTrailer(doc).numObjects, 4); // array, dict, "name", "entry"
    const decoded = decodeBinaryPlist(doc) as PlistValue[];
    assert.equal(decoded[0], decoded[1]);
  });

  test('equal but distinct containers are written separately', () => {
    assert.equal(bplistTrailer(encodeBinaryPlist([[1], [1]])).numObjects, 4);
  });
});

describe('bplist sets, null and fill', () => {
  test('a set (0xCn) decodes as an array', () => {
    assert.deepEqual(decodeBinaryPlist(build([[0xc2, 1, 2], [0x10, 1], [0x10, 2]])), [1, 2]);
  });

  test('null (0x00), fill (0x0F) and unknown markers are PlistErrors', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0x00]])), /null/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x0f]])), /unknown marker 0x0f/);
    throwsPlistError(() => decodeBinaryPlist(build([[0xb0]])), /unknown marker 0xb0/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x34, 0, 0, 0, 0, 0, 0, 0, 0]])), /unknown marker 0x34/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x21, 0, 0]])), /real of 2 bytes/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x15, 0, 0]])), /integer of 32 bytes/);
  });

  test('a 4-byte real is read', () => {
    assert.equal(decodeBinaryPlist(build([[0x22, 0x3f, 0xc0, 0, 0]])), 1.5);
  });

  test('a dict key that is not a string is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0xd1, 1, 1], [0x10, 1]])), /dict object 0 has key object 1 that is not a string/);
  });

  test('a date outside the JavaScript range or NaN is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0x33, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0]])), /date outside/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x33, 0x7f, 0xef, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]])), /date outside/);
  });
});

describe('bplist hostile input', () => {
  const valid = encodeBinaryPlist({
    name: 'receiver',
    list: [1, 2.5, 'é', new Uint8Array([1, 2, 3]), new Date(5000), true, { deep: ['x'.repeat(20)] }],
    big: 2n ** 63n,
    uid: new PlistUid(9),
  });

  test('every truncation of a valid document is a PlistError', () => {
    for (let length = 0; length < valid.length; length++) {
      throwsPlistError(() => decodeBinaryPlist(valid.subarray(0, length)));
    }
  });

  test('bad magic is a PlistError', () => {
    const bad = valid.slice();
    bad[7] = 0x31;
    throwsPlistError(() => decodeBinaryPlist(bad), /magic/);
    throwsPlistError(() => decodeBinaryPlist(new Uint8Array(0)), /magic/);
  });

  test('a non-Uint8Array input is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist('bplist00' as unknown as Uint8Array), /not a Uint8Array/);
  });

  test('trailer fields out of range are PlistErrors naming the field', () => {
    const one = [[0x09]];
    throwsPlistError(() => decodeBinaryPlist(build(one, { offsetSize: 3 })), /offsetIntSize 3/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { refSize: 0 })), /objectRefSize 0/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { numObjects: 0 })), /numObjects is 0/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { top: 1 })), /topObject 1 is not below numObjects 1/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { tableOffset: 5000 })), /offsetTableOffset 5000 is outside/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { tableOffset: 4 })), /offsetTableOffset 4 is outside/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { numObjects: 2 ** 40 })), /numObjects/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { numObjects: 5 })), /offset table of 5 x 1 bytes/);
    throwsPlistError(() => decodeBinaryPlist(build(one, { top: 2 ** 60 })), /topObject/);
  });

  test('an object offset pointing outside the object area is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0x09]], { offsets: { 0: 200 } })), /object 0 offset 200 is beyond the object table/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x09]], { offsets: { 0: 3 } })), /object 0 offset 3 is beyond/);
    // Pointing at the offset table itself.
    throwsPlistError(() => decodeBinaryPlist(build([[0x09]], { offsets: { 0: 9 } })), /object 0 offset 9 is beyond/);
    throwsPlistError(
      () => decodeBinaryPlist(build([[0xa1, 1], [0x09]], { offsets: { 1: 0xffffffff }, offsetSize: 4 })),
      /object 1 offset 4294967295 is beyond the object table/,
    );
  });

  test('a reference to a missing object is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0xa1, 5]])), /object 0 refers to object 5, beyond the 1 objects/);
    throwsPlistError(() => decodeBinaryPlist(build([[0xd1, 1, 9], [0x51, 0x61]])), /refers to object 9/);
  });

  test('an array that contains itself is a reference cycle', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0xa1, 0]])), /reference cycle through object 0/);
    throwsPlistError(() => decodeBinaryPlist(build([[0xa1, 1], [0xd1, 2, 0], [0x51, 0x6b]])), /reference cycle through object 0/);
  });

  test('a dict using itself as a key is a cycle, not a crash', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0xd1, 0, 0]])), /reference cycle/);
  });

  test('nesting deeper than the limit is a PlistError, within it decodes', () => {
    const chain = (levels: number) => {
      const objects: number[][] = [];
      for (let i = 0; i < levels - 1; i++) objects.push([0xa1, i + 1]);
      objects.push([0xa0]);
      return build(objects);
    };
    assert.ok(Array.isArray(decodeBinaryPlist(chain(64))));
    throwsPlistError(() => decodeBinaryPlist(chain(65)), /nested deeper than 64 levels/);
    throwsPlistError(() => decodeBinaryPlist(chain(10), { limits: { maxDepth: 9 } }), /deeper than 9/);
    assert.ok(Array.isArray(decodeBinaryPlist(chain(100), { limits: { maxDepth: 100 } })));
  });

  test('nesting 3000 deep under a raised limit decodes without engine recursion', () => {
    // XS runs with a stack of a few hundred frames and aborts on overflow: the walk must be iterative.
    const levels = 3000;
    const objects: number[][] = [];
    for (let i = 0; i < levels - 1; i++) objects.push([0xa1, ...be(i + 1, 2)]);
    objects.push([0x51, 0x7a]);
    const doc = build(objects, { refSize: 2, offsetSize: 2 });
    throwsPlistError(() => decodeBinaryPlist(doc), /nested deeper than 64 levels/);
    let value = decodeBinaryPlist(doc, { limits: { maxDepth: levels } });
    for (let i = 0; i < levels - 1; i++) {
      assert.ok(Array.isArray(value) && value.length === 1);
      value = value[0];
    }
    assert.equal(value, 'z');
  });

  test('a shared container reached again deeper must still fit the depth limit', () => {
    // Top [A0, B0]: A is a 40-deep chain (fits), B a 30-deep chain whose end refers back to A0,
    // which would make the decoded value 70 deep.
    const objects: number[][] = [[0xa2, 1, 41]];
    for (let i = 0; i < 40; i++) objects.push(i < 39 ? [0xa1, 2 + i] : [0xa0]); // objects 1..40
    for (let i = 0; i < 30; i++) objects.push([0xa1, i < 29 ? 42 + i : 1]); // objects 41..70
    throwsPlistError(() => decodeBinaryPlist(build(objects)), /nested deeper than 64 levels/);
    assert.ok(Array.isArray(decodeBinaryPlist(build(objects), { limits: { maxDepth: 80 } })));
  });

  test('exponential sharing (each level referring twice to the next) decodes at once', () => {
    const objects: number[][] = [];
    for (let i = 0; i < 60; i++) objects.push([0xa2, i + 1, i + 1]);
    objects.push([0x51, 0x78]);
    let value = decodeBinaryPlist(build(objects)) as PlistValue;
    for (let i = 0; i < 60; i++) {
      const pair = value as PlistValue[];
      assert.equal(pair[0], pair[1]);
      value = pair[0];
    }
    assert.equal(value, 'x');
  });

  test('huge declared lengths fail before allocating', () => {
    const cases: number[][] = [
      [0x4f, 0x13, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // data of 2^63 bytes
      [0x5f, 0x12, 0xff, 0xff, 0xff, 0xff], // ASCII string of 4 GiB
      [0x6f, 0x12, 0x7f, 0xff, 0xff, 0xff], // UTF-16 string of 2^31 units
      [0x7f, 0x11, 0xff, 0xff],
      [0xaf, 0x12, 0x10, 0x00, 0x00, 0x00], // array of 2^28 refs
      [0xdf, 0x13, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00], // dict of 2^32 entries
      [0x4e, 1, 2], // 14 bytes declared, 2 present
    ];
    for (const object of cases) throwsPlistError(() => decodeBinaryPlist(build([object])), /needs \d+ bytes at offset/);
  });

  test('a length marker that is not a 1, 2, 4 or 8-byte int is a PlistError', () => {
    throwsPlistError(() => decodeBinaryPlist(build([[0x4f, 0x23, 0, 0, 0, 0, 0, 0, 0, 0]])), /bad length marker 0x23/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x4f, 0x14, ...new Array(16).fill(0)]])), /bad length marker 0x14/);
    throwsPlistError(() => decodeBinaryPlist(build([[0x4f]])), /needs 1 bytes/);
  });

  test('limits on input size and object count apply', () => {
    throwsPlistError(() => decodeBinaryPlist(valid, { limits: { maxBytes: valid.length - 1 } }), /exceeds the limit of/);
    assert.ok(decodeBinaryPlist(valid, { limits: { maxBytes: valid.length } }));
    const count = bplistTrailer(valid).numObjects;
    throwsPlistError(() => decodeBinaryPlist(valid, { limits: { maxObjects: count - 1 } }), new RegExp(`numObjects ${count} exceeds`));
    assert.ok(decodeBinaryPlist(valid, { limits: { maxObjects: count, maxDepth: undefined } }));
  });

  test('random byte mutations of valid documents decode or throw PlistError, nothing else', () => {
    const rng = makeRng(0xb0b);
    const bases = [valid, encodeBinaryPlist(Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `s${i}` : i)))];
    for (let i = 0; i < 40; i++) bases.push(encodeBinaryPlist(randomPlistValue(rng, { uid: true })));
    let decoded = 0;
    for (let round = 0; round < 4000; round++) {
      const base = bases[round % bases.length];
      const doc = base.slice();
      const edits = rng.int(1, 4);
      for (let e = 0; e < edits; e++) {
        // Mostly anywhere; a third of edits aim at the trailer and offset table, where a byte matters most.
        const position = rng.next() < 0.33 ? doc.length - 1 - rng.int(0, Math.min(doc.length - 1, 60)) : rng.int(0, doc.length - 1);
        doc[position] = rng.next() < 0.5 ? rng.int(0, 255) : doc[position] ^ (1 << rng.int(0, 7));
      }
      try {
        decodeBinaryPlist(doc);
        decoded++;
      } catch (error) {
        if (!(error instanceof PlistError)) assert.fail(`round ${round}: ${String(error)} for ${toHex(doc)}`);
      }
    }
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    assert.ok(decoded > 100 && decoded < 3900, `decoded ${decoded} of 4000`);
  });
});

describe('bplist encoding errors', () => {
  test('undefined values are a PlistError naming the key or index', () => {
    throwsPlistError(() => encodeBinaryPlist({ settings: { theme: undefined } } as unknown as PlistValue), /undefined at \$\["settings"\]\["theme"\]/);
    throwsPlistError(() => encodeBinaryPlist([1, undefined] as unknown as PlistValue), /undefined at \$\[1\]/);
    throwsPlistError(() => encodeBinaryPlist(undefined as unknown as PlistValue), /undefined at \$/);
  });

  test('null, functions, symbols and non-plain objects are PlistErrors', () => {
    const bad: unknown[] = [null, () => 1, Symbol('s'), new Map(), new Set(), new Int16Array(2), new (class Point {})(), /re/];
    for (const value of bad) throwsPlistError(() => encodeBinaryPlist({ k: value } as unknown as PlistValue), /cannot encode .* at \$\["k"\]/);
  });

  test('an object with a null prototype is a dict', () => {
    const dict = Object.create(null) as PlistDict;
    dict.a = 1;
    assert.deepEqual(decodeBinaryPlist(encodeBinaryPlist(dict)), { a: 1 });
  });

  test('an error thrown by a getter comes out as a PlistError', () => {
    const dict = {};
    Object.defineProperty(dict, 'k', { enumerable: true, get: () => { throw new Error('getter failed'); } });
    throwsPlistError(() => encodeBinaryPlist(dict), /getter failed/);
  });

  test('an invalid Date is a PlistError', () => {
    throwsPlistError(() => encodeBinaryPlist([new Date(NaN)]), /invalid Date at \$\[0\]/);
  });

  test('a container that contains itself is a PlistError, not a stack overflow', () => {
    const array: PlistValue[] = [1];
    array.push(array);
    throwsPlistError(() => encodeBinaryPlist(array), /contains itself at \$\[1\]/);
    const dict: PlistDict = {};
    dict.inner = { back: dict };
    throwsPlistError(() => encodeBinaryPlist(dict), /contains itself at \$\["inner"\]\["back"\]/);
  });

  test('nesting deeper than the default limit is a PlistError', () => {
    let value: PlistValue = [];
    for (let i = 0; i < 63; i++) value = [value];
    assert.ok(encodeBinaryPlist(value).length > 0); // 64 levels
    throwsPlistError(() => encodeBinaryPlist([value]), /nested deeper than 64 levels/);
  });

  test('exponential sharing encodes once per distinct container', () => {
    let value: PlistValue = 'leaf';
    for (let i = 0; i < 50; i++) value = [value, value];
    assert.equal(bplistTrailer(encodeBinaryPlist(value)).numObjects, 51);
  });
});
