// Screenshots of the virtual screen page as a person sees it, for notes and reviews:
//   idle.png          the built receiver, idle, requiring a PIN: its name, how to connect, that a PIN is needed
//   pin.png           the same receiver after POST /pair-pin-start: the PIN, big
//   paused-video.png  the built receiver playing a local clip (POST /play), paused (POST /rate?value=0)
//   audio.png         what realtime audio plays (title, artist, album, cover, progress): the screen
//                     server in this process, fed through the Display port as the receiver feeds it
//                     (the sender tool sends no track metadata)
//
//   node --import tsx scripts/screenshots.ts [OUT_DIR]     (default /tmp/screens)
//
// Loopback only: the receivers run with --no-mdns on the loopback interface, the clip is served
// from 127.0.0.1, and Chromium's own network services are off (test/support/chromium.ts).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { VirtualScreen } from '../hosts/node/screen/display';
import { startScreenServer } from '../hosts/node/screen/server';
import { ReceiverProcess } from '../test/e2e/receiver-process';
import { launchChromium, openScreenPage } from '../test/support/chromium';
import { ORANGE, blockPicture } from '../test/support/color-blocks';
import { makeMediaFixtures, MediaServer } from '../test/support/media-fixtures';

const OUT_DIR = process.argv[2] ?? '/tmp/screens';
const SESSION = '6d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const WAIT_MS = 30_000;

async function shoot(page: Page, name: string): Promise<void> {
  const file = path.join(OUT_DIR, name);
  await page.screenshot({ path: file });
  process.stdout.write(`${file}\n`);
}

/** Idle and PIN: a receiver that requires a PIN. */
async function idleAndPin(browser: Browser): Promise<void> {
  const receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--name', 'Living Room', '--pin-required'] });
  try {
    const page = await openScreenPage(browser, receiver.screenUrl!, '#idle .pairing:not([hidden])');
    await shoot(page, 'idle.png');
    const started = await fetch(`http://127.0.0.1:${receiver.port}/pair-pin-start`, { method: 'POST' });
    if (started.status !== 200) throw new Error(`POST /pair-pin-start answered ${started.status}`);
    await page.waitForSelector('#pin:not([hidden])', { timeout: WAIT_MS });
    await shoot(page, 'pin.png');
  } finally {
    await receiver.stop();
  }
}

/** A local clip played, moved to 3.5 s and paused. */
async function pausedVideo(browser: Browser): Promise<void> {
  const fixtures = await makeMediaFixtures();
  const media = await MediaServer.start(fixtures.dir);
  const receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--name', 'Living Room', '--media-allow', '127.0.0.0/8'] });
  try {
    const page = await openScreenPage(browser, receiver.screenUrl!);
    const control = (target: string, body?: string) =>
      fetch(`http://127.0.0.1:${receiver.port}${target}`, { method: 'POST', headers: { 'X-Vendor-Session-ID': SESSION }, ...(body !== undefined && { body }) }).then((response) => {
        if (response.status !== 200) throw new Error(`POST ${target} answered ${response.status}`);
      });
    await control('/play', `Content-Location: ${media.url(fixtures.mp4)}\nStart-Position: 0\n`);
    await page.waitForSelector('body[data-video-frame-at]', { timeout: WAIT_MS });
    await control('/scrub?position=3.5');
    await control('/rate?value=0');
    await page.waitForSelector('body.video-paused', { timeout: WAIT_MS });
    await page.waitForFunction(() => /^0:03 \/ 0:06$/.test((globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } } }).document.querySelector('#video-paused .position').textContent ?? ''), undefined, { timeout: WAIT_MS });
    await shoot(page, 'paused-video.png');
  } finally {
    await receiver.stop();
    await media.close();
    fixtures.remove();
  }
}

/** What audio plays, through the Display port as the receiver calls it. */
async function audio(browser: Browser): Promise<void> {
  const screen = new VirtualScreen('Living Room');
  const server = await startScreenServer({ screen, port: 0, log: () => {} });
  try {
    screen.showConnection({ addresses: ['192.168.1.20'], port: 7000, pairing: 'none' });
    screen.showStatus({ name: 'Living Room', activity: 'receivingAudio', media: 'audio' });
    screen.showNowPlaying({
      title: 'Café del Mar',
      artist: 'Energy 52',
      album: 'Trance Classics',
      artwork: { mime: 'image/jpeg', bytes: blockPicture([[ORANGE]], 300, 300).jpeg },
      progress: { startRtp: 0, currentRtp: 44100 * 83, endRtp: 44100 * 200, sampleRate: 44100 },
    });
    const page = await openScreenPage(browser, server.urls[0], 'body.has-now-playing[data-artwork-shown="/artwork/1"]');
    // The idle name fades out under the card (a transition): shot once it has.
    await page.waitForFunction(() => (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string }; document: { querySelector(s: string): unknown } }).getComputedStyle((globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('#idle')).opacity === '0', undefined, { timeout: WAIT_MS });
    await shoot(page, 'audio.png');
  } finally {
    await server.close();
  }
}

mkdirSync(OUT_DIR, { recursive: true });
const browser = await launchChromium();
try {
  await idleAndPin(browser);
  await pausedVideo(browser);
  await audio(browser);
} finally {
  await browser.close();
}
