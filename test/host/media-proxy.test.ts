// The screen server's media path (hosts/node/screen/media-proxy.ts) over real loopback sockets,
// without a browser: what the page fetches at /media/ITEM/N is the sender's URL (ranges
// forwarded, or served by the proxy from a server that has none: Python's http.server), HLS playlists come back with every URI turned into this item's paths, redirects
// are followed, every byte and answer is counted, and nothing but the current item's URLs is
// ever fetched. Also the page report's checks (player.ts parsePageReport).
//
// Where it fetches from (media-destinations.ts): loopback in every spelling, unspecified,
// link-local and multicast addresses and the receiver's own are refused before any connection,
// on redirects and for a playlist's URLs too, and a name is connected at the address checked. An
// "outside" server for those tests is 127.0.0.2, allowed alone (127.0.0.2/32) while 127.0.0.1,
// where the "inside" server listens, stays refused. The sender hears `refused` or `failed` and
// nothing of what a server said. The media tests above allow 127.0.0.0/8, as the tests of the
// command do with --media-allow.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { DEFAULT_LIMITS } from '../../src/receiver/limits';
import { PagePlayer, parsePageReport } from '../../hosts/node/screen/player';
import { interfaceAddresses, MediaDestinations, type Resolver } from '../../hosts/node/screen/media-destinations';
import { FETCH_ERRORS } from '../../hosts/node/screen/media-proxy';
import { DEFAULT_MEDIA_DESTINATION_RULES, parseAddressRange, type MediaDestinationRules } from '../../src/receiver/video/media-destinations';
import type { PlayerReport } from '../../src/platform';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import { makeMediaFixtures, MediaServer, type MediaFixtures } from '../support/media-fixtures';
import { PythonHttpServer } from '../support/python-http-server';

/** The default rules with `ranges` allowed too (`--media-allow`). */
function allowing(...ranges: string[]): MediaDestinationRules {
  return { ...DEFAULT_MEDIA_DESTINATION_RULES, allow: ranges.map((text) => parseAddressRange(text)!) };
}

describe('the media proxy of the screen page', () => {
  let fixtures: MediaFixtures;
  let media: MediaServer;
  let player: PagePlayer;
  let server: ScreenServer;
  /** Redirects /to/PATH to the media server's PATH; /big.m3u8 is a playlist over the size limit. */
  let other: http.Server;
  let otherPort: number;
  let item = 0;

  before(async () => {
    fixtures = await makeMediaFixtures();
    media = await MediaServer.start(fixtures.dir);
    player = new PagePlayer({ destinations: new MediaDestinations(allowing('127.0.0.0/8')) });
    server = await startScreenServer({ screen: new VirtualScreen('Proxy'), player, port: 0, log: () => {} });
    other = http.createServer((request, response) => {
      if (request.url === '/by-type') {
        // A playlist whose URL does not say so: only its Content-Type does.
        response.writeHead(200, { 'Content-Type': 'application/vnd.apple.mpegurl' });
        response.end('#EXTM3U\n#EXTINF:1,\nseg.ts\n');
        return;
      }
      if (request.url === '/big.m3u8') {
        response.writeHead(200, { 'Content-Type': 'application/vnd.apple.mpegurl' });
        response.end(`#EXTM3U\n${'#EXTINF:1,\nseg.ts\n'.repeat(DEFAULT_LIMITS.mediaPlaylistBytes / 15)}`);
        return;
      }
      response.writeHead(302, { Location: media.url((request.url ?? '/').replace(/^\/to/, '')) }).end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as AddressInfo).port;
  });
  after(async () => {
    await server?.close();
    await media?.close();
    other?.closeAllConnections();
    await new Promise((resolve) => other?.close(resolve));
    fixtures?.remove();
  });

  /** Loads `url` as a new item; returns its number and the page's URL of it. */
  function load(url: string): { id: number; src: string } {
    item++;
    player.load(item, url, { seconds: 0 });
    const command = player.command();
    assert.ok(command);
    return { id: item, src: new URL(command.src, server.urls[0]).href };
  }

  const file = (name: string) => readFileSync(path.join(fixtures.dir, name));

  test('an MP4 comes through whole and by range, and every byte and answer is counted', async () => {
    media.reset();
    const { id, src } = load(media.url(fixtures.mp4));
    assert.match(src, new RegExp(`/media/${id}/0$`));
    const whole = await fetch(src);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-type'), 'video/mp4');
    assert.deepEqual(Buffer.from(await whole.arrayBuffer()), file('clip.mp4'));
    const part = await fetch(src, { headers: { Range: 'bytes=100-199' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-199/${file('clip.mp4').length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), file('clip.mp4').subarray(100, 200));
    const counted = player.media(id)!;
    assert.equal(counted.bytes, media.bytesServed());
    assert.equal(counted.bytes, file('clip.mp4').length + 100);
    assert.equal(counted.requests, 2);
    assert.equal(counted.serverAddress, '127.0.0.1');
  });

  test('from a server without byte ranges (python3 -m http.server) the proxy serves the range asked itself, from the whole file, and says Accept-Ranges', async () => {
    const python = await PythonHttpServer.start(fixtures.dir);
    try {
      const clip = file('clip.mp4');
      const length = clip.length;
      const { id, src } = load(python.url(fixtures.mp4));
      // The server itself: 200 and the whole file for a range, no Accept-Ranges.
      const direct = await fetch(python.url(fixtures.mp4), { headers: { Range: 'bytes=1000-' } });
      assert.equal(direct.status, 200);
      assert.equal(direct.headers.get('accept-ranges'), null);
      await direct.arrayBuffer();
      const whole = await fetch(src);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('accept-ranges'), 'bytes');
      assert.deepEqual(Buffer.from(await whole.arrayBuffer()), clip);
      const cases: [string, number, number][] = [
        ['bytes=0-', 0, length - 1],
        ['bytes=1000-', 1000, length - 1],
        ['bytes=100-199', 100, 199],
        ['bytes=-50', length - 50, length - 1],
        [`bytes=${length - 10}-${length + 500}`, length - 10, length - 1],
      ];
      for (const [range, start, end] of cases) {
        const part = await fetch(src, { headers: { Range: range } });
        assert.equal(part.status, 206, range);
        assert.equal(part.headers.get('content-range'), `bytes ${start}-${end}/${length}`, range);
        assert.equal(part.headers.get('content-length'), String(end - start + 1), range);
        assert.deepEqual(Buffer.from(await part.arrayBuffer()), clip.subarray(start, end + 1), range);
      }
      const past = await fetch(src, { headers: { Range: `bytes=${length}-` } });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get('content-range'), `bytes */${length}`);
      await past.arrayBuffer();
      // Several ranges at once: the whole file (RFC 9110 14.2 lets a server ignore Range).
      const several = await fetch(src, { headers: { Range: 'bytes=0-9,20-29' } });
      assert.equal(several.status, 200);
      assert.equal((await several.arrayBuffer()).byteLength, length);
      const counted = player.media(id)!;
      // What came from the server counts, the bytes dropped before a range too.
      assert.equal(counted.requests, 8);
      assert.ok(counted.bytes >= 5 * length, `${counted.bytes} bytes counted`);
      assert.equal(counted.failure, undefined);
      assert.equal(counted.lastError, undefined);
    } finally {
      await python.stop();
    }
  });

  test('a URL the sender spells otherwise than URL parsing does is still the item\'s URL 0', async () => {
    media.reset();
    // `HTTP://` comes back from new URL as `http://`: the page must still fetch number 0, where
    // the proxy keeps the item's own facts (playlist seen, failure).
    const { id, src } = load(media.url(fixtures.mp4).replace(/^http:/, 'HTTP:'));
    assert.match(src, new RegExp(`/media/${id}/0$`));
    assert.deepEqual(Buffer.from(await (await fetch(src)).arrayBuffer()), file('clip.mp4'));
  });

  test('an HLS playlist is rewritten to this item\'s paths, and the segments come through them', async () => {
    media.reset();
    const { id, src } = load(media.url(fixtures.hls));
    assert.equal(player.command()?.kind, 'hls');
    const playlist = await (await fetch(src)).text();
    const uris = playlist.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    assert.equal(uris.length, 6);
    uris.forEach((uri, i) => assert.equal(uri, `/media/${id}/${i + 1}`));
    for (const [i, uri] of uris.entries()) {
      const segment = Buffer.from(await (await fetch(new URL(uri, server.urls[0]))).arrayBuffer());
      assert.deepEqual(segment, file(`hls/seg${i}.ts`));
    }
    assert.equal(player.media(id)!.bytes, media.bytesServed('/hls/'));
    assert.equal(player.media(id)!.requests, 7);
  });

  test('a playlist found by its Content-Type makes the item HLS; the pages are told that, and not the server\'s address', async () => {
    let told = 0;
    const stop = player.subscribe(() => told++);
    try {
      const { src } = load(`http://127.0.0.1:${otherPort}/by-type`);
      const afterLoad = told;
      assert.equal(player.command()?.kind, 'file');
      assert.match(await (await fetch(src)).text(), /^#EXTM3U\n/);
      assert.equal(player.command()?.kind, 'hls');
      assert.equal(told - afterLoad, 1, 'one change of the command: its kind');
    } finally {
      stop();
    }
  });

  test('URI attributes of tags are rewritten, resolved against the playlist; data: URIs are left alone', () => {
    const { id } = load(media.url('/live/main.m3u8'));
    const rewritten = player
      .media(id)!
      .rewritePlaylist(
        '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin"\n#EXT-X-MAP:URI="https://cdn.example/init.mp4"\n#EXT-X-SESSION-DATA:DATA-ID="x",URI="data:text/plain,hi"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow/index.m3u8\n',
        new URL(media.url('/live/main.m3u8')),
      );
    assert.equal(
      rewritten,
      `#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="/media/${id}/1"\n#EXT-X-MAP:URI="/media/${id}/2"\n#EXT-X-SESSION-DATA:DATA-ID="x",URI="data:text/plain,hi"\n#EXT-X-STREAM-INF:BANDWIDTH=1\n/media/${id}/3\n`,
    );
    assert.equal(player.media(id)!.urlOf(1), media.url('/live/key.bin'));
    assert.equal(player.media(id)!.urlOf(2), 'https://cdn.example/init.mp4');
    assert.equal(player.media(id)!.urlOf(3), media.url('/live/low/index.m3u8'));
  });

  test('redirects are followed (and their answers counted)', async () => {
    media.reset();
    const { id, src } = load(`http://127.0.0.1:${otherPort}/to${fixtures.mp4}`);
    const answer = await fetch(src);
    assert.equal(answer.status, 200);
    assert.deepEqual(Buffer.from(await answer.arrayBuffer()), file('clip.mp4'));
    assert.equal(player.media(id)!.requests, 2);
    assert.equal(player.media(id)!.bytes, file('clip.mp4').length);
  });

  test('a 404 from the media server fails the item: the page gets 502, the sender `failed`, not the status', async () => {
    const reports: PlayerReport[] = [];
    player.onReport = (report) => reports.push(report);
    const { src } = load(media.url('/missing.mp4'));
    assert.equal((await fetch(src)).status, 502);
    assert.equal(reports.at(-1)?.state, 'failed');
    assert.deepEqual(reports.at(-1)?.error, FETCH_ERRORS.failed.error);
    player.onReport = () => {};
  });

  test('a playlist over the size limit fails the item', async () => {
    const { id, src } = load(`http://127.0.0.1:${otherPort}/big.m3u8`);
    assert.equal((await fetch(src)).status, 502);
    assert.deepEqual(player.media(id)!.failure, FETCH_ERRORS.failed.error);
  });

  test('only the current item\'s URLs are fetched: other numbers, older items and other sites get nothing', async () => {
    media.reset();
    const older = load(media.url(fixtures.mp4));
    const { id, src } = load(media.url(fixtures.mp4));
    assert.equal((await fetch(older.src)).status, 404);
    assert.equal((await fetch(src.replace(/0$/, '9'))).status, 404);
    assert.equal((await fetch(src, { headers: { 'Sec-Fetch-Site': 'cross-site' } })).status, 403);
    assert.equal((await fetch(src, { method: 'POST' })).status, 405);
    assert.equal((await fetch(src, { method: 'HEAD' })).status, 405);
    assert.equal(media.requests, 0, 'the media server was never asked');
    player.stop();
    assert.equal(player.media(id), undefined);
    assert.equal((await fetch(src)).status, 404);
  });

  test('a URL that is not http or https is refused at load', () => {
    const reports: string[] = [];
    player.onReport = (report) => reports.push(`${report.state} ${report.error?.domain ?? ''}`);
    item++;
    player.load(item, 'ftp://127.0.0.1/clip.mp4', { seconds: 0 });
    assert.deepEqual(reports, ['failed url']);
    assert.equal(player.command(), null, 'nothing for a page to play');
    player.onReport = () => {};
    player.stop();
  });

  test('page reports are checked field by field', () => {
    const good = {
      item: 1, state: 'playing', position: 1.5, duration: 6, rate: 1, readyToPlay: true, bufferEmpty: false, bufferFull: true,
      likelyToKeepUp: true, loaded: [[0, 6]], seekable: [[0, 6]], stalls: 0, framesDropped: 0, watched: 1.5, frameShown: true,
    };
    const parsed = parsePageReport(good);
    assert.ok(typeof parsed !== 'string');
    assert.deepEqual(parsed.loaded, [{ start: 0, duration: 6 }]);
    assert.equal(parsePageReport({ ...good, duration: null }) && (parsePageReport({ ...good, duration: null }) as { duration: null }).duration, null);
    assert.equal(parsePageReport({ ...good, state: 'dancing' }), 'state is not one of idle, loading, playing, paused, ended, failed');
    assert.equal(parsePageReport({ ...good, position: -1 }), 'position is not seconds');
    assert.equal(parsePageReport({ ...good, stalls: 1.5 }), 'stalls is not a count');
    assert.equal(parsePageReport({ ...good, loaded: [[0]] }), 'loaded holds a range that is not [start, duration]');
    assert.equal(parsePageReport({ ...good, seekable: new Array(65).fill([0, 1]) }), 'seekable is not a list of at most 64 ranges');
    assert.equal(parsePageReport({ ...good, error: { code: 'x' } }), 'error is not { code, domain, message }');
    assert.equal(parsePageReport([]), 'item is not a count');
    assert.equal(parsePageReport(null), 'a report is a JSON object');
  });
});

describe('where the media proxy fetches from', () => {
  const TOKEN = 's3cr3t-token';
  /** The "inside": a service on 127.0.0.1 (and ::1 where it exists) that must never be asked. */
  let inside: http.Server[] = [];
  let insidePort: number;
  const insideSeen: string[] = [];
  /** The "outside", on 127.0.0.2: a clip, a 404 with a telling status line, a redirect inward, a playlist naming inside URLs. */
  let outside: http.Server;
  let outsidePort: number;
  const outsideSeen: string[] = [];
  /** A port on 127.0.0.2 where nothing listens. */
  let closedPort: number;
  let server: ScreenServer;
  let player: PagePlayer;
  let logged: string[] = [];
  let item = 0;

  const listenOn = (target: http.Server, host: string, port = 0) =>
    new Promise<number>((resolve, reject) => {
      target.once('error', reject);
      target.listen(port, host, () => resolve((target.address() as AddressInfo).port));
    });

  before(async () => {
    const answerInside = (request: http.IncomingMessage, response: http.ServerResponse) => {
      insideSeen.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'Content-Type': 'video/mp4' }).end('internal answer');
    };
    const v4 = http.createServer(answerInside);
    insidePort = await listenOn(v4, '127.0.0.1');
    inside = [v4];
    const v6 = http.createServer(answerInside);
    try {
      await listenOn(v6, '::1', insidePort);
      inside.push(v6);
    } catch {
      // No ::1 here (or the port is taken there): the IPv6 forms are still refused before any connect.
    }
    outside = http.createServer((request, response) => {
      outsideSeen.push(`${request.method} ${request.url} Host: ${request.headers.host}`);
      const path = request.url ?? '/';
      if (path === '/clip.mp4') {
        response.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': '5' }).end('video');
      } else if (path === '/inward') {
        response.writeHead(302, { Location: `http://127.0.0.1:${insidePort}/admin?token=${TOKEN}` }).end();
      } else if (path === '/inward-by-name') {
        response.writeHead(302, { Location: `http://localhost:${insidePort}/admin?token=${TOKEN}` }).end();
      } else if (path === '/list.m3u8') {
        response.writeHead(200, { 'Content-Type': 'application/vnd.apple.mpegurl' });
        response.end(`#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="http://[::1]:${insidePort}/key?token=${TOKEN}"\n#EXTINF:1,\nhttp://127.0.0.1:${insidePort}/status?token=${TOKEN}\n#EXTINF:1,\nclip.mp4\n`);
      } else {
        response.writeHead(404, `Not Found: internal build 7.1 token=${TOKEN}`).end('no');
      }
    });
    outsidePort = await listenOn(outside, '127.0.0.2');
    const probe = http.createServer();
    closedPort = await listenOn(probe, '127.0.0.2');
    await new Promise((resolve) => probe.close(resolve));
    player = new PagePlayer({ log: (level, message) => logged.push(`${level} ${message}`), destinations: new MediaDestinations(allowing('127.0.0.2/32')) });
    server = await startScreenServer({ screen: new VirtualScreen('Destinations'), player, port: 0, log: () => {} });
  });
  after(async () => {
    await server?.close();
    for (const each of [...inside, outside]) {
      each?.closeAllConnections();
      await new Promise((resolve) => each?.close(resolve));
    }
  });

  /** Loads `url` as a new item on `target`; returns its number, the page's URL of it, and the reports it gets. */
  function load(url: string, target = player, base = server): { id: number; src: string; reports: PlayerReport[] } {
    item++;
    const reports: PlayerReport[] = [];
    target.onReport = (report) => reports.push(report);
    target.load(item, url, { seconds: 0 });
    const command = target.command();
    assert.ok(command, url);
    return { id: item, src: new URL(command.src, base.urls[0]).href, reports };
  }

  /** What the sender could learn from the item's reports: every report as JSON. */
  const told = (reports: PlayerReport[]) => JSON.stringify(reports);

  test('loopback in every spelling, unspecified, link-local and multicast addresses are refused before any connection', async () => {
    const urls = [
      `http://127.0.0.1:${insidePort}/admin`,
      `http://0x7f000001:${insidePort}/admin`,
      `http://2130706433:${insidePort}/admin`,
      `http://0177.0.0.1:${insidePort}/admin`,
      `http://127.1:${insidePort}/admin`,
      `http://[::1]:${insidePort}/admin`,
      `http://[0:0:0:0:0:0:0:1]:${insidePort}/admin`,
      `http://[::ffff:127.0.0.1]:${insidePort}/admin`,
      `http://[::ffff:7f00:1]:${insidePort}/admin`,
      `http://0.0.0.0:${insidePort}/admin`,
      `http://[::]:${insidePort}/admin`,
      `http://localhost:${insidePort}/admin`,
      `HTTP://LocalHost:${insidePort}/admin`,
      `https://127.0.0.1:${insidePort}/admin`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/clip.mp4',
      'http://224.0.0.251/clip.mp4',
      'http://[ff02::1]/clip.mp4',
      'http://255.255.255.255/clip.mp4',
    ];
    for (const url of urls) {
      const { src, reports } = load(url);
      const answer = await fetch(src);
      assert.equal(answer.status, 403, url);
      assert.equal(await answer.text(), `${FETCH_ERRORS.refused.error.message}\n`, url);
      assert.equal(reports.at(-1)?.state, 'failed', url);
      assert.deepEqual(reports.at(-1)?.error, FETCH_ERRORS.refused.error, url);
      assert.equal(reports.at(-1)?.requests, 0, url);
      assert.equal(reports.at(-1)?.serverAddress, undefined, url);
    }
    assert.deepEqual(insideSeen, [], 'the inside service was never asked');
  });

  test('an allowed address is fetched; a name is connected at the addresses checked, resolved once (no DNS rebinding), each tried in turn; one inside address refuses the name', async () => {
    const { src } = load(`http://127.0.0.2:${outsidePort}/clip.mp4`);
    assert.equal(await (await fetch(src)).text(), 'video');
    // A name that answers the outside to the check and the inside after: the fetch goes to the outside.
    const asked: string[] = [];
    const answers = ['127.0.0.2', '127.0.0.1'];
    const rebinding: Resolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: answers[Math.min(asked.length - 1, answers.length - 1)], family: 4 }];
    };
    const pinned = new PagePlayer({ destinations: new MediaDestinations(allowing('127.0.0.2/32'), rebinding) });
    const pinnedServer = await startScreenServer({ screen: new VirtualScreen('Pinned'), player: pinned, port: 0, log: () => {} });
    try {
      outsideSeen.length = 0;
      const first = load(`http://media.rebind.test:${outsidePort}/clip.mp4`, pinned, pinnedServer);
      const answer = await fetch(first.src);
      assert.equal(answer.status, 200);
      assert.equal(await answer.text(), 'video');
      assert.deepEqual(asked, ['media.rebind.test'], 'resolved once, by the check');
      assert.deepEqual(outsideSeen, [`GET /clip.mp4 Host: media.rebind.test:${outsidePort}`]);
      // The second lookup of the name says 127.0.0.1: refused, and nothing connects.
      const second = load(`http://media.rebind.test:${outsidePort}/clip.mp4?again`, pinned, pinnedServer);
      assert.equal((await fetch(second.src)).status, 403);
      assert.deepEqual(second.reports.at(-1)?.error, FETCH_ERRORS.refused.error);
      // A name with several addresses: each checked, and tried in turn (the first here is closed).
      const twoAddresses = new PagePlayer({ destinations: new MediaDestinations(allowing('127.0.0.2/32', '127.0.0.3/32'), async () => [{ address: '127.0.0.3', family: 4 }, { address: '127.0.0.2', family: 4 }]) });
      const twoServer = await startScreenServer({ screen: new VirtualScreen('Two'), player: twoAddresses, port: 0, log: () => {} });
      try {
        const both = load(`http://two.test:${outsidePort}/clip.mp4`, twoAddresses, twoServer);
        assert.equal(await (await fetch(both.src)).text(), 'video');
        assert.equal(both.reports.at(-1)?.serverAddress, '127.0.0.2');
      } finally {
        twoAddresses.stop();
        await twoServer.close();
      }
      // A name with any inside address is refused whole.
      const verdict = await new MediaDestinations(allowing('127.0.0.2/32'), async () => [{ address: '127.0.0.2', family: 4 }, { address: '::1', family: 6 }]).resolve(new URL(`http://both.test:${outsidePort}/`));
      assert.deepEqual(verdict, { refused: 'both.test is ::1: loopback (::1/128)' });
    } finally {
      pinned.stop();
      await pinnedServer.close();
    }
    assert.deepEqual(insideSeen, []);
  });

  test('a redirect from an allowed server to the inside is refused; the sender hears `refused`, not where it pointed', async () => {
    for (const path of ['/inward', '/inward-by-name']) {
      logged = [];
      const { src, reports } = load(`http://127.0.0.2:${outsidePort}${path}`);
      const answer = await fetch(src);
      assert.equal(answer.status, 403, path);
      const body = await answer.text();
      assert.deepEqual(reports.at(-1)?.error, FETCH_ERRORS.refused.error, path);
      for (const secret of [TOKEN, String(insidePort), '302', 'admin']) {
        assert.ok(!told(reports).includes(secret), `${path}: the sender's reports hold ${secret}: ${told(reports)}`);
        assert.ok(!body.includes(secret), `${path}: the page's answer holds ${secret}`);
      }
      // The receiver's own log has the detail.
      assert.ok(logged.some((line) => line.startsWith('warn ') && line.includes('refused') && line.includes(`/admin?token=${TOKEN}`) && /loopback/.test(line)), logged.join('\n'));
    }
    assert.deepEqual(insideSeen, []);
  });

  test('a playlist naming inside URLs: the page may ask for them, and is refused; the outside segment comes through', async () => {
    const { id, src, reports } = load(`http://127.0.0.2:${outsidePort}/list.m3u8`);
    const playlist = await (await fetch(src)).text();
    assert.ok(!playlist.includes(TOKEN) && !playlist.includes('127.0.0.1'), playlist);
    const uris = [...playlist.matchAll(/(\/media\/\d+\/\d+)/g)].map((match) => match[1]);
    assert.deepEqual(uris, [`/media/${id}/1`, `/media/${id}/2`, `/media/${id}/3`]);
    const [key, status, segment] = await Promise.all(uris.map(async (uri) => {
      const answer = await fetch(new URL(uri, server.urls[0]));
      return { status: answer.status, text: await answer.text() };
    }));
    assert.equal(key.status, 403);
    assert.equal(status.status, 403);
    assert.deepEqual(segment, { status: 200, text: 'video' });
    assert.deepEqual(player.media(id)!.lastError, FETCH_ERRORS.refused.error);
    assert.equal(player.media(id)!.failure, undefined, 'the playlist itself came');
    assert.ok(!told(reports).includes(TOKEN));
    assert.deepEqual(insideSeen, []);
  });

  test('an error answer and a closed port read the same to the sender: `failed`, no status line, no token', async () => {
    logged = [];
    const answered = load(`http://127.0.0.2:${outsidePort}/missing?token=${TOKEN}`);
    const answeredPage = await fetch(answered.src);
    const closed = load(`http://127.0.0.2:${closedPort}/missing?token=${TOKEN}`);
    const closedPage = await fetch(closed.src);
    assert.equal(answeredPage.status, 502);
    assert.equal(closedPage.status, 502);
    assert.equal(await answeredPage.text(), await closedPage.text());
    assert.deepEqual(answered.reports.at(-1)?.error, FETCH_ERRORS.failed.error);
    assert.deepEqual(closed.reports.at(-1)?.error, FETCH_ERRORS.failed.error);
    // Nor in what the access log is made of: nothing counted for either.
    const counts = ({ bytes, requests, serverAddress, state }: PlayerReport) => ({ bytes, requests, serverAddress, state });
    assert.deepEqual(answered.reports.map(counts), closed.reports.map(counts));
    for (const reports of [answered.reports, closed.reports]) {
      for (const secret of ['404', 'Not Found', 'internal build', 'ECONNREFUSED']) assert.ok(!told(reports).includes(secret), `${secret} in ${told(reports)}`);
    }
    // What each server did is in the receiver's log.
    assert.ok(logged.some((line) => line.includes('answered 404 Not Found')), logged.join('\n'));
    assert.ok(logged.some((line) => line.includes('ECONNREFUSED')), logged.join('\n'));
  });

  test('the receiver\'s own addresses are refused by default, and the default refuses loopback', async () => {
    const destinations = new MediaDestinations();
    assert.deepEqual(await destinations.resolve(new URL('http://127.0.0.1/')), { refused: '127.0.0.1: loopback (127.0.0.0/8)' });
    // Whatever this machine's interfaces are: each address is refused (checked, never connected).
    const own = interfaceAddresses();
    assert.ok(own.includes('127.0.0.1'));
    for (const address of own) {
      const host = address.includes(':') ? `[${address.split('%')[0]}]` : address;
      let url: URL;
      try {
        url = new URL(`http://${host}/`);
      } catch {
        continue; // A zoned link-local address has no URL form.
      }
      const verdict = await destinations.resolve(url);
      assert.ok('refused' in verdict, `${address}: ${JSON.stringify(verdict)}`);
    }
    // An address of the receiver's own in a range otherwise allowed (private).
    const ownLan = new MediaDestinations(DEFAULT_MEDIA_DESTINATION_RULES, undefined, () => ['192.168.77.5']);
    assert.deepEqual(await ownLan.resolve(new URL('http://192.168.77.5:8080/')), { refused: '192.168.77.5: an address of the receiver itself' });
    assert.deepEqual(await ownLan.resolve(new URL('http://192.168.77.6:8080/')), { addresses: [{ address: '192.168.77.6', family: 4 }] });
    const blocked = new MediaDestinations({ allow: [], privateRanges: false }, undefined, () => []);
    assert.ok('refused' in (await blocked.resolve(new URL('http://192.168.77.6:8080/'))));
  });
});
