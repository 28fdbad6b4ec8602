// Debian's Chromium for the browser tests and benches (driven by playwright-core): where it is and
// how it runs: headless, and with the browser's own network services off (loopback only).

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeJpeg, type Rgb } from './color-blocks';

const CHROMIUM = '/usr/bin/chromium';
const BUILD_SCRIPT = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The page size every browser test and bench opens the screen page at. */
export const VIEWPORT = { width: 640, height: 480 };

/**
 * Debian's Chromium, headless; a clear failure when it is not installed. The screen page it will
 * open is the one built into dist/screen/ (hosts/node/screen/page/ bundled by scripts/build.mjs):
 * built first when a source is newer, so a test run on its own sees the page as it is now.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  execFileSync(process.execPath, [BUILD_SCRIPT, '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * A new page of VIEWPORT size at `url`, once `ready` (a selector) matches; by default, once the
 * screen page's link is live. `timeoutMs` bounds the wait (a failure bound: a busy machine takes
 * seconds to load a page).
 */
export async function openScreenPage(browser: Browser, url: string, ready = '#status .link:text-is("live")', timeoutMs = 30_000): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.goto(url);
  await page.waitForSelector(ready, { timeout: timeoutMs });
  return page;
}

/**
 * The colour in the middle of the screen page's picture (40 px above the window's middle: the
 * status bar takes the bottom), from a JPEG screenshot of `page` at `quality`.
 */
export async function pictureCentre(page: Page, quality = 95): Promise<Rgb> {
  const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality }));
  return shot.pixel(shot.width / 2, shot.height / 2 - 40);
}

/**
 * A script for the screen page that records what mirroring decodes and draws: the time each
 * decoded picture is due (its timestamp, on the page's performance.now() clock), and for each
 * picture drawn, when (just after the draw), when it was due, and the colour of the mirroring
 * canvas at three points (a quarter in from the top left and top right, a quarter up from the
 * bottom middle). Screenshots taken one after another see what is on the screen when they happen
 * to run, and on a busy machine a second of one colour can fall between two of them; this sees
 * every picture, however slowly the page or the test runs. Give it to page.addInitScript() before
 * the page loads, or evaluate it in a page that has decoded nothing yet (the page makes its
 * decoder, and its canvas context looks drawImage up, when it needs them).
 */
export const MIRROR_RECORDER = `(() => {
  if (globalThis.__vpMirror) return;
  const record = { decoded: [], draws: [] };
  globalThis.__vpMirror = record;
  const PageVideoDecoder = globalThis.VideoDecoder;
  if (typeof PageVideoDecoder === 'function') {
    globalThis.VideoDecoder = class extends PageVideoDecoder {
      constructor(init) {
        super({ ...init, output: (frame) => {
          record.decoded.push(frame.timestamp / 1000);
          init.output(frame);
        } });
      }
    };
  }
  const drawImage = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (image, ...rest) {
    drawImage.call(this, image, ...rest);
    if (this.canvas.id !== 'mirror' || typeof image.timestamp !== 'number') return;
    const { width, height } = this.canvas;
    const pixel = (x, y) => Array.from(this.getImageData(Math.floor(x * width), Math.floor(y * height), 1, 1).data.subarray(0, 3));
    record.draws.push({ at: performance.now(), due: image.timestamp / 1000, points: [pixel(0.25, 0.25), pixel(0.75, 0.25), pixel(0.5, 0.75)] });
  };
})();`;

/** One mirrored picture the page drew (MIRROR_RECORDER). */
export interface MirrorDraw {
  /** Page time (ms) just after it was drawn. */
  readonly at: number;
  /** Page time (ms) it was due. */
  readonly due: number;
  readonly points: readonly Rgb[];
}

/** What the page's mirroring decoded (when each picture is due, in decoding order) and drew (in order). */
export interface MirrorRecord {
  readonly decoded: readonly number[];
  readonly draws: readonly MirrorDraw[];
}

/** Starts recording what mirroring decodes and draws on `page` (see MIRROR_RECORDER). */
export async function recordMirror(page: Page): Promise<void> {
  await page.evaluate(MIRROR_RECORDER);
}

/** What mirroring decoded and drew on `page` so far. */
export async function mirrorRecord(page: Page): Promise<MirrorRecord> {
  return (await page.evaluate('globalThis.__vpMirror ?? { decoded: [], draws: [] }')) as MirrorRecord;
}

/**
 * Whether `count` pictures were decoded and every one is on the screen or was passed over: the
 * newest was drawn (the page draws the newest picture due and never drops it).
 */
export function allShown(record: MirrorRecord, count: number): boolean {
  if (record.decoded.length < count) return false;
  const newest = Math.max(...record.decoded);
  return record.draws.some((draw) => draw.due === newest);
}
