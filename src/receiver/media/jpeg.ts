// The check a received picture passes before it is shown or cached (spec 2.6: a picture is JPEG
// data): its JPEG structure (ITU-T T.81 annex B), not a decode. Cheap and bounded: it reads the
// marker segments up to the start of scan and looks for the end marker from the end.
//
// What it asks, and why:
// - SOI `FF D8` then a marker (`FF`): every JPEG (JFIF, Exif) starts so; a PNG, HEIC or text
//   body fails here.
// - Well-formed marker segments up to SOS (start of scan), with a frame header (SOFn) before
//   it: a decoder needs the frame header first, and this rejects bytes that only start like a
//   JPEG. The frame's size is returned for the log.
// - EOI `FF D9` after the scan header. It usually ends the body; bytes after it are allowed,
//   because real files carry trailers (camera maker data, padding, a motion photo's video) that
//   decoders ignore, and a receiver that refused them would refuse pictures senders show
//   elsewhere. Entropy-coded data cannot hold `FF D9` (a data FF is stuffed as FF 00), so the
//   last `FF D9` after SOS is the image's end.
// Whether the pixels decode (progressive, arithmetic coding, CMYK on a board's decoder) is the
// display's business: a picture it cannot draw leaves the screen as it was.

/** What the frame header says. */
export interface JpegInfo {
  readonly width: number;
  readonly height: number;
  /** SOF2, SOF6, SOF10, SOF14: progressive (some board decoders take baseline only). */
  readonly progressive: boolean;
}

/** Thrown when the bytes are not a JPEG; the message says where and why. */
export class JpegError extends Error {
  override name = 'JpegError';
}

const MARKER = 0xff;
const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const TEM = 0x01;

/** Start-of-frame markers C0-CF, except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Inspects `bytes`; returns the frame's size, or throws JpegError naming what is wrong. */
export function inspectJpeg(bytes: Uint8Array): JpegInfo {
  const length = bytes.length;
  if (length < 4 || bytes[0] !== MARKER || bytes[1] !== SOI || bytes[2] !== MARKER) {
    throw new JpegError('no JPEG start-of-image marker (FF D8 FF) at offset 0');
  }
  let pos = 2;
  let frame: JpegInfo | undefined;
  for (;;) {
    if (pos >= length) throw new JpegError(`data ends at offset ${length} before the start of scan`);
    if (bytes[pos] !== MARKER) throw new JpegError(`offset ${pos}: expected a marker (FF), found ${hex(bytes[pos])}`);
    // T.81 B.1.1.2: any marker may be preceded by fill bytes FF.
    while (pos < length && bytes[pos] === MARKER) pos++;
    if (pos >= length) throw new JpegError(`data ends at offset ${length} inside a marker`);
    const marker = bytes[pos++];
    if (marker === SOI || marker === EOI) throw new JpegError(`offset ${pos - 2}: marker FF ${hex(marker)} before the start of scan`);
    // Markers without a segment: TEM and the restart markers RST0-7.
    if (marker === TEM || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (pos + 2 > length) throw new JpegError(`offset ${pos - 2}: segment FF ${hex(marker)} has no length`);
    const segment = (bytes[pos] << 8) | bytes[pos + 1];
    if (segment < 2 || pos + segment > length) {
      throw new JpegError(`offset ${pos - 2}: segment FF ${hex(marker)} of ${segment} bytes runs past the end (${length})`);
    }
    if (isStartOfFrame(marker)) {
      if (segment < 8) throw new JpegError(`offset ${pos - 2}: frame header of ${segment} bytes is too short`);
      const height = (bytes[pos + 3] << 8) | bytes[pos + 4];
      const width = (bytes[pos + 5] << 8) | bytes[pos + 6];
      // A height of 0 is legal (T.81 B.2.2: given later by a DNL segment); a width of 0 is not.
      if (width === 0) throw new JpegError(`offset ${pos - 2}: frame header gives width 0`);
      frame = { width, height, progressive: marker === 0xc2 || marker === 0xc6 || marker === 0xca || marker === 0xce };
    }
    pos += segment;
    if (marker === SOS) break;
  }
  if (!frame) throw new JpegError('no frame header (SOFn) before the start of scan');
  // Look from the end: a file usually ends with EOI, so this is a step or two.
  for (let at = length - 2; at >= pos; at--) {
    if (bytes[at] === MARKER && bytes[at + 1] === EOI) return frame;
  }
  throw new JpegError(`no end-of-image marker (FF D9) after the start of scan at offset ${pos}: the picture is cut short`);
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
