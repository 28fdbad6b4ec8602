// The screen page's status line names the track realtime audio plays (title and artist, after
// "Playing audio"), and only the words once nothing plays: the Display port fed as the receiver
// feeds it, the page in Debian's headless Chromium (playwright-core). The screen server runs in
// this process on loopback, as the receiver runs it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import { launchChromium, openScreenPage } from '../support/chromium';

/** Bound on the waits for the page (a failure bound: a busy machine makes them slow, not wrong). */
const PAGE_MS = 30_000;

/** What the functions run in the page use of it (this file is type-checked without the DOM library). */
interface InPage {
  readonly document: { querySelector(selector: string): { readonly textContent: string | null } | null };
}

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe('what audio plays, on the status line', () => {
  let server: ScreenServer;
  const screen = new VirtualScreen('Kitchen');

  before(async () => {
    server = await startScreenServer({ screen, port: 0, log: () => {} });
  });
  after(async () => {
    await server?.close();
  });

  test('names the track (title and artist) after "Playing audio", and only the words once nothing plays', async () => {
    const page = await openScreenPage(browser, server.urls[0]);
    const activity = () => page.evaluate(() => (globalThis as unknown as InPage).document.querySelector('#status .activity')?.textContent ?? null);
    screen.showStatus({ name: 'Kitchen', activity: 'receivingAudio', media: 'audio' });
    screen.showNowPlaying({ title: 'Café del Mar', artist: 'Energy 52' });
    // Waits for the page to take the track, then says what the line reads.
    await page.waitForFunction(() => ((globalThis as unknown as InPage).document.querySelector('#status .activity')?.textContent ?? '').includes('Café'), undefined, { timeout: PAGE_MS });
    assert.equal(await activity(), 'Playing audio - Café del Mar - Energy 52');
    screen.showNowPlaying(undefined);
    await page.waitForFunction(() => !((globalThis as unknown as InPage).document.querySelector('#status .activity')?.textContent ?? '').includes('Café'), undefined, { timeout: PAGE_MS });
    assert.equal(await activity(), 'Playing audio');
    await page.close();
  });
});
