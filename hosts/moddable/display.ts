// The Display port (src/platform.ts) on commodetto: JPEGs decoded block by block with
// `commodetto/readJPEG` and each block drawn with Poco as it comes (no full-frame bitmap: an
// 800x480 RGB565 frame would take 768 KB), centred in the picture area; a status line in a strip
// below it and the pairing PIN in a box over it, with BMFont fonts from the SDK's assets.
//
// Limits (README): neither decoder of the SDK scales, so a picture larger than the area is
// cropped around its centre; transitions are not animated (every one draws at once); the portable
// decoder takes baseline JPEGs only (no progressive), so those fail to decode and the area clears.

import type { PocoPrototype } from 'commodetto/Poco';
import Poco from 'commodetto/Poco';
import type PixelsOut from 'commodetto/PixelsOut';
import type Bitmap from 'commodetto/Bitmap';
import JPEG from 'commodetto/readJPEG';
import parseBMF from 'commodetto/parseBMF';
import Resource from 'Resource';
import type { Display, DisplayStatus, Logger } from '../../src/platform';
import { blockRect, pinBox, placePicture, screenLayout, statusText, type Rect, type ScreenLayout } from './screen-layout';
import { describeError } from '../../src/errors';

/** What both decoders of the SDK offer (the portable picojpeg one and ESP32's esp_new_jpeg). */
interface JpegDecoder {
  readonly width: number;
  readonly height: number;
  readonly ready: boolean;
  /** A block (picojpeg: one MCU; ESP32: a full-width slab), the same bitmap each time; undefined after the last. */
  read(): (Bitmap & { x: number; y: number }) | undefined;
  /** ESP32 only: frees the decoder's output buffer. */
  close?(): void;
}

type Font = ReturnType<typeof parseBMF>;

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
  /** The picture shown (the request's bytes, not copied), redrawn when the PIN box goes. */
  private photo: Uint8Array | undefined;
  private pin: string | undefined;
  private status = '';
  private shown = 0;

  constructor(
    screen: PixelsOut,
    private readonly log: Logger,
  ) {
    this.poco = new Poco(screen);
    this.black = this.poco.makeColor(0, 0, 0);
    this.white = this.poco.makeColor(255, 255, 255);
    this.gray = this.poco.makeColor(160, 160, 160);
    this.statusFont = loadFont(STATUS_FONT, log);
    this.pinFont = loadFont(PIN_FONT, log);
    const strip = this.statusFont ? this.statusFont.height + 6 : 0;
    this.layout = screenLayout(this.poco.width, this.poco.height, strip);
    this.fill(this.layout.screen, this.black);
    log('info', `screen ${this.poco.width}x${this.poco.height}: pictures in ${this.layout.picture.width}x${this.layout.picture.height}${strip ? `, status line ${strip} px` : ', no status line (no font)'}`);
  }

  showPhoto(jpeg: Uint8Array, transition?: string): void {
    this.photo = jpeg;
    this.shown++;
    if (transition) this.log('debug', `screen: transition ${transition} not animated: drawn at once`);
    this.drawPhoto();
    if (this.pin !== undefined) this.drawPin();
  }

  clear(): void {
    this.photo = undefined;
    this.fill(this.layout.picture, this.black);
    if (this.pin !== undefined) this.drawPin();
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
    // What was under the box: the picture again (decoded once more), or black.
    if (this.photo) this.drawPhoto();
    else this.fill(this.layout.picture, this.black);
  }

  /** Decodes the picture block by block onto the picture area; a JPEG the decoder refuses clears it. */
  private drawPhoto(): void {
    const jpeg = this.photo;
    if (!jpeg) return;
    const area = this.layout.picture;
    const started = Date.now();
    let decoder: JpegDecoder | undefined;
    let blocks = 0;
    try {
      decoder = new JPEG(jpeg) as unknown as JpegDecoder;
      const placement = placePicture(decoder.width, decoder.height, area);
      // Black around a smaller picture; a larger one covers the area.
      if (placement.x > area.x || placement.y > area.y || placement.x + placement.width < area.x + area.width || placement.y + placement.height < area.y + area.height) {
        this.fill(area, this.black);
      }
      const poco = this.poco;
      while (decoder.ready) {
        const block = decoder.read();
        if (!block) break;
        blocks++;
        const rect = blockRect(placement, area, block.x, block.y, block.width, block.height);
        if (!rect) continue; // cropped away: decoded (the decoder goes in order) but not drawn
        poco.begin(rect.x, rect.y, rect.width, rect.height);
        poco.drawBitmap(block, placement.x + block.x, placement.y + block.y);
        poco.end();
      }
      this.log('debug', `screen: photo ${this.shown}, ${decoder.width}x${decoder.height} ${placement.cropped ? 'cropped to' : 'centred in'} ${area.width}x${area.height}, ${blocks} blocks in ${Date.now() - started} ms`);
    } catch (error) {
      // picojpeg: "jpeg init failed" (not a baseline JPEG), "jpeg read failed" (corrupt data).
      trace(`screen: cannot decode the picture (${jpeg.length} bytes, ${blocks} blocks drawn): ${describeError(error)}\n`);
      this.log('warn', `screen: photo ${this.shown} not shown: the JPEG does not decode`);
      this.photo = undefined;
      this.fill(area, this.black);
    } finally {
      decoder?.close?.();
    }
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
    const spaced = pin.split('').join(' ');
    const box = pinBox(area, poco.getTextWidth(spaced, digitsFont), digitsFont.height, labelFont ? labelFont.height : 0);
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

  private fill(rect: Rect, color: number): void {
    if (rect.width <= 0 || rect.height <= 0) return;
    this.poco.begin(rect.x, rect.y, rect.width, rect.height);
    this.poco.fillRectangle(color, rect.x, rect.y, rect.width, rect.height);
    this.poco.end();
  }
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
