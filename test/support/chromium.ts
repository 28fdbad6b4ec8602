// Debian's Chromium for the browser tests and benches (driven by playwright-core): where it is and
// how it runs: headless, and with the browser's own network services off (loopback only).

import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeJpeg, type Rgb } from './color-blocks';

const CHROMIUM = '/usr/bin/chromium';

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

/** Debian's Chromium, headless; a clear failure when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A new page of VIEWPORT size at `url`, once `ready` (a selector) matches; by default, once the screen page's link is live. */
export async function openScreenPage(browser: Browser, url: string, ready = '#status .link:text-is("live")', timeoutMs = 5000): Promise<Page> {
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
