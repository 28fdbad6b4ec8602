// The Moddable display's pure placement (hosts/moddable/screen-layout.ts): the picture area and
// status strip, a picture scaled to fit and letterboxed, the output pixels each decoded block
// gives, the status line and the PIN box; and what the SDK's JPEG decoders read
// (hosts/moddable/jpeg-decoders.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JpegFrame } from '../../src/platform';
import { decoderCannotRead } from '../../hosts/moddable/jpeg-decoders';
import { fitPicture, letterbox, pinBox, placePicture, sampleRuns, screenLayout, sourceOf, statusText } from '../../hosts/moddable/screen-layout';

test('the screen is shared between the picture area and a status strip below it', () => {
  const layout = screenLayout(240, 320, 27);
  assert.deepEqual(layout.picture, { x: 0, y: 0, width: 240, height: 293 });
  assert.deepEqual(layout.status, { x: 0, y: 293, width: 240, height: 27 });
  // No font (0) or a screen too small for a strip: the picture gets the whole screen.
  assert.deepEqual(screenLayout(800, 480, 0).picture, { x: 0, y: 0, width: 800, height: 480 });
  assert.equal(screenLayout(64, 48, 20).status.height, 0);
});

test('a larger picture is scaled to fit whole, keeping its shape, with black bands on the other side', () => {
  const two = { x: 0, y: 0, width: 240, height: 293 }; // Moddable Two, below its status strip
  // 4000x3000 (4:3) on a portrait area: the width limits, bands above and below.
  assert.deepEqual(fitPicture(4000, 3000, two), { x: 0, y: 56, width: 240, height: 180, sourceWidth: 4000, sourceHeight: 3000 });
  // A portrait photo on a landscape area: the height limits, bands left and right.
  assert.deepEqual(fitPicture(3000, 4000, { x: 0, y: 0, width: 480, height: 293 }), { x: 130, y: 0, width: 220, height: 293, sourceWidth: 3000, sourceHeight: 4000 });
  // Exactly the area's shape: the whole area, no bands.
  assert.deepEqual(fitPicture(960, 1172, two), { x: 0, y: 0, width: 240, height: 293, sourceWidth: 960, sourceHeight: 1172 });
  // A sliver keeps at least one pixel.
  assert.equal(fitPicture(16000, 8, two).height, 1);
});

test('a picture that fits is centred at its own size, never enlarged', () => {
  const area = { x: 0, y: 0, width: 800, height: 480 };
  assert.deepEqual(fitPicture(320, 240, area), { x: 240, y: 120, width: 320, height: 240, sourceWidth: 320, sourceHeight: 240 });
  assert.deepEqual(fitPicture(800, 480, area), { x: 0, y: 0, width: 800, height: 480, sourceWidth: 800, sourceHeight: 480 });
  assert.deepEqual(fitPicture(161, 121, { x: 10, y: 20, width: 100, height: 100 }), { x: 10, y: 32, width: 100, height: 75, sourceWidth: 161, sourceHeight: 121 });
});

test('the letterbox is the area around the fitted picture, empty bands left out', () => {
  const area = { x: 0, y: 0, width: 240, height: 293 };
  assert.deepEqual(letterbox(area, fitPicture(4000, 3000, area)), [
    { x: 0, y: 0, width: 240, height: 56 },
    { x: 0, y: 236, width: 240, height: 57 },
  ]);
  assert.deepEqual(letterbox(area, fitPicture(960, 1172, area)), []);
  assert.deepEqual(letterbox(area, fitPicture(100, 100, area)), [
    { x: 0, y: 0, width: 240, height: 96 },
    { x: 0, y: 196, width: 240, height: 97 },
    { x: 0, y: 96, width: 70, height: 100 },
    { x: 170, y: 96, width: 70, height: 100 },
  ]);
});

test('a video frame is centred at its own size', () => {
  const area = { x: 0, y: 0, width: 800, height: 480 };
  assert.deepEqual(placePicture(320, 240, area), { x: 240, y: 120, width: 320, height: 240, cropped: false });
  assert.deepEqual(placePicture(161, 121, { x: 10, y: 20, width: 100, height: 100 }), { x: -21, y: 9, width: 161, height: 121, cropped: true });
});

/** The runs sampleRuns writes, as [output, source, count] triples. */
function runs(start: number, length: number, source: number, target: number): number[][] {
  const into = new Int32Array(3 * Math.min(length, target));
  const count = sampleRuns(into, start, length, source, target);
  const out: number[][] = [];
  for (let run = 0; run < count; run++) out.push([into[3 * run], into[3 * run + 1], into[3 * run + 2]]);
  return out;
}

test('each output pixel shows the source pixel under its centre', () => {
  assert.deepEqual([0, 1, 2, 3].map((out) => sourceOf(out, 8, 4)), [1, 3, 5, 7]);
  assert.deepEqual([0, 1, 2].map((out) => sourceOf(out, 4000, 3)), [666, 2000, 3333]);
  assert.equal(sourceOf(239, 4000, 240), 3991);
});

test('a block at full size is one run; scaled, only the output pixels whose source it holds', () => {
  assert.deepEqual(runs(32, 16, 640, 640), [[32, 32, 16]]);
  // Half size: every other source pixel, one run each.
  assert.deepEqual(runs(16, 16, 640, 320), [[8, 17, 1], [9, 19, 1], [10, 21, 1], [11, 23, 1], [12, 25, 1], [13, 27, 1], [14, 29, 1], [15, 31, 1]]);
  // Three quarters: runs of consecutive source pixels, a pixel skipped between them.
  assert.deepEqual(runs(0, 16, 320, 240), [[0, 0, 1], [1, 2, 3], [4, 6, 3], [7, 10, 3], [10, 14, 2]]);
  // 4000 wide on 240: a 16-pixel block holds one output pixel's source, or none.
  assert.deepEqual(runs(0, 16, 4000, 240), [[0, 8, 1]]);
  assert.deepEqual(runs(16, 16, 4000, 240), [[1, 25, 1]]);
  // 250 blocks for 240 output pixels: ten blocks give nothing.
  let empty = 0;
  for (let start = 0; start < 4000; start += 16) if (runs(start, 16, 4000, 240).length === 0) empty++;
  assert.equal(empty, 10);
  assert.deepEqual(runs(3984, 16, 4000, 240), [[239, 3991, 1]]);
});

test('the runs of all blocks cover every output pixel exactly once', () => {
  for (const [source, target, block] of [[4000, 240, 16], [3000, 180, 16], [1000, 293, 8], [321, 240, 16], [300, 300, 16], [4000, 240, 4000]]) {
    const seen = new Uint8Array(target);
    for (let start = 0; start < source; start += block) {
      for (const [out, from, count] of runs(start, block, source, target)) {
        for (let i = 0; i < count; i++) {
          seen[out + i]++;
          assert.equal(from + i, sourceOf(out + i, source, target));
          assert.ok(from + i >= start && from + i < start + block, `${source}->${target}: source ${from + i} in block ${start}`);
        }
      }
    }
    assert.deepEqual([...new Set(seen)], [1], `${source} -> ${target} in blocks of ${block}`);
  }
  // An ESP32 slab running past the picture's end gives nothing past the last output pixel.
  assert.deepEqual(runs(2976, 32, 3000, 180), [[179, 2991, 1]]);
});

test('the status line names the receiver and what it shows, in words a person reads', () => {
  assert.equal(statusText({ name: 'Frame', activity: 'idle' }), 'Frame - Idle');
  assert.equal(statusText({ name: 'Frame', activity: 'receivingVideo', media: 'photo' }), 'Frame - Showing a photo');
  assert.equal(statusText({ name: 'Frame', activity: 'receivingVideo', media: 'video' }), 'Frame - Playing video');
  assert.equal(statusText({ name: 'Frame', activity: 'receivingScreenMirroring', media: 'mirror' }), 'Frame - Mirroring');
  assert.equal(statusText({ name: 'Frame', activity: 'receivingVideo', media: 'slideshow', slideshow: 'playing' }), 'Frame - Slideshow playing');
});

test('the PIN box is centred in the area and never larger than it', () => {
  const area = { x: 0, y: 0, width: 240, height: 293 };
  const box = pinBox(area, 150, 70, 22);
  assert.deepEqual(box, { x: 33, y: 82, width: 174, height: 128 });
  assert.deepEqual(pinBox(area, 400, 400, 22), { x: 0, y: 0, width: 240, height: 293 });
});

/** A frame header as src/receiver/media/jpeg.ts reads it: baseline 8-bit YCbCr with the given luma sampling. */
function frame(width: number, height: number, luma: [number, number], changes: Partial<JpegFrame> = {}): JpegFrame {
  return {
    width,
    height,
    process: 'baseline',
    arithmetic: false,
    differential: false,
    precision: 8,
    components: [
      { id: 1, horizontal: luma[0], vertical: luma[1], quantTable: 0 },
      { id: 2, horizontal: 1, vertical: 1, quantTable: 1 },
      { id: 3, horizontal: 1, vertical: 1, quantTable: 1 },
    ],
    ...changes,
  };
}

test('picojpeg reads baseline 8-bit grayscale and YCbCr with luma 1x1, 2x1 or 2x2 and chroma 1x1', () => {
  for (const luma of [[1, 1], [2, 1], [2, 2]] as [number, number][]) assert.equal(decoderCannotRead('picojpeg', frame(640, 480, luma)), undefined);
  const gray = frame(640, 480, [1, 1], { components: [{ id: 1, horizontal: 1, vertical: 1, quantTable: 0 }] });
  assert.equal(decoderCannotRead('picojpeg', gray), undefined);
  // A phone's 4032x3024 4:2:0 photo: 252 x 189 blocks of 16x16.
  assert.equal(decoderCannotRead('picojpeg', frame(4032, 3024, [2, 2])), undefined);
});

test('picojpeg refuses what it cannot decode or commodetto cannot draw, saying why', () => {
  const refusal = (f: JpegFrame) => decoderCannotRead('picojpeg', f);
  assert.equal(refusal(frame(640, 480, [2, 2], { process: 'progressive' })), 'a progressive JPEG; picojpeg reads baseline JPEGs only');
  assert.equal(refusal(frame(640, 480, [2, 2], { process: 'extended', arithmetic: true })), 'arithmetic coding; picojpeg reads baseline JPEGs only');
  assert.equal(refusal(frame(640, 480, [2, 2], { precision: 12 })), '12-bit samples; picojpeg reads 8-bit JPEGs only');
  // ffmpeg's yuvj444p: 1x2 for every component.
  const ffmpeg444 = frame(640, 480, [1, 2], { components: [1, 2, 3].map((id) => ({ id, horizontal: 1, vertical: 2, quantTable: id === 1 ? 0 : 1 })) });
  assert.equal(refusal(ffmpeg444), 'sampling factors 1x2,1x2,1x2; picojpeg reads 1x1 grayscale, or colour with chroma 1x1 and luma 1x1, 2x1, 2x2');
  // Luma 1x2 decodes, but commodetto draws nothing for it.
  assert.match(refusal(frame(640, 480, [1, 2])) ?? '', /^sampling factors 1x2,1x1,1x1/);
  assert.match(refusal(frame(640, 480, [2, 2], { components: [1, 2, 3, 4].map((id) => ({ id, horizontal: 1, vertical: 1, quantTable: 0 })) })) ?? '', /^4 components/);
  assert.match(refusal(frame(640, 0, [2, 2])) ?? '', /DNL/);
  // commodetto's counters: 255 blocks a row, 256 rows, 65,535 in all.
  assert.equal(refusal(frame(4000, 3000, [1, 1])), "500 x 375 blocks of 8x8; commodetto's picojpeg counts at most 255 a row, 256 rows, 65535 in all");
  assert.equal(refusal(frame(4080, 4096, [2, 2])), undefined);
  assert.match(refusal(frame(4096, 3000, [2, 2])) ?? '', /^256 x 188 blocks/);
  assert.match(refusal(frame(2000, 4112, [2, 2])) ?? '', /^125 x 257 blocks/);
});

test('esp_new_jpeg is asked about the coding and precision only', () => {
  assert.equal(decoderCannotRead('esp_new_jpeg', frame(4000, 3000, [1, 1])), undefined);
  assert.equal(decoderCannotRead('esp_new_jpeg', frame(640, 480, [2, 2], { process: 'progressive' })), 'a progressive JPEG; esp_new_jpeg reads baseline JPEGs only');
});
