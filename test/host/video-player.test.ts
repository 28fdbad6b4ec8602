// The Node host's Player (hosts/node/screen/player.ts) with its page in a real browser (Debian's
// headless Chromium, driven by playwright-core): the port is driven directly, as the core drives
// it, and what it reports is checked against what the page shows and what the media server
// served. The clip (test/support/media-fixtures.ts, made by ffmpeg now) is red, green and blue
// for 2 s each, so a screenshot says which second is on the screen. Loopback only.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { PlayerReport } from '../../src/platform';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { PagePlayer } from '../../hosts/node/screen/player';
import { MediaDestinations } from '../../hosts/node/screen/media-destinations';
import { FETCH_ERRORS } from '../../hosts/node/screen/media-proxy';
import { parseAddressRange } from '../../src/receiver/video/media-destinations';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import { launchChromium, openScreenPage, pictureCentre } from '../support/chromium';
import { colourDistance, type Rgb } from '../support/color-blocks';
import { CLIP_DURATION, clipColourAt, makeMediaFixtures, MediaServer, type MediaFixtures } from '../support/media-fixtures';
import { delay, until } from '../e2e/receiver-process';

/** Per channel: H.264 in 4:2:0, the browser's colour conversion and scaling, a JPEG screenshot. */
const TOLERANCE = 40;
/** How long a frame the element says it shows may take to reach the screen on a loaded machine. */
const COMPOSITE_MS = 3000;
/** How close a seek must land (the bound). */
const SEEK_TOLERANCE = 0.5;

/** The page's <video> element, in code run in the page (the tests compile without the DOM's types). */
interface PageGlobals {
  document: { getElementById(id: 'video'): { seeking: boolean; readyState: number; currentTime: number } };
  requestAnimationFrame(callback: () => void): void;
}

async function videoTime(on: Page): Promise<number> {
  return on.evaluate(() => (globalThis as unknown as PageGlobals).document.getElementById('video').currentTime);
}

/** Collects a player's reports and waits for one that matches. */
class Reports {
  readonly all: PlayerReport[] = [];
  private waiters: { match: (report: PlayerReport) => boolean; resolve: (report: PlayerReport) => void }[] = [];

  constructor(player: PagePlayer) {
    player.onReport = (report) => {
      this.all.push(report);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.match(report)) return true;
        waiter.resolve(report);
        return false;
      });
    };
  }

  get last(): PlayerReport | undefined {
    return this.all.at(-1);
  }

  /** The first report from now on (or the last one already, when it matches) that matches. */
  async next(what: string, match: (report: PlayerReport) => boolean, timeoutMs = 10_000): Promise<PlayerReport> {
    const last = this.last;
    if (last && match(last)) return last;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<PlayerReport>((resolve, reject) => {
        this.waiters.push({ match, resolve });
        timer = setTimeout(() => reject(new Error(`no report ${what} in ${timeoutMs} ms; last: ${JSON.stringify(this.last)}`)), timeoutMs);
      });
    } finally {
      clearTimeout(timer);
    }
  }
}

describe('video in the virtual screen page (the Player port in Chromium)', () => {
  let fixtures: MediaFixtures;
  let media: MediaServer;
  let screen: VirtualScreen;
  let player: PagePlayer;
  let server: ScreenServer;
  let reports: Reports;
  let browser: Browser;
  let page: Page;
  let item = 0;

  before(async () => {
    fixtures = await makeMediaFixtures();
    media = await MediaServer.start(fixtures.dir);
    screen = new VirtualScreen('Video Test');
    // The media server is on loopback, which the receiver refuses unless allowed (--media-allow).
    player = new PagePlayer({ destinations: new MediaDestinations({ allow: [parseAddressRange('127.0.0.0/8')!], privateRanges: true }) });
    reports = new Reports(player);
    server = await startScreenServer({ screen, player, port: 0, log: () => {} });
    browser = await launchChromium();
    page = await openPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await media?.close();
    fixtures?.remove();
  });

  const openPage = (query = ''): Promise<Page> => openScreenPage(browser, `${server.urls[0]}${query}`);

  function load(file: string, start: { seconds?: number; fraction?: number } = { seconds: 0 }): number {
    item++;
    player.load(item, media.url(file), start);
    return item;
  }

  const playing = (id: number, after = 0) => (report: PlayerReport) => report.item === id && report.state === 'playing' && report.position > after;
  const pausedNear = (id: number, seconds: number) => (report: PlayerReport) =>
    report.item === id && report.state === 'paused' && Math.abs(report.position - seconds) <= SEEK_TOLERANCE;

  /** The colour at the centre of the screen, once the element has drawn the frame it sits on. */
  async function centreColour(on: Page = page): Promise<Rgb> {
    // The element shows the frame at its position: no seek under way, a frame decoded.
    await on.waitForFunction(
      () => {
        const video = (globalThis as unknown as PageGlobals).document.getElementById('video');
        return !video.seeking && video.readyState >= 2;
      },
      undefined,
      { timeout: 5000 },
    );
    // Two animation frames: the decoded frame is composited.
    await on.evaluate(() => new Promise<void>((resolve) => (globalThis as unknown as PageGlobals).requestAnimationFrame(() => (globalThis as unknown as PageGlobals).requestAnimationFrame(resolve))));
    return pictureCentre(on);
  }

  function assertColour(seen: Rgb, expected: Rgb, what: string): void {
    assert.ok(colourDistance(seen, expected) <= TOLERANCE, `${what}: saw rgb(${seen.join(',')}), expected rgb(${expected.join(',')})`);
  }

  /**
   * The centre shows `expected`: read again, frame by frame, for up to COMPOSITE_MS while it does
   * not yet (a loaded machine composited the seeked frame later than two animation frames after
   * the element said it had it: the old picture was still on screen), then asserted.
   */
  async function assertCentreColour(expected: Rgb, what: string, on: Page = page): Promise<void> {
    const until = Date.now() + COMPOSITE_MS;
    let seen = await centreColour(on);
    while (colourDistance(seen, expected) > TOLERANCE && Date.now() < until) seen = await centreColour(on);
    assertColour(seen, expected, what);
  }

  test('an MP4 plays: position advances, the duration is the clip\'s, startup time and server address are reported', async () => {
    media.reset();
    const id = load(fixtures.mp4);
    const first = await reports.next('playing', playing(id, 0.2));
    const later = await reports.next('playing further on', playing(id, first.position + 0.5));
    assert.ok(later.position > first.position);
    assert.ok(Math.abs(later.duration - CLIP_DURATION) < 0.1, `duration ${later.duration}`);
    assert.equal(later.rate, 1);
    assert.equal(later.readyToPlay, true);
    assert.ok(later.startupTime !== undefined && later.startupTime > 0 && later.startupTime < 5, `startupTime ${later.startupTime}`);
    assert.equal(later.serverAddress, '127.0.0.1');
    assert.equal(await page.getAttribute('body', 'data-video-item'), String(id));
  });

  test('screenshots at known times show the clip\'s colour there, and seeks land within 0.5 s', async () => {
    const id = item;
    player.setRate(0);
    for (const seconds of [1, 3, 5, 0.5]) {
      player.seek(seconds);
      const report = await reports.next(`paused at ${seconds} s`, pausedNear(id, seconds));
      assert.ok(Math.abs(report.position - seconds) <= SEEK_TOLERANCE, `asked ${seconds}, at ${report.position}`);
      await assertCentreColour(clipColourAt(seconds), `at ${seconds} s`);
    }
  });

  test('rate 0 pauses with the position frozen; rate 1 resumes', async () => {
    const id = item;
    player.setRate(1);
    const moving = await reports.next('playing', playing(id, 0.6));
    player.setRate(0);
    const paused = await reports.next('paused', (report) => report.item === id && report.state === 'paused');
    assert.equal(paused.rate, 0);
    const frozenAt = await videoTime(page);
    await delay(700);
    assert.equal(await videoTime(page), frozenAt);
    assert.ok(paused.position >= moving.position);
    player.setRate(1);
    const resumed = await reports.next('playing past the pause', playing(id, frozenAt + 0.3));
    assert.equal(resumed.rate, 1);
  });

  test('every byte reported was served by the media server, and the clip plays to its end', async () => {
    const id = item;
    player.seek(CLIP_DURATION - 1);
    const ended = await reports.next('ended', (report) => report.item === id && report.state === 'ended');
    assert.ok(ended.bytes > 0);
    assert.equal(ended.bytes, media.bytesServed(fixtures.mp4), 'bytes reported vs bytes the media server sent');
    assert.equal(ended.requests, media.requests, 'requests reported vs requests the media server answered');
    assert.ok(ended.watched > 1, `watched ${ended.watched}`);
  });

  test('start fraction 0.5 starts mid-way (green, the clip\'s middle)', async () => {
    const id = load(fixtures.mp4, { fraction: 0.5 });
    const report = await reports.next('playing', playing(id));
    assert.ok(report.position >= CLIP_DURATION / 2 - 0.1 && report.position < CLIP_DURATION / 2 + 1, `position ${report.position}`);
    player.setRate(0);
    await reports.next('paused', (r) => r.item === id && r.state === 'paused');
    const at = await videoTime(page);
    await assertCentreColour(clipColourAt(at), `at ${at} s`);
  });

  test('a seek made before the metadata came wins over the start asked at load', async () => {
    const id = load(fixtures.mp4, { fraction: 0.5 });
    player.setRate(0);
    player.seek(1);
    await reports.next('paused at 1 s', pausedNear(id, 1));
    await assertCentreColour(clipColourAt(1), 'at 1 s');
  });

  test('rate 2 plays at twice the speed', async () => {
    const id = item;
    player.setRate(2);
    await reports.next('playing at rate 2', (r) => r.item === id && r.state === 'playing' && r.rate === 2);
    const from = await videoTime(page);
    const started = performance.now();
    await delay(1000);
    const speed = ((await videoTime(page)) - from) / ((performance.now() - started) / 1000);
    assert.ok(speed > 1.5 && speed < 2.5, `played ${speed.toFixed(2)} s a second`);
    player.setRate(0);
  });

  test('stop clears the screen and reports idle', async () => {
    const id = item;
    player.stop();
    const report = await reports.next('idle', (r) => r.item === id && r.state === 'idle');
    assert.equal(report.position, 0);
    await page.waitForSelector('body:not(.has-video)', { timeout: 5000 });
    assert.equal(await page.getAttribute('body', 'data-video-item'), null);
    // The idle screen: dark, nothing of the clip's colours.
    const seen = await pictureCentre(page);
    for (const colour of [clipColourAt(0), clipColourAt(2), clipColourAt(4)]) assert.ok(colourDistance(seen, colour) > TOLERANCE, `rgb(${seen.join(',')}) after stop`);
  });

  test('HLS plays in the browser\'s own player: duration, colours, and the bytes of the playlist and every segment fetched', async () => {
    media.reset();
    const id = load(fixtures.hls);
    await reports.next('playing', playing(id, 0.3));
    assert.equal(await page.getAttribute('body', 'data-video-hls'), 'native');
    player.setRate(0);
    player.seek(3);
    const report = await reports.next('paused at 3 s', pausedNear(id, 3));
    assert.ok(Math.abs(report.duration - CLIP_DURATION) < 0.2, `duration ${report.duration}`);
    await assertCentreColour(clipColourAt(3), 'at 3 s');
    player.setRate(1);
    player.seek(CLIP_DURATION - 1);
    const ended = await reports.next('ended', (r) => r.item === id && r.state === 'ended');
    assert.ok(media.bytesServed('/hls/seg') > 0);
    assert.equal(ended.bytes, media.bytesServed('/hls/'), 'bytes reported vs served (playlist and segments)');
    assert.equal(ended.requests, media.requests);
    player.stop();
  });

  test('a file is sent on the standby request the page that plays next waits on: the page asks for nothing more before its first frame; after stop it waits on a newer one, and the older path has ended', async () => {
    const standbyOf = async (on: Page): Promise<string | null> => {
      const src = await on.evaluate(() => (globalThis as unknown as { document: { getElementById(id: 'video'): { getAttribute(name: 'src'): string | null } } }).document.getElementById('video').getAttribute('src'));
      return src?.startsWith('/video/standby?') ? src : null;
    };
    await until(() => 'the page waiting on a standby request', async () => (await standbyOf(page)) !== null);
    const waiting = (await standbyOf(page))!;
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => asked.push(new URL(request.url()).pathname);
    page.on('request', onRequest);
    let id: number;
    try {
      id = load(fixtures.mp4);
      const report = await reports.next('playing', playing(id));
      assert.ok(report.startupTime !== undefined && report.startupTime > 0, 'the first frame was reported');
      assert.deepEqual(asked.filter((path) => path.startsWith('/media/') || path.startsWith('/video/')), [], 'the element had the file from its standby request');
      assert.equal(await page.getAttribute('body', 'data-video-item'), String(id));
      assert.equal(await standbyOf(page), waiting, 'the element plays on from that path');
    } finally {
      page.off('request', onRequest);
    }
    player.stop();
    await reports.next('idle', (r) => r.item === id && r.state === 'idle');
    await until(() => 'the page waiting on a newer standby request', async () => ![null, waiting].includes(await standbyOf(page)));
    const ended = await fetch(`${server.urls[0]}${waiting.slice(1)}`);
    assert.deepEqual([ended.status, await ended.text()], [404, 'that standby request has ended\n']);
    // A page opened later plays next: it waits on its own, and the first lets its own go.
    const second = await openPage();
    try {
      let seen: (string | null)[] = [];
      await until(() => `the newer page waiting, the older not (saw ${JSON.stringify(seen)})`, async () => {
        seen = [await standbyOf(second), await standbyOf(page)];
        return seen[0] !== null && seen[1] === null;
      });
    } finally {
      await second.close();
    }
    await until(() => 'the first page waiting again once the newer one closed', async () => (await standbyOf(page)) !== null);
  });

  test('HLS plays with hls.js on Media Source Extensions in the page opened last; the older page takes over when it closes', async () => {
    const library = await openPage('?hls=library');
    try {
      const id = load(fixtures.hls);
      await reports.next('playing', playing(id, 0.3));
      assert.equal(await library.getAttribute('body', 'data-video-hls'), 'library');
      assert.equal(await page.getAttribute('body', 'data-video-item'), null, 'only the page opened last plays');
      assert.equal(await page.textContent('#video-note'), 'Video plays in another open screen page');
      player.setRate(0);
      player.seek(5);
      await reports.next('paused at 5 s', pausedNear(id, 5));
      await assertCentreColour(clipColourAt(5), 'hls.js at 5 s', library);
      player.seek(1);
      await reports.next('paused at 1 s', pausedNear(id, 1));
      await library.close();
      // The first page loads the item where the closed one was, still paused.
      await page.waitForSelector(`body[data-video-item="${id}"]`, { timeout: 5000 });
      const report = await reports.next('paused on the first page', pausedNear(id, 1));
      assert.ok(Math.abs(report.position - 1) <= SEEK_TOLERANCE);
      await assertCentreColour(clipColourAt(1), 'handed over at 1 s');
    } finally {
      if (!library.isClosed()) await library.close();
      player.stop();
    }
  });

  test('with no page open the item is not taken (idle); a page that opens starts it where asked', async () => {
    await page.close();
    // The server knows the page is gone when its event stream closes; until then it would start
    // fetching for that page (the player's prefetch).
    await until(() => `the screen server to see the page close (${server.clientCount} open)`, () => server.clientCount === 0);
    media.reset();
    const id = load(fixtures.mp4, { seconds: 2.5 });
    const waiting = await reports.next('idle', (r) => r.item === id && r.state === 'idle');
    assert.equal(waiting.bytes, 0);
    await delay(300);
    assert.equal(reports.last?.state, 'idle');
    assert.equal(media.requests, 0, 'nothing fetched without a page');
    // Paused before the page opens: it loads the item paused where asked, however busy the machine.
    player.setRate(0);
    page = await openPage();
    const report = await reports.next('paused at 2.5 s', pausedNear(id, 2.5));
    await assertCentreColour(clipColourAt(report.position), `at ${report.position} s`);
    player.stop();
  });

  test('a URL that answers 404 fails: `failed`, without the server\'s status (the receiver\'s log has it)', async () => {
    const id = load('/missing.mp4');
    const report = await reports.next('failed', (r) => r.item === id && r.state === 'failed');
    assert.deepEqual(report.error, FETCH_ERRORS.failed.error);
    await page.waitForSelector('body:not(.has-video)', { timeout: 5000 });
    player.stop();
  });

  test('a file that is not video fails with a media error', async () => {
    const id = load(fixtures.notVideo);
    const report = await reports.next('failed', (r) => r.item === id && r.state === 'failed');
    assert.equal(report.error?.domain, 'media');
    assert.ok(report.error && report.error.code >= 1 && report.error.code <= 4, `code ${report.error?.code}`);
    player.stop();
  });

  test('an unreachable server and a URL that is not http fail at once', async () => {
    const closed = await MediaServer.start(fixtures.dir);
    const port = closed.port;
    await closed.close();
    const id = ++item;
    player.load(id, `http://127.0.0.1:${port}/clip.mp4`, { seconds: 0 });
    const unreachable = await reports.next('failed', (r) => r.item === id && r.state === 'failed');
    // The same words as an error answer: a sender cannot tell a closed port from an open one.
    assert.deepEqual(unreachable.error, FETCH_ERRORS.failed.error);
    const other = ++item;
    player.load(other, 'file:///etc/passwd', { seconds: 0 });
    const refused = await reports.next('failed', (r) => r.item === other && r.state === 'failed');
    assert.equal(refused.error?.domain, 'url');
    player.stop();
  });

  test('the media path serves only the item playing now, and reports only from the playing page', async () => {
    const id = load(fixtures.mp4);
    await reports.next('playing', playing(id));
    const base = server.urls[0];
    assert.equal((await fetch(`${base}media/${id}/0`, { headers: { Range: 'bytes=0-9' } })).status, 206);
    assert.equal((await fetch(`${base}media/${id}/1`)).status, 404, 'a number never handed out');
    assert.equal((await fetch(`${base}media/${id - 1}/0`)).status, 404, 'an older item');
    assert.equal((await fetch(`${base}media/${id}/0`, { headers: { 'Sec-Fetch-Site': 'cross-site' } })).status, 403);
    const report = (body: string, client = 'nobody') =>
      fetch(`${base}player/report?client=${client}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    assert.equal((await report('{}')).status, 409, 'not the playing page');
    assert.equal((await report('x'.repeat(20_000))).status, 413);
    player.stop();
  });
});
