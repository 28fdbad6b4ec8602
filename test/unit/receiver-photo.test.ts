// Photos (spec 3, 4.1, 6, 7): PUT /photo shown at once, cacheOnly, displayCached and its 412, the
// cache's bounds and order, requests that finish out of order, bad bodies, POST /stop and the
// photo event, feature bits with and without a screen; the JPEG check; the photo cache itself.

import assert from 'node:assert/strict';
import { latin1Decode, latin1Encode } from '../../src/bytes';
import type { JpegFrame } from '../../src/platform';
import { test } from 'node:test';
import { featureMask } from '../../src/discovery';
import { writeRequest } from '../../src/http';
import { decodeXmlPlist } from '../../src/plist/xml';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { inspectJpeg, isJpeg, JpegError } from '../../src/receiver/media/jpeg';
import { PhotoCache } from '../../src/receiver/photo/photo-cache';
import { MEDIA_SESSION_ACTIVITY } from '../../src/receiver/media/media-session';
import type { ProfileName } from '../../src/receiver/profiles';
import { Receiver } from '../../src/receiver/receiver';
import { sampleJpeg, SAMPLE_JPEG_SIZE } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender, type SenderResponse } from '../support/memory-sender';
import { deliverReplies, ReversePeer } from '../support/reverse-peer';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SESSION = 'a3a0b9f8-2c5e-4d7a-9b1e-5f0c6d2e8a41';
const OTHER_SESSION = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const KEY_A = 'B3C9E0A8-1F2D-4E5A-9B6C-7D8E9F0A1B2C';
const KEY_B = 'C4DAF1B9-2031-4F6B-8C7D-8E9FA0B1C2D3';
const KEY_C = 'D5EB02CA-3142-406C-9D8E-9FA0B1C2D3E4';
const KEY_D = 'E6FC13DB-4253-417D-AE9F-A0B1C2D3E4F5';

const PHOTO_A = sampleJpeg(600, 1);
const PHOTO_B = sampleJpeg(700, 2);
const PHOTO_C = sampleJpeg(800, 3);
const PHOTO_D = sampleJpeg(900, 4);

interface SetupOptions {
  profile?: ProfileName;
  limits?: Partial<ReceiverLimits>;
  /** Give the receiver a screen (default true). */
  screen?: boolean;
  /** ReceiverPorts.freeBytes. */
  freeBytes?: (bytes: Uint8Array) => void;
}

function setup(options: SetupOptions = {}) {
  const clock = new ManualClock();
  const display = new RecordingDisplay(clock);
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Frame', profile: options.profile ?? 'photo-frame', limits: options.limits }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(9),
    store: new MemoryStore(),
    log,
    ...(options.screen !== false && { display }),
    ...(options.freeBytes && { freeBytes: options.freeBytes }),
  });
  return { clock, display, log, receiver };
}

interface PhotoHeaders {
  key?: string;
  action?: string;
  transition?: string;
  session?: string | null;
  /** Header name prefix (default the spec's `X-Vendor-`). */
  prefix?: string;
}

/** The bytes of a PUT /photo, as a sender writes them. */
function photoRequest(headers: PhotoHeaders, body?: Uint8Array): Uint8Array {
  const prefix = headers.prefix ?? 'X-Vendor-';
  const list: [string, string][] = [];
  if (headers.session !== null) list.push([`${prefix}Session-ID`, headers.session ?? SESSION]);
  if (headers.key !== undefined) list.push([`${prefix}AssetKey`, headers.key]);
  if (headers.action !== undefined) list.push([`${prefix}AssetAction`, headers.action]);
  if (headers.transition !== undefined) list.push([`${prefix}Transition`, headers.transition]);
  // displayCached has an empty body (spec 4.1): Content-Length 0.
  return writeRequest({ protocol: 'HTTP', version: '1.1', method: 'PUT', target: '/photo', headers: list, body: body ?? new Uint8Array(0) });
}

function putPhoto(sender: MemorySender, headers: PhotoHeaders, body?: Uint8Array): SenderResponse {
  sender.sendBytes(photoRequest(headers, body));
  return sender.response();
}

function postStop(sender: MemorySender, session: string | null = SESSION): SenderResponse {
  return sender.request('POST', '/stop', { headers: session === null ? [] : [['X-Vendor-Session-ID', session]] });
}

/** The pictures the screen was asked to show, as the bytes' lengths (each sample has its own). */
function shownSizes(display: RecordingDisplay): number[] {
  return display.photos.map((photo) => photo.jpeg.length);
}

// ---------------------------------------------------------------------------------------------
// spec 3 and 4.1: the rows that concern photos.

test('PUT /photo without an action shows the picture at once: 200, empty body, the exact bytes on the screen', async () => {
  const { receiver, display } = setup();
  const response = await putPhoto(new MemorySender(receiver), { key: KEY_A }, PHOTO_A);
  assert.equal(response.head.status, 200);
  assert.equal(response.head.headers.get('Content-Length'), '0');
  assert.equal(response.body.length, 0);
  assert.equal(display.photos.length, 1);
  assert.deepEqual(display.photos[0].jpeg, PHOTO_A);
  assert.equal(display.photos[0].transition, undefined);
});

test('X-Vendor-Transition is handed to the screen with the picture', async () => {
  const { receiver, display } = setup();
  await putPhoto(new MemorySender(receiver), { key: KEY_A, transition: 'Dissolve' }, PHOTO_A);
  assert.equal(display.photos[0].transition, 'dissolve');
});

test('the real senders\' header names (X-Apple-*) work the same', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'cacheOnly', prefix: 'X-Apple-' }, PHOTO_A)).head.status, 200);
  assert.equal(display.photos.length, 0);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'displayCached', transition: 'Cube', prefix: 'X-Apple-' })).head.status, 200);
  assert.deepEqual(display.photos[0].jpeg, PHOTO_A);
  assert.equal(display.photos[0].transition, 'cube');
});

test('cacheOnly stores the picture without showing it; displayCached then shows it (spec 3)', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  const cached = await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  assert.equal(cached.head.status, 200);
  assert.equal(cached.body.length, 0);
  assert.deepEqual(display.kinds, [], 'nothing shown');
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_B]);
  const shown = await putPhoto(sender, { key: KEY_B, action: 'displayCached', transition: 'WipeAcross' });
  assert.equal(shown.head.status, 200);
  assert.equal(shown.body.length, 0);
  assert.deepEqual(display.photos.map((photo) => [photo.jpeg, photo.transition]), [[PHOTO_B, 'wipe-across']]);
});

test('answers 412 when displayCached names a picture that was never cached; the screen is unchanged (spec 3, 7)', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  const response = await putPhoto(sender, { key: KEY_B, action: 'displayCached' });
  assert.equal(response.head.status, 412);
  assert.deepEqual(shownSizes(display), [PHOTO_A.length]);
  // The connection goes on: the sender now sends the picture in full.
  assert.equal((await putPhoto(sender, { key: KEY_B }, PHOTO_B)).head.status, 200);
  assert.deepEqual(shownSizes(display), [PHOTO_A.length, PHOTO_B.length]);
});

test('answers 412 when displayCached names an evicted photo (entries bound, least recently used first)', async () => {
  const { receiver, display } = setup({ limits: { photoCacheEntries: 2 } });
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  await putPhoto(sender, { key: KEY_C, action: 'cacheOnly' }, PHOTO_C);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_B, KEY_C]);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'displayCached' })).head.status, 412);
  assert.equal((await putPhoto(sender, { key: KEY_B, action: 'displayCached' })).head.status, 200);
  assert.deepEqual(display.photos[0].jpeg, PHOTO_B);
});

test('a photo goes to the host (freeBytes) once neither the cache nor the screen holds it, and not before', async () => {
  const freed: Uint8Array[] = [];
  const { receiver, display } = setup({ limits: { photoCacheEntries: 2 }, freeBytes: (bytes) => freed.push(bytes) });
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B }, PHOTO_B);
  assert.equal(freed.length, 0, 'A is off the screen but still cached');
  await putPhoto(sender, { key: KEY_C }, PHOTO_C);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_B, KEY_C]);
  assert.deepEqual(freed, [PHOTO_A], 'A left the cache, and the screen shows C');
  assert.equal(freed[0], display.photos[0].jpeg, 'the very array the screen was given');
  // Shown without a key (not cached): held by the screen alone, freed when the next is shown.
  await putPhoto(sender, {}, PHOTO_D);
  assert.equal(freed.length, 1, 'B and C are cached; D is on the screen');
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  assert.deepEqual(freed.slice(1), [PHOTO_B, PHOTO_D], 'B left the cache for A, then D the screen');
  assert.equal((await postStop(sender)).head.status, 200);
  assert.deepEqual(freed.slice(3).map((bytes) => bytes.length).sort(), [PHOTO_A.length, PHOTO_C.length].sort(), 'the stop emptied the cache and the screen');
  assert.equal(freed.length, 5, 'each picture once');
});

test('a displayCached use makes a photo the most recent: the other one leaves first', async () => {
  const { receiver } = setup({ limits: { photoCacheEntries: 2 } });
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  await putPhoto(sender, { key: KEY_A, action: 'displayCached' });
  await putPhoto(sender, { key: KEY_C, action: 'cacheOnly' }, PHOTO_C);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_A, KEY_C]);
  assert.equal((await putPhoto(sender, { key: KEY_B, action: 'displayCached' })).head.status, 412);
});

test('the cache is bounded in bytes: older photos leave until the new one fits', async () => {
  // A and B (600 + 700) fit in 1400 bytes; C (800) fits only alone; then C and A fill it exactly.
  const { receiver } = setup({ limits: { photoCacheBytes: 1400, photoCacheEntries: 10 } });
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  await putPhoto(sender, { key: KEY_C, action: 'cacheOnly' }, PHOTO_C);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_C]);
  assert.equal(receiver.photos?.cache.bytes, PHOTO_C.length);
  await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_C, KEY_A]);
  assert.equal(receiver.photos?.cache.bytes, PHOTO_C.length + PHOTO_A.length);
});

test('a photo shown with an AssetKey is cached too, so going back to it is a displayCached', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B }, PHOTO_B);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'displayCached' })).head.status, 200);
  assert.deepEqual(shownSizes(display), [PHOTO_A.length, PHOTO_B.length, PHOTO_A.length]);
});

// ---------------------------------------------------------------------------------------------
// The shown photo is always the one last asked for.

test('previous and next photos cached in any order while one is shown never change the screen', async () => {
  const { receiver, display } = setup({ limits: { photoCacheEntries: 3 } });
  const shownOn = new MemorySender(receiver, 50001);
  const nextOn = new MemorySender(receiver, 50002);
  const previousOn = new MemorySender(receiver, 50003);
  await putPhoto(shownOn, { key: KEY_B }, PHOTO_B);
  // Next before previous, then the other way round for the following photo.
  await putPhoto(nextOn, { key: KEY_C, action: 'cacheOnly' }, PHOTO_C);
  await putPhoto(previousOn, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  assert.deepEqual(shownSizes(display), [PHOTO_B.length]);
  // Swipe forward: C from the cache; then D is cached as the new next, B stays as previous.
  assert.equal((await putPhoto(shownOn, { key: KEY_C, action: 'displayCached' })).head.status, 200);
  await putPhoto(previousOn, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  await putPhoto(nextOn, { key: KEY_D, action: 'cacheOnly' }, PHOTO_D);
  assert.deepEqual(shownSizes(display), [PHOTO_B.length, PHOTO_C.length]);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_C, KEY_B, KEY_D]);
  assert.equal(receiver.photos?.shownKey, KEY_C);
});

test('a display request that finishes after a newer one changes nothing on the screen (out-of-order completion)', async () => {
  const { receiver, display } = setup();
  const slow = new MemorySender(receiver, 50001);
  const fast = new MemorySender(receiver, 50002);
  const slowBytes = photoRequest({ key: KEY_A }, PHOTO_A);
  // A's head and most of its body arrive first; B is asked for after it and arrives whole.
  slow.sendBytes(slowBytes.subarray(0, slowBytes.length - 100));
  assert.equal((await putPhoto(fast, { key: KEY_B }, PHOTO_B)).head.status, 200);
  slow.sendBytes(slowBytes.subarray(slowBytes.length - 100));
  const late = await slow.response();
  assert.equal(late.head.status, 200, 'the late request is still answered 200');
  assert.deepEqual(shownSizes(display), [PHOTO_B.length], 'B, asked for last, stays on the screen');
  assert.equal(receiver.photos?.shownKey, KEY_B);
  // A arrived whole and is kept: showing it later is a displayCached.
  assert.equal((await putPhoto(fast, { key: KEY_A, action: 'displayCached' })).head.status, 200);
  assert.deepEqual(shownSizes(display), [PHOTO_B.length, PHOTO_A.length]);
});

test('a displayCached of a picture still being uploaded is 412; the full re-send shows it and the late cacheOnly does not', async () => {
  const { receiver, display } = setup();
  const upload = new MemorySender(receiver, 50001);
  const swipe = new MemorySender(receiver, 50002);
  await putPhoto(swipe, { key: KEY_A }, PHOTO_A);
  const cacheBytes = photoRequest({ key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  upload.sendBytes(cacheBytes.subarray(0, 300));
  assert.equal((await putPhoto(swipe, { key: KEY_B, action: 'displayCached' })).head.status, 412);
  assert.equal((await putPhoto(swipe, { key: KEY_B }, PHOTO_B)).head.status, 200);
  upload.sendBytes(cacheBytes.subarray(300));
  assert.equal((await upload.response()).head.status, 200);
  assert.deepEqual(shownSizes(display), [PHOTO_A.length, PHOTO_B.length]);
});

test('a display request asked before POST /stop that finishes after it does not bring a picture back', async () => {
  const { receiver, display } = setup();
  const slow = new MemorySender(receiver, 50001);
  const control = new MemorySender(receiver, 50002);
  await putPhoto(control, { key: KEY_A }, PHOTO_A);
  const slowBytes = photoRequest({ key: KEY_B }, PHOTO_B);
  slow.sendBytes(slowBytes.subarray(0, 200));
  assert.equal((await postStop(control)).head.status, 200);
  slow.sendBytes(slowBytes.subarray(200));
  assert.equal((await slow.response()).head.status, 200);
  assert.deepEqual(display.kinds, ['photo', 'clear']);
  assert.equal(receiver.photos?.active, false);
});

// ---------------------------------------------------------------------------------------------
// Bad requests: 400, 413, 415; nothing breaks.

test('cacheOnly without an AssetKey is 400, and so is displayCached without one', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  assert.equal((await putPhoto(sender, { action: 'cacheOnly' }, PHOTO_A)).head.status, 400);
  assert.equal((await putPhoto(sender, { action: 'displayCached' })).head.status, 400);
  assert.equal(receiver.photos?.cache.size, 0);
  assert.deepEqual(display.kinds, []);
});

test('an unknown AssetAction is 400; the action is matched without regard to case', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'preload' }, PHOTO_A)).head.status, 400);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'CACHEONLY' }, PHOTO_A)).head.status, 200);
  assert.deepEqual(display.kinds, []);
});

test('a picture request with no body is 400', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  assert.equal((await putPhoto(sender, { key: KEY_A })).head.status, 400);
  assert.equal((await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' })).head.status, 400);
  assert.deepEqual(display.kinds, []);
});

test('a body that is not a JPEG is 415: a PNG, bytes that only start like a JPEG, a JPEG cut short', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const lookalike = new Uint8Array(64).fill(0x41);
  lookalike.set([0xff, 0xd8, 0xff, 0xe0]);
  const cut = PHOTO_A.subarray(0, PHOTO_A.length - 2);
  for (const body of [png, lookalike, cut]) {
    assert.equal((await putPhoto(sender, { key: KEY_A }, body)).head.status, 415);
    assert.equal((await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, body)).head.status, 415);
  }
  assert.deepEqual(display.kinds, []);
  assert.equal(receiver.photos?.cache.size, 0);
  assert.equal((await putPhoto(sender, { key: KEY_A }, PHOTO_A)).head.status, 200, 'the connection still serves');
});

test('a JPEG the screen cannot decode is 415 naming the frame and the reason, before anything is shown or cached', async () => {
  const { receiver, display } = setup();
  // A display whose decoder reads baseline pictures only (a board's), asked before the answer.
  const asked: string[] = [];
  Object.assign(display, {
    cannotShow: (frame: JpegFrame) => {
      asked.push(frame.process);
      return frame.process === 'baseline' ? undefined : 'the decoder reads baseline JPEGs only';
    },
  });
  const sender = new MemorySender(receiver);
  const progressive = PHOTO_B.slice();
  progressive[21] = 0xc2; // SOF0 -> SOF2 (the sample's frame header is at offset 20)
  for (const action of [undefined, 'cacheOnly']) {
    const response = await putPhoto(sender, { key: KEY_B, action }, progressive);
    assert.equal(response.head.status, 415);
    assert.match(latin1Decode(response.body), /the screen cannot show this JPEG \(32x16 progressive grayscale\): the decoder reads baseline JPEGs only/);
  }
  assert.deepEqual(display.kinds, []);
  assert.equal(receiver.photos?.cache.size, 0);
  assert.equal((await putPhoto(sender, { key: KEY_A }, PHOTO_A)).head.status, 200, 'a baseline picture shows');
  assert.deepEqual(asked, ['progressive', 'progressive', 'baseline']);
});

test('a picture over maxPhotoBytes is 413 and the connection goes on', async () => {
  const { receiver, display } = setup({ limits: { maxPhotoBytes: 1000 } });
  const sender = new MemorySender(receiver);
  const big = sampleJpeg(1500, 5);
  assert.equal((await putPhoto(sender, { key: KEY_A }, big)).head.status, 413);
  assert.equal((await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, big)).head.status, 413);
  assert.deepEqual(display.kinds, []);
  assert.equal((await putPhoto(sender, { key: KEY_A }, PHOTO_A)).head.status, 200);
  assert.deepEqual(shownSizes(display), [PHOTO_A.length]);
});

test('a picture larger than the whole cache is shown but not cached: its displayCached is 412', async () => {
  const { receiver, display } = setup({ limits: { photoCacheBytes: 650 } });
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  assert.equal((await putPhoto(sender, { key: KEY_B }, PHOTO_B)).head.status, 200);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_A], 'B does not fit and evicts nothing');
  assert.equal((await putPhoto(sender, { key: KEY_B, action: 'displayCached' })).head.status, 412);
  assert.deepEqual(shownSizes(display), [PHOTO_B.length]);
});

// ---------------------------------------------------------------------------------------------
// POST /stop, the photo event (spec 6) and the activity.

async function eventPeer(receiver: Receiver, sessionId = SESSION, remotePort = 51000): Promise<ReversePeer> {
  return ReversePeer.open(receiver, { sessionId, purpose: 'event', remotePort, responder: () => ({ status: 200 }) });
}

test('POST /stop clears the screen and the cache, sends the photo event (state stopped) and returns to idle', async () => {
  const { receiver, display } = setup();
  const events = await eventPeer(receiver);
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  assert.equal(receiver.activity, MEDIA_SESSION_ACTIVITY);
  assert.equal(receiver.activityFields().receiverSessionIsActive, true);

  const stopped = await postStop(sender);
  assert.equal(stopped.head.status, 200);
  assert.equal(stopped.body.length, 0);
  assert.equal(stopped.head.headers.get('Content-Length'), '0');
  assert.deepEqual(display.kinds, ['photo', 'clear']);
  assert.equal(receiver.photos?.cache.size, 0);
  assert.equal(receiver.activity, 'idle');
  assert.equal(events.requests.length, 1);
  const [event] = events.requests;
  assert.equal(event.head.method, 'POST');
  assert.equal(event.head.target, '/event');
  assert.equal(event.head.headers.get('Content-Type'), 'text/x-vendor-plist+xml');
  assert.equal(event.head.headers.get('X-Vendor-Session-ID'), SESSION);
  const body = decodeXmlPlist(event.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['category', 'sessionID', 'state']);
  assert.equal(body.category, 'photo');
  assert.equal(Number(body.sessionID), receiver.events.sessionNumber(SESSION));
  assert.equal(body.state, 'stopped');
  // What was cached is gone (spec 3: no longer in the cache).
  assert.equal((await putPhoto(sender, { key: KEY_B, action: 'displayCached' })).head.status, 412);
});

test('the screen status follows the activity: the photo session and its end', async () => {
  const { receiver, display } = setup();
  receiver.start();
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  await postStop(sender);
  const statuses = display.calls.flatMap((call) => (call.kind === 'status' ? [call.status] : []));
  // Each change, once (the activity and what is shown are told apart, so a value may repeat).
  const changes = <T,>(values: T[]) => values.filter((value, i) => i === 0 || value !== values[i - 1]);
  assert.deepEqual(changes(statuses.map((status) => status.activity)), ['idle', MEDIA_SESSION_ACTIVITY, 'idle']);
  assert.deepEqual(changes(statuses.map((status) => status.media)), [undefined, 'photo', undefined]);
  assert.ok(statuses.every((status) => status.name === 'Frame'));
});

test('each photo session reports its own end: a second session of the same sender gets its event too', async () => {
  const { receiver } = setup();
  const events = await eventPeer(receiver);
  const sender = new MemorySender(receiver);
  for (const photo of [PHOTO_A, PHOTO_B]) {
    await putPhoto(sender, { key: KEY_A }, photo);
    await postStop(sender);
    // The sender answers each event (events go out one at a time on its connection).
    deliverReplies();
  }
  assert.equal(events.requests.length, 2);
});

test('POST /stop with nothing shown is 200 and sends no event', async () => {
  const { receiver, display } = setup();
  const events = await eventPeer(receiver);
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  assert.equal((await postStop(sender)).head.status, 200);
  assert.equal(events.requests.length, 0);
  assert.deepEqual(display.kinds, []);
  assert.equal(receiver.photos?.cache.size, 0, 'the cache is cleared all the same');
});

test('another sender\'s photo takes the screen over: the previous session gets its photo event', async () => {
  const { receiver, display } = setup();
  const firstEvents = await eventPeer(receiver, SESSION, 51000);
  const secondEvents = await eventPeer(receiver, OTHER_SESSION, 51001);
  const first = new MemorySender(receiver, 50001);
  const second = new MemorySender(receiver, 50002);
  await putPhoto(first, { key: KEY_A }, PHOTO_A);
  await putPhoto(first, { key: KEY_C, action: 'cacheOnly' }, PHOTO_C);
  await putPhoto(second, { key: KEY_B, session: OTHER_SESSION }, PHOTO_B);
  assert.equal(firstEvents.requests.length, 1);
  assert.equal((decodeXmlPlist(firstEvents.requests[0].body) as Record<string, unknown>).state, 'stopped');
  assert.equal(secondEvents.requests.length, 0);
  assert.equal(receiver.photos?.owner, OTHER_SESSION);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_B], 'the first session\'s pictures are dropped');
  assert.deepEqual(shownSizes(display), [PHOTO_A.length, PHOTO_B.length]);
});

test('POST /stop from a session that shows nothing leaves the other session\'s picture on the screen', async () => {
  const { receiver, display } = setup();
  const first = new MemorySender(receiver, 50001);
  const second = new MemorySender(receiver, 50002);
  await putPhoto(first, { key: KEY_A }, PHOTO_A);
  await putPhoto(second, { key: KEY_B, action: 'cacheOnly', session: OTHER_SESSION }, PHOTO_B);
  assert.equal((await postStop(second, OTHER_SESSION)).head.status, 200);
  assert.deepEqual(display.kinds, ['photo']);
  assert.equal(receiver.activity, MEDIA_SESSION_ACTIVITY);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_A], 'only the stopping session\'s pictures go');
});

// ---------------------------------------------------------------------------------------------
// Feature bits (spec 2.3) and the screen.

const PHOTO_BITS = featureMask(['Photo', 'PhotoCaching']);

test('a receiver with a screen advertises Photo and PhotoCaching; the photo frame has its own limits', () => {
  const { receiver } = setup();
  assert.equal(receiver.features & PHOTO_BITS, PHOTO_BITS);
  const { limits } = receiver.config;
  assert.deepEqual([limits.maxPhotoBytes, limits.photoCacheBytes, limits.photoCacheEntries], [2 * 1024 * 1024, 2 * 1024 * 1024, 3]);
  assert.equal(makeConfig({ profile: 'photo-frame', limits: { photoCacheEntries: 5 } }).limits.photoCacheEntries, 5, '--limit still wins');
  assert.ok(makeConfig({ profile: 'desktop' }).limits.photoCacheBytes > limits.photoCacheBytes);
});

test('without a screen there are no photo bits and PUT /photo is not served', async () => {
  const { receiver } = setup({ screen: false });
  assert.equal(receiver.features & PHOTO_BITS, 0n);
  assert.equal(receiver.photos, undefined);
  const response = await putPhoto(new MemorySender(receiver), { key: KEY_A }, PHOTO_A);
  assert.ok(response.head.status === 404 || response.head.status === 501, `status ${response.head.status}`);
  // POST /stop is still served (it also stops video).
  assert.equal((await postStop(new MemorySender(receiver))).head.status, 200);
});

test('the speaker profile offers no photos even on a host with a screen', async () => {
  const { receiver, display } = setup({ profile: 'speaker' });
  assert.equal(receiver.features & PHOTO_BITS, 0n);
  const response = await putPhoto(new MemorySender(receiver), { key: KEY_A }, PHOTO_A);
  assert.notEqual(response.head.status, 200);
  assert.deepEqual(display.kinds, []);
});

test('a receiver without photos answers PUT /photo the same whatever its size: 501 with the reason, the body not read', () => {
  const { receiver } = setup({ profile: 'speaker' });
  for (const size of [17_800, 269_000, 17_800_000]) {
    const sender = new MemorySender(receiver);
    // Only the head and the first bytes of the body are sent: the answer does not wait for the rest.
    sender.sendBytes(latin1Encode(`PUT /photo HTTP/1.1\r\nContent-Length: ${size}\r\n\r\n`));
    sender.sendBytes(PHOTO_A.subarray(0, 100));
    const response = sender.response();
    assert.equal(response.head.status, 501, `${size} bytes`);
    assert.equal(latin1Decode(response.body), 'this receiver does not implement this method\n');
  }
});

// ---------------------------------------------------------------------------------------------
// The JPEG check (src/receiver/media/jpeg.ts).

test('inspectJpeg reads the frame size of a well-formed JPEG', () => {
  assert.deepEqual(inspectJpeg(PHOTO_A), { ...SAMPLE_JPEG_SIZE, process: 'baseline', arithmetic: false, differential: false, precision: 8, components: [{ id: 1, horizontal: 1, vertical: 1, quantTable: 0 }] });
});

test('inspectJpeg accepts bytes after the end-of-image marker (camera trailers, padding)', () => {
  const trailer = new Uint8Array(PHOTO_A.length + 40);
  trailer.set(PHOTO_A);
  trailer.fill(0x00, PHOTO_A.length);
  assert.equal(isJpeg(trailer), true);
});

test('inspectJpeg names what is wrong', () => {
  const reasons: [Uint8Array, RegExp][] = [
    [new Uint8Array([0xff, 0xd8]), /start-of-image/],
    [new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]), /start-of-image/],
    [PHOTO_A.subarray(0, PHOTO_A.length - 1), /end-of-image/],
    // SOI, then an APP0 whose length runs past the end.
    [new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x40, 0x00, 0x4a, 0x46]), /runs past the end/],
    // SOI, SOS without a frame header, EOI.
    [new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0x00, 0xff, 0xd9]), /no frame header/],
    // SOI, EOI.
    [new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), /before the start of scan/],
    // SOI, then a byte that is not a marker.
    [new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0x12, 0x34]), /expected a marker/],
  ];
  for (const [bytes, reason] of reasons) {
    assert.throws(() => inspectJpeg(bytes), (error: unknown) => error instanceof JpegError && reason.test(error.message), `${reason}`);
  }
});

// ---------------------------------------------------------------------------------------------
// The photo cache (src/receiver/photo/photo-cache.ts).

test('PhotoCache: entries leave least recently used first; use() refreshes; bounds hold', () => {
  const cache = new PhotoCache({ maxBytes: 10, maxEntries: 3 });
  const bytes = (n: number) => new Uint8Array(n);
  assert.deepEqual(cache.put('a', bytes(2), 's'), { stored: true, evicted: [] });
  cache.put('b', bytes(2), 's');
  cache.put('c', bytes(2), 's');
  assert.equal(cache.use('a')?.key, 'a');
  assert.deepEqual(cache.put('d', bytes(2), 's'), { stored: true, evicted: ['b'] }, 'entries bound');
  assert.deepEqual(cache.keys(), ['c', 'a', 'd']);
  assert.deepEqual(cache.put('e', bytes(7), 's'), { stored: true, evicted: ['c', 'a'] }, 'bytes bound: 2 + 7 fit in 10');
  assert.deepEqual([cache.keys(), cache.bytes], [['d', 'e'], 9]);
  assert.deepEqual(cache.put('f', bytes(11), 's'), { stored: false, evicted: [] }, 'larger than the cache');
  assert.deepEqual(cache.keys(), ['d', 'e']);
});

test('PhotoCache: a key put again is replaced and counted once; has() is not a use', () => {
  const cache = new PhotoCache({ maxBytes: 100, maxEntries: 2 });
  cache.put('a', new Uint8Array(10), 's');
  cache.put('b', new Uint8Array(10), 's');
  assert.equal(cache.has('a'), true);
  cache.put('b', new Uint8Array(30), 's');
  assert.deepEqual([cache.keys(), cache.bytes], [['a', 'b'], 40]);
  cache.put('c', new Uint8Array(1), 's');
  assert.deepEqual(cache.keys(), ['b', 'c']);
  assert.equal(cache.use('a'), undefined);
});

test('PhotoCache: deleteSession drops one sender\'s pictures; a view into a larger buffer is copied', () => {
  const cache = new PhotoCache({ maxBytes: 100, maxEntries: 5 });
  const buffer = new Uint8Array(64);
  cache.put('a', buffer.subarray(0, 8), 's1');
  cache.put('b', new Uint8Array(8), 's2');
  cache.put('c', new Uint8Array(8), 's1');
  assert.equal(cache.use('a')?.jpeg.buffer.byteLength, 8);
  assert.equal(cache.deleteSession('s1'), 2);
  assert.deepEqual([cache.keys(), cache.bytes], [['b'], 8]);
  cache.clear();
  assert.deepEqual([cache.size, cache.bytes], [0, 0]);
});

// ---------------------------------------------------------------------------------------------
// The picture budget (limits.pictureBudgetBytes): every picture byte counted once.

/** The head of a PUT /photo (its Content-Length says `body`'s size), without the body. */
function photoHead(headers: PhotoHeaders, body: Uint8Array): Uint8Array {
  const bytes = photoRequest(headers, body);
  return bytes.subarray(0, bytes.length - body.length);
}

test('a PUT /photo the picture budget cannot hold, even with the cache given back, is answered 413 on its head naming the limit', async () => {
  const { receiver, display } = setup({ limits: { pictureBudgetBytes: 2000 } });
  const sender = new MemorySender(receiver);
  assert.equal((await putPhoto(sender, {}, PHOTO_D)).head.status, 200);
  assert.equal((await putPhoto(sender, { key: KEY_C, action: 'cacheOnly' }, PHOTO_C)).head.status, 200);
  const large = sampleJpeg(1500, 5);
  // Only the head is sent: the answer comes before any of the body.
  sender.sendBytes(photoHead({ key: KEY_A }, large));
  const refused = sender.response();
  assert.equal(refused.head.status, 413);
  assert.equal(latin1Decode(refused.body), `PUT /photo of ${large.length} bytes needs ${large.length} bytes; ${PHOTO_D.length} of limits.pictureBudgetBytes (2000) are held by other pictures\n`);
  assert.deepEqual(receiver.photos?.cache.keys(), [], 'the cache gave back its photo before refusing');
  assert.deepEqual(shownSizes(display), [PHOTO_D.length], 'the screen is unchanged');
  assert.equal(receiver.pictures.usedBytes, PHOTO_D.length);
});

test('an upload that fits once the cache gives back its least recently used photos is taken', async () => {
  const { receiver } = setup({ limits: { pictureBudgetBytes: 2000 } });
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A, action: 'cacheOnly' }, PHOTO_A);
  await putPhoto(sender, { key: KEY_B, action: 'cacheOnly' }, PHOTO_B);
  assert.equal(receiver.pictures.usedBytes, PHOTO_A.length + PHOTO_B.length);
  assert.equal((await putPhoto(sender, { key: KEY_D, action: 'cacheOnly' }, PHOTO_D)).head.status, 200);
  assert.deepEqual(receiver.photos?.cache.keys(), [KEY_B, KEY_D], 'A, used least recently, left');
  assert.equal(receiver.pictures.usedBytes, PHOTO_B.length + PHOTO_D.length);
});

test('the photo on the screen stays counted without an AssetKey, until the next takes the screen or the session stops', async () => {
  const { receiver } = setup();
  const sender = new MemorySender(receiver);
  await putPhoto(sender, {}, PHOTO_A);
  assert.equal(receiver.pictures.usedBytes, PHOTO_A.length);
  await putPhoto(sender, {}, PHOTO_B);
  assert.equal(receiver.pictures.usedBytes, PHOTO_B.length, 'the screen let go of the first');
  await postStop(sender);
  assert.equal(receiver.pictures.usedBytes, 0);
});

test('a photo both cached and shown is one copy, counted once', async () => {
  const { receiver, display } = setup();
  const sender = new MemorySender(receiver);
  await putPhoto(sender, { key: KEY_A }, PHOTO_A);
  assert.equal(receiver.pictures.usedBytes, PHOTO_A.length);
  await putPhoto(sender, { key: KEY_B }, PHOTO_B);
  await putPhoto(sender, { key: KEY_A, action: 'displayCached' });
  assert.equal(receiver.pictures.usedBytes, PHOTO_A.length + PHOTO_B.length);
  assert.equal(display.photos[2].jpeg, receiver.photos?.cache.use(KEY_A)?.jpeg, 'the screen shows the cached bytes themselves');
  await postStop(sender);
  assert.equal(receiver.pictures.usedBytes, 0);
});

test('an upload whose body never comes whole gives back its reservation', async () => {
  const { receiver } = setup({ limits: { pictureBudgetBytes: 2000 } });
  const sender = new MemorySender(receiver);
  sender.sendBytes(photoHead({ key: KEY_A }, sampleJpeg(1500, 5)));
  assert.equal(receiver.pictures.usedBytes, 1500, 'reserved on its head');
  sender.close();
  assert.equal(receiver.pictures.usedBytes, 0);
});
