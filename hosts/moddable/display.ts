// The Display port (src/platform.ts) on commodetto: JPEGs decoded block by block with
// `commodetto/readJPEG` and each block drawn with Poco as it comes (no full-frame bitmap: an
// 800x480 RGB565 frame would take 768 KB), scaled to fit the picture area whole and centred
// with black bands; a status line in a strip below it and the pairing PIN in a box over it, with
// BMFont fonts from the SDK's assets.
//
// - Scaling (screen-layout.ts): each block is sampled to the fitted size (nearest neighbour) as
//   it is drawn; the SDK's decoders do not reduce while decoding, so every block is decoded.
// - Slices: a picture decodes a few milliseconds at a time, with a Timer between slices, so the
//   sockets are served while a 12-megapixel photo decodes (showPhoto returns at once; a newer
//   picture or clear restarts or stops the one in progress; the PIN box does not).
// - Pictures that arrive in pieces (openPhotoStream: a photo the core does not keep): the decoder
//   is made empty and pushed the pieces as they come (jpeg-feed.ts); the same slices decode what
//   has come and draw it the same way, and the core reads no more of the socket while the decoder
//   holds more than its bound. Offered only when commodetto/readJPEG is picojpeg (manifest.json
//   maps it on every platform; ESP32's own esp_new_jpeg cannot take pieces).
// - The PIN box: such a picture is never held whole and the screen cannot be read back, so what
//   the box covers is kept as it is drawn (kept-region.ts): every block's and fill's pixels under
//   the largest box a PIN can take, whether a box is up or not, and drawn back when the box goes.
//   While the box is up nothing is drawn inside it (a picture's slices draw around it), so a
//   picture that arrives after the box never covers it.
// - Refusals: what the decoder cannot read is told from the frame header (jpeg-decoders.ts) and
//   refused before the answer (cannotShow); corrupt data found while decoding clears the area.
// - Transitions are not animated (every one draws at once).

import type { PocoPrototype } from 'commodetto/Poco';
import Poco from 'commodetto/Poco';
import type PixelsOut from 'commodetto/PixelsOut';
import Bitmap from 'commodetto/Bitmap';
import JPEG from 'commodetto/readJPEG';
import parseBMF from 'commodetto/parseBMF';
import Resource from 'Resource';
import type { Clock, Display, DisplayStatus, JpegFrame, Logger, PhotoStreamSink, TimerHandle } from '../../src/platform';
import { decoderCannotRead, picojpegBlocks, type JpegDecoderName } from './jpeg-decoders';
import { JpegFeed, type PushDecoder } from './jpeg-feed';
import { KeptRegion, outside, type PixelArray } from './kept-region';
import { fitPicture, letterbox, pinBox, sampleRuns, screenLayout, statusText, type Fit, type Rect, type ScreenLayout } from './screen-layout';
import { describeError } from '../../src/errors';

/** What both decoders of the SDK offer (the portable picojpeg one and ESP32's esp_new_jpeg). */
interface JpegDecoder extends Partial<PushDecoder> {
  readonly width: number;
  readonly height: number;
  readonly ready: boolean;
  /** A block (picojpeg: one MCU; ESP32: a full-width slab), the same bitmap each time; undefined after the last. */
  read(): (Bitmap & { x: number; y: number }) | undefined;
  /** ESP32 only: frees the decoder's output buffer. */
  close?(): void;
}

type Font = ReturnType<typeof parseBMF>;
type Block = Bitmap & { x: number; y: number };

/** The longest PIN (config.ts: a PIN is 4 to 8 digits): its box is the largest the region under it must hold. */
const LONGEST_PIN_DIGITS = 8;

/** Typed arrays of the screen's pixels by their depth in bits (kept-region.ts copies whole pixels). */
const PIXEL_ARRAYS: { readonly [depth: number]: new (buffer: ArrayBuffer, byteOffset?: number) => PixelArray } = {
  8: Uint8Array,
  16: Uint16Array,
  32: Uint32Array,
};

/**
 * Which decoder `commodetto/readJPEG` is: the portable one (picojpeg) has `initialize`, which
 * its native calls once the header is read; ESP32's (esp_new_jpeg) does not.
 */
const DECODER: JpegDecoderName = 'initialize' in (JPEG as unknown as { prototype: object }).prototype ? 'picojpeg' : 'esp_new_jpeg';

/**
 * How long one slice of decoding runs before the other work gets its turn (a Timer). Short
 * enough that a request on another connection waits little; long enough that the timer's own
 * cost stays small beside it.
 */
const SLICE_MS = 8;

/**
 * The pause between slices. Not 0: the Linux simulator runs a 0 ms timer at glib's
 * G_PRIORITY_HIGH (modules/base/timer/lin/timer.c), above the sockets' sources, so a chain of
 * 0 ms timers starved every connection for the whole decode (a GET /info waited 459 ms).
 */
const SLICE_GAP_MS = 1;

/**
 * Most drawBitmap calls between one begin and end: Poco's display list (1,024 bytes by default)
 * holds about 25 bitmap draws. A 16x16 block scaled between 1/2 and 1 gives up to 81 runs.
 */
const DRAWS_PER_FRAME = 16;

/** A picture being decoded onto the screen, a slice at a time. */
interface PictureDecode {
  readonly decoder: JpegDecoder;
  readonly fit: Fit;
  readonly started: number;
  readonly photo: number;
  blocks: number;
  slices: number;
  timer: TimerHandle | undefined;
  /** A picture that arrives in pieces: where they go. */
  readonly stream?: StreamedPicture;
  /** The decoder's block pixels as a typed array (made at the first block; the decoder reuses its buffer). */
  blockPixels?: { readonly buffer: object; readonly pixels: PixelArray };
}

/** What a StreamedPicture tells its display. */
interface StreamOwner {
  /** Pieces came (or the end): a slice decodes what it can. */
  fed(stream: StreamedPicture): void;
  /** The core gave the picture up. */
  aborted(stream: StreamedPicture, reason: string): void;
}

/**
 * The sink of a picture that arrives in pieces (Display.openPhotoStream). Once its picture is
 * drawn, fails or is replaced (another picture, clear) it is over: it drops what still comes,
 * holds nothing, and answers `end` with how it went.
 */
class StreamedPicture implements PhotoStreamSink {
  onDrained: () => void = () => {};
  /** How it went, once over: undefined when drawn or replaced, else why the decoder failed. */
  private outcome: { readonly failure: string | undefined } | undefined;
  private done: ((failure: string | undefined) => void) | undefined;
  /** Bytes written, for the log. */
  bytes = 0;

  constructor(
    readonly feed: JpegFeed,
    /** The blocks (MCUs) the picture has: drawn when that many are. */
    readonly totalBlocks: number,
    private readonly owner: StreamOwner,
  ) {}

  get over(): boolean {
    return this.outcome !== undefined;
  }

  get heldBytes(): number {
    return this.outcome ? 0 : this.feed.heldBytes;
  }

  write(bytes: Uint8Array): void {
    if (this.outcome) return;
    this.bytes += bytes.length;
    this.feed.write(bytes);
    this.owner.fed(this);
  }

  end(done: (failure: string | undefined) => void): void {
    if (this.outcome) {
      done(this.outcome.failure);
      return;
    }
    this.done = done;
    this.feed.end();
    this.owner.fed(this);
  }

  abort(reason: string): void {
    if (!this.outcome) this.owner.aborted(this, reason);
  }

  /** The picture is over (see the class): `end` is answered now or when it comes; the core may go on. */
  finish(failure: string | undefined): void {
    if (this.outcome) return;
    this.outcome = { failure };
    const done = this.done;
    this.done = undefined;
    done?.(failure);
    this.onDrained();
  }
}
/** Font resources named in manifest.json (`resources`): BMFont masks compressed by mcconfig. */
const STATUS_FONT = 'OpenSans-Semibold-16.bf4';
const PIN_FONT = 'OpenSans-Regular-52.bf4';

export class PocoDisplay implements Display {
  private readonly poco: PocoPrototype;
  private readonly layout: ScreenLayout;
  private readonly black: number;
  private readonly white: number;
  private readonly gray: number;
  private readonly statusFont: Font | undefined;
  private readonly pinFont: Font | undefined;
  /** The picture shown (the request's bytes, not copied); redrawn when the PIN box goes only where no region is kept under it. */
  private photo: Uint8Array | undefined;
  /** The picture shown arrived in pieces: nothing of it is kept to draw it again. */
  private streamed = false;
  private pin: string | undefined;
  /** Where the PIN box is drawn, while it is up: nothing else is drawn there. */
  private pinRect: Rect | undefined;
  /** What the screen shows under the largest PIN box, and a bitmap of it to draw back; none when the format or the fonts do not allow it. */
  private readonly kept: { readonly region: KeptRegion; readonly bitmap: Bitmap } | undefined;
  private status = '';
  private shown = 0;
  private decode: PictureDecode | undefined;
  /** sampleRuns output for one block's columns and rows (triples; at most one run per output pixel). */
  private readonly columnRuns: Int32Array;
  private readonly rowRuns: Int32Array;
  /** Display.openPhotoStream, where the decoder takes pieces (picojpeg). */
  readonly openPhotoStream?: (frame: JpegFrame, transition?: string) => PhotoStreamSink;

  constructor(
    screen: PixelsOut,
    private readonly log: Logger,
    /** The host's one-timer clock (single-timer-clock.ts): a decode arms a timer per slice. */
    private readonly clock: Clock,
  ) {
    this.poco = new Poco(screen);
    this.black = this.poco.makeColor(0, 0, 0);
    this.white = this.poco.makeColor(255, 255, 255);
    this.gray = this.poco.makeColor(160, 160, 160);
    this.statusFont = loadFont(STATUS_FONT, log);
    this.pinFont = loadFont(PIN_FONT, log);
    const strip = this.statusFont ? this.statusFont.height + 6 : 0;
    this.layout = screenLayout(this.poco.width, this.poco.height, strip);
    this.columnRuns = new Int32Array(3 * this.layout.picture.width);
    this.rowRuns = new Int32Array(3 * this.layout.picture.height);
    this.kept = this.keepUnderPinBox(screen.pixelFormat);
    this.fill(this.layout.screen, this.black);
    if (DECODER === 'picojpeg') this.openPhotoStream = (frame, transition) => this.openStream(frame, transition);
    const keptRect = this.kept?.region.rect;
    const keptText = keptRect ? `; ${keptRect.width}x${keptRect.height} px (${this.kept!.region.pixels.byteLength} bytes) kept under the PIN box` : '';
    log('info', `screen ${this.poco.width}x${this.poco.height}: pictures in ${this.layout.picture.width}x${this.layout.picture.height}${strip ? `, status line ${strip} px` : ', no status line (no font)'}${keptText}`);
  }

  /**
   * The region kept under the PIN box: the box of the longest PIN of the widest digit (a shorter
   * PIN's box, centred too, lies inside it), in the screen's pixel format; none without a digits
   * font (no box is drawn) or for a format of less than 8 bits a pixel.
   */
  private keepUnderPinBox(pixelFormat: number): { readonly region: KeptRegion; readonly bitmap: Bitmap } | undefined {
    const digitsFont = this.pinFont ?? this.statusFont;
    const depth = Bitmap.depth(pixelFormat as ConstructorParameters<typeof Bitmap>[2]);
    const PixelArrayOf = PIXEL_ARRAYS[depth];
    if (!digitsFont || !PixelArrayOf) return undefined;
    let widest = 0;
    for (let digit = 0; digit < 10; digit++) {
      widest = Math.max(widest, this.poco.getTextWidth(spacedPin(String(digit).repeat(LONGEST_PIN_DIGITS)), digitsFont));
    }
    const rect = pinBox(this.layout.picture, widest, digitsFont.height, this.statusFont ? this.statusFont.height : 0);
    const buffer = new ArrayBuffer((rect.width * rect.height * depth) / 8);
    const region = new KeptRegion(rect, new PixelArrayOf(buffer));
    return { region, bitmap: new Bitmap(rect.width, rect.height, pixelFormat as ConstructorParameters<typeof Bitmap>[2], buffer, 0) };
  }

  showPhoto(jpeg: Uint8Array, transition?: string): void {
    this.photo = jpeg;
    this.streamed = false;
    this.shown++;
    if (transition) this.log('debug', `screen: transition ${transition} not animated: drawn at once`);
    this.drawPhoto();
  }

  cannotShow(frame: JpegFrame): string | undefined {
    return decoderCannotRead(DECODER, frame);
  }

  clear(): void {
    this.photo = undefined;
    this.streamed = false;
    this.stopDecode();
    this.fill(this.layout.picture, this.black);
  }

  showStatus(status: DisplayStatus): void {
    const text = statusText(status);
    if (text === this.status) return;
    this.status = text;
    this.drawStatus();
  }

  showPin(pin: string): void {
    this.pin = pin;
    this.log('info', `screen: pairing PIN ${pin}`);
    this.drawPin();
  }

  hidePin(): void {
    if (this.pin === undefined) return;
    this.pin = undefined;
    this.log('info', 'screen: pairing PIN hidden');
    const box = this.pinRect;
    this.pinRect = undefined;
    if (box) this.restoreUnder(box);
  }

  /**
   * Draws back what the PIN box covered: the kept pixels, as the pictures and fills left them
   * (a picture still decoding draws the rest as it goes on). Without a kept region: the picture
   * decoded again, or black (a picture that arrived in pieces cannot be decoded again).
   */
  private restoreUnder(box: Rect): void {
    const kept = this.kept;
    const rect = kept?.region.rect;
    if (kept && rect && box.x >= rect.x && box.y >= rect.y && box.x + box.width <= rect.x + rect.width && box.y + box.height <= rect.y + rect.height) {
      this.poco.begin(box.x, box.y, box.width, box.height);
      this.poco.drawBitmap(kept.bitmap, box.x, box.y, box.x - rect.x, box.y - rect.y, box.width, box.height);
      this.poco.end();
      return;
    }
    if (this.photo && this.pin === undefined) this.drawPhoto();
    else if (this.streamed || this.pin !== undefined) this.fill(box, this.black);
    else this.fill(this.layout.picture, this.black);
  }

  /**
   * Starts a picture that arrives in pieces: the decoder is made empty, the bands around where
   * the picture will go are drawn now (its size is in the frame header), and slices decode the
   * pieces as they come (continueDecode).
   */
  private openStream(frame: JpegFrame, transition: string | undefined): PhotoStreamSink {
    this.stopDecode();
    this.photo = undefined;
    this.streamed = true;
    this.shown++;
    if (transition) this.log('debug', `screen: transition ${transition} not animated: drawn at once`);
    const area = this.layout.picture;
    const decoder = new (JPEG as unknown as new () => JpegDecoder)();
    const fit = fitPicture(frame.width, frame.height, area);
    for (const band of letterbox(area, fit)) this.fill(band, this.black);
    const { perRow, rows } = picojpegBlocks(frame);
    const stream = new StreamedPicture(new JpegFeed(decoder as PushDecoder), perRow * rows, { fed: this.streamFed, aborted: this.streamAborted });
    this.decode = { decoder, fit, started: Date.now(), photo: this.shown, blocks: 0, slices: 0, timer: undefined, stream };
    return stream;
  }

  /** Pieces came for the picture being decoded: a slice soon, unless one is due already. */
  private readonly streamFed = (stream: StreamedPicture): void => {
    const decode = this.decode;
    if (!decode || decode.stream !== stream || decode.timer !== undefined) return;
    decode.timer = this.clock.setTimer(SLICE_GAP_MS, this.continueDecode);
  };

  /** The core gave up a picture that arrives in pieces: the area is cleared, as for a bad JPEG. */
  private readonly streamAborted = (stream: StreamedPicture, reason: string): void => {
    if (this.decode?.stream !== stream) return;
    this.stopDecode();
    this.log('warn', `screen: photo ${this.shown} not shown: ${reason}`);
    this.streamed = false;
    this.fill(this.layout.picture, this.black);
  };

  /**
   * Starts decoding the picture onto the picture area, scaled to fit, with black bands around
   * it; the decode goes on in slices (continueDecode). A picture being decoded is dropped.
   */
  private drawPhoto(): void {
    this.stopDecode();
    const jpeg = this.photo;
    if (!jpeg) return;
    const area = this.layout.picture;
    let decoder: JpegDecoder;
    try {
      decoder = new JPEG(jpeg) as unknown as JpegDecoder;
    } catch (error) {
      // cannotShow lets through only what the decoder reads: a header it still refuses is corrupt.
      this.decodeFailed(jpeg.length, 0, error);
      return;
    }
    const fit = fitPicture(decoder.width, decoder.height, area);
    for (const band of letterbox(area, fit)) this.fill(band, this.black);
    this.decode = { decoder, fit, started: Date.now(), photo: this.shown, blocks: 0, slices: 0, timer: undefined };
    this.continueDecode();
  }

  /** One slice: blocks decoded and drawn until SLICE_MS have passed, then a timer on the host clock for the next. */
  private readonly continueDecode = (): void => {
    const decode = this.decode;
    if (!decode) return;
    decode.timer = undefined;
    decode.slices++;
    const until = Date.now() + SLICE_MS;
    const { decoder, stream } = decode;
    try {
      // A picture arriving in pieces decodes only what has surely come (JpegFeed.hasMargin).
      while (decoder.ready && (!stream || stream.feed.hasMargin)) {
        const block = decoder.read();
        if (!block) break;
        decode.blocks++;
        this.drawBlock(block, decode);
        if (Date.now() >= until) {
          decode.timer = this.clock.setTimer(SLICE_GAP_MS, this.continueDecode);
          stream?.onDrained();
          return;
        }
      }
    } catch (error) {
      this.decodeFailed(stream ? stream.bytes : (this.photo?.length ?? 0), decode.blocks, error);
      return;
    }
    if (stream && decode.blocks < stream.totalBlocks) {
      // Waiting for pieces: the next write calls a slice (streamFed); the core may send more.
      if (!stream.feed.ended || decoder.ready) {
        stream.onDrained();
        return;
      }
      this.decodeFailed(stream.bytes, decode.blocks, new Error(`the data ended after ${decode.blocks} of ${stream.totalBlocks} blocks`));
      return;
    }
    const { fit } = decode;
    const scale = fit.width === fit.sourceWidth ? 'at its size' : `scaled to ${fit.width}x${fit.height}`;
    const ms = Date.now() - decode.started;
    if (stream) this.log('info', `screen: photo ${decode.photo} drawn as it arrived, ${stream.bytes} bytes: ${fit.sourceWidth}x${fit.sourceHeight} ${scale} at (${fit.x}, ${fit.y}), ${decode.blocks} blocks in ${ms} ms (${decode.slices} slices)`);
    else this.log('debug', `screen: photo ${decode.photo}, ${fit.sourceWidth}x${fit.sourceHeight} ${scale} at (${fit.x}, ${fit.y}), ${decode.blocks} blocks in ${ms} ms (${decode.slices} slices)`);
    this.stopDecode();
  };

  /**
   * Draws the output pixels of one decoded block: the runs of consecutive source pixels it holds
   * along each axis (sampleRuns), one drawBitmap per column run and row run. The decoder reuses
   * the block's pixels for the next one, so each batch of draws ends (Poco renders) at once, and
   * the pixels under the PIN box are kept first. While the box is up, a batch is drawn only
   * around it (Poco clips each draw to begin's rectangle).
   */
  private drawBlock(block: Block, decode: PictureDecode): void {
    const { fit } = decode;
    if (this.kept) this.kept.region.copyBlock(this.blockPixels(block, decode), block, fit);
    const columns = sampleRuns(this.columnRuns, block.x, block.width, fit.sourceWidth, fit.width);
    if (columns === 0) return;
    const rows = sampleRuns(this.rowRuns, block.y, block.height, fit.sourceHeight, fit.height);
    if (rows === 0) return;
    const cr = this.columnRuns;
    const rr = this.rowRuns;
    // Batches of whole row runs, each split into column batches when it alone is too many.
    const rowsPerBatch = Math.max(1, Math.floor(DRAWS_PER_FRAME / columns));
    for (let row = 0; row < rows; row += rowsPerBatch) {
      const lastRow = Math.min(rows, row + rowsPerBatch) - 1;
      const top = rr[3 * row];
      const height = rr[3 * lastRow] + rr[3 * lastRow + 2] - top;
      for (let column = 0; column < columns; column += DRAWS_PER_FRAME) {
        const lastColumn = Math.min(columns, column + DRAWS_PER_FRAME) - 1;
        const left = cr[3 * column];
        const width = cr[3 * lastColumn] + cr[3 * lastColumn + 2] - left;
        const hole = this.pinRect;
        if (!hole) {
          this.drawBatch(block, fit, fit.x + left, fit.y + top, width, height, row, lastRow, column, lastColumn);
          continue;
        }
        for (const part of outside({ x: fit.x + left, y: fit.y + top, width, height }, hole)) {
          this.drawBatch(block, fit, part.x, part.y, part.width, part.height, row, lastRow, column, lastColumn);
        }
      }
    }
  }

  /** One frame of Poco: the runs `row` to `lastRow` by `column` to `lastColumn` (drawBlock's), drawn where they fall inside x, y, width, height. */
  private drawBatch(block: Block, fit: Fit, x: number, y: number, width: number, height: number, row: number, lastRow: number, column: number, lastColumn: number): void {
    const poco = this.poco;
    const cr = this.columnRuns;
    const rr = this.rowRuns;
    poco.begin(x, y, width, height);
    for (let r = row; r <= lastRow; r++) {
      for (let c = column; c <= lastColumn; c++) {
        poco.drawBitmap(block, fit.x + cr[3 * c], fit.y + rr[3 * r], cr[3 * c + 1] - block.x, rr[3 * r + 1] - block.y, cr[3 * c + 2], rr[3 * r + 2]);
      }
    }
    poco.end();
  }

  /** The block's pixels as a typed array of the screen's depth (rows `block.width` pixels apart), made once per decoder buffer. */
  private blockPixels(block: Block, decode: PictureDecode): PixelArray {
    const buffer = (block as unknown as { buffer: ArrayBuffer }).buffer;
    if (decode.blockPixels?.buffer !== buffer) {
      const PixelArrayOf = PIXEL_ARRAYS[Bitmap.depth(block.pixelFormat)];
      decode.blockPixels = { buffer, pixels: new PixelArrayOf(buffer, block.offset) };
    }
    return decode.blockPixels.pixels;
  }

  /**
   * Stops a decode in progress (its timer, its decoder's buffer); a picture arriving in pieces is
   * over, with `failure` when its decoder failed (else drawn or replaced).
   */
  private stopDecode(failure?: string): void {
    const decode = this.decode;
    if (!decode) return;
    this.decode = undefined;
    if (decode.timer !== undefined) this.clock.clearTimer(decode.timer);
    decode.decoder.close?.();
    decode.stream?.finish(failure);
  }

  /** picojpeg: "jpeg init failed" (a header it refuses), "jpeg read failed" (corrupt data). */
  private decodeFailed(bytes: number, blocks: number, error: unknown): void {
    const reason = describeError(error);
    this.stopDecode(reason);
    trace(`screen: cannot decode the picture (${bytes} bytes, ${blocks} blocks drawn): ${reason}\n`);
    this.log('warn', `screen: photo ${this.shown} not shown: the JPEG does not decode`);
    this.photo = undefined;
    this.streamed = false;
    this.fill(this.layout.picture, this.black);
  }

  private drawStatus(): void {
    const { status } = this.layout;
    const font = this.statusFont;
    if (!font || status.height === 0) return;
    const poco = this.poco;
    poco.begin(status.x, status.y, status.width, status.height);
    poco.fillRectangle(this.black, status.x, status.y, status.width, status.height);
    poco.drawText(this.status, font, this.gray, status.x + 4, status.y + 3, status.width - 8);
    poco.end();
  }

  private drawPin(): void {
    const pin = this.pin;
    if (pin === undefined) return;
    const area = this.layout.picture;
    const poco = this.poco;
    const label = 'PIN';
    const labelFont = this.statusFont;
    const digitsFont = this.pinFont ?? this.statusFont;
    if (!digitsFont) return; // no font: the PIN is in the log only
    const spaced = spacedPin(pin);
    const box = pinBox(area, poco.getTextWidth(spaced, digitsFont), digitsFont.height, labelFont ? labelFont.height : 0);
    const before = this.pinRect;
    if (before && (before.x !== box.x || before.y !== box.y || before.width !== box.width || before.height !== box.height)) {
      // Another PIN's box, of another length: what the old one covered comes back first.
      this.pinRect = undefined;
      this.restoreUnder(before);
    }
    this.pinRect = box;
    poco.begin(box.x, box.y, box.width, box.height);
    poco.fillRectangle(this.white, box.x, box.y, box.width, box.height);
    poco.fillRectangle(this.black, box.x + 3, box.y + 3, box.width - 6, box.height - 6);
    let y = box.y + 12;
    if (labelFont) {
      poco.drawText(label, labelFont, this.gray, box.x + ((box.width - poco.getTextWidth(label, labelFont)) >> 1), y);
      y += labelFont.height + 12;
    }
    poco.drawText(spaced, digitsFont, this.white, box.x + ((box.width - poco.getTextWidth(spaced, digitsFont)) >> 1), y);
    poco.end();
  }

  /** Fills `rect` (kept under the PIN box too), around the box while it is up. */
  private fill(rect: Rect, color: number): void {
    if (rect.width <= 0 || rect.height <= 0) return;
    this.kept?.region.fill(rect, color);
    for (const part of this.pinRect ? outside(rect, this.pinRect) : [rect]) {
      this.poco.begin(part.x, part.y, part.width, part.height);
      this.poco.fillRectangle(color, part.x, part.y, part.width, part.height);
      this.poco.end();
    }
  }
}

/** The PIN as drawn: its digits spaced out. */
function spacedPin(pin: string): string {
  return pin.split('').join(' ');
}

function loadFont(name: string, log: Logger): Font | undefined {
  try {
    return parseBMF(new Resource(name));
  } catch (error) {
    log('warn', `screen: no font ${name} (${describeError(error)})`);
    return undefined;
  }
}

/** The screen of the simulators and of boards with a display (`globalThis.screen`), or undefined. */
export function boardScreen(): PixelsOut | undefined {
  return (globalThis as { screen?: PixelsOut }).screen;
}
