// Slideshows (spec 2.6-2.8, 3, 4.1, 6, 8): GET /slideshow-features and its languages, PUT
// /slideshows/1, pictures fetched over the sender's slideshow reverse connections (three in
// parallel, a bounded look-ahead), slide timing on the clock port, slideshow events, lost
// connections, bad replies.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lookupLanguage, parseAcceptLanguage, writeResponse } from '../../src/http';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { isPlistDict, type PlistDict, type PlistValue } from '../../src/plist/value';
import { decodeXmlPlist, encodeXmlPlistBytes } from '../../src/plist/xml';
import { featureMask } from '../../src/discovery';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { readAssetReply, SENDER_GONE_MS, SlideshowError } from '../../src/receiver/slideshow/slideshow';
import { readSlideshowRequest } from '../../src/receiver/slideshow/slideshow-routes';
import { SLIDESHOW_THEMES, themeLanguage } from '../../src/receiver/slideshow/slideshow-themes';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { deliverReplies, ReversePeer, type PeerAnswer, type PeerRequest } from '../support/reverse-peer';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SESSION = 'C3E2D7A9-6F0B-4C1E-9D55-2B7A1E0F4C21';
const OTHER_SESSION = '0D1B3C55-92A4-4E7E-8B11-6C0F2A9D7E30';
const PLIST_XML = 'text/x-vendor-plist+xml';
const BINARY_PLIST = 'application/x-vendor-binary-plist';

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * A small, well-formed baseline JPEG (SOI, SOF0 for 1x1, SOS, one byte of scan data, EOI). The
 * scan byte carries `n`, so tests can tell pictures apart.
 */
function tinyJpeg(n: number): Uint8Array {
  return new Uint8Array([
    0xff, 0xd8,
    0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00,
    0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00,
    n & 0x7f,
    0xff, 0xd9,
  ]);
}

/** The picture number a tinyJpeg carries. */
function pictureOf(jpeg: Uint8Array): number {
  return jpeg[jpeg.length - 3];
}

/** spec 2.8: the sender's reply to GET /slideshows/1/assets/1. */
function assetReply(id: number, key: PlistValue = 1, jpeg = tinyJpeg(id)): PeerAnswer {
  return {
    status: 200,
    headers: { 'Content-Type': BINARY_PLIST },
    body: encodeBinaryPlist({ data: jpeg, info: { id, key } }),
  };
}

/** The network delivers what the sender's peers answer (they never answer inside the core's call). */
function flush(): void {
  deliverReplies();
}

interface EventSeen {
  readonly category: PlistValue | undefined;
  readonly state: PlistValue | undefined;
  readonly lastAssetID: PlistValue | undefined;
  readonly sessionID: PlistValue | undefined;
}

function setup(options: { limits?: Partial<ReceiverLimits>; display?: boolean; dialect?: 'vendor' | 'apple' } = {}) {
  const clock = new ManualClock();
  const display = new RecordingDisplay(clock);
  const log = recordingLogger();
  // The pictures here are a few KB: replies up to 64 KB let the photo frame's picture budget hold
  // three fetches and the shown picture, so the budget is not what these tests meet (its own do).
  const limits = { maxReverseBodyBytes: 64 * 1024, ...options.limits };
  const receiver = new Receiver(makeConfig({ name: 'Frame', profile: 'photo-frame', dialect: options.dialect ?? 'vendor', limits }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(11),
    store: new MemoryStore(),
    log,
    ...(options.display !== false && { display }),
  });
  new TimerDriver(receiver, clock);
  // A connection keeps the session id of its first request: one control connection per session.
  const controls = new Map<string, MemorySender>();
  let nextPort = 52000;
  const controlOf = (sessionId: string) => {
    let sender = controls.get(sessionId);
    if (!sender) controls.set(sessionId, (sender = new MemorySender(receiver, nextPort++)));
    return sender;
  };
  const control = controlOf(SESSION);
  const events: EventSeen[] = [];

  /** The sender's event connection: answers every event 200 and records it. */
  const openEvents = (sessionId = SESSION) =>
    ReversePeer.open(receiver, {
      sessionId,
      purpose: 'event',
      remotePort: nextPort++,
      responder: (request) => {
        const body = decodeXmlPlist(request.body);
        assert.ok(isPlistDict(body));
        events.push({ category: body.category, state: body.state, lastAssetID: body.lastAssetID, sessionID: body.sessionID });
        return { status: 200 };
      },
    });

  /** A slideshow reverse connection; `responder` answers picture requests (none: by hand). */
  const openSlideshow = (responder?: (request: PeerRequest) => PeerAnswer | undefined, sessionId = SESSION) =>
    ReversePeer.open(receiver, { sessionId, purpose: 'slideshow', remotePort: nextPort++, responder });

  /** PUT /slideshows/1 with a spec 2.7 body. */
  const put = async (body: PlistDict, sessionId = SESSION) => {
    const response = await controlOf(sessionId).request('PUT', '/slideshows/1', {
      body: encodeXmlPlistBytes(body),
      contentType: PLIST_XML,
      headers: [['X-Vendor-Session-ID', sessionId]],
    });
    flush();
    return response;
  };
  const play = (slideDuration = 3, theme = 'Dissolve', sessionId = SESSION) => put({ settings: { slideDuration, theme }, state: 'playing' }, sessionId);
  const stop = (sessionId = SESSION) => put({ state: 'stopped' }, sessionId);

  /**
   * Moves the clock, at most half a second at a time, letting the replies and events that
   * follow run in between (as they would: a sender answers while time passes).
   */
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= 500) {
      clock.advance(Math.min(500, left));
      flush();
    }
  };

  return { clock, display, log, receiver, control, controlOf, events, openEvents, openSlideshow, put, play, stop, advance };
}

/** A sender that serves pictures 1, 2, 3... as they are asked for, on any of its connections. */
function counter(key: PlistValue = 1) {
  let next = 1;
  return () => assetReply(next++, key);
}

function states(events: EventSeen[]): string[] {
  return events.map((event) => `${String(event.state)} ${String(event.lastAssetID)}`);
}

function shownPictures(display: RecordingDisplay): number[] {
  return display.photos.map((photo) => pictureOf(photo.jpeg));
}

// ---------------------------------------------------------------------------------------------
// GET /slideshow-features (spec 2.6, 4.1)

async function features(headers: [string, string][] = [], dialect: 'vendor' | 'apple' = 'vendor') {
  const { control } = setup({ dialect });
  const response = await control.request('GET', '/slideshow-features', { headers });
  assert.equal(response.head.status, 200);
  const body = decodeXmlPlist(response.body) as PlistDict;
  const themes = body.themes as PlistDict[];
  return { response, themes, names: themes.map((theme) => theme.name), keys: themes.map((theme) => theme.key) };
}

test('GET /slideshow-features lists the themes as {key, name} in an XML plist of the dialect', async () => {
  const { response, themes, keys, names } = await features();
  assert.equal(response.head.headers.get('Content-Type'), PLIST_XML);
  assert.deepEqual(keys, SLIDESHOW_THEMES.map((theme) => theme.key));
  assert.deepEqual(names, SLIDESHOW_THEMES.map((theme) => theme.names.en));
  for (const theme of themes) assert.deepEqual(Object.keys(theme), ['key', 'name']);
  assert.ok(keys.includes('Dissolve') && keys.includes('Cube') && keys.includes('WipeAcross'));
  const apple = await features([], 'apple');
  assert.equal(apple.response.head.headers.get('Content-Type'), 'text/x-apple-plist+xml');
});

test('theme names follow Accept-Language: German, French, Spanish; keys stay the same', async () => {
  const german = await features([['Accept-Language', 'de-DE,de;q=0.9,en;q=0.8']]);
  assert.deepEqual(german.keys, SLIDESHOW_THEMES.map((theme) => theme.key));
  assert.equal(german.names[german.keys.indexOf('Dissolve')], 'Überblenden');
  assert.equal(german.names[german.keys.indexOf('Cube')], 'Würfel');
  const french = await features([['Accept-Language', 'fr-CA']]);
  assert.equal(french.names[french.keys.indexOf('Dissolve')], 'Fondu');
  const spanish = await features([['Accept-Language', 'es']]);
  assert.equal(spanish.names[spanish.keys.indexOf('Cube')], 'Cubo');
});

test('Accept-Language weights decide, q=0 excludes, and a language name works like a tag', () => {
  assert.equal(themeLanguage('en;q=0.5, fr;q=0.8, de;q=0.7'), 'fr');
  assert.equal(themeLanguage('de;q=0, fr;q=0.1'), 'fr');
  assert.equal(themeLanguage('ja, de;q=0.3'), 'de', 'an unsupported first choice falls through to the next');
  assert.equal(themeLanguage('German'), 'de', 'older senders send a language name');
  assert.equal(themeLanguage('Français'), 'fr');
  assert.equal(themeLanguage('de;q=2, fr'), 'fr', 'a malformed weight drops that element');
  assert.deepEqual(parseAcceptLanguage('da, en-gb;q=0.8, en;q=0.7'), [
    { range: 'da', q: 1 },
    { range: 'en-gb', q: 0.8 },
    { range: 'en', q: 0.7 },
  ]);
  assert.equal(lookupLanguage(parseAcceptLanguage('de-CH-x-phonebk'), ['en', 'de']), 'de');
});

test('theme names fall back to English: no header, unknown languages, or *', async () => {
  for (const header of [undefined, 'ja-JP', 'zh;q=0.9, ko;q=0.8', '*', '', 'de;q=0']) {
    assert.equal(themeLanguage(header), 'en', String(header));
  }
  const japanese = await features([['Accept-Language', 'ja-JP']]);
  assert.deepEqual(japanese.names, SLIDESHOW_THEMES.map((theme) => theme.names.en));
});

// ---------------------------------------------------------------------------------------------
// PUT /slideshows/1 (spec 2.7, 3, 4.1) and what it starts

test('PUT /slideshows/1 playing is answered with an empty dictionary and starts fetching (spec 3: idle -> playing)', async () => {
  const { play, openEvents, openSlideshow, display, events, receiver } = setup();
  await openEvents();
  const sender = await openSlideshow();
  const response = await play(3, 'Cube');
  assert.equal(response.head.status, 200);
  assert.equal(response.head.headers.get('Content-Type'), PLIST_XML);
  assert.deepEqual(decodeXmlPlist(response.body), {});
  assert.equal(sender.pending.length, 1);
  const [request] = sender.pending;
  assert.equal(request.head.method, 'GET');
  assert.equal(request.head.target, '/slideshows/1/assets/1');
  assert.equal(request.head.headers.get('Accept'), BINARY_PLIST);
  assert.equal(request.head.headers.get('X-Vendor-Session-ID'), SESSION);
  assert.deepEqual(states(events), ['loading 0'], 'loading while waiting for the first picture');
  assert.equal(receiver.slideshow?.state, 'loading');
  sender.answer(assetReply(7));
  flush();
  assert.deepEqual(shownPictures(display), [7]);
  assert.equal(display.photos[0].transition, 'cube', 'the theme is the transition');
  assert.deepEqual(states(events), ['loading 0', 'playing 7']);
  assert.equal(receiver.slideshow?.state, 'playing');
});

test('PUT /slideshows/1 stopped ends the show: screen cleared, event stopped with the last asset (spec 3: playing -> stopped)', async () => {
  const { play, stop, openEvents, openSlideshow, display, events, receiver, log } = setup();
  await openEvents();
  await openSlideshow(counter());
  await play(3);
  assert.deepEqual(shownPictures(display), [1]);
  const response = await stop();
  assert.equal(response.head.status, 200);
  assert.deepEqual(decodeXmlPlist(response.body), {});
  assert.equal(receiver.slideshow?.state, 'idle');
  assert.equal(display.kinds.at(-1), 'clear');
  assert.deepEqual(states(events), ['loading 0', 'playing 1', 'stopped 1']);
  assert.ok(log.lines.some((line) => /slideshow: stopped \(the sender stopped it\) after asset 1/.test(line.message)));
});

test('POST /stop ends the slideshow of its session (spec 3: photo or slideshow session -> stopped)', async () => {
  const { play, openEvents, openSlideshow, control, display, events, receiver, advance } = setup();
  await openEvents();
  const sender = await openSlideshow(counter());
  await play(2);
  await advance(2000);
  const response = await control.request('POST', '/stop', { headers: [['X-Vendor-Session-ID', SESSION]] });
  flush();
  assert.equal(response.head.status, 200);
  assert.equal(receiver.slideshow?.state, 'idle');
  assert.deepEqual(states(events), ['loading 0', 'playing 1', 'stopped 2']);
  assert.equal(display.kinds.at(-1), 'clear');
  const asked = sender.requests.length;
  await advance(10_000);
  assert.equal(sender.requests.length, asked, 'no more pictures are fetched');
  assert.equal(display.photos.length, 2);
});

test('POST /stop of another session leaves the slideshow running', async () => {
  const { play, openSlideshow, controlOf, receiver } = setup();
  await openSlideshow(counter());
  await play(2);
  await controlOf(OTHER_SESSION).request('POST', '/stop', { headers: [['X-Vendor-Session-ID', OTHER_SESSION]] });
  flush();
  assert.equal(receiver.slideshow?.state, 'playing');
});

test('activity is receiving video while the show loads and plays, idle once it stops', async () => {
  const { play, stop, openSlideshow, receiver } = setup();
  assert.equal(receiver.activity, 'idle');
  const sender = await openSlideshow();
  await play(3);
  assert.equal(receiver.activity, 'receivingVideo');
  sender.answer(assetReply(1));
  flush();
  assert.equal(receiver.activity, 'receivingVideo');
  assert.equal(receiver.activityFields().receiverSessionIsActive, true, 'flag 17 ReceiverSessionIsActive');
  await stop();
  assert.equal(receiver.activity, 'idle');
});

test('bad PUT /slideshows/1 bodies are answered 400 and start nothing', async () => {
  const { put, control, receiver } = setup();
  const bad: PlistDict[] = [
    { settings: { slideDuration: 3 } },
    { state: 'paused' },
    { settings: { slideDuration: 0 }, state: 'playing' },
    { settings: { slideDuration: 'three' }, state: 'playing' },
    { settings: { theme: 5 }, state: 'playing' },
  ];
  for (const body of bad) assert.equal((await put(body)).head.status, 400, JSON.stringify(body));
  const garbage = await control.request('PUT', '/slideshows/1', { body: new Uint8Array([1, 2, 3]), contentType: PLIST_XML });
  assert.equal(garbage.head.status, 400);
  assert.equal(receiver.slideshow?.state, 'idle');
});

test('settings: defaults, real seconds, unknown theme to Dissolve, binary plist bodies too', () => {
  assert.deepEqual(readSlideshowRequest(encodeXmlPlistBytes({ state: 'playing' })), { state: 'playing', settings: { slideDurationMs: 3000, theme: 'Dissolve' } });
  assert.deepEqual(readSlideshowRequest(encodeXmlPlistBytes({ settings: { slideDuration: 2.5, theme: 'cube' }, state: 'playing' })).settings, { slideDurationMs: 2500, theme: 'Cube' });
  const unknown = readSlideshowRequest(encodeBinaryPlist({ settings: { slideDuration: 5, theme: 'Reflections' }, state: 'playing' }));
  assert.deepEqual(unknown, { state: 'playing', settings: { slideDurationMs: 5000, theme: 'Dissolve' }, unknownTheme: 'Reflections' });
});

test('without a display there is no slideshow: no Slideshow bit, no endpoints', async () => {
  const withScreen = setup();
  assert.notEqual(withScreen.receiver.features & featureMask(['Slideshow']), 0n);
  const headless = setup({ display: false });
  assert.equal(headless.receiver.features & featureMask(['Slideshow']), 0n);
  assert.equal(headless.receiver.slideshow, undefined);
  const response = await headless.control.request('GET', '/slideshow-features');
  assert.equal(response.head.status, 404);
});

// ---------------------------------------------------------------------------------------------
// Fetching: parallel connections (spec 8) and the look-ahead

test('with three slideshow connections three picture requests are outstanding at once (spec 8)', async () => {
  const { play, openSlideshow, receiver } = setup();
  const senders = [await openSlideshow(), await openSlideshow(), await openSlideshow()];
  await play(3);
  assert.deepEqual(senders.map((sender) => sender.pending.length), [1, 1, 1]);
  assert.equal(receiver.slideshow?.fetchesInFlight, 3);
});

test('with one slideshow connection one request is outstanding; the next follows its answer', async () => {
  const { play, openSlideshow, display } = setup();
  const sender = await openSlideshow();
  await play(3);
  assert.equal(sender.requests.length, 1);
  sender.answer(assetReply(1));
  flush();
  assert.equal(sender.requests.length, 2);
  assert.equal(sender.pending.length, 1);
  assert.deepEqual(shownPictures(display), [1]);
});

test('pictures are shown in asset order (info.id), whatever order the replies arrive in', async () => {
  const { play, openSlideshow, display, advance } = setup();
  const senders = [await openSlideshow(), await openSlideshow(), await openSlideshow()];
  await play(1);
  // The sender hands out 1, 2, 3 in request order; the third connection answers first.
  senders[2].answer(assetReply(3));
  flush();
  assert.deepEqual(shownPictures(display), [], 'picture 3 waits for the earlier requests');
  senders[0].answer(assetReply(1));
  flush();
  assert.deepEqual(shownPictures(display), [1]);
  senders[1].answer(assetReply(2));
  await advance(2000);
  assert.deepEqual(shownPictures(display).slice(0, 3), [1, 2, 3]);
});

test('the sender\'s asset order wins over the order requests were sent: ids handed out across connections in any order', async () => {
  const { play, openSlideshow, openEvents, display, advance, events } = setup();
  await openEvents();
  const senders = [await openSlideshow(), await openSlideshow(), await openSlideshow()];
  await play(1);
  // The requests reached the sender in the order 2nd, 3rd, 1st connection: it numbered them so.
  senders[0].answer(assetReply(3));
  flush();
  senders[2].answer(assetReply(2));
  flush();
  assert.deepEqual(shownPictures(display), [], 'the first asset may still come on the second connection');
  senders[1].answer(assetReply(1));
  flush();
  await advance(3000);
  assert.deepEqual(shownPictures(display).slice(0, 3), [1, 2, 3]);
  assert.deepEqual(states(events).slice(0, 2), ['loading 0', 'playing 1'], 'lastAssetID is the info.id shown');
});

test('a failed request gives up its place: later pictures are not held for it', async () => {
  const { play, openSlideshow, display } = setup();
  const senders = [await openSlideshow(), await openSlideshow()];
  await play(1);
  senders[1].answer(assetReply(2));
  flush();
  senders[0].close();
  flush();
  assert.deepEqual(shownPictures(display), [2]);
});

test('a fourth slideshow connection is not used: at most three fetches run (spec 8)', async () => {
  const { play, openSlideshow, receiver } = setup({ limits: { slideshowLookAhead: 6 } });
  const senders = [await openSlideshow(), await openSlideshow(), await openSlideshow(), await openSlideshow()];
  await play(3);
  assert.deepEqual(senders.map((sender) => sender.pending.length), [1, 1, 1, 0]);
  assert.equal(receiver.slideshow?.fetchesInFlight, 3);
});

test('the look-ahead is bounded: pictures fetched or being fetched ahead of the one shown never pass the limit', async () => {
  const { play, openSlideshow, receiver, advance, display } = setup();
  const serve = counter();
  const senders = [await openSlideshow(serve), await openSlideshow(serve), await openSlideshow(serve)];
  await play(3);
  const asked = () => senders.reduce((sum, sender) => sum + sender.requests.length, 0);
  // One shown, three ahead (limits.slideshowLookAhead = 3), and not one more.
  assert.deepEqual(shownPictures(display), [1]);
  assert.equal(asked(), 4);
  assert.equal(receiver.slideshow?.picturesReady, 3);
  await advance(2999);
  assert.equal(asked(), 4);
  await advance(1);
  assert.deepEqual(shownPictures(display), [1, 2]);
  assert.equal(asked(), 5, 'a slide shown frees one place');
  assert.equal(receiver.slideshow?.picturesReady, 3);
});

test('a look-ahead of one fetches one picture at a time even with three connections', async () => {
  const { play, openSlideshow, receiver } = setup({ limits: { slideshowLookAhead: 1 } });
  const senders = [await openSlideshow(), await openSlideshow(), await openSlideshow()];
  await play(3);
  assert.deepEqual(senders.map((sender) => sender.pending.length), [1, 0, 0]);
  senders[0].answer(assetReply(1));
  flush();
  assert.equal(receiver.slideshow?.fetchesInFlight, 1);
  senders[0].answer(assetReply(2));
  flush();
  assert.equal(receiver.slideshow?.picturesReady, 1);
  assert.equal(receiver.slideshow?.fetchesInFlight, 0);
});

// ---------------------------------------------------------------------------------------------
// Timing and events

test('each slide is shown for slideDuration seconds (clock port)', async () => {
  const { play, openSlideshow, display, advance } = setup();
  await openSlideshow(counter());
  await play(5);
  await advance(5000 * 3);
  assert.deepEqual(shownPictures(display), [1, 2, 3, 4]);
  assert.deepEqual(display.photos.map((photo) => photo.at), [0, 5000, 10_000, 15_000]);
});

test('new settings for a running show apply to it: the current slide counts from when it was shown', async () => {
  const { play, openSlideshow, display, advance, events, openEvents } = setup();
  await openEvents();
  await openSlideshow(counter());
  await play(10);
  await advance(4000);
  await play(5, 'WipeDown');
  await advance(1000);
  assert.deepEqual(display.photos.map((photo) => [pictureOf(photo.jpeg), photo.at, photo.transition]), [
    [1, 0, 'dissolve'],
    [2, 5000, 'wipe-down'],
  ]);
  assert.deepEqual(states(events), ['loading 0', 'playing 1'], 'no second loading for a settings change');
});

test('the sender receives exactly: loading, playing, loading while a picture is late, playing, stopped', async () => {
  const { play, stop, openEvents, openSlideshow, advance, events } = setup();
  await openEvents();
  const sender = await openSlideshow();
  await play(2);
  sender.answer(assetReply(10));
  flush();
  sender.answer(assetReply(11));
  flush();
  await advance(2000); // 11 shown; the request for the next is not answered yet
  await advance(2000); // 11's time is over, nothing ready: loading, with 11 still up
  sender.answer(assetReply(12));
  flush();
  await stop();
  assert.deepEqual(events, [
    { category: 'slideshow', state: 'loading', lastAssetID: 0, sessionID: 1 },
    { category: 'slideshow', state: 'playing', lastAssetID: 10, sessionID: 1 },
    { category: 'slideshow', state: 'loading', lastAssetID: 11, sessionID: 1 },
    { category: 'slideshow', state: 'playing', lastAssetID: 12, sessionID: 1 },
    { category: 'slideshow', state: 'stopped', lastAssetID: 12, sessionID: 1 },
  ]);
});

test('another sender starting a slideshow stops the first one, which is told stopped', async () => {
  const { play, openEvents, openSlideshow, events, receiver, display } = setup();
  await openEvents(SESSION);
  await openEvents(OTHER_SESSION);
  await openSlideshow(counter(), SESSION);
  await openSlideshow(counter(), OTHER_SESSION);
  await play(3, 'Dissolve', SESSION);
  await play(3, 'Flip', OTHER_SESSION);
  assert.equal(receiver.slideshow?.sessionId, OTHER_SESSION);
  assert.deepEqual(
    events.map((event) => `${String(event.sessionID)} ${String(event.state)}`),
    ['1 loading', '1 playing', '1 stopped', '2 loading', '2 playing'],
  );
  assert.deepEqual(display.photos.map((photo) => photo.transition), ['dissolve', 'flip']);
});

// ---------------------------------------------------------------------------------------------
// Lost connections, bad replies

test('a slideshow connection lost mid-fetch: the show waits, then uses the sender\'s new connection', async () => {
  const { play, openSlideshow, display, receiver, log } = setup();
  const first = await openSlideshow();
  await play(3);
  assert.equal(first.pending.length, 1);
  first.close();
  flush();
  assert.equal(receiver.slideshow?.fetchesInFlight, 0);
  assert.equal(receiver.slideshow?.state, 'loading');
  assert.ok(log.lines.some((line) => /picture request on .* failed/.test(line.message)));
  const second = await openSlideshow();
  flush();
  assert.equal(second.pending.length, 1, 'the new connection is picked up at once');
  second.answer(assetReply(1));
  flush();
  assert.deepEqual(shownPictures(display), [1]);
});

test('one of three connections lost: the other two carry on', async () => {
  const { play, openSlideshow, advance, display } = setup();
  const serve = counter();
  const doomed = await openSlideshow();
  await openSlideshow(serve);
  await openSlideshow(serve);
  await play(1);
  doomed.close();
  flush();
  await advance(3000);
  assert.deepEqual(shownPictures(display), [1, 2, 3, 4]);
});

test('a sender that does not answer in time loses that connection (reverse timeout); a reconnect goes on', async () => {
  const { play, openSlideshow, advance, display } = setup({ limits: { reverseRequestTimeoutMs: 4000 } });
  const slow = await openSlideshow();
  await play(3);
  await advance(4000);
  assert.equal(slow.closed, true);
  await openSlideshow(counter());
  flush();
  assert.deepEqual(shownPictures(display), [1]);
});

/** A picture of about `bytes` bytes: tinyJpeg(n) with that much scan data (no 0xFF in it). */
function largeJpeg(n: number, bytes: number): Uint8Array {
  const tiny = tinyJpeg(n);
  const jpeg = new Uint8Array(bytes);
  jpeg.set(tiny.subarray(0, 25));
  jpeg.fill(n & 0x7f, 25, bytes - 2);
  jpeg.set([0xff, 0xd9], bytes - 2);
  return jpeg;
}

/**
 * The sender answers `peer`'s oldest request with `answer` over a link of `bytesPerSecond`:
 * a slice every half second of the manual clock, the replies and events between them delivered.
 */
function answerSlowly(peer: ReversePeer, answer: PeerAnswer, bytesPerSecond: number, clock: ManualClock): void {
  assert.ok(peer.pending.shift(), 'a request to answer');
  const bytes = writeResponse({ protocol: 'HTTP', version: '1.1', status: answer.status ?? 200, headers: answer.headers, body: answer.body ?? new Uint8Array(0) });
  const slice = bytesPerSecond / 2;
  for (let at = 0; at < bytes.length && !peer.closed; at += slice) {
    clock.advance(500);
    peer.connection.send(bytes.subarray(at, at + slice));
    flush();
  }
}

test('a 1.2 MB picture over a slow link (75 KB/s, 16 s) arrives and is shown: the deadline is one of progress', async () => {
  // The photo frame's own largest reply (2 MB and a plist's worth).
  const { play, openSlideshow, display, clock } = setup({ limits: { maxReverseBodyBytes: 2 * 1024 * 1024 + 4096 } });
  const slow = await openSlideshow();
  await play(3);
  const picture = largeJpeg(1, 1_200_000);
  answerSlowly(slow, { headers: { 'Content-Type': BINARY_PLIST }, body: encodeBinaryPlist({ data: picture, info: { id: 1, key: 1 } }) }, 75_000, clock);
  assert.equal(slow.closed, false, 'the connection was kept while the picture came');
  assert.deepEqual(display.photos.map((photo) => photo.jpeg.length), [1_200_000]);
});

test('a picture that stalls on every try is given up after slideshowPictureTries with a log line, never asked for again', async () => {
  const { play, openSlideshow, advance, log, receiver, events, openEvents, display } = setup({ limits: { reverseRequestTimeoutMs: 4000, minReverseBytesPerSecond: 1000 } });
  await openEvents();
  await play(3);
  // The sender serves the same picture to each new request and stalls 1000 bytes into it.
  const stalled = writeResponse({ protocol: 'HTTP', version: '1.1', status: 200, headers: { 'Content-Type': BINARY_PLIST }, body: encodeBinaryPlist({ data: largeJpeg(1, 50_000), info: { id: 1, key: 1 } }) }).subarray(0, 1000);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const peer = await openSlideshow();
    flush();
    assert.equal(peer.pending.length, 1, `try ${attempt} is asked for`);
    peer.connection.send(stalled);
    // 1000 bytes buy one second past the 4 s: cut at 5 s.
    await advance(4500);
    assert.equal(peer.closed, false);
    await advance(500);
    assert.equal(peer.closed, true, `try ${attempt} cut when its bytes stopped being enough`);
    flush();
  }
  assert.equal(receiver.slideshow?.state, 'idle');
  assert.ok(log.lines.some((line) => line.level === 'warn' && /a picture did not arrive in 3 tries \(last: .*too slow: 1000 bytes in 5000 ms.*\); giving it up/.test(line.message)));
  assert.deepEqual(states(events).at(-1), 'stopped 0', 'the sender is told the show stopped');
  const after = await openSlideshow();
  flush();
  assert.equal(after.pending.length, 0, 'the picture is not asked for again');
  assert.deepEqual(display.photos, []);
});

test('fetches that fail together (a sender restarting drops all three connections) are one try', async () => {
  const { play, openSlideshow, receiver, display } = setup();
  await play(3);
  for (let restart = 1; restart <= 2; restart++) {
    const peers = [await openSlideshow(), await openSlideshow(), await openSlideshow()];
    flush();
    assert.equal(receiver.slideshow?.fetchesInFlight, 3);
    for (const peer of peers) peer.close();
    flush();
    assert.equal(receiver.slideshow?.state, 'loading', `after restart ${restart} the show still waits for its sender`);
  }
  // Back for good: the show goes on.
  await openSlideshow(counter());
  flush();
  assert.deepEqual(shownPictures(display), [1]);
});

test('bad replies are logged and skipped; the show goes on with the next good picture', async () => {
  const { play, openSlideshow, display, log, advance, events, openEvents } = setup();
  await openEvents();
  const sender = await openSlideshow();
  await play(3);
  const bad: [PeerAnswer, RegExp][] = [
    [{ status: 200, body: new Uint8Array([0x3c, 0x3f, 0x78]) }, /not a property list/],
    [{ status: 200, body: encodeBinaryPlist({ info: { id: 1, key: 1 } }) }, /no data/],
    [{ status: 200, body: encodeBinaryPlist({ data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), info: { id: 2, key: 1 } }) }, /not a JPEG/],
    [{ status: 404 }, /sender answered 404/],
    [{ status: 200, body: encodeBinaryPlist(['data']) }, /not a dictionary/],
  ];
  for (const [answer, reason] of bad) {
    sender.answer(answer);
    flush();
    assert.ok(log.lines.some((line) => line.level === 'warn' && reason.test(line.message)), `logged: ${reason}`);
    assert.equal(sender.pending.length, 0, 'the next request waits a while after a bad reply');
    await advance(8000);
    assert.equal(sender.pending.length, 1);
  }
  sender.answer(assetReply(9));
  flush();
  assert.deepEqual(shownPictures(display), [9]);
  assert.deepEqual(states(events), ['loading 0', 'playing 9']);
});

test('after a bad reply the next request waits 500 ms, doubling while replies stay bad', async () => {
  const { play, openSlideshow, advance } = setup();
  const sender = await openSlideshow();
  await play(3);
  sender.answer({ status: 500 });
  flush();
  await advance(499);
  assert.equal(sender.pending.length, 0);
  await advance(1);
  assert.equal(sender.pending.length, 1);
  sender.answer({ status: 500 });
  flush();
  await advance(999);
  assert.equal(sender.pending.length, 0);
  await advance(1);
  assert.equal(sender.pending.length, 1);
});

test('info.key may be an integer or a string (spec 2.8); both are shown', async () => {
  assert.deepEqual(readAssetReply(assetReply(4, 1).body!).key, 1);
  assert.deepEqual(readAssetReply(assetReply(4, '1').body!).key, '1');
  assert.equal(readAssetReply(assetReply(4, '1').body!).id, 4);
  const { play, openSlideshow, display, advance, log } = setup();
  let id = 1;
  await openSlideshow(() => assetReply(id, id++ % 2 === 0 ? '1' : 1));
  await play(1);
  await advance(1000);
  assert.deepEqual(shownPictures(display), [1, 2]);
  assert.ok(log.lines.some((line) => /showing asset 1 \(key 1,/.test(line.message)));
  assert.ok(log.lines.some((line) => /showing asset 2 \(key 1,/.test(line.message)));
});

test('readAssetReply names what is wrong', () => {
  assert.throws(() => readAssetReply(new Uint8Array(0)), SlideshowError);
  assert.throws(() => readAssetReply(encodeBinaryPlist({ data: 'text' })), /reply data is not data/);
  const noInfo = readAssetReply(encodeBinaryPlist({ data: tinyJpeg(3) }));
  assert.equal(noInfo.id, undefined);
  assert.equal(pictureOf(noInfo.jpeg), 3);
});

test('a reply that arrives after the show stopped is dropped, and a new show starts clean', async () => {
  const { play, stop, openSlideshow, display, openEvents, events } = setup();
  await openEvents();
  const sender = await openSlideshow();
  await play(3);
  await stop();
  sender.answer(assetReply(1));
  flush();
  assert.deepEqual(shownPictures(display), []);
  await play(3);
  assert.equal(sender.pending.length, 1);
  sender.answer(assetReply(2));
  flush();
  assert.deepEqual(shownPictures(display), [2]);
  assert.deepEqual(states(events), ['loading 0', 'stopped 0', 'loading 0', 'playing 2']);
});

test('events a request causes go out after its answer (a sender may end its session on stopped)', async () => {
  const { play, stop, openEvents, openSlideshow, control, events } = setup();
  const eventPeer = await openEvents();
  await openSlideshow(counter());
  await play(3);
  const writtenAtAnswer: number[] = [];
  const write = control.connection.write.bind(control.connection);
  control.connection.write = (bytes: Uint8Array) => {
    writtenAtAnswer.push(eventPeer.connection.chunks.length);
    return write(bytes);
  };
  const before = eventPeer.connection.chunks.length;
  const response = await stop();
  assert.equal(response.head.status, 200);
  assert.deepEqual(writtenAtAnswer, [before], 'no event written before the 200');
  assert.equal(eventPeer.connection.chunks.length, before + 1);
  assert.deepEqual(states(events).at(-1), 'stopped 1');
});

test('a sender without a session id gets its events on its reverse connection without one', async () => {
  const { receiver } = setup();
  const seen: PlistValue[] = [];
  await ReversePeer.open(receiver, {
    remotePort: 53000,
    responder: (request) => {
      seen.push((decodeXmlPlist(request.body) as PlistDict).state);
      return { status: 200 };
    },
  });
  const legacy = new MemorySender(receiver, 53001);
  const playing = await legacy.request('PUT', '/slideshows/1', { body: encodeXmlPlistBytes({ state: 'playing' }), contentType: PLIST_XML });
  assert.equal(playing.head.status, 200);
  flush();
  assert.equal(receiver.slideshow?.state, 'loading');
  await legacy.request('PUT', '/slideshows/1', { body: encodeXmlPlistBytes({ state: 'stopped' }), contentType: PLIST_XML });
  flush();
  assert.deepEqual(seen, ['loading', 'stopped']);
});

test('a sender gone for good (no slideshow connection for 30 s) ends the show; one back in time does not', async () => {
  const { play, openSlideshow, openEvents, advance, receiver, events, display } = setup();
  await openEvents();
  const first = await openSlideshow(counter());
  await play(3);
  first.close();
  await advance(29_000);
  await openSlideshow(counter());
  flush();
  await advance(29_000);
  assert.equal(receiver.slideshow?.state, 'playing', 'the sender came back within 30 s');
  for (const peer of receiver.reverse.find(SESSION, 'slideshow')) peer.close('test: the sender goes away');
  await advance(SENDER_GONE_MS);
  assert.equal(receiver.slideshow?.state, 'idle');
  assert.equal(states(events).at(-1)?.split(' ')[0], 'stopped');
  assert.equal(display.kinds.at(-1), 'clear');
});

test('a receiver that stops tells its slideshow sender stopped before closing the connections', async () => {
  const { play, openEvents, openSlideshow, receiver, events } = setup();
  const eventPeer = await openEvents();
  await openSlideshow(counter());
  await play(3);
  receiver.stop();
  flush();
  assert.equal(states(events).at(-1), 'stopped 1');
  assert.equal(eventPeer.closed, true);
  assert.equal(receiver.slideshow?.state, 'idle');
});

test('a slideshow that takes the screen ends the photo session shown there; its sender is told', async () => {
  const { play, openSlideshow, openEvents, receiver, controlOf, events } = setup();
  await openEvents('photo-sender');
  const photoSender = controlOf('photo-sender');
  const put = await photoSender.request('PUT', '/photo', { body: tinyJpeg(9), headers: [['X-Vendor-Session-ID', 'photo-sender']] });
  assert.equal(put.head.status, 200);
  assert.equal(receiver.photos?.active, true);
  await openSlideshow(counter());
  await play(3);
  assert.equal(receiver.photos?.active, false);
  assert.ok(events.some((event) => event.category === 'photo' && event.state === 'stopped'));
});

// ---------------------------------------------------------------------------------------------
// The picture budget (limits.pictureBudgetBytes): fetches counted from their request on.

test('a fetch waits while the picture budget is full (the look-ahead shrinks), and is sent once a reply, counted at its size, leaves room', async () => {
  // Each fetch reserves the largest reply (64 KB here): the budget holds two, not three.
  const { play, openSlideshow, receiver, display } = setup({ limits: { pictureBudgetBytes: 2 * 64 * 1024 + 1000 } });
  const senders = [await openSlideshow(), await openSlideshow(), await openSlideshow()];
  await play(3);
  assert.deepEqual(senders.map((sender) => sender.pending.length), [1, 1, 0]);
  assert.equal(receiver.pictures.usedBytes, 2 * 64 * 1024);
  // The first reply is shown and counted at its size: room for one more fetch (on the first
  // free connection, the one that answered).
  const reply = assetReply(1);
  senders[0].answer(reply);
  flush();
  assert.deepEqual(shownPictures(display), [1]);
  assert.deepEqual(senders.map((sender) => sender.requests.length), [2, 1, 0]);
  assert.equal(receiver.pictures.usedBytes, 2 * 64 * 1024 + (reply.body?.length ?? 0));
  // The second arrives (it waits for its turn), counted at its size too: room for another.
  senders[1].answer(assetReply(2));
  flush();
  assert.deepEqual(senders.map((sender) => sender.requests.length), [2, 2, 0]);
  assert.equal(receiver.slideshow?.fetchesInFlight, 2);
});

test('a stopped show lets go of every picture it fetched and the one on the screen; a reply to it afterwards too', async () => {
  const { play, stop, openSlideshow, receiver } = setup();
  const senders = [await openSlideshow(), await openSlideshow()];
  await play(3);
  senders[0].answer(assetReply(1));
  flush();
  assert.equal(receiver.slideshow?.fetchesInFlight, 2);
  await stop();
  assert.equal(receiver.pictures.usedBytes, 2 * 64 * 1024, 'only the two fetches still outstanding');
  senders[1].answer(assetReply(2));
  senders[0].answer(assetReply(3));
  flush();
  assert.equal(receiver.pictures.usedBytes, 0);
});
