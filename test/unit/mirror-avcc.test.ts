// avcC (spec 2.14 codec data, ISO/IEC 14496-15 5.3.3.1): built from SPS and PPS, read back into
// the decoder's configuration; malformed records refused with the reason.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { AvcCError, buildAvcC, codecString, parameterSetsAnnexB, parseAvcC } from '../../src/mirror/avcc';

const SPS = Uint8Array.of(0x67, 0x4d, 0x40, 0x1f, 0xec, 0xa0);
const PPS = Uint8Array.of(0x68, 0xeb, 0xe3, 0xcb);

test('an avcC record from SPS and PPS: version 1, the SPS profile and level, reserved bits set', () => {
  const avcC = buildAvcC([SPS], [PPS], 4);
  assert.equal(toHex(avcC), '014d401f' + 'ff' + 'e1' + '0006' + toHex(SPS) + '01' + '0004' + toHex(PPS));
});

test('read back: codec string avc1.PPCCLL, the NAL length size, SPS and PPS as Annex B', () => {
  for (const lengthSize of [1, 2, 4] as const) {
    const avcC = parseAvcC(buildAvcC([SPS], [PPS], lengthSize));
    assert.equal(avcC.lengthSize, lengthSize);
    assert.equal(codecString(avcC), 'avc1.4d401f');
    assert.equal(toHex(parameterSetsAnnexB(avcC)), '00000001' + toHex(SPS) + '00000001' + toHex(PPS));
  }
});

test('malformed records are refused, each with its reason', () => {
  const good = buildAvcC([SPS], [PPS]);
  const cases: [Uint8Array, RegExp][] = [
    [Uint8Array.of(1, 2, 3), /needs at least 7/],
    [Uint8Array.of(0, ...good.subarray(1)), /version is 0/],
    [Uint8Array.of(...good.subarray(0, 4), 0xfe, ...good.subarray(5)), /length size is 3/],
    [good.subarray(0, 12), /SPS 1 is 6 bytes; only 4 are left/],
    [Uint8Array.of(...good.subarray(0, 5), 0xe0, 1), /no sequence parameter set/],
    [good.subarray(0, 14), /ends before its count of picture parameter sets/],
    [Uint8Array.of(...good.subarray(0, 6), 0, 2, 0x68, 0), /SPS 1 is NAL type 8, not 7/],
    [Uint8Array.of(...good.subarray(0, 14), 0), /no picture parameter set/],
    [new Uint8Array(40).fill(0xff), /version is 255/],
  ];
  for (const [bytes, reason] of cases) {
    assert.throws(() => parseAvcC(bytes), (error: unknown) => error instanceof AvcCError && reason.test(error.message), `${toHex(bytes)} should fail with ${reason}`);
  }
});
