// RFC 3640 AU-headers sections (mode AAC-hbr, 3.3.6): units found behind their 13-bit sizes as
// views into the packet, several per packet too; every inconsistency between the headers and
// the packet refused; the writer's packets read back.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { AudioDecodeError } from '../../src/audio/decoder';
import { AAC_HBR_LAYOUT, readAuHeaders, writeAuHeaders } from '../../src/audio/aac-au-headers';

test('one unit behind an AAC-hbr header: 16 bits of headers length, 13 bits of size, 3 of index', () => {
  // Headers length 16 bits; size 5 (0000000000101), index 0: 0x0028.
  const packet = fromHex('0010' + '0028' + '0102030405');
  const units = readAuHeaders(packet);
  assert.equal(units.length, 1);
  assert.equal(toHex(units[0]), '0102030405');
  assert.equal(units[0].buffer, packet.buffer, 'a view, not a copy');
  assert.equal(toHex(writeAuHeaders([fromHex('0102030405')])), toHex(packet));
});

test('several units per packet, and sizes up to 13 bits, come back in order', () => {
  const units = [new Uint8Array(300).fill(1), new Uint8Array(8191).fill(2), new Uint8Array(1).fill(3)];
  const packet = writeAuHeaders(units);
  assert.equal((packet[0] << 8) | packet[1], 48, 'three 16-bit headers');
  assert.deepEqual(readAuHeaders(packet, AAC_HBR_LAYOUT).map((unit) => [unit.length, unit[0]]), [[300, 1], [8191, 2], [1, 3]]);
});

test('a layout with other widths (sizeLength 6, no index) is read, the headers padded to a byte', () => {
  // 6 bits: size 3 -> 000011, padded to 00001100.
  assert.equal(toHex(readAuHeaders(fromHex('0006' + '0c' + 'aabbcc'), { sizeLength: 6, indexLength: 0, indexDeltaLength: 0 })[0]), 'aabbcc');
});

test('packets whose headers and units disagree are refused, never read past their end', () => {
  const refused = (hex: string, pattern: RegExp) =>
    assert.throws(() => readAuHeaders(fromHex(hex)), (error) => error instanceof AudioDecodeError && pattern.test(error.message), hex);
  refused('00', /1 bytes: no AU-headers-length/);
  refused('0010', /AU headers of 16 bits do not fit/);
  refused('0000' + '01', /without access units/);
  refused('000c' + '0020' + '01', /4 bits left|12 bits left of the AU headers, a header takes 16/);
  refused('0010' + '0030' + '0102030405', /AU 0 of 6 bytes at 4 runs past its end/);
  refused('0010' + '0020' + '0102030405', /1 bytes after its 1 access units/);
  refused('0010' + '0000' + '01', /AU 0 of 0 bytes/);
  refused('0010' + '002a' + '0102030405', /index 2; interleaved units are not played/);
  assert.throws(() => readAuHeaders(fromHex('0010002801'), { sizeLength: 0, indexLength: 0, indexDeltaLength: 0 }), /without a size field/);
  assert.throws(() => writeAuHeaders([new Uint8Array(8192)]), /AU of 8192 bytes: 1 to 8191/);
  assert.throws(() => writeAuHeaders([]), /0 access units/);
});

test('truncating a good packet anywhere is refused with AudioDecodeError', () => {
  const packet = writeAuHeaders([new Uint8Array(40).fill(7), new Uint8Array(9).fill(8)]);
  for (let length = 0; length < packet.length; length++) assert.throws(() => readAuHeaders(packet.subarray(0, length)), AudioDecodeError, `cut at ${length}`);
});
