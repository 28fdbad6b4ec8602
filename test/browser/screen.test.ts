// The virtual screen page in a real browser (Debian's headless Chromium, driven by
// playwright-core): a photo sent with PUT /photo appears on the page (a screenshot's pixels at the
// centres of the picture's colour blocks match it), the page updates live when a second photo is
// sent, a photo and a slideshow sent with vendorplay-send appear and advance, and POST /stop
// clears it. Screenshots also check how it reads: the status bar's contrast on white and black
// pictures, a page opened while a picture is shown (no idle name faded across it), and the PIN
// panel on a solid backdrop. Loopback only: the receiver runs with --no-mdns, and the
// browser's own network services are switched off.
//
// On a busy machine a screenshot can take seconds: a slideshow's pictures are checked as the page
// shows each (RECORD_SHOWN), not by screenshots racing the next slide; every wait is bounded
// generously and ends when its condition holds.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  BLUE,
  CYAN,
  GREEN,
  MAGENTA,
  ORANGE,
  RED,
  WHITE,
  YELLOW,
  blockCentre,
  blockPicture,
  colourDistance,
  decodeJpeg,
  type BlockPicture,
  type Rgb,
} from '../support/color-blocks';
import { PROJECT_ROOT, ReceiverProcess, runSender, until } from '../e2e/receiver-process';
import { launchChromium, openScreenPage, VIEWPORT } from '../support/chromium';

/** Bound on the waits for the page and the sender (a failure bound: a busy machine makes them slow, not wrong). */
const PAGE_MS = 30_000;

/** Runs the sender command to its end (bounded) and returns its exit code and output. */
function send(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin/vendorplay-send.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vendorplay-send ${args.join(' ')} ran past ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The page's size; the pictures are 4:3 too, so they fill it. */
/** Per channel: the picture went through a JPEG encoder, the browser's decoder and scaling, and a JPEG screenshot. */
const TOLERANCE = 40;
const SESSION = '0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f';

const FIRST = blockPicture([
  [RED, GREEN],
  [BLUE, YELLOW],
]);
const SECOND = blockPicture([
  [CYAN, MAGENTA, WHITE],
  [ORANGE, RED, BLUE],
]);
const THIRD = blockPicture([
  [YELLOW, BLUE],
  [GREEN, MAGENTA],
]);
const SLIDES = [
  blockPicture([[ORANGE, CYAN]]),
  blockPicture([
    [WHITE, RED],
    [GREEN, BLUE],
  ]),
];

const BLACK: Rgb = [0, 0, 0];

/** The grid RECORD_SHOWN reads a shown picture on: GRID x GRID cell centres (6: blocks of 1, 2 or 3 rows and columns meet at cell edges). */
const GRID = 6;

/**
 * Run in the page: each time a picture is fully shown (body data-shown-version changes), its
 * version and the colours of the current picture at the centres of a GRID x GRID grid, read from
 * the picture itself at its own size, kept in globalThis.__vpShown.
 */
const RECORD_SHOWN = `(() => {
  globalThis.__vpShown = [];
  new MutationObserver(() => {
    const version = Number(document.body.dataset.shownVersion);
    const image = document.querySelector('#stage .photo.current');
    if (!version || !image) return;
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const grid = [];
    for (let row = 0; row < ${GRID}; row++) {
      for (let column = 0; column < ${GRID}; column++) {
        const x = Math.floor(((column + 0.5) * canvas.width) / ${GRID});
        const y = Math.floor(((row + 0.5) * canvas.height) / ${GRID});
        grid.push(Array.from(context.getImageData(x, y, 1, 1).data.subarray(0, 3)));
      }
    }
    globalThis.__vpShown.push({ version, grid });
  }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ['data-shown-version'] });
})();`;

/** A picture the page showed (RECORD_SHOWN). */
interface ShownPicture {
  readonly version: number;
  readonly grid: readonly Rgb[];
}

/** Every grid cell of `shown` has the colour of the block of `picture` it falls in. */
function assertShows(shown: ShownPicture, picture: BlockPicture, what: string): void {
  const rows = picture.blocks.length;
  const columns = picture.blocks[0].length;
  shown.grid.forEach((seen, cell) => {
    const [row, column] = [Math.floor(cell / GRID), cell % GRID];
    const expected = picture.blocks[Math.floor((row * rows) / GRID)][Math.floor((column * columns) / GRID)];
    assert.ok(colourDistance(seen, expected) <= TOLERANCE, `${what}, cell ${row},${column}: rgb(${seen.join(',')}), sent rgb(${expected.join(',')})`);
  });
}

/**
 * Run in the page before its own script: at the moment a picture goes up (body.has-photo), every
 * animation and transition is paused, so a screenshot shows what a person sees at that instant.
 */
const FREEZE_AT_PHOTO = `
new MutationObserver((_, observer) => {
  if (!document.body || !document.body.classList.contains('has-photo')) return;
  observer.disconnect();
  for (const animation of document.getAnimations()) animation.pause();
  window.frozen = true;
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'] });
`;

/** WCAG 2.1 relative luminance of an sRGB colour. */
function luminance([r, g, b]: Rgb): number {
  const linear = (channel: number): number => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

function contrast(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

type Shot = ReturnType<typeof decodeJpeg>;
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function inside(box: Box, x: number, y: number, margin = 0): boolean {
  return x >= box.x - margin && x < box.x + box.width + margin && y >= box.y - margin && y < box.y + box.height + margin;
}

/**
 * The contrast of a text line as drawn: its band's colour is the most common luminance in `box`,
 * the text's the luminance farthest from it (the 99.5th percentile, so one noisy pixel of the
 * JPEG screenshot does not count, while the cores of the glyph stems do).
 */
function textContrast(shot: Shot, box: Box): number {
  const values: number[] = [];
  for (let y = Math.ceil(box.y); y < Math.floor(box.y + box.height); y++) {
    for (let x = Math.ceil(box.x); x < Math.floor(box.x + box.width); x++) values.push(luminance(shot.pixel(x, y)));
  }
  const buckets = new Map<number, number>();
  for (const value of values) buckets.set(Math.round(value * 200), (buckets.get(Math.round(value * 200)) ?? 0) + 1);
  const band = [...buckets.entries()].sort((a, b) => b[1] - a[1])[0][0] / 200;
  const distances = values.map((value) => Math.abs(value - band)).sort((a, b) => a - b);
  const far = distances[Math.floor(distances.length * 0.995)];
  const text = values.find((value) => Math.abs(value - band) === far)!;
  return contrast(band, text);
}

describe('the virtual screen page', () => {
  let receiver: ReceiverProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--name', 'Hall Frame', '--profile', 'photo-frame'] });
    browser = await launchChromium();
    // Connected for live updates before anything is sent.
    page = await openScreenPage(browser, receiver.screenUrl!);
  });
  after(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  async function put(picture: BlockPicture, transition: string): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${receiver.port}/photo`, {
      method: 'PUT',
      headers: { 'X-Vendor-Session-ID': SESSION, 'X-Vendor-AssetKey': crypto.randomUUID(), 'X-Vendor-Transition': transition },
      body: picture.jpeg,
    });
    assert.equal(response.status, 200);
  }

  /** Waits until picture `version` is fully shown (transition over), then checks every block's centre. */
  async function expectOnScreen(picture: BlockPicture, version: number): Promise<void> {
    await page.waitForSelector(`body[data-shown-version="${version}"]`, { timeout: PAGE_MS });
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    assert.deepEqual([shot.width, shot.height], [VIEWPORT.width, VIEWPORT.height]);
    picture.blocks.forEach((row, r) =>
      row.forEach((expected, c) => {
        const { x, y } = blockCentre(picture, r, c, shot.width, shot.height);
        const seen = shot.pixel(x, y);
        assert.ok(colourDistance(seen, expected) <= TOLERANCE, `block ${r},${c} at ${x},${y}: saw rgb(${seen.join(',')}), sent rgb(${expected.join(',')})`);
      }),
    );
  }

  test('shows the receiver\'s name while idle', async () => {
    assert.equal(await page.textContent('#idle .name'), 'Hall Frame');
    assert.equal(await page.title(), 'Hall Frame — screen');
  });

  test('a photo sent with PUT /photo appears on the page', async () => {
    await put(FIRST, 'Dissolve');
    await expectOnScreen(FIRST, 1);
    assert.equal(await page.getAttribute('#stage .photo.current', 'class'), 'photo current t-dissolve');
  });

  test('the page updates live when a second photo is sent (no reload)', async () => {
    await put(SECOND, 'Cube');
    await expectOnScreen(SECOND, 2);
    assert.equal(await page.locator('#stage .photo').count(), 1, 'the previous picture is gone after the transition');
    assert.equal(await page.textContent('#status .activity'), 'Showing a photo');
  });

  test('a photo sent with vendorplay-send appears on the page', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vp-send-'));
    try {
      const file = path.join(dir, 'third.jpg');
      writeFileSync(file, THIRD.jpeg);
      const before = Number(await page.getAttribute('body', 'data-shown-version'));
      const { code, output } = await send(['photo', `127.0.0.1:${receiver.port}`, file, '--transition', 'Dissolve']);
      assert.equal(code, 0, output);
      await expectOnScreen(THIRD, before + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a folder sent with vendorplay-send slideshow advances on the page, in name order', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vp-slides-'));
    try {
      SLIDES.forEach((slide, i) => writeFileSync(path.join(dir, `slide-${i}.jpg`), slide.jpeg));
      const before = Number(await page.getAttribute('body', 'data-shown-version'));
      await page.evaluate(RECORD_SHOWN);
      const shown = async () => ((await page.evaluate('globalThis.__vpShown')) as ShownPicture[]).filter((picture) => picture.version > before);
      // Slides of 3 s, each shown whole (its transition over) before the next; the sender is
      // stopped (Ctrl-C) once the page has shown two.
      const run = await runSender(['slideshow', `127.0.0.1:${receiver.port}`, dir, '--duration', '3', '--theme', 'Dissolve'], 2 * PAGE_MS, async (_output, child) => {
        await until(() => 'two slides not shown', async () => (await shown()).length >= 2, PAGE_MS);
        child.kill('SIGINT');
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /playing/);
      // The next two pictures on the page are the folder's first and second file.
      const [first, second] = await shown();
      assert.deepEqual([first.version, second.version], [before + 1, before + 2]);
      assertShows(first, SLIDES[0], 'the first slide');
      assertShows(second, SLIDES[1], 'the second slide');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('POST /stop clears the screen back to the idle page', async () => {
    const response = await fetch(`http://127.0.0.1:${receiver.port}/stop`, { method: 'POST', headers: { 'X-Vendor-Session-ID': SESSION } });
    assert.equal(response.status, 200);
    await page.waitForSelector('body[data-shown-version="0"]:not(.has-photo)', { timeout: PAGE_MS });
    await page.waitForSelector('#stage .photo', { state: 'detached', timeout: PAGE_MS });
    assert.equal(await page.textContent('#status .activity'), 'Idle');
  });
  /** Sends `picture` and waits until the page has it fully shown (its version from /state). */
  async function putAndWait(picture: BlockPicture): Promise<void> {
    await put(picture, 'Dissolve');
    const state = (await (await fetch(new URL('state', receiver.screenUrl!))).json()) as { photo: { version: number } | null };
    assert.ok(state.photo, 'the receiver shows a picture');
    await page.waitForSelector(`body[data-shown-version="${state.photo.version}"]`, { timeout: PAGE_MS });
  }

  async function boxOf(selector: string, on: Page = page): Promise<Box> {
    const box = await on.locator(selector).boundingBox();
    assert.ok(box, `${selector} is drawn`);
    return box;
  }

  test('the status bar reads on a white picture and on a black one (contrast at least 4.5:1, WCAG AA)', async (t) => {
    for (const colour of [WHITE, BLACK]) {
      await putAndWait(blockPicture([[colour]]));
      const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 100 }));
      for (const part of ['#status .name', '#status .activity']) {
        const ratio = textContrast(shot, await boxOf(part));
        t.diagnostic(`${part} on rgb(${colour.join(',')}): ${ratio.toFixed(2)}:1`);
        assert.ok(ratio >= 4.5, `${part} on rgb(${colour.join(',')}): contrast ${ratio.toFixed(2)}:1`);
      }
    }
  });

  test('a page opened while a picture is shown draws it at once, without the idle name fading across it', async () => {
    await putAndWait(blockPicture([[GREEN]]));
    const fresh = await browser.newPage({ viewport: VIEWPORT });
    try {
      // Freeze the page at the moment the picture goes up: whatever is fading is caught mid-way.
      await fresh.addInitScript({ content: FREEZE_AT_PHOTO });
      await fresh.goto(receiver.screenUrl!);
      await fresh.waitForFunction(() => (globalThis as { frozen?: boolean }).frozen === true, undefined, { timeout: PAGE_MS });
      const shot = decodeJpeg(await fresh.screenshot({ type: 'jpeg', quality: 100 }));
      const name = await boxOf('#idle .name', fresh);
      let off = 0;
      let total = 0;
      for (let y = Math.ceil(name.y); y < name.y + name.height; y++) {
        for (let x = Math.ceil(name.x); x < name.x + name.width; x++) {
          total++;
          if (colourDistance(shot.pixel(x, y), GREEN) > TOLERANCE) off++;
        }
      }
      assert.equal(off, 0, `${off} of ${total} pixels where the idle name sits are not the picture's green`);
      assert.equal(await fresh.getAttribute('#stage .photo', 'class'), 'photo current t-none');
    } finally {
      await fresh.close();
    }
  });

  test('the PIN panel sits on a solid backdrop: nothing of the picture or the name shows through', async () => {
    await putAndWait(FIRST);
    const response = await fetch(`http://127.0.0.1:${receiver.port}/pair-pin-start`, { method: 'POST' });
    assert.equal(response.status, 200);
    await page.waitForSelector('#pin:not([hidden])', { timeout: PAGE_MS });
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 100 }));
    const text = [await boxOf('#pin .label'), await boxOf('#pin .digits'), await boxOf('#status')];
    const backdrop = shot.pixel(2, 2);
    let worst = 0;
    let where = '';
    for (let y = 0; y < shot.height; y += 2) {
      for (let x = 0; x < shot.width; x += 2) {
        if (text.some((box) => inside(box, x, y, 6))) continue;
        const distance = colourDistance(shot.pixel(x, y), backdrop);
        if (distance > worst) [worst, where] = [distance, `${x},${y}`];
      }
    }
    assert.ok(worst <= 12, `the backdrop varies by ${worst} at ${where} (rgb(${backdrop.join(',')}) at the corner)`);
  });

  test('the status line\'s "reset wrong PINs" button resets the receiver\'s count: the page\'s own POST passes the screen\'s origin check', async () => {
    await page.click('#reset-tries');
    await receiver.waitForLog(/screen: the count of wrong PINs reset by a person at the screen/);
    await receiver.waitForLog(/pair-setup: the failed-attempt count \(\d+\) was reset; pairing is allowed/);
    await page.waitForSelector('#reset-tries:text("wrong PINs reset")', { timeout: PAGE_MS });
  });
});
