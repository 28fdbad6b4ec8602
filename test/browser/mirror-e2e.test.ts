// Screen mirroring end to end, as a person watches it: the receiver command (`npm start`'s
// build), its screen page open in Debian's headless Chromium, and `vendorplay-send mirror
// clip.mp4` streaming an ffmpeg clip (one second red, one green, one blue) over the mirroring
// protocol (GET /stream.xml, POST /stream, codec data, video packets with NTP timestamps, the
// receiver's NTP client and clock recovery). The page draws the clip's colours in order, each of
// them, none before its time; screenshots taken meanwhile show nothing else; the page clears when
// the sender ends the session.
//
// On a busy machine a screenshot takes up to seconds, so a second of one colour can pass between
// two of them: the pictures drawn are recorded in the page (MIRROR_RECORDER), and the
// screenshots are checked only for what they can see whenever they run. When each picture is
// drawn against its time is mirror-page.test.ts's subject, where the test sets the times.
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
import { launchChromium, mirrorRecord, openScreenPage, recordMirror } from '../support/chromium';
import { colourClipArguments } from '../support/h264-clip';
import { ReceiverProcess, SEND_COMMAND, within } from '../e2e/receiver-process';

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
    page = await openScreenPage(browser, receiver.screenUrl!, 'body[data-mirror-link="open"]', 30_000);
    await recordMirror(page);
  });
  after(async () => {
    await browser?.close();
    await receiver?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Which of the clip's colours `points` show (every point agreeing), or -1 for anything else. */
  function colourOf(points: readonly (readonly [number, number, number])[]): number {
    const seen = points.map((rgb) => COLOURS.findIndex((colour) => colourDistance(rgb, colour) <= TOLERANCE));
    return seen.every((index) => index === seen[0]) ? seen[0] : -1;
  }

  /** Which of the clip's colours the screen shows, or -1 for anything else. */
  async function colourOnScreen(): Promise<number> {
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    return colourOf(POINTS.map(({ x, y }) => shot.pixel(x, y)));
  }

  test('a desktop receiver with its screen page offers screen mirroring (feature bit 7)', () => {
    const features = receiver.services.find((service) => service.type === '_vendorplay._tcp')?.txt.find(([key]) => key === 'features')?.[1];
    assert.ok(features, 'the service has a features key');
    assert.equal(Number(features.split(',')[0]) & (1 << 7), 1 << 7, `features ${features}`);
  });

  test('the clip\'s colours are drawn in order, each of them, none before its time; the screen shows nothing else; the page clears at the end', async () => {
    // --hold: the session stays a while after the last frame, so the page can decode and draw
    // every picture before the session ends and the page clears.
    const sender = spawn(process.execPath, [SEND_COMMAND, 'mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', SENDER_ADDRESS, '--hold', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    sender.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    sender.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const exited = new Promise<number | null>((resolve) => sender.once('exit', resolve));
    try {
      // The sender runs ffmpeg and ffprobe before it connects: seconds on a busy machine.
      await page.waitForSelector('body.mirroring', { timeout: 60_000 });
      // Screenshots one after another from the first mirrored picture until the page clears.
      const shots: number[] = [];
      const deadline = performance.now() + 60_000;
      while ((await page.getAttribute('body', 'data-mirror-state')) !== 'off') {
        assert.ok(performance.now() < deadline, `the page still mirrors a minute later; screenshots ${shots.join(', ')}`);
        shots.push(await colourOnScreen());
      }
      // What a person sees: a colour of the clip, never one before the one seen last; after the
      // last picture the page clears (what it shows then is not the clip's: trailing -1s).
      const shown = shots.slice(0, shots.findLastIndex((colour) => colour >= 0) + 1);
      assert.ok(shown.every((colour, i) => colour >= 0 && (i === 0 || colour >= shown[i - 1])), `screenshots: ${shots.join(', ')}`);

      assert.equal(await within(60_000, 'the sender to exit', exited), 0, output);
      assert.match(output, /sent 90 frames/);
      await page.waitForSelector('body[data-mirror-state="off"]:not(.mirroring)', { timeout: 30_000 });
      assert.equal(await page.getAttribute('body', 'data-mirror-errors'), '0');
      assert.equal(Number(await page.getAttribute('body', 'data-mirror-decoded')), 90, 'every picture of the clip was decoded');

      // Every picture the page drew: one of the clip's colours, the colours in order and each of
      // them (a late page drops pictures, never a whole second of them), none before its time.
      const { draws } = await mirrorRecord(page);
      const colours = draws.map((draw) => colourOf(draw.points));
      const timeline = draws.map((draw, i) => `${colours[i]} due ${draw.due.toFixed(1)} drawn ${draw.at.toFixed(1)}`).join('; ');
      assert.ok(colours.every((colour) => colour >= 0), `a drawn picture is not one of the clip's colours: ${timeline}`);
      assert.deepEqual(colours.filter((colour, i) => i === 0 || colour !== colours[i - 1]), [0, 1, 2], `drawn in order red, green, blue: ${timeline}`);
      assert.ok(draws.every((draw) => draw.at >= draw.due), `a picture drawn before its time: ${timeline}`);
      assert.equal(Number(await page.getAttribute('body', 'data-mirror-drawn')), draws.length);
    } finally {
      if (sender.exitCode === null) sender.kill('SIGKILL');
    }
  });
});
