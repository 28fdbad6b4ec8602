// The ALAC bitstream reader (src/audio/alac/alac-bit-reader.ts): big-endian bits first, reads
// that cross bytes, signed reads, and an overrun flagged (zeros read) rather than thrown.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AlacBitReader, PADDING, peek32 } from '../../src/audio/alac/alac-bit-reader';
import { packBits } from '../kernels/alac-vectors';

test('reads bits most significant first, across byte boundaries, up to 32 at a time', () => {
  const reader = new AlacBitReader();
  reader.load(Uint8Array.of(0b10110011, 0x0f, 0xff, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a));
  assert.equal(reader.read(3), 0b101);
  assert.equal(reader.read(9), 0b100110000);
  assert.equal(reader.read(0), 0);
  assert.equal(reader.read(12), 0xfff);
  assert.equal(reader.read(32), 0x00123456);
  assert.equal(reader.pos, 56);
  assert.equal(reader.read(4), 7);
  assert.equal(reader.overrun, false);
});

test('readSigned sign-extends; align goes to the next byte boundary', () => {
  const reader = new AlacBitReader();
  reader.load(packBits('1111 1110 0111 1111 1  0000000 10000000 00000000'));
  assert.equal(reader.readSigned(8), -2);
  assert.equal(reader.readSigned(9), 255);
  reader.align();
  assert.equal(reader.pos, 24);
  assert.equal(reader.readSigned(16), -32768);
});

test('a read past the packet sets overrun and reads zeros from the padding; skip past it too', () => {
  const reader = new AlacBitReader();
  reader.load(Uint8Array.of(0xff));
  assert.equal(reader.read(12), 0xff0);
  assert.equal(reader.overrun, true);
  assert.equal(reader.pos, 8);
  reader.load(Uint8Array.of(0xff, 0xff));
  assert.equal(reader.overrun, false, 'load starts again');
  reader.skip(17);
  assert.equal(reader.overrun, true);
});

test('the buffer is reused, and the padding after a shorter packet is zero again', () => {
  const reader = new AlacBitReader();
  reader.load(new Uint8Array(40).fill(0xff));
  const buffer = reader.bytes;
  reader.load(Uint8Array.of(0xaa));
  assert.equal(reader.bytes, buffer);
  for (let i = 1; i <= PADDING; i++) assert.equal(reader.bytes[i], 0);
  assert.equal(peek32(reader.bytes, 1) >>> 0, 0x54000000);
});
