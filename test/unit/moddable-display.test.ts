// The Moddable display's pure placement (hosts/moddable/screen-layout.ts): the picture area and
// status strip, a picture centred or centre-cropped, the drawn part of each decoded block, the
// status line and the PIN box.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockRect, intersect, pinBox, placePicture, screenLayout, statusText } from '../../hosts/moddable/screen-layout';

test('the screen is shared between the picture area and a status strip below it', () => {
  const layout = screenLayout(240, 320, 27);
  assert.deepEqual(layout.picture, { x: 0, y: 0, width: 240, height: 293 });
  assert.deepEqual(layout.status, { x: 0, y: 293, width: 240, height: 27 });
  // No font (0) or a screen too small for a strip: the picture gets the whole screen.
  assert.deepEqual(screenLayout(800, 480, 0).picture, { x: 0, y: 0, width: 800, height: 480 });
  assert.equal(screenLayout(64, 48, 20).status.height, 0);
});

test('a smaller picture is centred in the area', () => {
  const area = { x: 0, y: 0, width: 800, height: 480 };
  assert.deepEqual(placePicture(320, 240, area), { x: 240, y: 120, width: 320, height: 240, cropped: false });
  assert.deepEqual(placePicture(800, 480, area), { x: 0, y: 0, width: 800, height: 480, cropped: false });
  assert.deepEqual(placePicture(161, 121, { x: 10, y: 20, width: 100, height: 100 }).cropped, true);
});

test('a larger picture shows its middle (centre-crop)', () => {
  const area = { x: 0, y: 0, width: 240, height: 293 };
  const placed = placePicture(320, 240, area);
  assert.deepEqual(placed, { x: -40, y: 26, width: 320, height: 240, cropped: true });
  const huge = placePicture(1200, 900, area);
  assert.equal(huge.x, -480);
  assert.equal(huge.y, -304);
  // The picture's centre lands on the area's centre.
  assert.equal(huge.x + 600, 120);
});

test('only the visible part of a decoded block is drawn', () => {
  const area = { x: 0, y: 0, width: 240, height: 293 };
  const placed = placePicture(320, 240, area); // x -40, y 26
  assert.equal(blockRect(placed, area, 0, 0, 16, 16), undefined); // left of the screen
  assert.deepEqual(blockRect(placed, area, 32, 0, 16, 16), { x: 0, y: 26, width: 8, height: 16 });
  assert.deepEqual(blockRect(placed, area, 48, 16, 16, 16), { x: 8, y: 42, width: 16, height: 16 });
  assert.equal(blockRect(placed, area, 304, 0, 16, 16), undefined); // right of the screen
  // An ESP32 slab taller than what is left of the picture is cut at the picture's bottom.
  assert.deepEqual(blockRect(placed, area, 0, 224, 320, 32), { x: 0, y: 250, width: 240, height: 16 });
  // Never into the status strip.
  const tall = placePicture(240, 400, area);
  assert.deepEqual(blockRect(tall, area, 0, 336, 240, 16), { x: 0, y: 282, width: 240, height: 11 });
});

test('intersect', () => {
  assert.deepEqual(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 5, width: 10, height: 10 }), { x: 5, y: 5, width: 5, height: 5 });
  assert.equal(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 10, y: 0, width: 10, height: 10 }), undefined);
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
