// What plays, on the virtual screen (hosts/node/screen/display.ts showNowPlaying and the screen
// server's GET /artwork/N): the state the page is sent (text, the cover art's URL, progress in
// seconds running on from when it came), the cover served as its type while it is the one shown,
// the same cover kept under one URL while the text changes, and only picture types served.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { startScreenServer } from '../../hosts/node/screen/server';
import type { NowPlaying } from '../../src/platform';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

function manualScreen(): { screen: VirtualScreen; advance: (ms: number) => void } {
  let now = 1000;
  return { screen: new VirtualScreen('Speaker', undefined, () => now), advance: (ms) => void (now += ms) };
}

test('the page is sent the track, its cover\'s URL, and progress running on from when it came', () => {
  const { screen, advance } = manualScreen();
  assert.equal(screen.snapshot().nowPlaying, null);
  const playing: NowPlaying = {
    title: 'Song',
    artist: 'Band',
    artwork: { mime: 'image/png', bytes: PNG },
    progress: { startRtp: 0, currentRtp: 44100 * 10, endRtp: 44100 * 200, sampleRate: 44100 },
  };
  screen.showNowPlaying(playing);
  assert.deepEqual(screen.snapshot().nowPlaying, { version: 1, title: 'Song', artist: 'Band', album: null, artworkUrl: '/artwork/1', progress: { elapsed: 10, duration: 200 } });
  advance(5000);
  assert.deepEqual(screen.snapshot().nowPlaying?.progress, { elapsed: 15, duration: 200 });
  // The album comes later: the same cover under the same URL, the same progress running on.
  screen.showNowPlaying({ ...playing, album: 'Record' });
  advance(1000);
  assert.deepEqual(screen.snapshot().nowPlaying, { version: 2, title: 'Song', artist: 'Band', album: 'Record', artworkUrl: '/artwork/1', progress: { elapsed: 16, duration: 200 } });
  // New progress starts from what it says; past the end stays at the end.
  screen.showNowPlaying({ ...playing, progress: { startRtp: 0, currentRtp: 44100 * 199, endRtp: 44100 * 200, sampleRate: 44100 } });
  advance(3000);
  assert.deepEqual(screen.snapshot().nowPlaying?.progress, { elapsed: 200, duration: 200 });
  screen.showNowPlaying(undefined);
  assert.equal(screen.snapshot().nowPlaying, null);
});

test('every change tells the listeners; nothing playing twice tells them once', () => {
  const { screen } = manualScreen();
  const seen: (number | null)[] = [];
  screen.subscribe((snapshot) => seen.push(snapshot.nowPlaying?.version ?? null));
  screen.showNowPlaying({ title: 'A' });
  screen.showNowPlaying({ title: 'B' });
  screen.showNowPlaying(undefined);
  screen.showNowPlaying(undefined);
  assert.deepEqual(seen, [1, 2, null]);
});

test('GET /artwork/N serves the cover as its type while it is shown; a newer cover or none is 404', async () => {
  const { screen } = manualScreen();
  const server = await startScreenServer({ screen, port: 0, log: () => {} });
  const get = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`);
  try {
    screen.showNowPlaying({ title: 'Song', artwork: { mime: 'image/png', bytes: PNG } });
    const cover = await get('/artwork/1');
    assert.equal(cover.status, 200);
    assert.equal(cover.headers.get('content-type'), 'image/png');
    assert.equal(cover.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(new Uint8Array(await cover.arrayBuffer()), PNG);
    screen.showNowPlaying({ title: 'Next', artwork: { mime: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]) } });
    assert.equal(screen.snapshot().nowPlaying?.artworkUrl, '/artwork/2');
    assert.deepEqual([(await get('/artwork/1')).status, (await get('/artwork/2')).headers.get('content-type')], [404, 'image/jpeg']);
    screen.showNowPlaying(undefined);
    assert.equal((await get('/artwork/2')).status, 404);
    assert.equal((await get('/artwork/x')).status, 404);
  } finally {
    await server.close();
  }
});

test('a cover of a type that is not a picture gets no URL and is not served', async () => {
  const { screen } = manualScreen();
  const server = await startScreenServer({ screen, port: 0, log: () => {} });
  try {
    screen.showNowPlaying({ title: 'Song', artwork: { mime: 'text/html', bytes: new TextEncoder().encode('<script>alert(1)</script>') } });
    assert.equal(screen.snapshot().nowPlaying?.artworkUrl, null);
    assert.equal((await fetch(`http://127.0.0.1:${server.port}/artwork/1`)).status, 404);
  } finally {
    await server.close();
  }
});
