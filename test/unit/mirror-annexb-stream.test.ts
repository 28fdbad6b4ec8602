import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decoderInput, groupAccessUnits, lengthPrefixed, nalType, splitNalUnits } from '../../src/mirror/annexb-stream';
import { portableNalKernel } from '../../src/mirror/nal-kernel';

const SPS = Uint8Array.of(0x67, 0x42, 0xc0, 0x1e);
const PPS = Uint8Array.of(0x68, 0xce, 0x3c, 0x80);
const SEI = Uint8Array.of(0x06, 0x05, 0x01, 0x80);
/** IDR slice, first_mb_in_slice 0 (first bit 1). */
const IDR = Uint8Array.of(0x65, 0x88, 0x84, 0x00, 0x21);
/** Second slice of the same picture: first_mb_in_slice != 0 (first bit 0). */
const IDR_SECOND_SLICE = Uint8Array.of(0x65, 0x40, 0x11);
const P1 = Uint8Array.of(0x41, 0x9a, 0x02);
const P2 = Uint8Array.of(0x41, 0x9a, 0x04, 0x00, 0x00, 0x02);

function annexB(units: Uint8Array[], startCode: number[] = [0, 0, 0, 1]): Uint8Array {
  return Uint8Array.from(units.flatMap((unit) => [...startCode, ...unit]));
}

test('splitNalUnits finds units behind 3- and 4-byte start codes, trailing zeros dropped', () => {
  const stream = Uint8Array.from([0xff, ...annexB([SPS]), 0, ...annexB([PPS], [0, 0, 1]), ...annexB([IDR]), 0, 0]);
  const units = splitNalUnits(stream);
  assert.deepEqual(units.map((unit) => [...unit]), [[...SPS], [...PPS], [...IDR]]);
});

test('splitNalUnits keeps 00 00 02 inside a unit (not a start code)', () => {
  assert.deepEqual(splitNalUnits(annexB([P2, P1])).map((unit) => [...unit]), [[...P2], [...P1]]);
});

test('groupAccessUnits: parameter sets and SEI open a unit, a second slice of a picture stays in it', () => {
  const units = splitNalUnits(annexB([SPS, PPS, SEI, IDR, IDR_SECOND_SLICE, P1, P2, SPS, PPS, IDR]));
  const groups = groupAccessUnits(units).map((group) => group.map(nalType));
  assert.deepEqual(groups, [[7, 8, 6, 5, 5], [1], [1], [7, 8, 5]]);
});

test('decoderInput: every SPS and PPS as the parameter sets, access units as Annex B with their key-frame flags', () => {
  const { parameterSets, accessUnits } = decoderInput(annexB([SPS, PPS, SEI, IDR, IDR_SECOND_SLICE, P1, P2], [0, 0, 1]));
  assert.deepEqual([...parameterSets], [...annexB([SPS, PPS])]);
  assert.deepEqual(
    accessUnits.map((unit) => [[...unit.bytes], unit.keyFrame]),
    [
      [[...annexB([SPS, PPS, SEI, IDR, IDR_SECOND_SLICE])], true],
      [[...annexB([P1])], false],
      [[...annexB([P2])], false],
    ],
  );
});

test('lengthPrefixed then the NAL kernel gives the Annex B access unit back', () => {
  for (const lengthSize of [1, 2, 4] as const) {
    const payload = lengthPrefixed([SPS, PPS, IDR], lengthSize);
    assert.equal(payload.length, 3 * lengthSize + SPS.length + PPS.length + IDR.length);
    const unit = portableNalKernel.toAnnexB(payload, lengthSize);
    assert.deepEqual([...unit.accessUnit], [...annexB([SPS, PPS, IDR])]);
    assert.equal(unit.keyFrame, true);
    assert.equal(unit.nalCount, 3);
  }
});

test('lengthPrefixed refuses a unit too long for the length size', () => {
  assert.throws(() => lengthPrefixed([new Uint8Array(256)], 1), RangeError);
});
