// The check a received picture passes before it is shown or cached (spec 2.6: a picture is JPEG
// data): its JPEG structure (ITU-T T.81 annex B), not a decode. Cheap and bounded: it reads the
// marker segments up to the start of scan and looks for the end marker from the end.
//
// What it asks, and why:
// - SOI `FF D8` then a marker (`FF`): every JPEG (JFIF, Exif) starts so; a PNG, HEIC or text
//   body fails here.
// - Well-formed marker segments up to SOS (start of scan), with a frame header (SOFn) before
//   it: a decoder needs the frame header first, and this rejects bytes that only start like a
//   JPEG. The frame header is returned: its size for the log, its coding for the display.
// - EOI `FF D9` after the scan header. It usually ends the body; bytes after it are allowed,
//   because real files carry trailers (camera maker data, padding, a motion photo's video) that
//   decoders ignore, and a receiver that refused them would refuse pictures senders show
//   elsewhere. Entropy-coded data cannot hold `FF D9` (a data FF is stuffed as FF 00), so the
//   last `FF D9` after SOS is the image's end.
// Whether the pixels decode is the display's business: the frame header read here (process,
// precision, components and their sampling) is what it is asked about (Display.cannotShow), so
// a picture a board's decoder cannot read is refused before the answer; what only decoding finds
// (corrupt entropy data) leaves the screen as it was.

import type { JpegComponent, JpegFrame } from '../../platform';

/** What the frame header says (the Display port's JpegFrame). */
export type JpegInfo = JpegFrame;

/** Thrown when the bytes are not a JPEG; the message says where and why. */
export class JpegError extends Error {
  override name = 'JpegError';
}

const MARKER = 0xff;
const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const TEM = 0x01;
/** SOI, then the first byte of the next marker: how every JPEG starts. */
const START_OF_IMAGE = [MARKER, SOI, MARKER];

type FrameCoding = Pick<JpegFrame, 'process' | 'arithmetic' | 'differential'>;

/**
 * T.81 table B.1: the start-of-frame markers C0-CF by their low nibble, and the coding each
 * names. DHT (C4), JPG (C8) and DAC (CC) share the range and are not frame headers.
 */
const FRAME_CODINGS: readonly (FrameCoding | undefined)[] = [
  { process: 'baseline', arithmetic: false, differential: false }, // C0
  { process: 'extended', arithmetic: false, differential: false }, // C1
  { process: 'progressive', arithmetic: false, differential: false }, // C2
  { process: 'lossless', arithmetic: false, differential: false }, // C3
  undefined, // C4 DHT
  { process: 'extended', arithmetic: false, differential: true }, // C5
  { process: 'progressive', arithmetic: false, differential: true }, // C6
  { process: 'lossless', arithmetic: false, differential: true }, // C7
  undefined, // C8 JPG
  { process: 'extended', arithmetic: true, differential: false }, // C9
  { process: 'progressive', arithmetic: true, differential: false }, // CA
  { process: 'lossless', arithmetic: true, differential: false }, // CB
  undefined, // CC DAC
  { process: 'extended', arithmetic: true, differential: true }, // CD
  { process: 'progressive', arithmetic: true, differential: true }, // CE
  { process: 'lossless', arithmetic: true, differential: true }, // CF
];

/** The coding a start-of-frame marker names, or undefined for any other marker. */
function frameCoding(marker: number): FrameCoding | undefined {
  return marker >= 0xc0 && marker <= 0xcf ? FRAME_CODINGS[marker - 0xc0] : undefined;
}

/** Inspects `bytes`; returns the frame's size, or throws JpegError naming what is wrong. */
export function inspectJpeg(bytes: Uint8Array): JpegInfo {
  const { frame, scanOffset } = readJpegHeader(bytes, false)!;
  // Look from the end: a file usually ends with EOI, so this is a step or two.
  const length = bytes.length;
  for (let at = length - 2; at >= scanOffset; at--) {
    if (bytes[at] === MARKER && bytes[at + 1] === EOI) return frame;
  }
  throw cutShortError(scanOffset);
}

/** The error of a picture whose scan, begun at `scanOffset`, has no end-of-image marker. */
export function cutShortError(scanOffset: number): JpegError {
  return new JpegError(`no end-of-image marker (FF D9) after the start of scan at offset ${scanOffset}: the picture is cut short`);
}

/**
 * Where the picture ends in a piece of its scan data: the offset just past the first EOI `FF D9`
 * at or after `from`, or -1. `afterFF`: the piece before ended with FF (the marker may be split
 * between pieces). Entropy-coded data stuffs a data FF as FF 00, so the first FF D9 is the end.
 */
export function endOfImage(piece: Uint8Array, from: number, afterFF: boolean): number {
  if (afterFF && from === 0 && piece.length > 0 && piece[0] === EOI) return 1;
  for (let at = piece.indexOf(EOI, from + 1); at >= 0; at = piece.indexOf(EOI, at + 1)) {
    if (piece[at - 1] === MARKER) return at + 1;
  }
  return -1;
}

/** A JPEG's marker segments up to its start of scan: the frame header, and where the scan's data begins. */
export interface JpegHeader {
  readonly frame: JpegInfo;
  readonly scanOffset: number;
}

/**
 * Reads the marker segments of `bytes` up to the start of scan (the checks of inspectJpeg's
 * first part). `partial`: the bytes are the start of a body still arriving (a picture streamed
 * to the screen), so bytes that end before the scan header is whole give undefined, not an
 * error. Throws JpegError for what no more bytes can mend.
 */
export function readJpegHeader(bytes: Uint8Array, partial: boolean): JpegHeader | undefined {
  const length = bytes.length;
  const endsEarly = (message: string): undefined => {
    if (partial) return undefined;
    throw new JpegError(message);
  };
  const noStart = 'no JPEG start-of-image marker (FF D8 FF) at offset 0';
  for (let at = 0; at < START_OF_IMAGE.length && at < length; at++) if (bytes[at] !== START_OF_IMAGE[at]) throw new JpegError(noStart);
  if (length < 4) {
    if (partial) return undefined;
    throw new JpegError(noStart);
  }
  let pos = 2;
  let frame: JpegInfo | undefined;
  for (;;) {
    if (pos >= length) return endsEarly(`data ends at offset ${length} before the start of scan`);
    if (bytes[pos] !== MARKER) throw new JpegError(`offset ${pos}: expected a marker (FF), found ${hex(bytes[pos])}`);
    // T.81 B.1.1.2: any marker may be preceded by fill bytes FF.
    while (pos < length && bytes[pos] === MARKER) pos++;
    if (pos >= length) return endsEarly(`data ends at offset ${length} inside a marker`);
    const marker = bytes[pos++];
    if (marker === SOI || marker === EOI) throw new JpegError(`offset ${pos - 2}: marker FF ${hex(marker)} before the start of scan`);
    // Markers without a segment: TEM and the restart markers RST0-7.
    if (marker === TEM || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (pos + 2 > length) return endsEarly(`offset ${pos - 2}: segment FF ${hex(marker)} has no length`);
    const segment = (bytes[pos] << 8) | bytes[pos + 1];
    if (segment < 2) throw new JpegError(`offset ${pos - 2}: segment FF ${hex(marker)} of ${segment} bytes runs past the end (${length})`);
    if (pos + segment > length) return endsEarly(`offset ${pos - 2}: segment FF ${hex(marker)} of ${segment} bytes runs past the end (${length})`);
    const coding = frameCoding(marker);
    if (coding) frame = readFrameHeader(bytes, pos, segment, coding);
    pos += segment;
    if (marker === SOS) break;
  }
  if (!frame) throw new JpegError('no frame header (SOFn) before the start of scan');
  return { frame, scanOffset: pos };
}

/**
 * T.81 B.2.2: Lf (2), P (1), Y (2), X (2), Nf (1), then per component C (1), H/V (1), Tq (1).
 * `pos` is at Lf, `segment` its value.
 */
function readFrameHeader(bytes: Uint8Array, pos: number, segment: number, coding: FrameCoding): JpegFrame {
  const at = pos - 2;
  if (segment < 8) throw new JpegError(`offset ${at}: frame header of ${segment} bytes is too short`);
  const precision = bytes[pos + 2];
  const height = (bytes[pos + 3] << 8) | bytes[pos + 4];
  const width = (bytes[pos + 5] << 8) | bytes[pos + 6];
  // A height of 0 is legal (T.81 B.2.2: given later by a DNL segment); a width of 0 is not.
  if (width === 0) throw new JpegError(`offset ${at}: frame header gives width 0`);
  const count = bytes[pos + 7];
  if (count === 0) throw new JpegError(`offset ${at}: frame header names no components`);
  if (segment < 8 + 3 * count) throw new JpegError(`offset ${at}: frame header of ${segment} bytes is too short for ${count} components`);
  const components: JpegComponent[] = [];
  for (let index = 0, c = pos + 8; index < count; index++, c += 3) {
    components.push({ id: bytes[c], horizontal: bytes[c + 1] >> 4, vertical: bytes[c + 1] & 0x0f, quantTable: bytes[c + 2] });
  }
  return { width, height, ...coding, precision, components };
}

/** `frame` in a few words for a log line: `4000x3000 baseline 4:2:0`. */
export function describeJpegFrame(frame: JpegFrame): string {
  const coding = `${frame.differential ? 'hierarchical ' : ''}${frame.process}${frame.arithmetic ? ' arithmetic' : ''}`;
  const sampling = frame.components.map((component) => `${component.horizontal}x${component.vertical}`).join(',');
  return `${frame.width}x${frame.height} ${coding}${frame.precision === 8 ? '' : ` ${frame.precision}-bit`} ${frame.components.length === 1 ? 'grayscale' : sampling}`;
}

/** Whether `bytes` pass inspectJpeg. */
export function isJpeg(bytes: Uint8Array): boolean {
  try {
    inspectJpeg(bytes);
    return true;
  } catch (error) {
    if (error instanceof JpegError) return false;
    throw error;
  }
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}
