// The VideoDecoder port (src/platform.ts) on the libavcodec natives of modules/native/video-decoder:
// each access unit is decoded when it arrives (pictures wait in the natives' ring, converted to
// the screen's pixel format and scaled to fit), and a Timer draws each picture with Poco at its
// presentation time, centred on the screen. Pictures already late when their turn comes are
// skipped but the newest due one is drawn; when the ring is full the oldest is dropped.
//
// After configure, reset or a decoding error, access units are skipped until the next key frame
// (a decoder without its references would draw garbage).

import Bitmap from 'commodetto/Bitmap';
import Poco, { type PocoPrototype } from 'commodetto/Poco';
import type PixelsOut from 'commodetto/PixelsOut';
import { placePicture } from './screen-layout';
import type { Clock, Logger, ScreenGeometry, TimerHandle, VideoDecoder, VideoDecoderConfig } from '../../src/platform';
import type { DecoderHandle, NativePixelFormat, NativeVideoDecoder } from '../../modules/native/video-decoder/natives';
import { describeError } from '../../src/errors';

/**
 * A picture due further ahead than this is drawn now: the sender's times and the host clock
 * disagree, and waiting would let the ring fill and drop every picture unseen.
 */
const MAX_AHEAD_MS = 2000;

type PixelFormat = ConstructorParameters<typeof Bitmap>[2];

/** Screen pixel formats the natives convert to, by commodetto format (whose depth Bitmap.depth gives). */
const PIXEL_FORMATS = new Map<number, NativePixelFormat>([
  [Bitmap.RGB565LE, 'rgb565le'],
  [Bitmap.RGB565BE, 'rgb565be'],
  [Bitmap.Gray256, 'gray8'],
]);

export interface ModdableVideoDecoderOptions {
  /** libavcodec decoders to try in order ("h264_v4l2m2m", "h264"); the first that opens is used. */
  readonly codecs: readonly string[];
  /** Decoded pictures waiting for their time, at most (the natives' ring, 1 to 32). */
  readonly pending: number;
  /** Seconds per screen refresh (ScreenGeometry.refreshRate). */
  readonly refreshRate: number;
  readonly clock: Clock;
  readonly log: Logger;
}

/** What happened to the pictures so far (logged at reset and by the built-in test clip). */
export interface VideoDecoderCounts {
  accessUnits: number;
  drawn: number;
  late: number;
  /** Drawn at once: due more than MAX_AHEAD_MS ahead. */
  early: number;
  overflow: number;
  skippedUntilKeyFrame: number;
  errors: number;
}

export class ModdableVideoDecoder implements VideoDecoder {
  readonly geometry: ScreenGeometry;
  readonly codecName: string;
  readonly counts: VideoDecoderCounts = { accessUnits: 0, drawn: 0, late: 0, early: 0, overflow: 0, skippedUntilKeyFrame: 0, errors: 0 };
  private readonly poco: PocoPrototype;
  private readonly handle: DecoderHandle;
  private readonly pixelFormat: PixelFormat;
  /** One screen's worth of pixels: every picture is copied here to be drawn (no allocation per picture). */
  private readonly pixels: ArrayBuffer;
  /** The natives write [time, width, height] of the next picture here (peek). */
  /** [time, width, height] of the oldest pending picture and the next one's time (peek). */
  private readonly infoBuffer = new ArrayBuffer(32);
  private readonly info = new Float64Array(this.infoBuffer);
  private readonly black: number;
  private pending = 0;
  private timer: TimerHandle | undefined;
  private needKeyFrame = true;
  /** The rectangle the last picture covered: black is drawn around a picture only when it changes. */
  private lastWidth = 0;
  private lastHeight = 0;

  constructor(
    private readonly natives: NativeVideoDecoder,
    screen: PixelsOut,
    private readonly options: ModdableVideoDecoderOptions,
  ) {
    this.poco = new Poco(screen);
    const format = PIXEL_FORMATS.get(screen.pixelFormat);
    if (!format) throw new Error(`video decoder: screen pixel format ${screen.pixelFormat} not supported (RGB565LE, RGB565BE, Gray256)`);
    this.pixelFormat = screen.pixelFormat as PixelFormat;
    const { width, height } = this.poco;
    this.geometry = { width, height, refreshRate: options.refreshRate, overscanned: false };
    let handle: DecoderHandle | undefined;
    const failures: string[] = [];
    for (const codec of options.codecs) {
      try {
        handle = natives.open(codec, width, height, format, options.pending);
        break;
      } catch (error) {
        failures.push(describeError(error));
      }
    }
    if (!handle) throw new Error(failures.join('; ') || 'video decoder: no codec named');
    if (failures.length > 0) options.log('warn', `${failures.join('; ')}: using the next decoder`);
    this.handle = handle;
    this.codecName = natives.name(handle);
    this.pixels = new ArrayBuffer((width * height * Bitmap.depth(this.pixelFormat)) >> 3);
    this.black = this.poco.makeColor(0, 0, 0);
  }

  configure(config: VideoDecoderConfig): void {
    this.stopTimer();
    this.pending = 0;
    this.needKeyFrame = true;
    try {
      this.natives.configure(this.handle, config.parameterSets);
    } catch (error) {
      // libavcodec refused the parameter sets: the stream repeats them in-band before each key
      // frame, so the open decoder (flushed) may still take it from there.
      this.counts.errors++;
      this.natives.flush(this.handle);
      this.options.log('warn', `video: ${config.codec}: parameter sets refused (${describeError(error)}): waiting for a key frame with its own`);
      return;
    }
    this.options.log('info', `video: ${config.codec} on ${this.codecName}, ${this.geometry.width}x${this.geometry.height} screen`);
  }

  decode(accessUnit: Uint8Array, presentationTime: number, keyFrame: boolean): void {
    this.counts.accessUnits++;
    if (this.needKeyFrame) {
      if (!keyFrame) {
        this.counts.skippedUntilKeyFrame++;
        return;
      }
      this.needKeyFrame = false;
    }
    // The ring is full: the oldest picture is the most overdue; it goes so the stream keeps up.
    if (this.pending >= this.options.pending) {
      this.natives.drop(this.handle);
      this.pending--;
      this.counts.overflow++;
    }
    try {
      this.pending = this.natives.push(this.handle, accessUnit, presentationTime);
    } catch (error) {
      this.counts.errors++;
      this.needKeyFrame = true;
      this.options.log('warn', `video: access unit of ${accessUnit.length} bytes not decoded (${describeError(error)}): waiting for a key frame`);
      return;
    }
    if (!this.timer) this.present();
  }

  reset(): void {
    this.stopTimer();
    this.natives.flush(this.handle);
    this.pending = 0;
    this.needKeyFrame = true;
    this.lastWidth = this.lastHeight = 0;
    const { width, height } = this.geometry;
    this.poco.begin(0, 0, width, height);
    this.poco.fillRectangle(this.black, 0, 0, width, height);
    this.poco.end();
    this.options.log('info', `video: reset after ${describeCounts(this.counts)}`);
  }

  /** Frees the natives' decoder (the port is not used after). */
  close(): void {
    this.stopTimer();
    this.natives.close(this.handle);
  }

  /** A Timer's turn: an exception must not escape into the runtime (it aborts the app). */
  private present(): void {
    this.timer = undefined;
    try {
      this.presentDue();
    } catch (error) {
      this.counts.errors++;
      this.options.log('warn', `video: picture not shown (${describeError(error)}): dropping what is pending, waiting for a key frame`);
      this.natives.flush(this.handle);
      this.pending = 0;
      this.needKeyFrame = true;
    }
  }

  /** Draws the newest picture that is due (skipping older due ones), then waits for the next one's time. */
  private presentDue(): void {
    const now = this.options.clock.now();
    // Half a refresh early is on time: the draw lands on the refresh the picture belongs to.
    const due = now + (this.options.refreshRate * 1000) / 2;
    let width = 0;
    let height = 0;
    let read = false;
    // Due: by now, or so far ahead that the clock must have jumped (shown rather than held).
    const isDue = (time: number) => time <= due || time > now + MAX_AHEAD_MS;
    while ((this.pending = this.natives.peek(this.handle, this.infoBuffer)) > 0) {
      if (!isDue(this.info[0])) break;
      if (this.info[0] > due) this.counts.early++;
      if (this.pending > 1 && isDue(this.info[3])) {
        // A newer picture is due too: this one is late, dropped without its copy.
        this.natives.drop(this.handle);
        this.counts.late++;
        continue;
      }
      width = this.info[1];
      height = this.info[2];
      this.natives.read(this.handle, this.pixels);
      read = true;
    }
    if (read) this.draw(width, height);
    if (this.pending > 0) {
      const wait = Math.max(0, Math.ceil(this.info[0] - this.options.clock.now()));
      // On the host's one-timer clock: a new SDK timer per picture would wrap the Linux port's
      // 16-bit timer ids within the hour (single-timer-clock.ts).
      this.timer = this.options.clock.setTimer(wait, () => this.present());
    }
  }

  private draw(width: number, height: number): void {
    const screen = this.geometry;
    const { x, y } = placePicture(width, height, { x: 0, y: 0, width: screen.width, height: screen.height });
    const bitmap = new Bitmap(width, height, this.pixelFormat, this.pixels, 0);
    const poco = this.poco;
    if (width !== this.lastWidth || height !== this.lastHeight) {
      // A new size: black around it once (the letterbox or pillarbox bars).
      poco.begin(0, 0, screen.width, screen.height);
      poco.fillRectangle(this.black, 0, 0, screen.width, screen.height);
      this.lastWidth = width;
      this.lastHeight = height;
    } else {
      poco.begin(x, y, width, height);
    }
    poco.drawBitmap(bitmap, x, y);
    poco.end();
    this.counts.drawn++;
  }

  private stopTimer(): void {
    if (this.timer) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
  }
}

/** The counts as one log phrase. */
export function describeCounts(counts: VideoDecoderCounts): string {
  const { accessUnits, drawn, late, early, overflow, skippedUntilKeyFrame, errors } = counts;
  return `${accessUnits} access units, ${drawn} drawn, ${late} late, ${early} early, ${overflow} dropped (ring full), ${skippedUntilKeyFrame} before a key frame, ${errors} errors`;
}
