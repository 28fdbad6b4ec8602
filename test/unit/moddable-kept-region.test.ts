// The pixels the Moddable display keeps under the PIN box (hosts/moddable/kept-region.ts): the
// rectangle arithmetic, and the copy of what decoded blocks and fills put under the box, checked
// against the whole picture sampled at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeptRegion, intersect, outside } from '../../hosts/moddable/kept-region';
import { fitPicture, letterbox, sourceOf, type Fit, type Rect } from '../../hosts/moddable/screen-layout';

/** A source pixel's value: unique for every pixel of a picture up to 4096 wide. */
const pixelAt = (x: number, y: number): number => (y * 4096 + x) & 0xffff;

/** The decoded blocks of a `width` x `height` picture in `blockWidth` x `blockHeight` MCUs, rows packed at the block's width (as picojpeg's wrapper gives them). */
function* blocksOf(width: number, height: number, blockWidth: number, blockHeight: number): Generator<{ x: number; y: number; width: number; height: number; pixels: Uint16Array }> {
  for (let y = 0; y < height; y += blockHeight) {
    for (let x = 0; x < width; x += blockWidth) {
      const w = Math.min(blockWidth, width - x);
      const h = Math.min(blockHeight, height - y);
      const pixels = new Uint16Array(blockWidth * blockHeight).fill(0xdead); // beyond w x h: stale
      for (let row = 0; row < h; row++) for (let column = 0; column < w; column++) pixels[row * w + column] = pixelAt(x + column, y + row);
      yield { x, y, width: w, height: h, pixels };
    }
  }
}

/** What the screen shows at (x, y) once the picture is drawn: the letterbox's black, or the sampled source pixel. */
function screenPixel(x: number, y: number, fit: Fit): number {
  if (x < fit.x || x >= fit.x + fit.width || y < fit.y || y >= fit.y + fit.height) return 0;
  return pixelAt(sourceOf(x - fit.x, fit.sourceWidth, fit.width), sourceOf(y - fit.y, fit.sourceHeight, fit.height));
}

function keptDraw(region: Rect, area: Rect, width: number, height: number, blockWidth: number, blockHeight: number): { kept: KeptRegion; fit: Fit; copied: number } {
  const kept = new KeptRegion(region, new Uint16Array(region.width * region.height).fill(0x1234));
  const fit = fitPicture(width, height, area);
  for (const band of letterbox(area, fit)) kept.fill(band, 0);
  let copied = 0;
  for (const block of blocksOf(width, height, blockWidth, blockHeight)) copied += kept.copyBlock(block.pixels, block, fit);
  return { kept, fit, copied };
}

function assertKeptIsScreen(kept: KeptRegion, fit: Fit): void {
  const { rect, pixels } = kept;
  for (let y = 0; y < rect.height; y++) {
    for (let x = 0; x < rect.width; x++) {
      const want = screenPixel(rect.x + x, rect.y + y, fit);
      if (pixels[y * rect.width + x] !== want) assert.fail(`kept pixel (${rect.x + x}, ${rect.y + y}) is ${pixels[y * rect.width + x]}, the screen shows ${want}`);
    }
  }
}

test('two rectangles overlap where both are; touching edges do not overlap', () => {
  assert.deepEqual(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 8, width: 10, height: 10 }), { x: 5, y: 8, width: 5, height: 2 });
  assert.deepEqual(intersect({ x: 28, y: 82, width: 184, height: 129 }, { x: 0, y: 56, width: 240, height: 180 }), { x: 28, y: 82, width: 184, height: 129 });
  assert.equal(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 10, y: 0, width: 5, height: 5 }), undefined);
  assert.equal(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 0, y: 10, width: 5, height: 5 }), undefined);
});

test('the parts of a rectangle outside the box cover it but for the box, each pixel once', () => {
  const hole = { x: 28, y: 82, width: 184, height: 129 };
  const rects: Rect[] = [
    { x: 0, y: 0, width: 240, height: 293 }, // the whole area: four bands
    { x: 16, y: 64, width: 32, height: 32 }, // a corner of the box: two parts
    { x: 100, y: 100, width: 16, height: 16 }, // inside the box: nothing
    { x: 0, y: 250, width: 240, height: 10 }, // below it: itself
  ];
  for (const rect of rects) {
    const parts = outside(rect, hole);
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      for (let x = rect.x; x < rect.x + rect.width; x++) {
        const inHole = x >= hole.x && x < hole.x + hole.width && y >= hole.y && y < hole.y + hole.height;
        const covering = parts.filter((p) => x >= p.x && x < p.x + p.width && y >= p.y && y < p.y + p.height).length;
        if (covering !== (inHole ? 0 : 1)) assert.fail(`(${x}, ${y}) of ${JSON.stringify(rect)} is covered ${covering} times`);
      }
    }
  }
  assert.equal(outside({ x: 0, y: 0, width: 240, height: 293 }, hole).length, 4);
  assert.deepEqual(outside({ x: 100, y: 100, width: 16, height: 16 }, hole), []);
});

test('the region keeps what a scaled picture and its bands put under it, block by block', () => {
  const area = { x: 0, y: 0, width: 240, height: 293 };
  const box = { x: 28, y: 82, width: 184, height: 129 };
  // 4000x3000 in 16x16 MCUs (4:2:0): scaled to 240x180 at (0, 56), the box inside the picture.
  const scaled = keptDraw(box, area, 4000, 3000, 16, 16);
  assertKeptIsScreen(scaled.kept, scaled.fit);
  assert.equal(scaled.copied, 184 * 129, 'each pixel under the box comes from exactly one block');
  // A panorama: the picture is a strip (240x60 at y 116), the box reaches into the bands above and below.
  const strip = keptDraw(box, area, 1600, 400, 16, 8);
  assert.equal(strip.fit.height, 60);
  assertKeptIsScreen(strip.kept, strip.fit);
  assert.equal(strip.copied, 184 * 60);
  // Smaller than the area: at its own size (one output pixel per source pixel), partial MCUs at the right and bottom edges.
  const small = keptDraw(box, area, 203, 151, 8, 8);
  assert.equal(small.fit.width, 203);
  assertKeptIsScreen(small.kept, small.fit);
});

test('a block outside the region copies nothing; a fill only what it covers of the region', () => {
  const box = { x: 10, y: 10, width: 4, height: 3 };
  const kept = new KeptRegion(box, new Uint16Array(12));
  const fit = fitPicture(64, 64, { x: 0, y: 0, width: 64, height: 64 });
  assert.equal(kept.copyBlock(new Uint16Array(64).fill(7), { x: 0, y: 0, width: 8, height: 8 }, fit), 0);
  assert.deepEqual([...kept.pixels], new Array(12).fill(0));
  kept.fill({ x: 12, y: 0, width: 30, height: 12 }, 0xffff);
  assert.deepEqual([...kept.pixels], [0, 0, 0xffff, 0xffff, 0, 0, 0xffff, 0xffff, 0, 0, 0, 0]);
  assert.throws(() => new KeptRegion(box, new Uint16Array(11)), RangeError);
});
