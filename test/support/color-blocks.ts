// Test pictures for the Node host's tests (not portable: jpeg-js needs Node's Buffer): real JPEGs
// made of a few big solid colour blocks, so a screenshot can be checked at the blocks' centres
// whatever the JPEG encoder, the browser's decoder and its scaling did at the edges.

import jpeg from 'jpeg-js';

export type Rgb = readonly [number, number, number];

export interface BlockPicture {
  readonly jpeg: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** Colours in rows: blocks[row][column]. */
  readonly blocks: readonly (readonly Rgb[])[];
}

/** A JPEG `width` x `height` divided into equal blocks of the given colours (rows of columns). */
export function blockPicture(blocks: readonly (readonly Rgb[])[], width = 320, height = 240, quality = 92): BlockPicture {
  const rows = blocks.length;
  const columns = blocks[0].length;
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = blocks[Math.min(rows - 1, Math.floor((y * rows) / height))];
    for (let x = 0; x < width; x++) {
      const [r, g, b] = row[Math.min(columns - 1, Math.floor((x * columns) / width))];
      const at = (y * width + x) * 4;
      data[at] = r;
      data[at + 1] = g;
      data[at + 2] = b;
      data[at + 3] = 255;
    }
  }
  const encoded = jpeg.encode({ data, width, height }, quality);
  return { jpeg: new Uint8Array(encoded.data), width, height, blocks };
}

/** Where block (row, column) has its centre in a picture shown `width` x `height`. */
export function blockCentre(picture: BlockPicture, row: number, column: number, width: number, height: number): { x: number; y: number } {
  const rows = picture.blocks.length;
  const columns = picture.blocks[0].length;
  return { x: Math.floor(((column + 0.5) * width) / columns), y: Math.floor(((row + 0.5) * height) / rows) };
}

/** Decodes a JPEG (a screenshot) to RGBA. */
export function decodeJpeg(bytes: Uint8Array): { width: number; height: number; pixel(x: number, y: number): Rgb } {
  const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  return {
    width: image.width,
    height: image.height,
    pixel: (x, y) => {
      const at = (y * image.width + x) * 4;
      return [image.data[at], image.data[at + 1], image.data[at + 2]];
    },
  };
}

/** The largest difference of one channel between two colours. */
export function colourDistance(a: Rgb, b: Rgb): number {
  return Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2]));
}

export const RED: Rgb = [230, 30, 30];
export const GREEN: Rgb = [30, 200, 60];
export const BLUE: Rgb = [30, 60, 220];
export const YELLOW: Rgb = [240, 220, 30];
export const CYAN: Rgb = [30, 210, 220];
export const MAGENTA: Rgb = [210, 40, 200];
export const WHITE: Rgb = [245, 245, 245];
export const ORANGE: Rgb = [245, 140, 20];
