// Screen mirroring on the virtual screen page, in a real browser (Debian's headless Chromium,
// driven by playwright-core): the Node host's PageDecoder (the core's VideoDecoder port) sends a
// real H.264 clip made by ffmpeg (one second red, one green, one blue; a key frame every second)
// to the page, whose WebCodecs decoder draws each picture at its presentation time. Screenshots at
// known times have the expected colours; nothing is drawn before its time; reset clears the
// screen; a page that joins mid-stream takes mirroring over and starts at the next key frame; a
// broken key frame is reported to the receiver's log and the page recovers at the next one.
// Loopback only: the screen server binds 127.0.0.1 and ::1.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { LogLevel } from '../../src/platform';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { DEFAULT_MIRROR_GEOMETRY, PageDecoder } from '../../hosts/node/screen/page-decoder';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import { BLUE, GREEN, RED, colourDistance, decodeJpeg, type Rgb } from '../support/color-blocks';
import { makeColourClip, type H264Clip } from '../support/h264-clip';
import { launchChromium, VIEWPORT } from '../support/chromium';

/** 4:3 like the clip, so the picture fills the page. */
/** Per channel: 4:2:0 H.264 of a solid colour (BT.709, tagged), scaling, and a JPEG screenshot. */
const TOLERANCE = 30;
const BLACK: Rgb = [0, 0, 0];
const COLOURS = [RED, GREEN, BLUE];
/** Points of the page checked in screenshots: away from the status bar at the bottom. */
const POINTS = [
  { x: 160, y: 120 },
  { x: 480, y: 120 },
  { x: 320, y: 300 },
];
/**
 * A picture due at T is drawn at the first animation frame after T and composited after that; on
 * a loaded machine a frame or two later.
 */
const DRAW_SLACK_MS = 200;
/** Bytes at the end of the first key frame made noise: its IDR slice's data, not its header. */
const IDR_NOISE_BYTES = 64;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe('screen mirroring on the virtual screen page', () => {
  let clip: H264Clip;
  let server: ScreenServer;
  let decoder: PageDecoder;
  let browser: Browser;
  let first: Page;
  const lines: string[] = [];
  const log = (level: LogLevel, message: string) => lines.push(`${level} ${message}`);

  before(async () => {
    clip = makeColourClip({ colours: COLOURS, fps: 30 });
    assert.equal(clip.accessUnits.length, 90);
    assert.deepEqual(
      clip.accessUnits.flatMap((unit, i) => (unit.keyFrame ? [i] : [])),
      [0, 30, 60],
      'a key frame every second',
    );
    decoder = new PageDecoder({ geometry: DEFAULT_MIRROR_GEOMETRY, now, log, maxQueueBytes: 4 * 1024 * 1024 });
    server = await startScreenServer({ screen: new VirtualScreen('Mirror Wall'), port: 0, log, mirror: decoder });
    browser = await launchChromium();
    first = await openPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new page on the screen, once its mirroring stream is open (the newest page shows mirroring). */
  async function openPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.on('console', (message) => {
      if (message.type() === 'error') lines.push(`page ${message.text()}`);
    });
    await page.goto(server.urls[0]);
    await page.waitForSelector('body[data-mirror-link="open"]', { timeout: 10_000 });
    return page;
  }

  async function attribute(page: Page, name: string): Promise<string | null> {
    return page.getAttribute('body', name);
  }

  /** Whether a mirrored picture is on the page (body.mirroring). */
  async function mirroring(page: Page): Promise<boolean> {
    return ((await attribute(page, 'class')) ?? '').split(' ').includes('mirroring');
  }

  /** Sends the clip's access units `from` to `to` (exclusive), unit i presented at t0 + i frames. */
  function send(t0: number, from = 0, to = clip.accessUnits.length): void {
    for (let i = from; i < to; i++) {
      const unit = clip.accessUnits[i];
      decoder.decode(unit.bytes, t0 + (i * 1000) / clip.fps, unit.keyFrame);
    }
  }

  function configure(): void {
    decoder.configure({ codec: clip.codec, avcC: clip.avcC, parameterSets: clip.parameterSets });
  }

  /** The colour the clip shows at host time `t` when it starts at t0 (the last picture stays). */
  function colourAt(t0: number, t: number): Rgb | undefined {
    if (t < t0) return undefined;
    return COLOURS[Math.min(COLOURS.length - 1, Math.floor((t - t0) / 1000))];
  }

  /**
   * A screenshot at host time `at`, checked: every point has the clip's colour of that moment.
   * The screenshot is taken at some instant between the call and its return, and a picture is on
   * the screen a little after its time: any colour of that span is right, no other.
   */
  async function expectColourAt(page: Page, t0: number, at: number, firstColour = 0): Promise<void> {
    await sleep(at - now());
    const start = now();
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    const end = now();
    const allowed = new Set<Rgb>();
    for (let t = start - DRAW_SLACK_MS; t <= end + 1; t += 10) {
      const colour = colourAt(t0, t);
      if (colour && COLOURS.indexOf(colour) >= firstColour) allowed.add(colour);
    }
    assert.ok(allowed.size > 0, `nothing of the clip is due between ${Math.round(start - t0)} and ${Math.round(end - t0)} ms`);
    for (const { x, y } of POINTS) {
      const seen = shot.pixel(x, y);
      assert.ok(
        [...allowed].some((colour) => colourDistance(seen, colour) <= TOLERANCE),
        `at ${Math.round(start - t0)}-${Math.round(end - t0)} ms of the clip, point ${x},${y} is rgb(${seen.join(',')}); expected ${[...allowed].map((colour) => `rgb(${colour.join(',')})`).join(' or ')}`,
      );
    }
  }

  async function expectBlack(page: Page): Promise<void> {
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    for (const { x, y } of POINTS) {
      const seen = shot.pixel(x, y);
      assert.ok(colourDistance(seen, BLACK) <= TOLERANCE, `point ${x},${y} is rgb(${seen.join(',')}), not the idle screen's black`);
    }
  }

  test('the browser decodes the clip\'s H.264 with WebCodecs', async () => {
    const support = await first.evaluate(`VideoDecoder.isConfigSupported({ codec: ${JSON.stringify(clip.codec)} }).then((answer) => answer.supported)`);
    assert.equal(support, true, `Chromium's WebCodecs does not decode ${clip.codec}`);
  });

  test('each colour is drawn at its presentation time, nothing before it', async () => {
    configure();
    const t0 = now() + 1000;
    send(t0);
    await first.waitForSelector('body[data-mirror-state="waiting"]', { timeout: 5000 });
    // Decoded ahead, but not drawn before its time.
    await sleep(t0 - 300 - now());
    assert.equal(await attribute(first, 'data-mirror-drawn'), '0');
    assert.equal(await mirroring(first), false);
    for (let second = 0; second < COLOURS.length; second++) {
      await expectColourAt(first, t0, t0 + second * 1000 + 400);
      await expectColourAt(first, t0, t0 + second * 1000 + 800);
    }
    await first.waitForSelector('body[data-mirror-decoded="90"]', { timeout: 5000 });
    assert.equal(await attribute(first, 'data-mirror-state'), 'showing');
    assert.equal(await attribute(first, 'data-mirror-errors'), '0');
    // At 30 pictures a second and 60 animation frames, nearly every picture is drawn.
    assert.ok(Number(await attribute(first, 'data-mirror-drawn')) >= 60, `only ${await attribute(first, 'data-mirror-drawn')} of 90 pictures drawn`);
  });

  test('the last picture stays until reset, which clears the screen', async () => {
    await expectColourAt(first, now() - 10_000, now());
    assert.equal(await mirroring(first), true);
    assert.equal(await attribute(first, 'data-mirror-state'), 'showing');
    decoder.reset();
    await first.waitForSelector('body[data-mirror-state="off"]:not(.mirroring)', { timeout: 5000 });
    await expectBlack(first);
  });

  test('a page that joins mid-stream takes mirroring over and starts at the next key frame', async () => {
    lines.length = 0;
    configure();
    const t0 = now() + 5000;
    // The first half second (red, from its key frame) goes to the first page only.
    send(t0, 0, 15);
    const second = await openPage();
    try {
      assert.ok(now() < t0 - 500, 'the second page opened in time for the test');
      await first.waitForSelector('body[data-mirror-replaced="true"][data-mirror-state="off"]', { timeout: 5000 });
      send(t0, 15);
      // The red second has no key frame left for the new page: it shows nothing of it.
      await sleep(t0 + 500 - now());
      assert.equal(await attribute(second, 'data-mirror-drawn'), '0');
      assert.equal(await attribute(second, 'data-mirror-state'), 'waiting');
      await expectBlack(second);
      // From the green second's key frame on, everything.
      await expectColourAt(second, t0, t0 + 1500, 1);
      await expectColourAt(second, t0, t0 + 2500, 1);
      await second.waitForSelector('body[data-mirror-decoded="60"]', { timeout: 5000 });
      assert.deepEqual(
        lines.filter((line) => line.includes('mid-stream')),
        [
          'info screen: a page joined mid-stream: mirroring shows there from the next key frame',
          'info screen: mirroring shown again from a key frame (the page joined mid-stream; 15 access units dropped)',
        ],
      );
      assert.ok(lines.includes('info screen: a newer page shows mirroring; the older one stops'), lines.join('\n'));
      decoder.reset();
      await second.waitForSelector('body[data-mirror-state="off"]', { timeout: 5000 });
    } finally {
      await second.close();
    }
  });

  test('a key frame the decoder cannot decode is said in the receiver\'s log; the page shows again from the next key frame', async () => {
    const page = await openPage();
    try {
      lines.length = 0;
      configure();
      const t0 = now() + 1000;
      const broken = clip.accessUnits[0].bytes.slice();
      // The IDR slice's data is noise (the parameter sets before it stay).
      const idr = broken.length - IDR_NOISE_BYTES;
      for (let i = idr; i < broken.length; i++) broken[i] = (i * 151 + 7) & 0xff;
      decoder.decode(broken, t0, true);
      send(t0, 1);
      await page.waitForSelector('body:not([data-mirror-errors="0"])', { timeout: 5000 });
      await expectColourAt(page, t0, t0 + 1500, 1);
      await expectColourAt(page, t0, t0 + 2500, 1);
      const reported = lines.filter((line) => line.includes("mirroring page's decoder failed"));
      assert.equal(reported.length, 1, lines.join('\n'));
      assert.match(reported[0], /^warn screen: the mirroring page's decoder failed \(".+"\): shown again from the next key frame$/);
      decoder.reset();
    } finally {
      await page.close();
    }
  });
});
