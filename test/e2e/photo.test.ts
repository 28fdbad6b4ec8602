// Photos end to end (spec 3, 4.1): the real command on loopback, real HTTP (fetch), real JPEGs.
// PUT /photo reaches the virtual screen (its current-photo URL returns the exact bytes), the
// cache and its 412, POST /stop, bad bodies, feature bits with and without a screen. The screen
// server's own limits are in test/host/screen-server.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { featureMask } from '../../src/discovery';
import { decodeXmlPlist } from '../../src/plist/xml';
import type { ScreenSnapshot } from '../../hosts/node/screen/display';
import { BLUE, GREEN, RED, YELLOW, blockPicture, CYAN, MAGENTA, WHITE, ORANGE } from '../support/color-blocks';
import { PROMPT_MS, ReceiverProcess, within } from './receiver-process';

const SESSION = '5e1f7a2b-8c3d-4e9f-a0b1-c2d3e4f5a6b7';
const FIRST = blockPicture([
  [RED, GREEN],
  [BLUE, YELLOW],
]);
const SECOND = blockPicture([
  [CYAN, MAGENTA],
  [WHITE, ORANGE],
]);

interface PhotoOptions {
  key?: string;
  action?: string;
  transition?: string;
  prefix?: string;
}

function putPhoto(port: number, options: PhotoOptions, body?: Uint8Array): Promise<Response> {
  const prefix = options.prefix ?? 'X-Vendor-';
  const headers: Record<string, string> = { [`${prefix}Session-ID`]: SESSION };
  if (options.key) headers[`${prefix}AssetKey`] = options.key;
  if (options.action) headers[`${prefix}AssetAction`] = options.action;
  if (options.transition) headers[`${prefix}Transition`] = options.transition;
  return fetch(`http://127.0.0.1:${port}/photo`, { method: 'PUT', headers, body: body ?? new Uint8Array(0) });
}

async function screenState(receiver: ReceiverProcess): Promise<ScreenSnapshot> {
  const response = await fetch(new URL('state', receiver.screenUrl));
  assert.equal(response.status, 200);
  return (await response.json()) as ScreenSnapshot;
}

async function currentPhotoBytes(receiver: ReceiverProcess): Promise<Uint8Array> {
  const state = await screenState(receiver);
  assert.ok(state.photo, 'a photo is on the screen');
  const response = await fetch(new URL(state.photo.url, receiver.screenUrl));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'image/jpeg');
  return new Uint8Array(await response.arrayBuffer());
}

async function features(port: number): Promise<bigint> {
  const response = await fetch(`http://127.0.0.1:${port}/server-info`);
  const info = decodeXmlPlist(new Uint8Array(await response.arrayBuffer())) as Record<string, unknown>;
  return BigInt(info.features as number | bigint);
}

describe('photos on the desktop receiver', () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--limit', 'maxPhotoBytes=200000'] });
    assert.ok(receiver.screenUrl, `the command printed its screen page:\n${receiver.stdout}`);
  });
  after(async () => {
    await receiver?.stop();
  });

  test('--screen-port 0 serves the page on a free loopback port', async () => {
    assert.match(receiver.screenUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.notEqual(new URL(receiver.screenUrl!).port, '7080');
    const page = await fetch(receiver.screenUrl!);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<script type="module" src="\/page\.js"/);
  });

  test('the photo bits are advertised (spec 2.3: Photo, PhotoCaching)', async () => {
    const bits = featureMask(['Photo', 'PhotoCaching']);
    assert.equal((await features(receiver.port)) & bits, bits);
  });

  test('PUT /photo shows it: 200 with an empty body, and the screen serves the exact bytes', async () => {
    const response = await putPhoto(receiver.port, { key: 'A1', transition: 'Dissolve' }, FIRST.jpeg);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-length'), '0');
    assert.equal((await response.arrayBuffer()).byteLength, 0);
    assert.deepEqual(await currentPhotoBytes(receiver), FIRST.jpeg);
    const state = await screenState(receiver);
    // The core resolves the sender's name (transitions.ts); the screen is given the transition.
    assert.equal(state.photo?.transition, 'dissolve');
    assert.equal(state.activity, 'receivingVideo');
  });

  test('cacheOnly then displayCached (apple dialect headers): the cached bytes are shown, with a new URL', async () => {
    const before = await screenState(receiver);
    assert.equal((await putPhoto(receiver.port, { key: 'B2', action: 'cacheOnly', prefix: 'X-Apple-' }, SECOND.jpeg)).status, 200);
    assert.deepEqual(await screenState(receiver), before, 'cacheOnly shows nothing');
    assert.equal((await putPhoto(receiver.port, { key: 'B2', action: 'displayCached', transition: 'Sparkles', prefix: 'X-Apple-' })).status, 200);
    const state = await screenState(receiver);
    assert.equal(state.photo?.version, (before.photo?.version ?? 0) + 1);
    assert.equal(state.photo?.transition, 'dissolve', 'an unknown transition is drawn as a dissolve');
    assert.deepEqual(await currentPhotoBytes(receiver), SECOND.jpeg);
    // The previous version's URL names a picture no longer shown.
    assert.equal((await fetch(new URL(before.photo!.url, receiver.screenUrl))).status, 404);
  });

  test('displayCached of a key not cached is 412 and the screen keeps its picture', async () => {
    const before = await screenState(receiver);
    const response = await putPhoto(receiver.port, { key: 'never-sent', action: 'displayCached' });
    assert.equal(response.status, 412);
    assert.deepEqual(await screenState(receiver), before);
  });

  test('a body that is not a JPEG is 415; one over maxPhotoBytes is 413', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    assert.equal((await putPhoto(receiver.port, { key: 'P' }, png)).status, 415);
    const big = new Uint8Array(300_000);
    big.set(FIRST.jpeg);
    assert.equal((await putPhoto(receiver.port, { key: 'BIG' }, big)).status, 413);
    assert.equal((await putPhoto(receiver.port, { action: 'cacheOnly' }, FIRST.jpeg)).status, 400, 'cacheOnly without a key');
  });

  test('the page\'s event stream sends the state at once and again on every change (no polling)', async () => {
    const controller = new AbortController();
    const stream = await fetch(new URL('events', receiver.screenUrl), { signal: controller.signal });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    const nextState = async (): Promise<ScreenSnapshot> => {
      for (;;) {
        const match = /^data: (.*)$/m.exec(buffered);
        if (match) {
          buffered = buffered.slice(match.index + match[0].length);
          return JSON.parse(match[1]) as ScreenSnapshot;
        }
        const { value, done } = await within(PROMPT_MS, 'an event from the screen', reader.read());
        if (done) throw new Error('event stream ended');
        buffered += decoder.decode(value, { stream: true });
      }
    };
    try {
      const first = await nextState();
      assert.ok(first.photo);
      await putPhoto(receiver.port, { key: 'C3', transition: 'WipeDown' }, FIRST.jpeg);
      const next = await nextState();
      assert.equal(next.photo?.version, first.photo.version + 1);
      assert.equal(next.photo?.transition, 'wipe-down');
    } finally {
      controller.abort();
    }
  });

  test('POST /stop: 200 with an empty body; the screen is cleared, the cache emptied, activity idle', async () => {
    const response = await fetch(`http://127.0.0.1:${receiver.port}/stop`, { method: 'POST', headers: { 'X-Vendor-Session-ID': SESSION } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-length'), '0');
    const state = await screenState(receiver);
    assert.equal(state.photo, null);
    assert.equal(state.activity, 'idle');
    assert.equal((await putPhoto(receiver.port, { key: 'B2', action: 'displayCached' })).status, 412, 'the cache was cleared');
  });
});

test('without a screen (--no-screen) the photo bits are clear and PUT /photo is not served', async () => {
  const receiver = await ReceiverProcess.start({ args: ['--no-screen'] });
  try {
    assert.equal(receiver.screenUrl, undefined);
    assert.equal((await features(receiver.port)) & featureMask(['Photo', 'PhotoCaching']), 0n);
    const response = await putPhoto(receiver.port, { key: 'A1' }, FIRST.jpeg);
    assert.ok(response.status === 404 || response.status === 501, `status ${response.status}`);
  } finally {
    await receiver.stop();
  }
});
