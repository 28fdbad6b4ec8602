// The structural check of a received picture (src/receiver/media/jpeg.ts, ITU-T T.81 annex B).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat } from '../../src/bytes';
import { describeJpegFrame, inspectJpeg, isJpeg, JpegError } from '../../src/receiver/media/jpeg';
import { sampleJpeg, SAMPLE_JPEG_SIZE } from '../support/jpeg-samples';
import { assertThrowsKind } from '../support/throws';

const SOI = [0xff, 0xd8];
const EOI = [0xff, 0xd9];
const APP0 = [0xff, 0xe0, 0x00, 0x04, 0x00, 0x00];
const sof = (marker: number, height: number, width: number) => [0xff, marker, 0x00, 0x0b, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x01, 0x01, 0x11, 0x00];
const SOS = [0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00];
const SCAN = [0x12, 0xff, 0x00, 0x34];

function jpeg(...parts: number[][]): Uint8Array {
  return concat(...parts.map((part) => Uint8Array.from(part)));
}

const throwsJpeg = (bytes: Uint8Array, pattern: RegExp) => assertThrowsKind(() => inspectJpeg(bytes), JpegError, pattern);

const GRAY = { process: 'baseline', arithmetic: false, differential: false, precision: 8, components: [{ id: 1, horizontal: 1, vertical: 1, quantTable: 0 }] } as const;

test('a baseline picture gives its frame header: size, coding, precision, components', () => {
  assert.deepEqual(inspectJpeg(sampleJpeg(200)), { ...SAMPLE_JPEG_SIZE, ...GRAY });
  assert.deepEqual(inspectJpeg(jpeg(SOI, APP0, sof(0xc0, 480, 640), SOS, SCAN, EOI)), { width: 640, height: 480, ...GRAY });
});

test('the components give their sampling factors and quantization tables (a 4:2:0 photo)', () => {
  const sof420 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x0b, 0xb8, 0x0f, 0xa0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
  const info = inspectJpeg(jpeg(SOI, sof420, SOS, SCAN, EOI));
  assert.deepEqual(info.components, [
    { id: 1, horizontal: 2, vertical: 2, quantTable: 0 },
    { id: 2, horizontal: 1, vertical: 1, quantTable: 1 },
    { id: 3, horizontal: 1, vertical: 1, quantTable: 1 },
  ]);
  assert.equal(describeJpegFrame(info), '4000x3000 baseline 2x2,1x1,1x1');
});

test('each start-of-frame marker names its coding (T.81 table B.1); DHT, JPG and DAC are not frame headers', () => {
  const coding = (marker: number) => {
    const { process, arithmetic, differential } = inspectJpeg(jpeg(SOI, sof(marker, 1, 1), SOS, EOI));
    return `${process}${arithmetic ? ' arithmetic' : ''}${differential ? ' differential' : ''}`;
  };
  assert.deepEqual(
    [0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf].map(coding),
    ['baseline', 'extended', 'progressive', 'lossless', 'extended differential', 'progressive differential', 'lossless differential',
      'extended arithmetic', 'progressive arithmetic', 'lossless arithmetic', 'extended arithmetic differential', 'progressive arithmetic differential', 'lossless arithmetic differential'],
  );
  for (const marker of [0xc4, 0xc8, 0xcc]) throwsJpeg(jpeg(SOI, sof(marker, 1, 1), SOS, EOI), /no frame header \(SOFn\) before the start of scan/);
  assert.equal(describeJpegFrame(inspectJpeg(jpeg(SOI, sof(0xc2, 3, 4), SOS, EOI))), '4x3 progressive grayscale');
});

test('a frame header shorter than its components, or with none, is refused', () => {
  // Three components announced in a segment with room for one.
  const short = [0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01, 0x03, 0x01, 0x11, 0x00];
  throwsJpeg(jpeg(SOI, short, SOS, EOI), /offset 2: frame header of 11 bytes is too short for 3 components/);
  const none = [0xff, 0xc0, 0x00, 0x08, 0x08, 0x00, 0x01, 0x00, 0x01, 0x00];
  throwsJpeg(jpeg(SOI, none, SOS, EOI), /offset 2: frame header names no components/);
});

test('fill bytes before a marker, segment-less markers and trailers after EOI are accepted', () => {
  assert.equal(inspectJpeg(jpeg(SOI, [0xff, 0xff], APP0, [0xff, 0x01, 0xff, 0xd3], sof(0xc0, 2, 3), SOS, SCAN, EOI, [1, 2, 3])).width, 3);
  assert.equal(inspectJpeg(jpeg(SOI, sof(0xc0, 2, 3), SOS, EOI, EOI, [0, 0])).height, 2);
});

test('a height of 0 (given later by DNL) is accepted, a width of 0 is not', () => {
  assert.equal(inspectJpeg(jpeg(SOI, sof(0xc0, 0, 8), SOS, EOI)).height, 0);
  throwsJpeg(jpeg(SOI, sof(0xc0, 8, 0), SOS, EOI), /offset 2: frame header gives width 0/);
});

test('bytes that are not a JPEG fail at the start', () => {
  throwsJpeg(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]), /no JPEG start-of-image marker/);
  throwsJpeg(Uint8Array.from([0xff, 0xd8, 0xff]), /no JPEG start-of-image marker/);
  throwsJpeg(Uint8Array.from([0xff, 0xd8, 0x00, 0x00]), /no JPEG start-of-image marker/);
  throwsJpeg(new Uint8Array(0), /no JPEG start-of-image marker/);
});

test('broken marker segments are named with their offset', () => {
  throwsJpeg(jpeg(SOI, APP0), /data ends at offset 8 before the start of scan/);
  throwsJpeg(jpeg(SOI, APP0, [0x00, 0xff]), /offset 8: expected a marker \(FF\), found 00/);
  throwsJpeg(jpeg(SOI, [0xff, 0xff, 0xff]), /data ends at offset 5 inside a marker/);
  throwsJpeg(jpeg(SOI, APP0, EOI), /offset 8: marker FF D9 before the start of scan/);
  throwsJpeg(jpeg(SOI, SOI, APP0), /offset 2: marker FF D8 before the start of scan/);
  throwsJpeg(jpeg(SOI, [0xff, 0xe1, 0x00]), /offset 2: segment FF E1 has no length/);
  throwsJpeg(jpeg(SOI, [0xff, 0xe1, 0x00, 0x09, 0x00]), /segment FF E1 of 9 bytes runs past the end \(7\)/);
  throwsJpeg(jpeg(SOI, [0xff, 0xe1, 0x00, 0x01, 0x00, 0x00]), /segment FF E1 of 1 bytes/);
  throwsJpeg(jpeg(SOI, [0xff, 0xc0, 0x00, 0x07, 0, 0, 0, 0, 0], SOS, EOI), /offset 2: frame header of 7 bytes is too short/);
});

test('a picture cut short after the scan header has no end-of-image marker', () => {
  const whole = sampleJpeg(100);
  throwsJpeg(whole.subarray(0, 99), /no end-of-image marker \(FF D9\) after the start of scan at offset 43: the picture is cut short/);
  // An FF D9 inside the scan header does not count: only after it.
  throwsJpeg(jpeg(SOI, sof(0xc0, 1, 1), SOS), /no end-of-image marker/);
});

test('isJpeg answers the same question without throwing', () => {
  assert.equal(isJpeg(sampleJpeg(64)), true);
  assert.equal(isJpeg(Uint8Array.from([0x47, 0x49, 0x46, 0x38])), false);
  assert.equal(isJpeg(sampleJpeg(64).subarray(0, 60)), false);
});
