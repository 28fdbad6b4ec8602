// What the SDK's JPEG decoders read, told from a frame header (pure: tested under Node and XS),
// so the display refuses a picture before the answer (Display.cannotShow) instead of answering
// 200 and leaving the screen black ("jpeg init failed").
//
// picojpeg (commodetto/readJPEG on every platform this app builds, ESP32 included: manifest.json
// maps the SDK's generic wrapper, which takes a picture in pieces), read from
// modules/commodetto/picojpeg.c and commodettoReadJPEG.c in SDK 8.2.3:
// - SOF0 only: progressive (PJPG_UNSUPPORTED_MODE), extended and lossless
//   (PJPG_UNSUPPORTED_MARKER), arithmetic (PJPG_NO_ARITHMITIC_SUPPORT) fail at init.
// - 8-bit samples, 1 or 3 components, quantization tables 0 and 1.
// - Sampling: grayscale 1x1; colour with both chroma components 1x1 and luma 1x1, 2x1 or 2x2.
//   Luma 1x2 decodes, but commodetto's converter draws nothing for it ("unimplemented scan
//   type"). ffmpeg's yuvj444p writes 1x2 for every component (4:4:4 all the same, yet not 1x1):
//   picojpeg refuses it (PJPG_UNSUPPORTED_SAMP_FACTORS), the failure seen as "jpeg init failed".
// - The wrapper counts MCUs in small fields: MCUs per row in an unsigned char (at most 255: 4080
//   pixels at 16-pixel MCUs, 2040 at 8), MCU rows less one in an unsigned char (256 rows), the
//   MCUs left in a uint16 (65,535). Past them the picture would be drawn wrong, so it is refused.
// - A height given later by a DNL segment (height 0 in the frame header) fails (PJPG_BAD_HEIGHT).
//
// esp_new_jpeg (the SDK's own ESP32 commodetto/readJPEG, for a build that maps it instead; it
// cannot take a picture in pieces, `push` throws): baseline Huffman pictures of 8-bit samples; its
// sampling limits are its own and are not checked here (not verified on a board).

import type { JpegFrame } from '../../src/platform';

/** The SDK decoders this host may be built with. */
export type JpegDecoderName = 'picojpeg' | 'esp_new_jpeg';

/** picojpeg's MCU counters in commodettoReadJPEG.c (unsigned char, unsigned char, uint16_t). */
const PICOJPEG_MAX_MCUS_PER_ROW = 255;
const PICOJPEG_MAX_MCU_ROWS = 256;
const PICOJPEG_MAX_MCUS = 65535;

/** Luma sampling (H x V) picojpeg decodes and commodetto draws, with chroma 1x1. */
const PICOJPEG_LUMA_SAMPLING = ['1x1', '2x1', '2x2'];

/** Why `decoder` cannot read a picture with this frame header, or undefined when it can. */
export function decoderCannotRead(decoder: JpegDecoderName, frame: JpegFrame): string | undefined {
  const coding = codingRefusal(frame);
  if (coding) return `${coding}; ${decoder} reads baseline JPEGs only`;
  if (frame.precision !== 8) return `${frame.precision}-bit samples; ${decoder} reads 8-bit JPEGs only`;
  return decoder === 'picojpeg' ? picojpegRefusal(frame) : undefined;
}

function codingRefusal(frame: JpegFrame): string | undefined {
  if (frame.differential) return 'a hierarchical JPEG';
  if (frame.arithmetic) return 'arithmetic coding';
  if (frame.process !== 'baseline') return `a ${frame.process} JPEG`;
  return undefined;
}

function picojpegRefusal(frame: JpegFrame): string | undefined {
  const { components } = frame;
  if (components.length !== 1 && components.length !== 3) return `${components.length} components (CMYK?); picojpeg reads grayscale or YCbCr`;
  if (components.some((component) => component.quantTable > 1)) return 'a quantization table other than 0 and 1; picojpeg has two';
  if (frame.height === 0) return 'the height is given after the scan (DNL); picojpeg needs it in the frame header';
  const sampling = components.map((component) => `${component.horizontal}x${component.vertical}`);
  const luma = sampling[0];
  if (components.length === 1 ? luma !== '1x1' : sampling[1] !== '1x1' || sampling[2] !== '1x1' || !PICOJPEG_LUMA_SAMPLING.includes(luma)) {
    return `sampling factors ${sampling.join(',')}; picojpeg reads 1x1 grayscale, or colour with chroma 1x1 and luma ${PICOJPEG_LUMA_SAMPLING.join(', ')}`;
  }
  const { mcuWidth, mcuHeight, perRow, rows } = picojpegBlocks(frame);
  if (perRow > PICOJPEG_MAX_MCUS_PER_ROW || rows > PICOJPEG_MAX_MCU_ROWS || perRow * rows > PICOJPEG_MAX_MCUS) {
    return `${perRow} x ${rows} blocks of ${mcuWidth}x${mcuHeight}; commodetto's picojpeg counts at most ${PICOJPEG_MAX_MCUS_PER_ROW} a row, ${PICOJPEG_MAX_MCU_ROWS} rows, ${PICOJPEG_MAX_MCUS} in all`;
  }
  return undefined;
}

/** picojpeg's blocks (MCUs) of a picture it reads: their size, how many a row, how many rows. */
export function picojpegBlocks(frame: JpegFrame): { mcuWidth: number; mcuHeight: number; perRow: number; rows: number } {
  const { components } = frame;
  const mcuWidth = components.length === 1 ? 8 : components[0].horizontal * 8;
  const mcuHeight = components.length === 1 ? 8 : components[0].vertical * 8;
  return { mcuWidth, mcuHeight, perRow: Math.ceil(frame.width / mcuWidth), rows: Math.ceil(frame.height / mcuHeight) };
}
