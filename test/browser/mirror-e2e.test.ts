// Screen mirroring end to end, as a person watches it: the receiver command (`npm start`'s
// build), its screen page open in Debian's headless Chromium, and `vendorplay-send mirror
// clip.mp4` streaming an ffmpeg clip (one second red, one green, one blue) over the mirroring
// protocol (GET /stream.xml, POST /stream, codec data, video packets with NTP timestamps, the
// receiver's NTP client and clock recovery). Screenshots taken one after another show the clip's
// colours in order, nothing else between, green for about a second, and the page clears when the
// sender ends the session.
//
// Loopback only: the receiver runs with --no-mdns on lo; the sender binds 127.0.0.61 (its NTP
// server on port 7010 there, so it does not meet another test's sender on 127.0.0.1).

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BLUE, GREEN, RED, colourDistance, decodeJpeg } from '../support/color-blocks';
import { launchChromium, openScreenPage } from '../support/chromium';
import { colourClipArguments } from '../support/h264-clip';
import { ReceiverProcess, SEND_COMMAND } from '../e2e/receiver-process';

const TOLERANCE = 40;
const COLOURS = [RED, GREEN, BLUE];
const SENDER_ADDRESS = '127.0.0.61';
/** Points checked in screenshots: away from the status bar at the bottom. */
const POINTS = [
  { x: 160, y: 120 },
  { x: 480, y: 120 },
  { x: 320, y: 300 },
];

describe('screen mirroring from vendorplay-send to the screen page', () => {
  let dir: string;
  let clip: string;
  let receiver: ReceiverProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vp-mirror-e2e-'));
    clip = path.join(dir, 'clip.mp4');
    execFileSync('ffmpeg', colourClipArguments({ colours: COLOURS, fps: 30 }, clip, 'mp4'), { stdio: ['ignore', 'ignore', 'pipe'] });
    receiver = await ReceiverProcess.start({ args: ['--name', 'Mirror Room'] });
    assert.ok(receiver.mirrorPort, 'the receiver listens for screen mirroring');
    browser = await launchChromium();
    page = await openScreenPage(browser, receiver.screenUrl!, 'body[data-mirror-link="open"]', 10_000);
  });
  after(async () => {
    await browser?.close();
    await receiver?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Which of the clip's colours the screen shows (every point agreeing), or -1 for anything else. */
  async function colourOnScreen(): Promise<number> {
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    const seen = POINTS.map(({ x, y }) => COLOURS.findIndex((colour) => colourDistance(shot.pixel(x, y), colour) <= TOLERANCE));
    return seen.every((index) => index === seen[0]) ? seen[0] : -1;
  }

  test('a desktop receiver with its screen page offers screen mirroring (feature bit 7)', () => {
    const features = receiver.services.find((service) => service.type === '_vendorplay._tcp')?.txt.find(([key]) => key === 'features')?.[1];
    assert.ok(features, 'the service has a features key');
    assert.equal(Number(features.split(',')[0]) & (1 << 7), 1 << 7, `features ${features}`);
  });

  test('the clip\'s colours appear on the page in order, a second each, and the page clears at the end', async () => {
    const sender = spawn(process.execPath, [SEND_COMMAND, 'mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', SENDER_ADDRESS, '--hold', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    sender.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    sender.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const exited = new Promise<number | null>((resolve) => sender.once('exit', resolve));
    try {
      // Screenshots one after another from the first mirrored picture until the page clears:
      // which colour each shows, and when (the session's start is not known to the test).
      await page.waitForSelector('body.mirroring', { timeout: 15_000 });
      // Each screenshot is taken at some instant between `at` and `end` (under load, long after).
      const samples: { at: number; end: number; colour: number }[] = [];
      const until = performance.now() + 10_000;
      while (performance.now() < until && (await page.getAttribute('body', 'data-mirror-state')) !== 'off') {
        const at = performance.now();
        const colour = await colourOnScreen();
        samples.push({ at, end: performance.now(), colour });
      }
      const shown = samples.filter((sample) => sample.colour >= 0);
      const timeline = samples.map((sample) => `${Math.round(sample.at - samples[0].at)}-${Math.round(sample.end - samples[0].at)} ms: ${sample.colour}`).join(', ');
      // In order, each once, nothing else between the first picture and the last.
      const order = shown.map((sample) => sample.colour).filter((colour, i, all) => i === 0 || colour !== all[i - 1]);
      assert.deepEqual(order, [0, 1, 2], `colours in order red, green, blue: ${timeline}`);
      const first = samples.indexOf(shown[0]);
      const last = samples.indexOf(shown.at(-1)!);
      assert.ok(samples.slice(first, last + 1).every((sample) => sample.colour >= 0), `nothing else while mirroring: ${timeline}`);
      // Green began between the last red screenshot's start and the first green one's end, and
      // ended likewise before blue: the span it can have been shown must hold about a second.
      const lastOf = (colour: number) => shown.filter((sample) => sample.colour === colour).at(-1)!;
      const firstOf = (colour: number) => shown.find((sample) => sample.colour === colour)!;
      const shortest = lastOf(1).at - firstOf(1).end;
      const longest = firstOf(2).end - lastOf(0).at;
      assert.ok(shortest <= 1300 && longest >= 700, `green shown for between ${Math.round(shortest)} and ${Math.round(longest)} ms, not about a second: ${timeline}`);
      assert.equal(await exited, 0, output);
      assert.match(output, /sent 90 frames/);
      await page.waitForSelector('body[data-mirror-state="off"]:not(.mirroring)', { timeout: 10_000 });
      assert.equal(await page.getAttribute('body', 'data-mirror-errors'), '0');
      // The sender held the session a second after its last frame: every picture came due.
      const decoded = Number(await page.getAttribute('body', 'data-mirror-decoded'));
      assert.equal(decoded, 90, 'every picture of the clip was decoded');
    } finally {
      if (sender.exitCode === null) sender.kill('SIGKILL');
    }
  });
});
