// Video by URL end to end (spec 2.9, 4.2, 6), with no screen page open: the real
// `vendorplay-receiver` on loopback, driven by the real `vendorplay-send` and by npm
// `airplay-protocol` (a sender library nobody here wrote). With no page nothing fetches the
// video, so POST /play is answered 200 and the session stays loading until it is stopped or
// limits.videoLoadTimeoutMs passes: `loading` arrives over the reverse connection,
// /playback-info says not ready, POST /stop brings `stopped`; a load no player takes fails with
// `stopped` and an error-log entry. Bad bodies are refused with a reason and one log line.
// (Playback in the page is the screen page's suite.) Network: loopback only; the video URLs are
// never fetched. With the default options a loopback URL is refused when the page fetches it
// (here a plain fetch of the page's /media path stands in for the page).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import AirPlay from 'airplay-protocol';
import { eventServer, ReverseChannel } from '../../sender/wire';
import { decodeBinaryPlist, encodeBinaryPlist } from '../../src/plist/binary';
import { isPlistDict, real, type PlistDict } from '../../src/plist/value';
import { exchange, RawClient, RECEIVER_COMMAND, ReceiverProcess, runCommand, until, within, runSender as send } from './receiver-process';

const BOUND = { timeout: 60_000 };
/** Never fetched (no screen page is open); the discard port, on loopback. */
const MOVIE = 'http://127.0.0.1:9/movies/clip.mp4';

/** Waits until `output()` matches `pattern`. */
function untilMatch(output: () => string, pattern: RegExp, what: string): Promise<void> {
  return until(() => what, () => pattern.test(output()));
}

/** One raw request on a new loopback connection; the response's status and body text. */
async function raw(port: number, head: string, body: Uint8Array = new Uint8Array(0)): Promise<{ status: number; text: string; body: Uint8Array; type: string | undefined }> {
  const response = await exchange(port, Buffer.concat([Buffer.from(`${head}Content-Length: ${body.length}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
  return { status: response.head.status, text: Buffer.from(response.body).toString('utf8'), body: response.body, type: response.head.headers.get('Content-Type') };
}

/** Whether the printed features (TXT `features`, spec 9.3 `0xLOW,0xHIGH`) have bit `bit` set. */
function hasFeature(features: string, bit: number): boolean {
  const [low] = features.split(',');
  return ((Number.parseInt(low, 16) >>> bit) & 1) === 1;
}

describe('video by URL with no screen page open', BOUND, () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--dialect', 'apple'] });
  });

  after(async () => {
    await receiver?.stop();
  });

  test('the desktop advertises Video and VideoHTTPLiveStreams (bits 0 and 4): its host has a player (the screen page)', () => {
    const features = receiver.txt('_airplay._tcp', 'features');
    assert.ok(hasFeature(features, 0) && hasFeature(features, 4), features);
  });

  test('GET /playback-info with nothing loaded: {readyToPlay: false}; GET /scrub: zeros', async () => {
    const info = await raw(receiver.port, 'GET /playback-info HTTP/1.1\r\n');
    assert.equal(info.status, 200);
    assert.equal(info.type, 'text/x-apple-plist+xml');
    assert.match(info.text, /<dict>\n\t<key>readyToPlay<\/key>\n\t<false\/>\n<\/dict>/);
    const scrub = await send(['scrub', `127.0.0.1:${receiver.port}`, '--dialect', 'apple']);
    assert.equal(scrub.code, 0, scrub.stderr);
    assert.equal(scrub.stdout, 'position 0.000 s of 0.000 s\n');
  });

  test('vendorplay-send play: 200, event loading, info not ready to play, then stopped after POST /stop', async () => {
    const from = receiver.stderr.length;
    const run = await send(['play', `127.0.0.1:${receiver.port}`, MOVIE, '--start', '0.3', '--stop-after', '3', '--dialect', 'apple'], 20_000, async (output) => {
      await untilMatch(output, /^event: video loading$/m, 'the loading event');
      const info = await send(['info', `127.0.0.1:${receiver.port}`]);
      assert.equal(info.code, 0, info.stderr);
      assert.match(info.stdout, /^ready to play: no$/m);
      assert.match(info.stdout, /^rate: 0$/m);
      assert.match(info.stdout, /^loaded: none$/m);
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.stdout.split('\n').filter((line) => line.startsWith('event: ')), ['event: video loading', 'event: video stopped']);
    assert.match(run.stdout, new RegExp(`^playing ${MOVIE.replace(/[.]/g, '\\.')} on 127\\.0\\.0\\.1:${receiver.port} from 30\\.0%`, 'm'));
    const log = receiver.stderr.slice(from);
    assert.match(log, /video 1: http:\/\/127\.0\.0\.1:9\/movies\/clip\.mp4 from 30% for session [0-9A-F-]{36}/);
    assert.match(log, /video 1 stopped: POST \/stop/);
    const activity = [...log.matchAll(/activity: (\w+)/g)].map((match) => match[1]);
    assert.deepEqual(activity, ['receivingVideo', 'idle']);
  });

  test('airplay-protocol: play() is 200, its reverse connection gets loading; playbackInfo not ready; stop() brings stopped', async () => {
    const client = new AirPlay('127.0.0.1', receiver.port);
    const events: Record<string, unknown>[] = [];
    let wake: () => void = () => {};
    client.on('event', (event: Record<string, unknown>) => {
      events.push(event);
      wake();
    });
    const errors: Error[] = [];
    client.on('error', (error: Error) => errors.push(error));
    const next = (count: number) =>
      within(5000, `${count} events (have ${JSON.stringify(events)})`, (async () => {
        while (events.length < count) await new Promise<void>((resolve) => (wake = resolve));
        return events.slice(0, count);
      })());
    try {
      const status = await within(5000, 'POST /play', new Promise<number>((resolve, reject) => client.play(MOVIE, 0, (error, response) => (response ? resolve(response.statusCode ?? 0) : reject(error)))));
      assert.equal(status, 200);
      const [loading] = await next(1);
      assert.deepEqual({ category: loading.category, state: loading.state }, { category: 'video', state: 'loading' });
      const info = await within(5000, 'GET /playback-info', new Promise<Record<string, unknown>>((resolve, reject) => client.playbackInfo((error, _response, body) => (body ? resolve(body as Record<string, unknown>) : reject(error)))));
      assert.equal(info.readyToPlay, false);
      assert.equal(info.rate, 0);
      assert.deepEqual(info.loadedTimeRanges, []);
      const stopStatus = await within(5000, 'POST /stop', new Promise<number>((resolve, reject) => client.stop((error, response) => (response ? resolve(response.statusCode ?? 0) : reject(error)))));
      assert.equal(stopStatus, 200);
      const [, stopped] = await next(2);
      assert.deepEqual({ category: stopped.category, state: stopped.state, sessionID: stopped.sessionID }, { category: 'video', state: 'stopped', sessionID: loading.sessionID });
      // The library ends its session on stopped.
      assert.equal(client.state, 'stopped');
      assert.deepEqual(errors, []);
    } finally {
      client.destroy();
    }
  });

  test('closing the connection that carried POST /play stops the video (pyatv\'s stop()): event stopped, idle, /playback-info elsewhere has nothing; another connection closing does not', async () => {
    const session = randomUUID().toUpperCase();
    const sessionHeader = `X-Apple-Session-ID: ${session}\r\n`;
    const states: string[] = [];
    const events = await ReverseChannel.open({
      endpoint: { host: '127.0.0.1', port: receiver.port },
      common: () => [['X-Apple-Session-ID', session]],
      purposeHeader: 'X-Apple-Purpose',
      purpose: 'event',
      serve: eventServer(() => {}, (event) => states.push(String(event.state))),
    });
    const from = receiver.stderr.length;
    const play = await RawClient.connect(receiver.port);
    const playedFrom = `127\\.0\\.0\\.1:${play.localPort}`;
    try {
      const body = `Content-Location: ${MOVIE}\nStart-Position: 0\n`;
      play.send(`POST /play HTTP/1.1\r\n${sessionHeader}Content-Type: text/parameters\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      assert.equal((await play.response()).head.status, 200);
      await until(() => `the loading event (have ${JSON.stringify(states)})`, () => states.includes('loading'));
      // The same sender asks on another connection and closes it: the video plays on.
      const other = await RawClient.connect(receiver.port);
      other.send(`GET /playback-info HTTP/1.1\r\n${sessionHeader}Content-Length: 0\r\n\r\n`);
      assert.match(Buffer.from((await other.response()).body).toString('utf8'), /<key>duration<\/key>/);
      const otherPort = other.localPort;
      other.close();
      await receiver.waitForLog(new RegExp(`127\\.0\\.0\\.1:${otherPort} closing: peer closed the connection`), 10_000);
      assert.match((await raw(receiver.port, 'GET /playback-info HTTP/1.1\r\n')).text, /<key>duration<\/key>/, 'still loaded');
      assert.deepEqual(states, ['loading']);
      // The sender closes the /play connection, as pyatv's stop() does.
      play.close();
      await until(() => `the stopped event (have ${JSON.stringify(states)})`, () => states.includes('stopped'));
      assert.deepEqual(states, ['loading', 'stopped']);
      const info = await raw(receiver.port, 'GET /playback-info HTTP/1.1\r\n');
      assert.match(info.text, /<dict>\n\t<key>readyToPlay<\/key>\n\t<false\/>\n<\/dict>/);
      const log = receiver.stderr.slice(from);
      assert.match(log, new RegExp(`video \\d+ stopped: the connection that carried its POST /play \\(${playedFrom}\\) closed`));
      assert.deepEqual([...log.matchAll(/activity: (\w+)/g)].map((match) => match[1]), ['receivingVideo', 'idle']);
    } finally {
      play.close();
      events.close();
    }
  });

  test('bad bodies and requests without a video are refused with their reason and one log line', async () => {
    const cases: { head: string; body?: Uint8Array; status: number; reason: RegExp }[] = [
      { head: 'POST /play HTTP/1.1\r\nContent-Type: text/parameters\r\n', body: Buffer.from('Start-Position: 0.5\n'), status: 400, reason: /text\/parameters body without Content-Location/ },
      { head: 'POST /play HTTP/1.1\r\nContent-Type: text/parameters\r\n', body: Buffer.from(`Content-Location: ${MOVIE}\nStart-Position: 7\n`), status: 400, reason: /Start-Position 7 is not a fraction from 0 to 1/ },
      { head: 'POST /play HTTP/1.1\r\nContent-Type: application/x-apple-binary-plist\r\n', body: Buffer.from('bplist00 garbage, not a plist'), status: 400, reason: /body is not a property list/ },
      { head: 'POST /play HTTP/1.1\r\nContent-Type: application/x-apple-binary-plist\r\n', body: encodeBinaryPlist({ 'Start-Position-Seconds': real(3) }), status: 400, reason: /property list without Content-Location/ },
      { head: 'POST /rate?value=1.000000 HTTP/1.1\r\n', status: 409, reason: /POST \/rate: no video is loaded \(POST \/play first\)/ },
      { head: 'POST /scrub?position=10 HTTP/1.1\r\n', status: 409, reason: /POST \/scrub: no video is loaded/ },
    ];
    for (const { head, body, status, reason } of cases) {
      const from = receiver.stderr.length;
      const response = await raw(receiver.port, head, body);
      assert.equal(response.status, status, head);
      assert.match(response.text, reason);
      const [method, target] = head.split(' ');
      await untilMatch(() => receiver.stderr.slice(from), reason, `the log line for ${reason}`);
      const lines = receiver.stderr.slice(from).split('\n').filter((candidate) => reason.test(candidate));
      assert.equal(lines.length, 1, `one log line for ${reason}`);
      assert.ok(lines[0].includes(`HTTP ${method} ${target}: ${status} (`), lines[0]);
    }
    const rate = await send(['rate', `127.0.0.1:${receiver.port}`, '1']);
    assert.equal(rate.code, 1);
    assert.equal(rate.stderr, 'vendorplay-send: POST /rate: the receiver answered 409 Conflict: POST /rate: no video is loaded (POST /play first)\n');
  });
});

describe('a video no player takes (no screen page open, --limit videoLoadTimeoutMs=2000)', BOUND, () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--dialect', 'apple', '--limit', 'videoLoadTimeoutMs=2000'] });
  });

  after(async () => {
    await receiver?.stop();
  });

  test('fails 2 s after POST /play: event stopped, the error log says why, /playback-info has nothing loaded, idle again, and the screen has nothing to play', async () => {
    const from = receiver.stderr.length;
    const target = `127.0.0.1:${receiver.port}`;
    const run = await send(['play', target, MOVIE, '--dialect', 'apple'], 30_000, async (output) => {
      await untilMatch(output, /^event: video loading$/m, 'the loading event');
      // What pyatv's play_url polls for: /playback-info without a duration (nothing loaded).
      await until(
        () => 'GET /playback-info without a duration',
        async () => !(await raw(receiver.port, 'GET /playback-info HTTP/1.1\r\n')).text.includes('<key>duration</key>'),
        20_000,
      );
    });
    // The sender heard stopped, read the error log and says why (exit status 1).
    assert.equal(run.code, 1, `${run.stdout}${run.stderr}`);
    assert.deepEqual(run.stdout.split('\n').filter((line) => line.startsWith('event: ')), ['event: video loading', 'event: video stopped']);
    assert.match(run.stderr, /^vendorplay-send: the video failed: NSURLErrorDomain -1001: no player took the video in time \(is a screen open\?\) \(2000 ms, limits\.videoLoadTimeoutMs\)$/m);
    const info = await raw(receiver.port, 'GET /playback-info HTTP/1.1\r\n');
    assert.match(info.text, /<dict>\n\t<key>readyToPlay<\/key>\n\t<false\/>\n<\/dict>/);
    const log = receiver.stderr.slice(from);
    assert.match(log, /video 1 failed: http:\/\/127\.0\.0\.1:9\/movies\/clip\.mp4: NSURLErrorDomain -1001: no player took the video in time/);
    assert.match(log, /video 1 stopped: it failed/);
    assert.deepEqual([...log.matchAll(/activity: (\w+)/g)].map((match) => match[1]), ['receivingVideo', 'idle']);
    // A screen page opened from now on gets no video to play (the state every page starts from).
    const state = (await (await fetch(`${receiver.screenUrl}state`)).json()) as { video: unknown };
    assert.equal(state.video, null);
  });

  test('the error log of that failure is its sender\'s alone: another session reads none of it', async () => {
    const run = await send(['play', `127.0.0.1:${receiver.port}`, `${MOVIE}?mine`, '--dialect', 'apple'], 30_000);
    assert.equal(run.code, 1, `${run.stdout}${run.stderr}`);
    const session = /session ([0-9A-F-]{36})/.exec(run.stdout)?.[1];
    assert.ok(session, run.stdout);
    const errorLog = async (sessionHeader: string): Promise<string[]> => {
      const reply = await raw(receiver.port, `POST /getProperty?playbackErrorLog HTTP/1.1\r\nContent-Type: application/x-apple-binary-plist\r\n${sessionHeader}`);
      assert.equal(reply.status, 200);
      const body = decodeBinaryPlist(reply.body);
      assert.ok(isPlistDict(body) && Array.isArray(body.value));
      return (body.value as PlistDict[]).map((entry) => String(entry.uri));
    };
    assert.deepEqual((await errorLog(`X-Apple-Session-ID: ${session}\r\n`)).filter((uri) => uri.endsWith('?mine')), [`${MOVIE}?mine`]);
    assert.deepEqual(await errorLog('X-Apple-Session-ID: 7C1D2E3F-4A5B-4C6D-8E7F-9A0B1C2D3E4F\r\n'), []);
  });
});

describe('video URLs inside the receiver, with the default options', BOUND, () => {
  let receiver: ReceiverProcess;
  /** A service on loopback that must never be asked. */
  let inside: http.Server;
  let insidePort: number;
  const insideSeen: string[] = [];

  before(async () => {
    inside = http.createServer((request, response) => {
      insideSeen.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'Content-Type': 'video/mp4' }).end('internal answer');
    });
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
    insidePort = (inside.address() as AddressInfo).port;
    receiver = await ReceiverProcess.start({ args: ['--dialect', 'apple'] });
  });

  after(async () => {
    await receiver?.stop();
    inside?.closeAllConnections();
    await new Promise((resolve) => inside?.close(resolve));
  });

  test('POST /play of a loopback URL: the screen page\'s fetch is refused, the inside server sees nothing, the sender hears `refused` and nothing of the URL\'s query', async () => {
    for (const host of ['127.0.0.1', '0x7f000001', '[::1]']) {
      const from = receiver.stderr.length;
      const url = `http://${host}:${insidePort}/admin/movie.mp4?token=s3cr3t`;
      const run = await send(['play', `127.0.0.1:${receiver.port}`, url, '--dialect', 'apple'], 30_000, async (output) => {
        await untilMatch(output, /^event: video loading$/m, 'the loading event');
        // What the screen page does with the item: fetch it at its /media path. The event may
        // arrive before the receiver's stderr pipe brings the line that names the item.
        await untilMatch(() => receiver.stderr.slice(from), /video: item \d+: /, 'the item\'s log line');
        const item = /video: item (\d+): /.exec(receiver.stderr.slice(from))?.[1];
        assert.ok(item, receiver.stderr.slice(from));
        const page = await fetch(new URL(`media/${item}/0`, receiver.screenUrl), { headers: { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'video' } });
        assert.equal(page.status, 403, host);
        assert.match(await page.text(), /^refused: /);
      });
      assert.equal(run.code, 1, `${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /^vendorplay-send: the video failed: VendorPlayReceiver -1: refused: the receiver does not fetch media from that address$/m);
      assert.doesNotMatch(run.stderr, /s3cr3t/);
      // The receiver's log says what was refused and why.
      assert.match(receiver.stderr.slice(from), /video: item \d+: fetch refused: .*loopback/);
    }
    assert.deepEqual(insideSeen, [], 'the inside server was never asked');
  });

  test('--media-allow adds ranges (repeatable, comma lists), a bad range stops start-up in one line, and --help says private ranges are allowed', async () => {
    const help = await runCommand(RECEIVER_COMMAND, ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--media-allow CIDR +also fetch video from this address range[^]*never\n +fetches from loopback, link-local, multicast or its own addresses;\n +private LAN ranges \(10\/8, 172\.16\/12, 192\.168\/16, fc00::\/7\) are allowed/);
    assert.match(help.stdout, /--media-block-private +do not fetch video from private LAN ranges either/);
    const bad = await runCommand(RECEIVER_COMMAND, ['--media-allow', '10.0.0.0/8,localhost']);
    assert.equal(bad.code, 2);
    assert.deepEqual(bad.stderr.split('\n').filter(Boolean), ['vendorplay-receiver: --media-allow "localhost" is not an address range (CIDR, e.g. 127.0.0.0/8 or fd00::/8, or one address) (see --help)']);
    const allowing = await ReceiverProcess.start({ args: ['--dialect', 'apple', '--media-allow', '10.0.0.0/8,127.0.0.1', '--media-allow', 'fd00::/8'] });
    try {
      const from = allowing.stderr.length;
      const url = `http://127.0.0.1:${insidePort}/allowed.mp4`;
      const run = await send(['play', `127.0.0.1:${allowing.port}`, url, '--dialect', 'apple', '--stop-after', '3'], 30_000, async (output) => {
        await untilMatch(output, /^event: video loading$/m, 'the loading event');
        await untilMatch(() => allowing.stderr.slice(from), /video: item \d+: /, 'the item\'s log line');
        const item = /video: item (\d+): /.exec(allowing.stderr.slice(from))?.[1];
        const page = await fetch(new URL(`media/${item}/0`, allowing.screenUrl), { headers: { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'video' } });
        assert.equal(page.status, 200);
        assert.equal(await page.text(), 'internal answer');
      });
      assert.equal(run.code, 0, `${run.stdout}${run.stderr}`);
      assert.deepEqual(insideSeen, ['GET /allowed.mp4']);
    } finally {
      await allowing.stop();
    }
  });
});
