// The screen server's media path (hosts/node/screen/media-proxy.ts) over real loopback sockets,
// without a browser: what the page fetches at /media/ITEM/N is the sender's URL (ranges
// forwarded, or served by the proxy from a server that has none: Python's http.server), HLS playlists come back with every URI turned into this item's paths, redirects
// are followed, every byte and answer is counted, and nothing but the current item's URLs is
// ever fetched. Also the page report's checks (player.ts parsePageReport).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { DEFAULT_LIMITS } from '../../src/receiver/limits';
import { PagePlayer, parsePageReport } from '../../hosts/node/screen/player';
import { startScreenServer, type ScreenServer } from '../../hosts/node/screen/server';
import { makeMediaFixtures, MediaServer, type MediaFixtures } from '../support/media-fixtures';
import { PythonHttpServer } from '../support/python-http-server';

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
    player = new PagePlayer();
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

  test('a 404 from the media server fails the item with the HTTP status', async () => {
    const reports: string[] = [];
    player.onReport = (report) => reports.push(`${report.state} ${report.error?.domain ?? ''} ${report.error?.code ?? ''}`);
    const { src } = load(media.url('/missing.mp4'));
    assert.equal((await fetch(src)).status, 404);
    assert.equal(reports.at(-1), 'failed http 404');
    player.onReport = () => {};
  });

  test('a playlist over the size limit is refused', async () => {
    const { id, src } = load(`http://127.0.0.1:${otherPort}/big.m3u8`);
    assert.equal((await fetch(src)).status, 502);
    assert.match(player.media(id)!.failure?.message ?? '', /larger than/);
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
