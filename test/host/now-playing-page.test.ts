// What realtime audio plays, on the virtual screen page in a real browser (Debian's headless
// Chromium, driven by playwright-core): the Display port's showNowPlaying with a title, artist,
// album, cover art and progress appears on the page (the cover's colour read from a screenshot
// where the page drew it, the texts, the track's length, the bar running on), a change of text
// keeps the cover, and nothing playing takes the card away. The screen server runs in this
// process on loopback, as the receiver runs it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import type { NowPlaying } from '../../src/platform';
import { ORANGE, blockPicture, colourDistance, decodeJpeg } from '../support/color-blocks';
import { launchChromium, openScreenPage } from '../support/chromium';

/** Bound on the waits for the page (a failure bound: a busy machine makes them slow, not wrong). */
const PAGE_MS = 30_000;
/** Per channel: the cover went through a JPEG encoder, the browser's scaling and a JPEG screenshot. */
const TOLERANCE = 40;

const COVER = blockPicture([[ORANGE]], 300, 300);

/** What the functions run in the page use of it (this file is type-checked without the DOM library; the page's CSP allows no string evaluation). */
interface InPage {
  readonly document: { querySelector(selector: string): { readonly textContent: string | null; readonly style: { readonly width: string } } };
  getComputedStyle(element: unknown): { readonly opacity: string };
}

describe('the screen page shows what plays', () => {
  let browser: Browser;
  let server: ScreenServer;
  let page: Page;
  const screen = new VirtualScreen('Living Room');

  before(async () => {
    server = await startScreenServer({ screen, port: 0, log: () => {} });
    browser = await launchChromium();
    page = await openScreenPage(browser, server.urls[0]);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('title, artist, album, the cover art and a running progress bar appear; nothing playing takes them away', async () => {
    const playing: NowPlaying = {
      title: 'Café del Mar',
      artist: 'Energy 52',
      album: 'Trance Classics',
      artwork: { mime: 'image/jpeg', bytes: COVER.jpeg },
      progress: { startRtp: 1000, currentRtp: 1000 + 44100 * 10, endRtp: 1000 + 44100 * 200, sampleRate: 44100 },
    };
    screen.showNowPlaying(playing);
    await page.waitForSelector('body.has-now-playing[data-now-playing-version="1"][data-artwork-shown="/artwork/1"]', { timeout: PAGE_MS });
    assert.equal(await page.textContent('#now-playing .title'), 'Café del Mar');
    assert.equal(await page.textContent('#now-playing .artist'), 'Energy 52');
    assert.equal(await page.textContent('#now-playing .album'), 'Trance Classics');
    assert.equal(await page.textContent('#now-playing .duration'), '3:20');
    assert.equal(await page.isVisible('#idle .name'), true, 'the idle name is still in the page');
    // The idle name makes way for the card (it fades out: waited for, not timed).
    await page.waitForFunction(() => {
      const { document, getComputedStyle } = globalThis as unknown as InPage;
      return getComputedStyle(document.querySelector('#idle')).opacity === '0';
    }, undefined, { timeout: PAGE_MS });

    // The cover where the page drew it: its centre has the cover's colour.
    const box = await page.locator('#now-playing .artwork').boundingBox();
    assert.ok(box && box.width > 50 && box.height > 50, `the cover is drawn at a size one sees (${JSON.stringify(box)})`);
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    const seen = shot.pixel(Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2));
    assert.ok(colourDistance(seen, ORANGE) <= TOLERANCE, `cover centre rgb(${seen.join(',')}), sent rgb(${ORANGE.join(',')})`);

    // The bar runs on by itself: the elapsed time moves past where it started, and the bar with it.
    const first = await page.textContent('#now-playing .elapsed');
    assert.match(first ?? '', /^0:\d\d$/);
    await page.waitForFunction((start) => (globalThis as unknown as InPage).document.querySelector('#now-playing .elapsed').textContent !== start, first, { timeout: PAGE_MS });
    const width = await page.evaluate(() => parseFloat((globalThis as unknown as InPage).document.querySelector('#now-playing .played').style.width));
    assert.ok(width > 5 && width < 100, `the bar is part played (${width}%)`);

    // The album changes: the same cover stays, under its URL.
    screen.showNowPlaying({ ...playing, album: 'Ibiza' });
    await page.waitForSelector('body[data-now-playing-version="2"]', { timeout: PAGE_MS });
    assert.equal(await page.textContent('#now-playing .album'), 'Ibiza');
    assert.equal(await page.getAttribute('#now-playing .artwork', 'src'), '/artwork/1');

    screen.showNowPlaying(undefined);
    await page.waitForSelector('body:not(.has-now-playing)[data-now-playing-version="0"]', { timeout: PAGE_MS });
    assert.equal(await page.isHidden('#now-playing'), true);
  });

  test('a page opened while a track plays shows it at once, without progress when the sender gave none', async () => {
    screen.showNowPlaying({ title: 'Only a title' });
    const late = await openScreenPage(browser, server.urls[0]);
    try {
      await late.waitForSelector('body.has-now-playing', { timeout: PAGE_MS });
      assert.equal(await late.textContent('#now-playing .title'), 'Only a title');
      assert.equal(await late.isHidden('#now-playing .progress'), true);
      assert.equal(await late.isHidden('#now-playing .artwork'), true);
    } finally {
      await late.close();
      screen.showNowPlaying(undefined);
    }
  });
});
