// The pixels the screen shows under one rectangle (the PIN box's), kept while pictures are
// drawn, so that what the box covered can be drawn back when it goes (pure: nothing from the
// SDK, tested under Node and XS).
//
// A picture drawn as it arrives is never held whole, and the screen cannot be read back, so
// the display keeps a copy of just this rectangle as it draws: every decoded block's output
// pixels that land in it, and every fill over it. Its memory is bounded by the rectangle, not the
// picture: width x height pixels of the screen's format (2 bytes each for RGB565).

import { firstOutputFrom, sourceOf, type Fit, type Rect } from './screen-layout';

/** Pixels of the screen's format, one element each (8, 16 or 32 bits). */
export type PixelArray = Uint8Array | Uint16Array | Uint32Array;

/** Where `a` and `b` overlap, or undefined when they do not. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  if (right <= x || bottom <= y) return undefined;
  return { x, y, width: right - x, height: bottom - y };
}

/**
 * The parts of `rect` outside `hole` (above, below, left, right; the empty ones left out): what
 * may be drawn while the hole (the PIN box) must stay as it is. All of `rect` when they do not
 * overlap.
 */
export function outside(rect: Rect, hole: Rect): Rect[] {
  const overlap = intersect(rect, hole);
  if (!overlap) return [rect];
  const bottom = rect.y + rect.height;
  const overlapBottom = overlap.y + overlap.height;
  const overlapRight = overlap.x + overlap.width;
  const parts: Rect[] = [
    { x: rect.x, y: rect.y, width: rect.width, height: overlap.y - rect.y },
    { x: rect.x, y: overlapBottom, width: rect.width, height: bottom - overlapBottom },
    { x: rect.x, y: overlap.y, width: overlap.x - rect.x, height: overlap.height },
    { x: overlapRight, y: overlap.y, width: rect.x + rect.width - overlapRight, height: overlap.height },
  ];
  return parts.filter((part) => part.width > 0 && part.height > 0);
}

/** A decoded block: where its pixels are in the picture (source pixels); its rows are `width` pixels apart. */
export interface BlockPlace {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What the screen shows under `rect`, row by row (`pixels[row * rect.width + column]`). */
export class KeptRegion {
  constructor(
    readonly rect: Rect,
    /** rect.width x rect.height pixels; the screen's state when made (black: zeros). */
    readonly pixels: PixelArray,
  ) {
    if (pixels.length < rect.width * rect.height) throw new RangeError(`a ${rect.width}x${rect.height} region needs ${rect.width * rect.height} pixels, not ${pixels.length}`);
  }

  /** `area` was filled with `color` (the screen's pixel value, as Poco's makeColor gives it). */
  fill(area: Rect, color: number): void {
    const part = intersect(area, this.rect);
    if (!part) return;
    const { rect, pixels } = this;
    for (let y = part.y; y < part.y + part.height; y++) {
      const start = (y - rect.y) * rect.width + (part.x - rect.x);
      pixels.fill(color, start, start + part.width);
    }
  }

  /**
   * A decoded block was drawn scaled to `fit` (each output pixel the source pixel under its
   * centre, screen-layout.ts sourceOf): its output pixels that land in the region are copied from
   * `blockPixels`. Returns how many.
   */
  copyBlock(blockPixels: PixelArray, block: BlockPlace, fit: Fit): number {
    const { rect, pixels } = this;
    // The block's output pixels on the screen (those whose source pixel it holds), cut to the region.
    const top = Math.max(fit.y + firstOutputFrom(block.y, fit.sourceHeight, fit.height), rect.y);
    const bottom = Math.min(fit.y + Math.min(fit.height, firstOutputFrom(block.y + block.height, fit.sourceHeight, fit.height)), rect.y + rect.height);
    if (bottom <= top) return 0;
    const left = Math.max(fit.x + firstOutputFrom(block.x, fit.sourceWidth, fit.width), rect.x);
    const right = Math.min(fit.x + Math.min(fit.width, firstOutputFrom(block.x + block.width, fit.sourceWidth, fit.width)), rect.x + rect.width);
    if (right <= left) return 0;
    for (let y = top; y < bottom; y++) {
      const sourceRow = sourceOf(y - fit.y, fit.sourceHeight, fit.height) - block.y;
      const from = sourceRow * block.width - block.x;
      const to = (y - rect.y) * rect.width - rect.x;
      for (let x = left; x < right; x++) {
        pixels[to + x] = blockPixels[from + sourceOf(x - fit.x, fit.sourceWidth, fit.width)];
      }
    }
    return (right - left) * (bottom - top);
  }
}
