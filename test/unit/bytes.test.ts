// Byte helpers: hex, base64, UTF-8, Latin-1, integer reads and writes, views.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as bytes from '../../src/bytes';
import { makeRng } from '../support/arbitrary';

const u8 = (...values: number[]) => new Uint8Array(values);

test('concat joins parts in order into a new array', () => {
  assert.deepEqual(bytes.concat(u8(1, 2), u8(), u8(3)), u8(1, 2, 3));
  assert.deepEqual(bytes.concat(), u8());
});

test('hex round-trips and accepts upper case and separators', () => {
  assert.equal(bytes.toHex(u8(0, 1, 0xab, 0xff)), '0001abff');
  assert.equal(bytes.toHex(u8(0xaa, 0xbb, 0x0c), ':'), 'aa:bb:0c');
  assert.deepEqual(bytes.fromHex('0001ABff'), u8(0, 1, 0xab, 0xff));
  assert.deepEqual(bytes.fromHex('AA:BB:0C', ':'), u8(0xaa, 0xbb, 0x0c));
});

test('hex rejects odd length and non-hex digits with a BytesError', () => {
  assert.throws(() => bytes.fromHex('abc'), bytes.BytesError);
  assert.throws(() => bytes.fromHex('zz'), /invalid digit/);
});

test('base64 matches RFC 4648 section 10 vectors', () => {
  const vectors: [string, string][] = [
    ['', ''], ['f', 'Zg=='], ['fo', 'Zm8='], ['foo', 'Zm9v'], ['foob', 'Zm9vYg=='], ['fooba', 'Zm9vYmE='], ['foobar', 'Zm9vYmFy'],
  ];
  for (const [plain, encoded] of vectors) {
    assert.equal(bytes.toBase64(bytes.utf8Encode(plain)), encoded);
    assert.equal(bytes.utf8Decode(bytes.fromBase64(encoded)), plain);
  }
});

test('base64 decoding skips whitespace, tolerates missing padding, rejects bad characters', () => {
  assert.deepEqual(bytes.fromBase64('Zm9v\n\tYmFy'), bytes.utf8Encode('foobar'));
  assert.deepEqual(bytes.fromBase64('Zm8'), bytes.utf8Encode('fo'));
  assert.throws(() => bytes.fromBase64('Zm9v*'), /invalid character/);
  assert.throws(() => bytes.fromBase64('Z'), /truncated/);
  assert.throws(() => bytes.fromBase64('Zg==Zg=='), /invalid character/);
});

test('base64 round-trips random bytes of every length up to 300', () => {
  const rng = makeRng(7);
  for (let length = 0; length <= 300; length++) {
    const data = rng.bytes(length);
    assert.deepEqual(bytes.fromBase64(bytes.toBase64(data)), data);
  }
});

test('UTF-8 encodes 1- to 4-byte sequences exactly', () => {
  assert.deepEqual(bytes.utf8Encode('A'), u8(0x41));
  assert.deepEqual(bytes.utf8Encode('é'), u8(0xc3, 0xa9));
  assert.deepEqual(bytes.utf8Encode('€'), u8(0xe2, 0x82, 0xac));
  assert.deepEqual(bytes.utf8Encode('😀'), u8(0xf0, 0x9f, 0x98, 0x80));
  assert.deepEqual(bytes.utf8Encode('\ud800'), u8(0xef, 0xbf, 0xbd), 'a lone surrogate becomes U+FFFD');
});

test('UTF-8 decoding rejects overlong forms, surrogates and truncation, or replaces them', () => {
  for (const bad of [u8(0xc0, 0x80), u8(0xed, 0xa0, 0x80), u8(0xf4, 0x90, 0x80, 0x80), u8(0xe2, 0x82), u8(0x80), u8(0xff)]) {
    assert.throws(() => bytes.utf8Decode(bad), /utf-8: malformed sequence at offset 0/);
  }
  assert.equal(bytes.utf8Decode(u8(0x61, 0xff, 0x62), false), 'a\ufffdb');
  assert.equal(bytes.utf8Decode(u8(0xe2, 0x82, 0x61), false), '\ufffda');
});

test('UTF-8 round-trips random strings including astral characters', () => {
  const rng = makeRng(11);
  const alphabet = ['a', 'é', '中', '😀', '\u0000', '\u07ff', '\u0800', '\uffff', '\u{10ffff}'];
  for (let i = 0; i < 500; i++) {
    let text = '';
    for (let j = rng.int(0, 20); j > 0; j--) text += rng.pick(alphabet);
    assert.equal(bytes.utf8Decode(bytes.utf8Encode(text)), text);
  }
});

test('UTF-8 decodes long inputs (beyond one flush chunk)', () => {
  const text = 'ab€'.repeat(5000);
  assert.equal(bytes.utf8Decode(bytes.utf8Encode(text)), text);
});

test('Latin-1 maps bytes one to one and refuses characters above U+00FF', () => {
  assert.equal(bytes.latin1Decode(u8(0x48, 0xe9)), 'Hé');
  assert.deepEqual(bytes.latin1Encode('Hé'), u8(0x48, 0xe9));
  assert.throws(() => bytes.latin1Encode('€'), /not encodable/);
  const target = u8(1, 2, 3, 4, 5);
  bytes.latin1EncodeInto('Hé', target, 2);
  assert.deepEqual(target, u8(1, 2, 0x48, 0xe9, 5), 'written in place from the offset, nothing else touched');
  assert.throws(() => bytes.latin1EncodeInto('a€', target, 0), /not encodable/);
});

test('Latin-1 decodes every length the same way: empty, short pieces and long runs in chunks', () => {
  for (const length of [0, 1, 63, 64, 65, 128, 1000]) {
    const data = new Uint8Array(length).map((_, i) => (i * 7 + 3) & 0xff);
    const text = bytes.latin1Decode(data);
    assert.equal(text.length, length);
    for (let i = 0; i < length; i++) assert.equal(text.charCodeAt(i), data[i], `length ${length}, index ${i}`);
  }
});

test('big- and little-endian integer reads', () => {
  const data = u8(0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88);
  assert.equal(bytes.readU16BE(data, 0), 0x0102);
  assert.equal(bytes.readU16LE(data, 0), 0x0201);
  assert.equal(bytes.readU32BE(data, 4), 0x05060788);
  assert.equal(bytes.readU32LE(data, 4), 0x88070605);
  assert.equal(bytes.readI32LE(data, 4), 0x88070605 - 2 ** 32);
  assert.equal(bytes.readU64BE(data, 0), 0x0102030405060788n);
  assert.equal(bytes.readU64LE(data, 0), 0x8807060504030201n);
  assert.equal(bytes.readI64LE(data, 0), 0x8807060504030201n - 2n ** 64n);
  assert.equal(bytes.readI64BE(u8(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe), 0), -2n);
  assert.equal(bytes.readUintBE(data, 1, 3), 0x020304);
});

test('reads beyond the buffer throw a BytesError naming offset and size', () => {
  assert.throws(() => bytes.readU32BE(u8(1, 2, 3), 0), /read of 4 bytes at offset 0 is beyond the 3-byte buffer/);
  assert.throws(() => bytes.readU8(u8(), 0), bytes.BytesError);
});

test('integer writes produce exact bytes and wrap 64-bit values', () => {
  const out = new Uint8Array(8);
  bytes.writeU64BE(out, 0, -1n);
  assert.deepEqual(out, u8(255, 255, 255, 255, 255, 255, 255, 255));
  bytes.writeU64LE(out, 0, 0x0102030405060708n);
  assert.deepEqual(out, u8(8, 7, 6, 5, 4, 3, 2, 1));
  bytes.writeU32BE(out, 0, 0xdeadbeef);
  bytes.writeU16LE(out, 4, 0x1234);
  assert.deepEqual(out.subarray(0, 6), u8(0xde, 0xad, 0xbe, 0xef, 0x34, 0x12));
  bytes.writeUintBE(out, 0, 6, 2 ** 40 + 5);
  assert.deepEqual(out.subarray(0, 6), u8(1, 0, 0, 0, 0, 5));
  assert.throws(() => bytes.writeU32LE(out, 6, 1), /beyond/);
});

test('slice is a view over the same memory, and indexOf finds sequences', () => {
  const data = u8(1, 2, 3, 4, 13, 10, 13, 10, 5);
  const view = bytes.slice(data, 1, 2);
  view[0] = 9;
  assert.equal(data[1], 9);
  assert.equal(bytes.indexOf(data, u8(13, 10, 13, 10)), 4);
  assert.equal(bytes.indexOf(data, u8(13, 10, 13, 10), 5), -1);
  assert.ok(bytes.equal(bytes.dataView(view).buffer === data.buffer ? u8(1) : u8(2), u8(1)));
});
