// Video by URL end to end (spec 4.2, 6): the real `vendorplay-receiver` command with its screen
// page open in Debian's headless Chromium, driven by our sender command (`vendorplay-send play`,
// `scrub`, `rate`, `stop`) and by a client nobody here wrote (npm `airplay-protocol`, which
// receives the video events over its reverse connection). The clip (made by ffmpeg now, red,
// green and blue for 2 s each) is served by a loopback media server that counts what it sent,
// so the access log's bytes can be checked against it. The receiver runs with --dialect apple
// (the library speaks only that) and --no-mdns; everything is on loopback, which the receiver
// fetches from only when told (--media-allow 127.0.0.0/8: ::1 stays refused).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AirPlay from 'airplay-protocol';
import type { Browser, Page } from 'playwright-core';
import { decodePlist, isPlistDict, type PlistDict, type PlistValue } from '../../src/plist';
import { launchChromium, openScreenPage, pictureCentre } from '../support/chromium';
import { blockPicture, colourDistance, WHITE } from '../support/color-blocks';
import { CLIP_DURATION, clipColourAt, makeMediaFixtures, MediaServer, type MediaFixtures } from '../support/media-fixtures';
import { PythonHttpServer } from '../support/python-http-server';
import { ReceiverProcess, delay, runSender, until, within } from '../e2e/receiver-process';

const TOLERANCE = 40;
const SEEK_TOLERANCE = 0.5;
const BOUND = { timeout: 120_000 };

/** Waits until `pattern` has matched `count` times in a running sender's `output()`. */
function untilSaid(output: () => string, pattern: RegExp, count = 1, timeoutMs = 15_000): Promise<void> {
  const global = new RegExp(pattern.source, 'g');
  return until(() => `${count} x ${pattern} in the sender's output:\n${output()}`, () => (output().match(global) ?? []).length >= count, timeoutMs, 25);
}

/** Runs a sender command to its end (bounded), which must succeed; `whileRunning` as runSender's. */
async function send(args: string[], timeoutMs?: number, whileRunning?: (output: () => string) => Promise<void>): Promise<string> {
  const run = await runSender(args, timeoutMs, whileRunning);
  assert.equal(run.code, 0, `${run.stdout}${run.stderr}`);
  return run.stdout;
}

function numberOf(value: PlistValue | undefined): number {
  return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : NaN;
}

describe('video by URL through the receiver, on the screen page in Chromium', BOUND, () => {
  let fixtures: MediaFixtures;
  let media: MediaServer;
  let receiver: ReceiverProcess;
  let browser: Browser;
  let page: Page;
  let target: string;

  before(async () => {
    fixtures = await makeMediaFixtures();
    media = await MediaServer.start(fixtures.dir);
    receiver = await ReceiverProcess.start({ args: ['--name', 'Video Room', '--dialect', 'apple', '--media-allow', '127.0.0.0/8'] });
    target = `127.0.0.1:${receiver.port}`;
    browser = await launchChromium();
    page = await openPage();
  });
  after(async () => {
    await browser?.close();
    await receiver?.stop();
    await media?.close();
    fixtures?.remove();
  });

  const openPage = (query = ''): Promise<Page> => openScreenPage(browser, `${receiver.screenUrl!}${query}`);

  async function playbackInfo(): Promise<PlistDict> {
    const response = await fetch(`http://${target}/playback-info`);
    assert.equal(response.status, 200);
    const info = decodePlist(new Uint8Array(await response.arrayBuffer()));
    assert.ok(isPlistDict(info));
    return info;
  }

  /** Polls GET /playback-info until `match` holds. */
  async function infoUntil(what: string, match: (info: PlistDict) => boolean, timeoutMs = 10_000): Promise<PlistDict> {
    let last: PlistDict = {};
    const shown = () => `playback-info ${what} (last: ${JSON.stringify(last, (_, v) => (typeof v === 'bigint' ? Number(v) : v))})`;
    await until(shown, async () => match((last = await playbackInfo())), timeoutMs, 100);
    return last;
  }

  async function property(name: 'playbackAccessLog' | 'playbackErrorLog'): Promise<PlistDict[]> {
    const response = await fetch(`http://${target}/getProperty?${name}`, { method: 'POST', headers: { 'Content-Type': 'application/x-apple-binary-plist' } });
    assert.equal(response.status, 200);
    const reply = decodePlist(new Uint8Array(await response.arrayBuffer()));
    assert.ok(isPlistDict(reply) && Array.isArray(reply.value), `getProperty?${name}: ${String(reply)}`);
    return reply.value.filter(isPlistDict);
  }

  /**
   * The colour at the picture's centre once the page's video has reached `seconds` (a seek the
   * receiver already reports may not have reached the page yet) and shows a decoded frame there.
   */
  async function centreColour(seconds: number): Promise<readonly [number, number, number]> {
    await page.waitForFunction(
      ([at, tolerance]) => {
        const video = (globalThis as unknown as { document: { getElementById(id: string): { seeking: boolean; readyState: number; currentTime: number } } }).document.getElementById('video');
        return !video.seeking && video.readyState >= 2 && Math.abs(video.currentTime - at) <= tolerance;
      },
      [seconds, SEEK_TOLERANCE + 0.3] as const,
      { timeout: 5000 },
    );
    await page.waitForTimeout(100);
    return pictureCentre(page);
  }

  const near = (info: PlistDict, seconds: number) => Math.abs(numberOf(info.position) - seconds) <= SEEK_TOLERANCE;

  test('vendorplay-send plays an MP4: position advances, scrub, rate 0 pauses (frozen), rate 1 resumes, the access log counts the bytes, stop clears the screen', async () => {
    media.reset();
    await send(['play', target, media.url(fixtures.mp4), '--dialect', 'apple'], 60_000, async (output) => {
      await untilSaid(output, /event: video playing/);
      const first = await infoUntil('position past 0.3 s', (info) => numberOf(info.position) > 0.3);
      assert.ok(Math.abs(numberOf(first.duration) - CLIP_DURATION) < 0.1, `duration ${String(first.duration)}`);
      await infoUntil('position advancing', (info) => numberOf(info.position) > numberOf(first.position) + 0.3);

      await send(['rate', target, '0', '--dialect', 'apple']);
      await untilSaid(output, /event: video paused/);
      const paused = await playbackInfo();
      assert.equal(numberOf(paused.rate), 0);
      await delay(600);
      assert.equal(numberOf((await playbackInfo()).position), numberOf(paused.position), 'the position is frozen while paused');

      await send(['scrub', target, '3', '--dialect', 'apple']);
      const scrubbed = await infoUntil('at 3 s', (info) => near(info, 3));
      assert.ok(near(scrubbed, 3));
      const colour = await centreColour(3);
      assert.ok(colourDistance(colour, clipColourAt(3)) <= TOLERANCE, `at 3 s: rgb(${colour.join(',')})`);

      await send(['rate', target, '1', '--dialect', 'apple']);
      await untilSaid(output, /event: video playing/, 2);
      await infoUntil('playing on from 3 s', (info) => numberOf(info.rate) === 1 && numberOf(info.position) > numberOf(scrubbed.position) + 0.3);

      const [entry] = (await property('playbackAccessLog')).slice(-1);
      assert.ok(entry, 'an access log entry for the video');
      assert.equal(numberOf(entry.bytes), media.bytesServed(fixtures.mp4), 'access log bytes vs bytes the media server sent');
      assert.equal(numberOf(entry['sc-count']), media.requests);
      assert.equal(entry['s-ip'], '127.0.0.1');
      assert.equal(entry.uri, media.url(fixtures.mp4));

      await send(['stop', target, '--dialect', 'apple']);
      await untilSaid(output, /event: video stopped/);
    });
    // The play command has ended (0) after the stop.
    await page.waitForSelector('body:not(.has-video)', { timeout: 5000 });
  });

  test('from a media server without byte ranges (python3 -m http.server), a scrub lands where asked: the picture and /playback-info at 3 s', async () => {
    const python = await PythonHttpServer.start(fixtures.dir);
    try {
      await send(['play', target, python.url(fixtures.mp4), '--dialect', 'apple'], 60_000, async (output) => {
        await untilSaid(output, /event: video playing/);
        await send(['rate', target, '0', '--dialect', 'apple']);
        await untilSaid(output, /event: video paused/);
        await send(['scrub', target, '3', '--dialect', 'apple']);
        const colour = await centreColour(3);
        assert.ok(colourDistance(colour, clipColourAt(3)) <= TOLERANCE, `at 3 s: rgb(${colour.join(',')})`);
        const info = await infoUntil('at 3 s', (candidate) => near(candidate, 3));
        // The page can seek the whole clip (from such a server Chromium's seekable range was [0, 0]).
        assert.deepEqual(info.seekableTimeRanges, [{ duration: info.duration, start: 0 }]);
        await send(['stop', target, '--dialect', 'apple']);
        await untilSaid(output, /event: video stopped/);
      });
    } finally {
      await python.stop();
    }
  });

  test('Start-Position 0.5 starts mid-way', async () => {
    await send(['play', target, media.url(fixtures.mp4), '--start', '0.5', '--dialect', 'apple'], 30_000, async (output) => {
      await untilSaid(output, /event: video playing/);
      const info = await playbackInfo();
      assert.ok(numberOf(info.position) >= CLIP_DURATION / 2 - 0.1 && numberOf(info.position) < CLIP_DURATION / 2 + 1.5, `position ${String(info.position)}`);
      await send(['stop', target, '--dialect', 'apple']);
      await untilSaid(output, /event: video stopped/);
    });
  });

  test("a video's reports wait for its first frame: the clip's every byte comes at once, before the frame is drawn, and no report goes beside them", async () => {
    // When the page gave its element the item's source (the page's clock), and what its reports
    // said and when they left, recorded in the page.
    type Recorder = { fetch: (input: unknown, init?: { body?: unknown }) => Promise<unknown>; performance: { now(): number } };
    type Recorded = { sources: number[]; reports: { item: number; frameShown: boolean; at: number }[]; fetch: Recorder['fetch'] };
    type PageWithVideo = Recorder & { recorded: Recorded; HTMLMediaElement: { prototype: object }; document: { getElementById(id: string): object } };
    await page.evaluate(() => {
      const scope = globalThis as unknown as PageWithVideo;
      const pageFetch = scope.fetch;
      const recorded: Recorded = { sources: [], reports: [], fetch: pageFetch };
      scope.recorded = recorded;
      scope.fetch = (input, init) => {
        if (String(input).includes('/player/report') && typeof init?.body === 'string') {
          const report = JSON.parse(init.body) as { item: number; frameShown: boolean };
          recorded.reports.push({ item: report.item, frameShown: report.frameShown, at: scope.performance.now() });
        }
        return pageFetch(input, init);
      };
      const src = Object.getOwnPropertyDescriptor(scope.HTMLMediaElement.prototype, 'src')!;
      Object.defineProperty(scope.document.getElementById('video'), 'src', {
        configurable: true,
        get(this: object) {
          return src.get!.call(this) as string;
        },
        set(this: object, value: string) {
          recorded.sources.push(scope.performance.now());
          src.set!.call(this, value);
        },
      });
    });
    let item = 0;
    let frameAt = 0;
    try {
      await send(['play', target, media.url(fixtures.mp4), '--dialect', 'apple'], 30_000, async (output) => {
        await untilSaid(output, /event: video playing/);
        await page.waitForSelector('body[data-video-frame-at]', { timeout: 5000 });
        item = Number(await page.getAttribute('body', 'data-video-item'));
        // data-video-frame-at is wall-clock (timeOrigin based): on the page's clock here.
        frameAt = await page.evaluate(() => {
          const scope = globalThis as unknown as { document: { body: { dataset: Record<string, string> } }; performance: { timeOrigin: number } };
          return Number(scope.document.body.dataset.videoFrameAt) - scope.performance.timeOrigin;
        });
        await send(['stop', target, '--dialect', 'apple']);
        await untilSaid(output, /event: video stopped/);
      });
    } finally {
      await page.evaluate(() => {
        const scope = globalThis as unknown as PageWithVideo;
        scope.fetch = scope.recorded.fetch;
        delete (scope.document.getElementById('video') as { src?: string }).src;
      });
    }
    const recorded = await page.evaluate(() => {
      const { sources, reports } = (globalThis as unknown as PageWithVideo).recorded;
      return { sources, reports };
    });
    const reports = recorded.reports.filter((report) => report.item === item);
    assert.ok(reports.some((report) => report.frameShown), `a report says the frame is shown: ${JSON.stringify(reports)}`);
    // A report before the frame only once the page has waited its bound for it (video.ts
    // STARTUP_QUIET_MS, 1 s from the load, which sets the source a few statements later; 50 ms
    // for those on a busy machine): a machine too busy to draw the frame sooner.
    const loaded = Math.max(...recorded.sources.filter((at) => at <= frameAt));
    for (const report of reports.filter((candidate) => candidate.at < frameAt)) {
      assert.ok(report.at - loaded >= 1000 - 50, `a report ${(report.at - loaded).toFixed(1)} ms after the load, before the first frame (${(frameAt - loaded).toFixed(1)} ms): ${JSON.stringify(reports)}`);
    }
  });

  test('an HLS stream plays (with hls.js, in a page opened with ?hls=library), and its access log counts the playlist and segments', async () => {
    media.reset();
    // Opened last, so it plays: hls.js served by the built receiver from node_modules.
    const library = await openPage('?hls=library');
    try {
      await runSender(['play', target, media.url(fixtures.hls), '--dialect', 'apple'], 30_000, async (output) => {
        await untilSaid(output, /event: video playing/);
        assert.equal(await library.getAttribute('body', 'data-video-hls'), 'library');
        const info = await infoUntil('position past 0.5 s', (i) => numberOf(i.position) > 0.5);
        assert.ok(Math.abs(numberOf(info.duration) - CLIP_DURATION) < 0.2, `duration ${String(info.duration)}`);
        await send(['scrub', target, '5', '--dialect', 'apple']);
        await untilSaid(output, /event: video stopped/, 1, 15_000);
      });
      const [entry] = (await property('playbackAccessLog')).slice(-1);
      assert.equal(numberOf(entry.bytes), media.bytesServed('/hls/'));
      assert.ok(media.bytesServed('/hls/seg') > 0);
    } finally {
      await library.close();
    }
    // The next test's video goes to the page that plays next: once the receiver has seen this one
    // close, the first page is that page again, and waits on its standby request.
    await page.waitForFunction(() => (globalThis as unknown as { document: { getElementById(id: 'video'): { getAttribute(name: 'src'): string | null } } }).document.getElementById('video').getAttribute('src')?.startsWith('/video/standby?') === true, undefined, { timeout: 5000 });
  });

  test('airplay-protocol plays, scrubs, pauses, resumes, reads the playback info and access log, and stops, receiving the video events', async () => {
    media.reset();
    const client = new AirPlay('127.0.0.1', receiver.port);
    const events: Record<string, unknown>[] = [];
    const errors: Error[] = [];
    client.on('event', (event: Record<string, unknown>) => events.push(event));
    client.on('error', (error: Error) => errors.push(error));
    const call = <T>(what: string, run: (callback: (error: Error | undefined, response: { statusCode?: number }, body: unknown) => void) => void) =>
      within(10_000, what, new Promise<T>((resolve, reject) => run((error, response, body) => (error ? reject(error) : response.statusCode === 200 ? resolve(body as T) : reject(new Error(`${what}: ${response.statusCode}`))))));
    const eventState = (state: string, count = 1) =>
      until(() => `${count} video event(s) ${state} (have ${JSON.stringify(events)})`, () => events.filter((event) => event.category === 'video' && event.state === state).length >= count, 10_000, 25);
    try {
      await call('play', (callback) => client.play(media.url(fixtures.mp4), 0, callback));
      await eventState('playing');
      const info = await call<Record<string, number>>('playbackInfo', (callback) => client.playbackInfo(callback));
      assert.ok(Math.abs(info.duration - CLIP_DURATION) < 0.1, `duration ${info.duration}`);
      await call('scrub', (callback) => client.scrub(4, callback));
      await call('pause', (callback) => client.pause(callback));
      await eventState('paused');
      const scrubbed = await call<Record<string, number>>('scrub (GET)', (callback) => client.scrub(null, callback));
      assert.ok(Math.abs(scrubbed.position - 4) <= SEEK_TOLERANCE + 0.3, `position ${scrubbed.position}`);
      const colour = await centreColour(scrubbed.position);
      assert.ok(colourDistance(colour, clipColourAt(scrubbed.position)) <= TOLERANCE, `at ${scrubbed.position} s: rgb(${colour.join(',')})`);
      await call('resume', (callback) => client.resume(callback));
      await eventState('playing', 2);
      const log = await call<{ errorCode: number; value: Record<string, unknown>[] }>('property playbackAccessLog', (callback) => client.property('playbackAccessLog', callback));
      assert.equal(log.errorCode, 0);
      assert.equal(Number(log.value.at(-1)?.bytes), media.bytesServed(fixtures.mp4));
      await call('stop', (callback) => client.stop(callback));
      await eventState('stopped');
      assert.equal(client.state, 'stopped');
      assert.deepEqual(errors, []);
      await page.waitForSelector('body:not(.has-video)', { timeout: 5000 });
    } finally {
      client.destroy();
    }
  });

  test('a photo sent while the video plays takes the screen: the video stops and the page shows the photo', async () => {
    // The play command ends with the video (its status is not what this test is about).
    await runSender(['play', target, media.url(fixtures.mp4), '--dialect', 'apple'], 30_000, async (output) => {
      await untilSaid(output, /event: video playing/);
      await page.waitForSelector('body.has-video', { timeout: 5000 });
      const photo = await fetch(`http://${target}/photo`, { method: 'PUT', body: blockPicture([[WHITE]]).jpeg, headers: { 'Content-Type': 'image/jpeg' } });
      assert.equal(photo.status, 200);
      await untilSaid(output, /event: video stopped/);
      await page.waitForSelector('body.has-photo:not(.has-video)', { timeout: 5000 });
      const seen = await pictureCentre(page);
      assert.ok(colourDistance(seen, WHITE) <= TOLERANCE, `the photo's white, saw rgb(${seen.join(',')})`);
      await send(['stop', target, '--dialect', 'apple']);
    });
  });

  test('with no page open, /play answers 200 and the video stays loading until a page opens (within limits.videoLoadTimeoutMs)', async () => {
    await page.close();
    await send(['play', target, media.url(fixtures.mp4), '--dialect', 'apple'], 30_000, async (output) => {
      await untilSaid(output, /event: video loading/);
      await delay(1000);
      assert.doesNotMatch(output(), /event: video (playing|stopped)/);
      page = await openPage();
      await untilSaid(output, /event: video playing/);
      await send(['stop', target, '--dialect', 'apple']);
      await untilSaid(output, /event: video stopped/);
    });
  });

  // What the server answered stays in the receiver's log: a sender hears `failed` (or `refused`
  // for a destination the receiver does not fetch from), never a status line.
  for (const [what, url, domain, comment] of [
    ['a URL that answers 404', () => media.url('/missing.mp4'), 'VendorPlayReceiver', /^failed: /],
    ['a loopback address not allowed (::1)', () => media.url(fixtures.mp4).replace('127.0.0.1', '[::1]'), 'VendorPlayReceiver', /^refused: /],
    ['a file that is not video', () => media.url('/not-video.mp4'), 'media', /./],
  ] as const) {
    test(`${what}: the video stops and the error log says why (${domain} ${comment})`, async () => {
      const served = media.requests;
      const play = await runSender(['play', target, url(), '--dialect', 'apple'], 30_000, (output) => untilSaid(output, /event: video stopped/));
      // The sender says why, from the error log, and ends with status 1.
      const said = `${play.stdout}${play.stderr}`;
      assert.equal(play.code, 1, said);
      // The origin's status (a 404) as a word: a session UUID or a port may hold the digits.
      assert.doesNotMatch(said, /\b404\b/);
      const [entry] = (await property('playbackErrorLog')).slice(-1);
      assert.ok(entry, 'an error log entry');
      assert.equal(entry.domain, domain);
      assert.match(String(entry.comment), comment);
      assert.notEqual(numberOf(entry.status), 404);
      assert.equal(entry.uri, url());
      if (domain === 'VendorPlayReceiver' && comment.source.startsWith('^refused')) assert.equal(media.requests, served, 'nothing fetched');
    });
  }
});
