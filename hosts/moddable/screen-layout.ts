// Where the Moddable display draws (pure: nothing from the SDK, tested under Node and XS): the
// picture area above a status strip, a picture centred in it (cropped around its centre when it
// is larger: the SDK's JPEG decoders do not scale), the part of one decoded block that shows,
// the status line's text and the PIN box.

import type { DisplayStatus } from '../../src/platform';
import { statusWords } from '../../src/receiver';

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The rectangle both `a` and `b` cover, or undefined when they do not overlap. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  if (right <= x || bottom <= y) return undefined;
  return { x, y, width: right - x, height: bottom - y };
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

/** A picture placed in an area: its top-left corner on the screen, and whether it is cropped. */
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
 * A `width` x `height` picture centred in `area`: a smaller picture sits in the middle (black
 * around it), a larger one shows its middle (centre-crop; neither decoder of the SDK scales).
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

/**
 * The screen rectangle of a decoded block that is drawn: the block (`bx`, `by` in the picture,
 * `bw` x `bh`) moved by the placement, inside both the picture (the ESP32 decoder's last slab may
 * be taller than what is left of it) and the area. Undefined: nothing of it shows.
 */
export function blockRect(placement: Placement, area: Rect, bx: number, by: number, bw: number, bh: number): Rect | undefined {
  const block = { x: placement.x + bx, y: placement.y + by, width: bw, height: bh };
  const picture = intersect(block, placement);
  return picture && intersect(picture, area);
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
