// Screen mirroring on the virtual screen page, in a real browser (Debian's headless Chromium,
// driven by playwright-core): the Node host's PageDecoder (the core's VideoDecoder port) sends a
// real H.264 clip made by ffmpeg (one second red, one green, one blue; a key frame every second)
// to the page, whose WebCodecs decoder draws each picture at its presentation time. Every
// picture drawn shows the clip's colour of its time, none is drawn before its time, and every
// second of the clip is drawn; the last picture stays, on the screen, until reset clears it; a
// page that joins mid-stream takes mirroring over and starts at the next key frame; a broken key
// frame is reported to the receiver's log and the page recovers at the next one.
//
// What the page decodes and draws is recorded in the page (MIRROR_RECORDER): on a busy machine a
// picture is drawn late, by as much as the machine is busy, so the checks are on what was drawn
// and when it was due (never before its time), not on what a screenshot at a given moment shows;
// screenshots check what stays on the screen. Every wait is on a condition, with a bound.
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
import { allShown, launchChromium, MIRROR_RECORDER, mirrorRecord, VIEWPORT, type MirrorRecord } from '../support/chromium';
import { until } from '../e2e/receiver-process';

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
/** Bytes at the end of the first key frame made noise: its IDR slice's data, not its header. */
const IDR_NOISE_BYTES = 64;
/** Bound on the waits for the page (a failure bound: a busy machine makes it slow, not wrong). */
const PAGE_MS = 30_000;

const now = () => performance.now();

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
    await page.addInitScript({ content: MIRROR_RECORDER });
    await page.goto(server.urls[0]);
    await page.waitForSelector('body[data-mirror-link="open"]', { timeout: PAGE_MS });
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

  /** A screenshot shows `colour` at every point (`what` it is, for the message). */
  async function expectScreen(page: Page, colour: Rgb, what: string): Promise<void> {
    const shot = decodeJpeg(await page.screenshot({ type: 'jpeg', quality: 95 }));
    for (const { x, y } of POINTS) {
      const seen = shot.pixel(x, y);
      assert.ok(colourDistance(seen, colour) <= TOLERANCE, `point ${x},${y} is rgb(${seen.join(',')}), not ${what} rgb(${colour.join(',')})`);
    }
  }

  const expectBlack = (page: Page) => expectScreen(page, BLACK, "the idle screen's black");

  /** Waits until `count` pictures were decoded on `page` and all are shown (the newest drawn); returns the record. */
  async function shown(page: Page, count: number): Promise<MirrorRecord> {
    let record = await mirrorRecord(page);
    await until(
      () => `${record.decoded.length} of ${count} pictures decoded, ${record.draws.length} drawn (the newest not yet)`,
      async () => allShown((record = await mirrorRecord(page)), count),
      PAGE_MS,
    );
    return record;
  }

  /**
   * The pictures drawn, checked against the clip sent from unit `firstUnit` on: each shows one of
   * the clip's colours, none was drawn before its time, the colours come in order from the one of
   * `firstUnit`'s second, every second from there is drawn, and each picture's colour is the one
   * of its time. Unit i is due at D0 + i frames on the page's clock, for one D0 (the page's clock
   * offset is set once per stream): each drawn picture of second k, due at d, puts D0 within
   * [d - 1000 k - (fps - 1) frames, d - 1000 k]; the pictures agree when those spans meet.
   */
  function expectDrawnInTime(record: MirrorRecord, firstUnit = 0): void {
    const frameMs = 1000 / clip.fps;
    const seconds = record.draws.map((draw) => COLOURS.findIndex((colour) => draw.points.every((point) => colourDistance(point, colour) <= TOLERANCE)));
    const timeline = record.draws.map((draw, i) => `${seconds[i]} due ${draw.due.toFixed(1)} drawn ${draw.at.toFixed(1)}`).join('; ');
    assert.ok(seconds.every((second) => second >= 0), `a drawn picture is not one of the clip's colours: ${timeline}`);
    assert.ok(record.draws.every((draw) => draw.at >= draw.due), `a picture drawn before its time: ${timeline}`);
    const firstSecond = Math.floor(firstUnit / clip.fps);
    assert.deepEqual(
      seconds.filter((second, i) => i === 0 || second !== seconds[i - 1]),
      COLOURS.map((_, second) => second).slice(firstSecond),
      `every second drawn, in order: ${timeline}`,
    );
    const low = Math.max(...record.draws.map((draw, i) => draw.due - 1000 * seconds[i] - (clip.fps - 1) * frameMs));
    const high = Math.min(...record.draws.map((draw, i) => draw.due - 1000 * seconds[i]));
    assert.ok(low <= high + 0.01, `the colours drawn are not those of their times: ${timeline}`);
  }

  test('the browser decodes the clip\'s H.264 with WebCodecs', async () => {
    const support = await first.evaluate(`VideoDecoder.isConfigSupported({ codec: ${JSON.stringify(clip.codec)} }).then((answer) => answer.supported)`);
    assert.equal(support, true, `Chromium's WebCodecs does not decode ${clip.codec}`);
  });

  test('each colour is drawn at its presentation time, nothing before it', async () => {
    configure();
    const t0 = now() + 1000;
    send(t0);
    await first.waitForSelector('body[data-mirror-state="waiting"]', { timeout: PAGE_MS });
    const record = await shown(first, clip.accessUnits.length);
    expectDrawnInTime(record);
    assert.equal(await attribute(first, 'data-mirror-decoded'), '90');
    assert.equal(await attribute(first, 'data-mirror-state'), 'showing');
    assert.equal(await attribute(first, 'data-mirror-errors'), '0');
    // Every picture drawn, or passed over for a newer one due (on a busy page, many are).
    assert.equal(Number(await attribute(first, 'data-mirror-drawn')) + Number(await attribute(first, 'data-mirror-dropped')), 90);
  });

  test('the last picture stays until reset, which clears the screen', async () => {
    await expectScreen(first, BLUE, "the last picture's blue");
    assert.equal(await mirroring(first), true);
    assert.equal(await attribute(first, 'data-mirror-state'), 'showing');
    decoder.reset();
    await first.waitForSelector('body[data-mirror-state="off"]:not(.mirroring)', { timeout: PAGE_MS });
    await expectBlack(first);
  });

  test('a page that joins mid-stream takes mirroring over and starts at the next key frame', async () => {
    lines.length = 0;
    configure();
    const t0 = now() + 2000;
    // The first half second (red, from its key frame) goes to the first page only.
    send(t0, 0, 15);
    const second = await openPage();
    try {
      await first.waitForSelector('body[data-mirror-replaced="true"][data-mirror-state="off"]', { timeout: PAGE_MS });
      send(t0, 15);
      // The red second has no key frame left for the new page: it shows nothing of it; from the
      // green second's key frame on, everything.
      expectDrawnInTime(await shown(second, 60), 30);
      assert.equal(await attribute(second, 'data-mirror-decoded'), '60');
      await expectScreen(second, BLUE, "the last picture's blue");
      assert.deepEqual(
        lines.filter((line) => line.includes('mid-stream')),
        [
          'info screen: a page joined mid-stream: mirroring shows there from the next key frame',
          'info screen: mirroring shown again from a key frame (the page joined mid-stream; 15 access units dropped)',
        ],
      );
      assert.ok(lines.includes('info screen: a newer page shows mirroring; the older one stops'), lines.join('\n'));
      decoder.reset();
      await second.waitForSelector('body[data-mirror-state="off"]', { timeout: PAGE_MS });
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
      await page.waitForSelector('body:not([data-mirror-errors="0"])', { timeout: PAGE_MS });
      expectDrawnInTime(await shown(page, 60), 30);
      await expectScreen(page, BLUE, "the last picture's blue");
      const reported = lines.filter((line) => line.includes("mirroring page's decoder failed"));
      assert.equal(reported.length, 1, lines.join('\n'));
      assert.match(reported[0], /^warn screen: the mirroring page's decoder failed \(".+"\): shown again from the next key frame$/);
      decoder.reset();
    } finally {
      await page.close();
    }
  });
});
