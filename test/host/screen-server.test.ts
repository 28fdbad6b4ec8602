// The screen server (hosts/node/screen/server.ts and its route table, routes.ts) on a real
// loopback socket: it bounds its live update clients (maxClients, then 503) and answers only pages
// on this machine (a Host that is not loopback is 421), so a web page elsewhere cannot read or
// drive the screen; each path answers its own methods (405 names them) and the player's paths only
// the page itself (403); the page it serves is the build of hosts/node/screen/page/, and every
// file the page names is served. The screen's folder holds TypeScript only: the page is typed
// (page/tsconfig.json) and takes the wire's tables from page-protocol.ts, never a copy.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { PagePlayer } from '../../hosts/node/screen/player';
import { startScreenServer } from '../../hosts/node/screen/server';
import { PROJECT_ROOT, PROMPT_MS, within } from '../e2e/receiver-process';

const SCREEN_FOLDER = path.join(PROJECT_ROOT, 'hosts/node/screen');

/** A raw GET with the given Host header (fetch does not let a caller set Host). */
function rawGet(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { Host: host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
  });
}

test('the screen server bounds its live clients and answers only pages on this machine', async () => {
  const screen = new VirtualScreen('Bounds');
  const server = await startScreenServer({ screen, port: 0, log: () => {}, maxClients: 2 });
  const controllers: AbortController[] = [];
  try {
    assert.ok(server.urls.every((url) => /^http:\/\/(127\.0\.0\.1|\[::1\]):\d+\/$/.test(url)), server.urls.join(' '));
    const open = async () => {
      const controller = new AbortController();
      controllers.push(controller);
      return fetch(`http://127.0.0.1:${server.port}/events`, { signal: controller.signal });
    };
    assert.equal((await open()).status, 200);
    assert.equal((await open()).status, 200);
    const third = await open();
    assert.equal(third.status, 503);
    assert.equal(server.clientCount, 2);
    assert.equal(await rawGet(server.port, '/state', `127.0.0.1:${server.port}`), 200);
    assert.equal(await rawGet(server.port, '/state', `localhost:${server.port}`), 200);
    assert.equal(await rawGet(server.port, '/state', `attacker.example:${server.port}`), 421);
    const post = await fetch(`http://127.0.0.1:${server.port}/state`, { method: 'POST' });
    assert.equal(post.status, 405);
  } finally {
    for (const controller of controllers) controller.abort();
    await server.close();
  }
});

test('each path answers its own methods, and the player\'s paths only the page itself', async () => {
  const server = await startScreenServer({ screen: new VirtualScreen('Routes'), player: new PagePlayer(), port: 0, log: () => {} });
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  try {
    const post = await fetch(url('/state'), { method: 'POST' });
    assert.deepEqual([post.status, post.headers.get('allow'), await post.text()], [405, 'GET, HEAD', 'GET only\n']);
    const reportByGet = await fetch(url('/player/report?client=x'));
    assert.deepEqual([reportByGet.status, reportByGet.headers.get('allow')], [405, 'POST']);
    const mediaByHead = await fetch(url('/media/1/0'), { method: 'HEAD' });
    assert.deepEqual([mediaByHead.status, mediaByHead.headers.get('allow')], [405, 'GET']);
    const notPlaying = await fetch(url('/media/1/0'));
    assert.deepEqual([notPlaying.status, await notPlaying.text()], [404, 'not the item playing now\n']);
    const fromElsewhere = await fetch(url('/player/report?client=x'), { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(fromElsewhere.status, 403);
    const notJson = await fetch(url('/player/report?client=x'), { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(notJson.status, 415);
    const notPlayer = await fetch(url('/player/report?client=x'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.deepEqual([notPlayer.status, await notPlayer.text()], [409, 'this page is not the one playing\n']);
    const standbyByHead = await fetch(url('/video/standby?client=x&n=1'), { method: 'HEAD' });
    assert.deepEqual([standbyByHead.status, standbyByHead.headers.get('allow')], [405, 'GET']);
    const standbyUncounted = await fetch(url('/video/standby?client=x&n=0'));
    assert.deepEqual([standbyUncounted.status, await standbyUncounted.text()], [400, 'n is not a count from 1\n']);
    const standbyNotNext = await fetch(url('/video/standby?client=x&n=1'));
    assert.deepEqual([standbyNotNext.status, await standbyNotNext.text()], [409, 'this page does not play the next video\n']);
    const mirror = await fetch(url('/mirror'));
    assert.deepEqual([mirror.status, mirror.headers.get('upgrade')], [426, 'websocket']);
    assert.equal((await fetch(url('/photo/1.jpg'))).status, 404);
    assert.equal((await fetch(url('/nothing-here'))).status, 404);
    const state = await fetch(url('/state'));
    assert.equal(state.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(await state.json(), { name: 'Routes', activity: 'idle', media: null, slideshow: null, pin: null, photo: null, nowPlaying: null, connection: null, video: null, videoPage: null });
  } finally {
    await server.close();
  }
});

test('the page served is the build of hosts/node/screen/page/, and every file it names is served', async () => {
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  const server = await startScreenServer({ screen: new VirtualScreen('Page'), port: 0, log: () => {} });
  try {
    const page = await fetch(`http://127.0.0.1:${server.port}/`);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.equal(html, readFileSync(path.join(SCREEN_FOLDER, 'page/page.html'), 'utf8'));
    const named = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(named.sort(), ['/page.js', '/screen.css']);
    for (const file of named) {
      const response = await fetch(`http://127.0.0.1:${server.port}${file}`);
      assert.equal(response.status, 200, file);
      assert.match(response.headers.get('content-type') ?? '', file.endsWith('.js') ? /^text\/javascript/ : /^text\/css/, file);
      assert.ok((await response.text()).length > 0, file);
    }
    const script = await (await fetch(`http://127.0.0.1:${server.port}/page.js`)).text();
    assert.match(script, /\/\/ hosts\/node\/screen\/page\/main\.ts/, 'the bundle of page/main.ts');
  } finally {
    await server.close();
  }
});

/**
 * Why the screen folder's files break its rules: no JavaScript by hand (the page is TypeScript,
 * bundled into dist/), and the page imports only its own folder, page-protocol.ts and types of
 * hls.js (the server's modules are not the page's).
 */
function screenFolderProblems(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, text] of files) {
    if (/\.[cm]?js$/.test(file)) problems.push(`${file}: JavaScript in hosts/node/screen/ (write the page in TypeScript, in page/)`);
    if (!file.startsWith('page/') || !file.endsWith('.ts')) continue;
    for (const [, typeOnly, from] of text.matchAll(/^import (type )?[^'"]*from '([^']+)'/gm)) {
      // src/errors is the core's one describeError: pure ECMAScript, so the browser bundle takes it too.
      const allowed = from.startsWith('./') || from === '../page-protocol' || from === '../../../../src/errors' || (typeOnly !== undefined && from === 'hls.js');
      if (!allowed) problems.push(`${file}: imports ${from} (the page imports only page/, ../page-protocol, src/errors and hls.js types)`);
    }
  }
  return problems;
}

/** Every file under hosts/node/screen/, by its path there (with / between folders). */
function screenFolder(folder = '', files = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(path.join(SCREEN_FOLDER, folder), { withFileTypes: true })) {
    const file = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) screenFolder(file, files);
    else files.set(file, readFileSync(path.join(SCREEN_FOLDER, file), 'utf8'));
  }
  return files;
}

test('the screen folder holds no JavaScript, and its page imports only page/, page-protocol.ts and src/errors', () => {
  const files = screenFolder();
  assert.ok(files.has('page/main.ts') && files.has('page-protocol.ts'), [...files.keys()].join(' '));
  assert.deepEqual(screenFolderProblems(files), []);
  // The rule itself catches what it names.
  assert.deepEqual(
    screenFolderProblems(
      new Map([
        ['mirror.js', ''],
        ['page/video.ts', "import type Hls from 'hls.js';\nimport { MediaItem } from '../media-proxy';\nimport Hls2 from 'hls.js';\n"],
      ]),
    ),
    [
      'mirror.js: JavaScript in hosts/node/screen/ (write the page in TypeScript, in page/)',
      'page/video.ts: imports ../media-proxy (the page imports only page/, ../page-protocol, src/errors and hls.js types)',
      'page/video.ts: imports hls.js (the page imports only page/, ../page-protocol, src/errors and hls.js types)',
    ],
  );
});

/** The `data:` states of a /events stream, read as they come. */
function eventStates(body: ReadableStream<Uint8Array>): () => Promise<{ photo: { version: number; bytes: number } | null }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return async () => {
    for (;;) {
      const match = /^data: (.*)\n\n/m.exec(text);
      if (match) {
        text = text.slice(match.index + match[0].length);
        return JSON.parse(match[1]);
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended; left: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  };
}

test('the screen told of a picture with no page open: a page that opens then gets it in its first state, and an open page gets the next one', async () => {
  const screen = new VirtualScreen('Events');
  const server = await startScreenServer({ screen, port: 0, log: () => {} });
  const controller = new AbortController();
  try {
    screen.showPhoto(new Uint8Array([0xff, 0xd8, 1, 2, 0xff, 0xd9]));
    const response = await fetch(`http://127.0.0.1:${server.port}/events`, { signal: controller.signal });
    assert.equal(response.status, 200);
    const next = eventStates(response.body!);
    const shown = (state: { photo: { version: number; bytes: number } | null }) => state.photo && { version: state.photo.version, bytes: state.photo.bytes };
    assert.deepEqual(shown(await within(PROMPT_MS, 'the first state', next())), { version: 1, bytes: 6 });
    screen.showPhoto(new Uint8Array([0xff, 0xd8, 1, 2, 3, 4, 5, 6, 0xff, 0xd9]));
    assert.deepEqual(shown(await within(PROMPT_MS, 'the state after the next picture', next())), { version: 2, bytes: 10 });
  } finally {
    controller.abort();
    await server.close();
  }
});

test('a new video goes to the pages at once, before the rest of the turn; changes made together otherwise make one event', async () => {
  const screen = new VirtualScreen('Events');
  // Loopback is refused by default: the fetch ahead of the page (media-proxy.ts prefetch) stops at the check.
  const player = new PagePlayer();
  const server = await startScreenServer({ screen, player, port: 0, log: () => {} });
  const controller = new AbortController();
  type Video = { item: number; rate: number; seek: { seconds: number } | null } | null;
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/events`, { signal: controller.signal });
    const next = eventStates(response.body!) as unknown as () => Promise<{ video: Video }>;
    const video = async (what: string) => {
      const state = await within(PROMPT_MS, what, next());
      return state.video && { item: state.video.item, rate: state.video.rate, seek: state.video.seek?.seconds ?? null };
    };
    assert.equal(await video('the first state'), null);
    // A video started paused: the core loads it, then sets its rate to 0, in one turn. The page
    // has heard of the item before the rate changed: its event has left Node for the socket
    // before load() returns (Node corks a response's socket at every write until the next tick).
    const written: net.Socket[] = [];
    const write = http.ServerResponse.prototype.write;
    http.ServerResponse.prototype.write = function (this: http.ServerResponse, ...args: Parameters<typeof write>) {
      if (typeof args[0] === 'string' && args[0].includes('"item":1')) written.push(this.socket as net.Socket);
      return write.apply(this, args);
    } as typeof write;
    try {
      player.load(1, 'http://127.0.0.1:9/clip.mp4', { seconds: 0 });
    } finally {
      http.ServerResponse.prototype.write = write;
    }
    assert.equal(written.length, 1, 'one page, one event of the new item');
    assert.deepEqual({ corked: written[0].writableCorked, buffered: written[0].writableLength }, { corked: 0, buffered: 0 }, 'the event is not held in Node until the next tick');
    player.setRate(0);
    assert.deepEqual(await video('the new item'), { item: 1, rate: 1, seek: null });
    assert.deepEqual(await video('the rate set after it'), { item: 1, rate: 0, seek: null });
    // A rate and a seek together: one event with both.
    player.setRate(2);
    player.seek(3);
    await new Promise((resolve) => setImmediate(resolve));
    player.setRate(1);
    assert.deepEqual(await video('the rate and the seek'), { item: 1, rate: 2, seek: 3 });
    assert.deepEqual(await video('the rate of the next turn'), { item: 1, rate: 1, seek: 3 });
  } finally {
    controller.abort();
    player.stop();
    await server.close();
  }
});
