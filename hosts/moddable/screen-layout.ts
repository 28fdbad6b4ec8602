// Where the Moddable display draws (pure: nothing from the SDK, tested under Node and XS): the
// picture area above a status strip, a photo scaled to fit it whole (never cropped, never
// enlarged) and centred with black bands, which output pixels each decoded block gives, a video
// frame centred at its size, the status line's text and the PIN box.
//
// Scaling: neither SDK decoder scales while decoding (picojpeg has a DC-only 1/8 mode that
// commodetto does not expose; the ESP32 wrapper hard-codes esp_new_jpeg's `scale` to 0), so
// every block is decoded at full size and the display samples it: each output pixel shows the
// source pixel under its centre (nearest neighbour), drawn as runs of consecutive source pixels.

import type { DisplayStatus } from '../../src/platform';
import { statusWords } from '../../src/receiver';

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** How the screen is shared: the picture area on top, the status strip (`statusHeight`) below. */
export interface ScreenLayout {
  readonly screen: Rect;
  readonly picture: Rect;
  readonly status: Rect;
}

/** The layout of a `width` x `height` screen; no strip when `statusHeight` is 0 or the screen is too small. */
export function screenLayout(width: number, height: number, statusHeight: number): ScreenLayout {
  const strip = statusHeight > 0 && statusHeight * 4 <= height ? statusHeight : 0;
  return {
    screen: { x: 0, y: 0, width, height },
    picture: { x: 0, y: 0, width, height: height - strip },
    status: { x: 0, y: height - strip, width, height: strip },
  };
}

/** A picture placed in an area at its own size: its top-left corner on the screen. */
export interface Placement {
  /** Where the picture's pixel (0, 0) goes; negative (left of / above the area) when cropped. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** The picture is larger than the area in some direction: only its middle shows. */
  readonly cropped: boolean;
}

/**
 * A `width` x `height` picture centred in `area` at its own size (video frames, which the
 * decoder already scales to the screen): a larger one would show its middle.
 */
export function placePicture(width: number, height: number, area: Rect): Placement {
  return {
    x: area.x + Math.floor((area.width - width) / 2),
    y: area.y + Math.floor((area.height - height) / 2),
    width,
    height,
    cropped: width > area.width || height > area.height,
  };
}

/** A picture scaled to fit an area: where it lands (x, y, width, height) and its own size. */
export interface Fit extends Rect {
  readonly sourceWidth: number;
  readonly sourceHeight: number;
}

/**
 * A `width` x `height` picture scaled to fit `area` whole, keeping its shape, centred: the
 * limiting side fills the area, the other gets black bands (letterbox). A picture that fits is
 * centred at its own size (never enlarged: a small picture stays sharp).
 */
export function fitPicture(width: number, height: number, area: Rect): Fit {
  let fitWidth = width;
  let fitHeight = height;
  if (width > area.width || height > area.height) {
    // Compare width / area.width with height / area.height without division.
    if (width * area.height >= height * area.width) {
      fitWidth = area.width;
      fitHeight = Math.max(1, Math.round((height * area.width) / width));
    } else {
      fitHeight = area.height;
      fitWidth = Math.max(1, Math.round((width * area.height) / height));
    }
  }
  return {
    x: area.x + Math.floor((area.width - fitWidth) / 2),
    y: area.y + Math.floor((area.height - fitHeight) / 2),
    width: fitWidth,
    height: fitHeight,
    sourceWidth: width,
    sourceHeight: height,
  };
}

/** The parts of `area` around `fit` (top, bottom, left, right bands), the empty ones left out. */
export function letterbox(area: Rect, fit: Rect): Rect[] {
  const bottom = fit.y + fit.height;
  const right = fit.x + fit.width;
  const bands: Rect[] = [
    { x: area.x, y: area.y, width: area.width, height: fit.y - area.y },
    { x: area.x, y: bottom, width: area.width, height: area.y + area.height - bottom },
    { x: area.x, y: fit.y, width: fit.x - area.x, height: fit.height },
    { x: right, y: fit.y, width: area.x + area.width - right, height: fit.height },
  ];
  return bands.filter((band) => band.width > 0 && band.height > 0);
}

/** The source pixel (row or column) output pixel `out` shows: the one under its centre. */
export function sourceOf(out: number, source: number, target: number): number {
  return Math.floor(((2 * out + 1) * source) / (2 * target));
}

/** The first output pixel whose source is at or after `start` (sourceOf is non-decreasing). */
export function firstOutputFrom(start: number, source: number, target: number): number {
  return Math.max(0, Math.ceil((2 * start * target - source) / (2 * source)));
}

/**
 * Where one decoded block lands along one axis: the block covers source pixels `start` to
 * `start + length` of `source`, the picture is drawn `target` pixels long (target <= source).
 * Writes runs into `into` as triples (output start, source start, count), each a stretch of
 * output pixels showing consecutive source pixels (one drawBitmap each), and returns how many.
 * At full size a block is one run; at half size or less, one per output pixel. `into` needs
 * room for 3 x min(length, target) numbers.
 */
export function sampleRuns(into: Int32Array, start: number, length: number, source: number, target: number): number {
  const end = Math.min(target, firstOutputFrom(start + length, source, target));
  let runs = 0;
  let previous = -2;
  for (let out = firstOutputFrom(start, source, target); out < end; out++) {
    const from = sourceOf(out, source, target);
    if (from === previous + 1 && runs > 0) {
      into[3 * runs - 1]++;
    } else {
      into[3 * runs] = out;
      into[3 * runs + 1] = from;
      into[3 * runs + 2] = 1;
      runs++;
    }
    previous = from;
  }
  return runs;
}

/** The status line: the name and what the receiver does, in the words the Node page reads too (ASCII). */
export function statusText(status: DisplayStatus): string {
  return `${status.name} - ${statusWords(status)}`;
}

/**
 * The box the PIN is drawn in, centred in `area`: room for the label and the digits, with a
 * margin, never wider or taller than the area.
 */
export function pinBox(area: Rect, digitsWidth: number, digitsHeight: number, labelHeight: number, margin = 12): Rect {
  const width = Math.min(area.width, digitsWidth + 2 * margin);
  const height = Math.min(area.height, digitsHeight + labelHeight + 3 * margin);
  return {
    x: area.x + Math.floor((area.width - width) / 2),
    y: area.y + Math.floor((area.height - height) / 2),
    width,
    height,
  };
}
