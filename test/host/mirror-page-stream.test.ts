// The screen page's mirroring stream (GET /mirror, hosts/node/screen/page-decoder.ts) on real
// loopback sockets with a real WebSocket client (npm ws) in the page's place: only the screen
// server's own pages may open it (Host and Origin checked), the newest page shows mirroring, a
// page that does not keep up is dropped to the next key frame with one log line, the page's
// error reports reach the log bounded, and the receiver command serves the stream where its
// profile mirrors (--mirror-size checked at start).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import type { LogLevel } from '../../src/platform';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { PageDecoder, parseMirrorSize } from '../../hosts/node/screen/page-decoder';
import { PAGE_MESSAGE, PAGE_MESSAGE_HEADER_BYTES, REPLACED_BY_NEWER_PAGE } from '../../hosts/node/screen/page-protocol';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import { PROMPT_MS, RECEIVER_COMMAND, ReceiverProcess, until, within } from '../e2e/receiver-process';

const GEOMETRY = { width: 1280, height: 720, refreshRate: 1 / 30, overscanned: false };
const CONFIG = { codec: 'avc1.42c01f', avcC: new Uint8Array(0), parameterSets: new Uint8Array(0) };
const QUEUE_LIMIT = 1024 * 1024;
/** Big access units, so the kernel's socket buffers fill and the host's own queue grows. */
const UNIT_BYTES = 100_000;
const KEY_INTERVAL = 30;

interface Received {
  kind: number;
  keyFrame: boolean;
  time: number;
  payload: Buffer;
}

function parse(data: Buffer): Received {
  return { kind: data[0], keyFrame: (data[1] & 1) !== 0, time: data.readDoubleLE(2), payload: data.subarray(PAGE_MESSAGE_HEADER_BYTES) };
}

/** An access unit that says its number in its first four bytes. */
function unit(index: number, bytes = UNIT_BYTES): Uint8Array {
  const out = new Uint8Array(bytes);
  new DataView(out.buffer).setUint32(0, index);
  return out;
}

const indexOf = (message: Received) => message.payload.readUInt32BE(0);

/** A page's stream in the test's hands: every message it got, in order. */
class TestPage {
  readonly messages: Received[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.messages.push(parse(data)));
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static async open(url: string, headers: Record<string, string>): Promise<TestPage> {
    const socket = new WebSocket(url, { headers });
    const page = new TestPage(socket);
    await within(PROMPT_MS, 'the page stream opens', new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    }));
    return page;
  }

  waitFor(count: number): Promise<void> {
    return until(() => `${count} messages reach the page`, () => this.messages.length >= count, PROMPT_MS, 10);
  }

  /**
   * Resolves once everything the host queued to this page so far has arrived: a ping's pong is
   * queued behind it on the same socket (ws writes frames in order, control frames too).
   */
  drained(): Promise<void> {
    return within(PROMPT_MS, 'the queue drains (a pong behind it)', new Promise<void>((resolve) => {
      this.socket.once('pong', () => resolve());
      this.socket.ping();
    }));
  }
}

/** The status a refused WebSocket handshake is answered with. */
function refusedWith(url: string, headers: Record<string, string>): Promise<number> {
  return within(PROMPT_MS, 'the handshake is answered', new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
      socket.terminate();
    });
    socket.once('open', () => reject(new Error('the stream opened')));
    socket.once('error', () => {});
  }));
}

describe('the screen page\'s mirroring stream', () => {
  let server: ScreenServer;
  let decoder: PageDecoder;
  let origin: string;
  let url: string;
  const lines: string[] = [];
  const log = (level: LogLevel, message: string) => lines.push(`${level} ${message}`);

  before(async () => {
    decoder = new PageDecoder({ geometry: GEOMETRY, now: () => performance.now(), log, maxQueueBytes: QUEUE_LIMIT });
    server = await startScreenServer({ screen: new VirtualScreen('Stream Test'), port: 0, log, mirror: decoder });
    origin = `http://127.0.0.1:${server.port}`;
    url = `ws://127.0.0.1:${server.port}/mirror`;
  });
  after(async () => {
    await server?.close();
  });

  test('only the server\'s own pages may open it', async () => {
    assert.equal(await refusedWith(url, { Origin: 'http://evil.example' }), 403);
    assert.equal(await refusedWith(url, { Origin: `http://127.0.0.1:${server.port + 1}` }), 403);
    assert.equal(await refusedWith(url, {}), 403);
    assert.equal(await refusedWith(url, { Origin: origin, Host: `rebound.example:${server.port}` }), 421);
    assert.equal(await refusedWith(`ws://127.0.0.1:${server.port}/elsewhere`, { Origin: origin }), 404);
    // The screen server's one origin check (page-origin.ts) refuses it before the route, and says so.
    assert.ok(lines.some((line) => line.startsWith('warn virtual screen: GET /mirror refused (403): origin "http://evil.example" is not the screen page\'s')), lines.join('\n'));
    const plain = await fetch(`${origin}/mirror`);
    assert.equal(plain.status, 426);
    const page = await TestPage.open(url, { Origin: `http://localhost:${server.port}` });
    page.socket.close();
  });

  test('a page gets the host\'s clock at once, then the configuration, from the next key frame', async () => {
    const before = performance.now();
    const page = await TestPage.open(url, { Origin: origin });
    await page.waitFor(1);
    const [clock] = page.messages;
    assert.equal(clock.kind, PAGE_MESSAGE.clock);
    assert.ok(clock.time >= before && clock.time <= performance.now(), `clock ${clock.time} sent between ${before} and now`);
    decoder.configure(CONFIG);
    decoder.decode(unit(0, 10), 1000, false);
    decoder.decode(unit(1, 10), 1033.5, true);
    decoder.decode(unit(2, 10), 1067, false);
    await page.waitFor(4);
    const [, configure, key, next] = page.messages;
    assert.deepEqual([configure.kind, configure.payload.toString()], [PAGE_MESSAGE.configure, CONFIG.codec]);
    assert.deepEqual([key.kind, key.keyFrame, key.time, indexOf(key)], [PAGE_MESSAGE.accessUnit, true, 1033.5, 1]);
    assert.deepEqual([next.kind, next.keyFrame, next.time, indexOf(next)], [PAGE_MESSAGE.accessUnit, false, 1067, 2]);
    decoder.reset();
    await page.waitFor(5);
    assert.equal(page.messages[4].kind, PAGE_MESSAGE.reset);
    page.socket.close();
    await page.closed;
  });

  test('the newest page shows mirroring; the older one is closed saying why', async () => {
    const older = await TestPage.open(url, { Origin: origin });
    const newer = await TestPage.open(url, { Origin: origin });
    assert.deepEqual(await older.closed, { code: REPLACED_BY_NEWER_PAGE, reason: 'a newer page shows mirroring' });
    decoder.configure(CONFIG);
    decoder.decode(unit(7, 10), 1, true);
    await newer.waitFor(3);
    assert.equal(indexOf(newer.messages[2]), 7);
    decoder.reset();
    newer.socket.close();
    await newer.closed;
    assert.equal(decoder.hasPage, false);
  });

  test('a page that does not keep up is dropped to the next key frame, said once', async () => {
    lines.length = 0;
    const page = await TestPage.open(url, { Origin: origin });
    await page.waitFor(1);
    decoder.configure(CONFIG);
    await page.waitFor(2);
    // The page stops reading: the kernel's buffers fill, then the host's queue.
    page.socket.pause();
    const sent = 300;
    for (let i = 0; i < sent; i++) decoder.decode(unit(i), i, i % KEY_INTERVAL === 0);
    const behind = lines.filter((line) => line.includes('falls behind'));
    assert.equal(behind.length, 1, lines.join('\n'));
    assert.match(behind[0], /^warn screen: the mirroring page falls behind \(\d+ bytes queued, limit mirrorDisplayQueueBytes 1048576\): dropping to the next key frame$/);
    page.socket.resume();
    // Everything queued has arrived (the host's queue is empty).
    await page.drained();
    const delivered = page.messages.slice(2).map(indexOf);
    assert.ok(delivered.length > 2 && delivered.length < sent, `${delivered.length} of ${sent} delivered`);
    assert.deepEqual(delivered, delivered.map((_, i) => i), 'what arrives is the stream up to the point it fell behind');
    // Caught up: the next access units that are not key frames are dropped, a key frame resumes.
    decoder.decode(unit(1000), 1000, false);
    decoder.decode(unit(1001), 1001, true);
    decoder.decode(unit(1002), 1002, false);
    await page.waitFor(2 + delivered.length + 2);
    assert.deepEqual(page.messages.slice(2 + delivered.length).map((message) => [indexOf(message), message.keyFrame]), [
      [1001, true],
      [1002, false],
    ]);
    assert.deepEqual(lines.filter((line) => line.includes('shown again')), [
      `info screen: mirroring shown again from a key frame (the page fell behind; ${sent - delivered.length + 1} access units dropped)`,
    ]);
    decoder.reset();
    page.socket.close();
    await page.closed;
  });

  test('the page\'s reports are logged, a line per interval with a count, cut to a bounded length; other text is ignored', async () => {
    // A server of its own, on a clock the test scripts: the times its calls get, in order (the
    // page's clock at attach, then one per report counted; what is not a report takes none).
    const times = [0, 0, 0, 0, 0, 10_000, 20_000];
    const reportLines: string[] = [];
    const reportLog = (level: LogLevel, message: string) => reportLines.push(`${level} ${message}`);
    const reported = new PageDecoder({ geometry: GEOMETRY, now: () => times.shift() ?? 30_000, log: reportLog, maxQueueBytes: QUEUE_LIMIT });
    const reportServer = await startScreenServer({ screen: new VirtualScreen('Reports'), port: 0, log: reportLog, mirror: reported });
    const logged = (count: number) => until(() => `${count} lines logged`, () => reportLines.length >= count, PROMPT_MS, 10);
    try {
      const page = await TestPage.open(`ws://127.0.0.1:${reportServer.port}/mirror`, { Origin: `http://127.0.0.1:${reportServer.port}` });
      page.socket.send(JSON.stringify({ kind: 'error', message: 'EncodingError: Decoding error.' }));
      await logged(1);
      // Within the interval: counted, not logged; what is not a report is not even counted.
      page.socket.send('not json');
      page.socket.send(JSON.stringify({ kind: 'other', message: 'not for the log' }));
      for (let i = 0; i < 3; i++) page.socket.send(JSON.stringify({ kind: 'error', message: 'EncodingError: again' }));
      // The interval has passed: a line, with the count of those not said.
      page.socket.send(JSON.stringify({ kind: 'behind', message: '412 access units waiting to be decoded' }));
      await logged(2);
      page.socket.send(JSON.stringify({ kind: 'error', message: 'x'.repeat(1000) }));
      await logged(3);
      assert.deepEqual(reportLines, [
        'warn screen: the mirroring page\'s decoder failed ("EncodingError: Decoding error."): shown again from the next key frame',
        'warn screen: the mirroring page cannot decode as fast as the stream comes ("412 access units waiting to be decoded"): it skips to the next key frame (3 more reports of the page since the last line)',
        `warn screen: the mirroring page's decoder failed ("${'x'.repeat(200)}..."): shown again from the next key frame`,
      ]);
      // More than a report's worth is refused: the stream closes (1009, message too big).
      page.socket.send('y'.repeat(5000));
      assert.equal((await page.closed).code, 1009);
      assert.equal(reportLines.at(-1), "warn screen: the mirroring page's stream failed: Max payload size exceeded");
    } finally {
      await reportServer.close();
    }
  });
});

describe('--mirror-size', () => {
  test('reads WIDTHxHEIGHT and an optional @HZ', () => {
    assert.deepEqual(parseMirrorSize('1920x1080@60'), { width: 1920, height: 1080, refreshRate: 1 / 60, overscanned: false });
    assert.deepEqual(parseMirrorSize('1280x720'), { width: 1280, height: 720, refreshRate: 1 / 60, overscanned: false });
    assert.deepEqual(parseMirrorSize('3840x2160@29.97'), { width: 3840, height: 2160, refreshRate: 1 / 29.97, overscanned: false });
    for (const bad of ['1920', '1920x', 'x1080', '1920x1080@', '1920x1080@0', '10x10', '99999x1080', '1920x1080@60Hz', ' 1920x1080']) {
      assert.equal(parseMirrorSize(bad), undefined, bad);
    }
  });

  test('a bad value stops the receiver at start, in one line', async () => {
    const child = spawn(process.execPath, [RECEIVER_COMMAND, '--no-mdns', '--interface', 'lo', '--port', '0', '--mirror-size', '1920by1080'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await within(20_000, 'the receiver exits', new Promise((resolve) => child.once('exit', resolve)));
    assert.equal(code, 2);
    assert.deepEqual(stderr.trim().split('\n').filter((line) => !line.includes(' rebuilt dist/')), ['vendorplay-receiver: --mirror-size "1920by1080" is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60) (see --help)']);
  });

  test('the receiver command serves the page\'s mirroring stream where its profile mirrors, and not where it does not', async () => {
    const desktop = await ReceiverProcess.start({ args: ['--mirror-size', '1280x720@30'] });
    try {
      const screen = new URL(desktop.screenUrl!);
      const page = await TestPage.open(`ws://${screen.host}/mirror`, { Origin: screen.origin });
      await page.waitFor(1);
      // spec 2.12: the geometry of --mirror-size is what a sender is told.
      const streamXml = await (await fetch(`http://127.0.0.1:${desktop.mirrorPort}/stream.xml`)).text();
      assert.match(streamXml, /<key>width<\/key>\s*<integer>1280<\/integer>/);
      assert.match(streamXml, /<key>height<\/key>\s*<integer>720<\/integer>/);
      const refresh = /<key>refreshRate<\/key>\s*<real>([^<]+)<\/real>/.exec(streamXml);
      assert.ok(refresh && Math.abs(Number(refresh[1]) - 1 / 30) < 1e-9, streamXml);
      assert.equal(page.messages[0].kind, PAGE_MESSAGE.clock);
      page.socket.close();
      await page.closed;
    } finally {
      await desktop.stop();
    }
    const frame = await ReceiverProcess.start({ args: ['--profile', 'photo-frame'] });
    try {
      const screen = new URL(frame.screenUrl!);
      assert.equal(await refusedWith(`ws://${screen.host}/mirror`, { Origin: screen.origin }), 404);
    } finally {
      await frame.stop();
    }
  });
});
