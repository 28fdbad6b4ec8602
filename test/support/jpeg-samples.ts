// Structurally valid JPEG bodies of any size for portable tests (they pass src/receiver/media/jpeg.ts
// without a JPEG encoder): SOI, APP0 (JFIF), SOF0, SOS, entropy-coded filler, EOI. They are not
// meant to decode to a picture. Portable (runs in XS).

import { makeRng } from './arbitrary';

const HEAD = [
  0xff, 0xd8, // SOI
  0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, // APP0 JFIF
  0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x10, 0x00, 0x20, 0x01, 0x01, 0x11, 0x00, // SOF0: 8-bit, 16 high, 32 wide, 1 component
  0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, // SOS: 1 component, spectral 0-63
];
const EOI = [0xff, 0xd9];

/**
 * A JPEG of exactly `size` bytes (at least HEAD and EOI: 46), its filler drawn from `seed` so two
 * seeds give different pictures. Filler bytes are never FF (entropy-coded data stuffs FF as FF 00).
 */
export function sampleJpeg(size: number, seed = 1): Uint8Array {
  const minimum = HEAD.length + EOI.length;
  if (size < minimum) throw new RangeError(`a sample JPEG has at least ${minimum} bytes`);
  const out = new Uint8Array(size);
  out.set(HEAD, 0);
  const rng = makeRng(seed);
  const filler = rng.bytes(size - minimum);
  for (let i = 0; i < filler.length; i++) out[HEAD.length + i] = filler[i] === 0xff ? 0xfe : filler[i];
  out.set(EOI, size - EOI.length);
  return out;
}

/** The width and height sampleJpeg's frame header gives. */
export const SAMPLE_JPEG_SIZE = { width: 32, height: 16 } as const;

/** Offset of the first byte after the SOS header in a sampleJpeg (where entropy data starts). */
export const SAMPLE_JPEG_SCAN_START = HEAD.length;
