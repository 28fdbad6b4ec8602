// Video by URL through the receiver (spec 2.9, 2.10, 3, 4.2, 6): every endpoint with exact bodies,
// the session driven through an in-memory Player and told by its reports, events once each with
// their own Content-Type, activity and TXT, bad inputs with one log line each, the answers when
// nothing is loaded, feature bits with and without a player.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Decode, utf8Decode, utf8Encode } from '../../src/bytes';
import { featureMask } from '../../src/discovery';
import { decodeBinaryPlist, encodeBinaryPlist } from '../../src/plist/binary';
import { real, isPlistDict, type PlistDict, type PlistValue } from '../../src/plist/value';
import { decodeXmlPlist, encodeXmlPlist } from '../../src/plist/xml';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { PROFILES, profilePlaysVideo, type ProfileName } from '../../src/receiver/profiles';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { sampleJpeg } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, RecordingAdvertiser, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemoryPlayer } from '../support/memory-player';
import { MemorySender, type SenderResponse } from '../support/memory-sender';
import { contentTypeOf, deliverReplies, ReversePeer } from '../support/reverse-peer';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SESSION = 'a3a0b9f8-2c5e-4d7a-9b1e-5f0c6d2e8a41';
const OTHER = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const MOVIE = 'http://192.0.2.7:8080/movies/clip.mp4';
const OTHER_MOVIE = 'http://192.0.2.7:8080/movies/other.mp4';

interface SetupOptions {
  profile?: ProfileName;
  dialect?: 'vendor' | 'apple';
  limits?: Partial<ReceiverLimits>;
  player?: boolean;
}

function setup(options: SetupOptions = {}) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const player = new MemoryPlayer();
  const display = new RecordingDisplay(clock);
  const advertiser = new RecordingAdvertiser();
  const receiver = new Receiver(makeConfig({ name: 'Screen', profile: options.profile ?? 'desktop', dialect: options.dialect ?? 'vendor', limits: options.limits }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(21),
    store: new MemoryStore(),
    log,
    display,
    advertiser,
    ...(options.player !== false && { player }),
  });
  new TimerDriver(receiver, clock);
  receiver.start();
  const prefix = options.dialect === 'apple' ? 'X-Apple-' : 'X-Vendor-';
  const senders = new Map<string, MemorySender>();
  let nextPort = 52000;
  /** One connection per session and address (the address of MemoryConnection unless told). */
  const sender = (session: string, address?: string) => {
    const key = `${session} ${address ?? ''}`;
    let found = senders.get(key);
    if (!found) senders.set(key, (found = new MemorySender(receiver, nextPort++, address)));
    return found;
  };
  const events: { session: string; state: PlistValue; category: PlistValue; sessionID: PlistValue; contentType: string | undefined }[] = [];
  const openEvents = (session = SESSION) =>
    ReversePeer.open(receiver, {
      sessionId: session,
      purpose: 'event',
      prefix,
      remotePort: nextPort++,
      responder: (request) => {
        const body = decodeXmlPlist(request.body);
        assert.ok(isPlistDict(body));
        events.push({ session, state: body.state, category: body.category, sessionID: body.sessionID, contentType: contentTypeOf(request) });
        return { status: 200 };
      },
    });
  /** A request of `session` (null: none) from `address`, its events delivered after it, as the network would. */
  const request = (method: string, target: string, options: { body?: Uint8Array; contentType?: string; session?: string | null; address?: string } = {}): SenderResponse => {
    const session = options.session === undefined ? SESSION : options.session;
    const headers: [string, string][] = session === null ? [] : [[`${prefix}Session-ID`, session]];
    const response = sender(session ?? '', options.address).request(method, target, { body: options.body, contentType: options.contentType, headers });
    deliverReplies();
    return response;
  };
  const play = (url = MOVIE, extra = '', session?: string | null) => request('POST', '/play', { body: utf8Encode(`Content-Location: ${url}\nStart-Position: 0.3\n${extra}`), contentType: 'text/parameters', session });
  /** The player reports, and the events it causes are delivered. */
  const report = (...args: Parameters<MemoryPlayer['report']>) => {
    player.report(...args);
    deliverReplies();
  };
  const advance = (ms: number) => {
    clock.advance(ms);
    deliverReplies();
  };
  const states = (session = SESSION) => events.filter((event) => event.session === session).map((event) => String(event.state));
  /** The sender closes its connection of `session` (null: none) from `address`; a later request opens a new one. */
  const hangUp = (session: string | null = SESSION, address?: string) => {
    const key = `${session ?? ''} ${address ?? ''}`;
    senders.get(key)?.close();
    senders.delete(key);
    deliverReplies();
  };
  return { clock, log, player, display, advertiser, receiver, request, play, report, advance, openEvents, events, states, hangUp, sender };
}

function text(response: SenderResponse): string {
  return utf8Decode(response.body, false);
}

function bplist(response: SenderResponse): PlistDict {
  const value = decodeBinaryPlist(response.body);
  assert.ok(isPlistDict(value));
  return value;
}

/** Log lines that mention `what` (a refusal is logged once, with the request line). */
function linesAbout(log: ReturnType<typeof recordingLogger>, what: string): string[] {
  return log.lines.filter((line) => line.message.includes(what)).map((line) => line.message);
}

// ---------------------------------------------------------------------------------------------
// Feature bits (spec 2.3 bits 0 and 4): only with a player, only where the profile offers video.

test('a desktop with a player advertises Video and VideoHTTPLiveStreams and serves POST /play', () => {
  const { receiver, play } = setup();
  assert.ok(receiver.features & featureMask(['Video']));
  assert.ok(receiver.features & featureMask(['VideoHTTPLiveStreams']));
  assert.equal(play().head.status, 200);
});

test('without a player bits 0 and 4 stay clear and the video endpoints are 404', () => {
  const { receiver, play, request } = setup({ player: false });
  assert.equal(receiver.features & featureMask(['Video', 'VideoHTTPLiveStreams']), 0n);
  assert.equal(play().head.status, 404);
  assert.equal(request('GET', '/playback-info').head.status, 404);
  assert.equal(receiver.video, undefined);
});

test('a photo frame given a player still offers no video (its profile does not), nor does a speaker', () => {
  for (const profile of ['photo-frame', 'speaker'] as const) {
    const { receiver, play } = setup({ profile });
    assert.equal(receiver.features & featureMask(['Video', 'VideoHTTPLiveStreams']), 0n, profile);
    assert.equal(play().head.status, 404, profile);
  }
});

test('a host gives a player to the profiles that mean to play video: desktop and media board', () => {
  const names = Object.keys(PROFILES) as ProfileName[];
  assert.deepEqual(names.filter(profilePlaysVideo), names.filter((name) => PROFILES[name].intended.includes('Video')));
  assert.equal(profilePlaysVideo('photo-frame'), false);
  assert.equal(profilePlaysVideo('speaker'), false);
  assert.equal(profilePlaysVideo('desktop'), true);
  assert.equal(profilePlaysVideo('media-board'), true);
});

test('a media board with a player advertises both bits', () => {
  const { receiver } = setup({ profile: 'media-board' });
  assert.equal(receiver.features & featureMask(['Video', 'VideoHTTPLiveStreams']), featureMask(['Video', 'VideoHTTPLiveStreams']));
});

// ---------------------------------------------------------------------------------------------
// POST /play, events, activity

test('POST /play: 200 empty, the player loads item 1 from 30%, event loading once with application/x-vendor-plist', () => {
  const { play, player, openEvents, events, states } = setup();
  openEvents();
  const response = play();
  assert.equal(response.head.status, 200);
  assert.equal(response.head.headers.get('Content-Length'), '0');
  assert.deepEqual(player.calls, [{ kind: 'load', item: 1, url: MOVIE, start: { fraction: 0.3 } }]);
  assert.deepEqual(states(), ['loading']);
  assert.equal(events[0].category, 'video');
  assert.equal(events[0].contentType, 'application/x-vendor-plist');
  assert.equal(typeof events[0].sessionID, 'number');
});

test('the video event body is exactly category, sessionID, state (spec 6)', () => {
  const { play, receiver } = setup();
  const bodies: string[] = [];
  ReversePeer.open(receiver, { sessionId: SESSION, purpose: 'event', responder: (request) => (bodies.push(latin1Decode(request.body)), { status: 200 }) });
  play();
  assert.deepEqual(bodies, [encodeXmlPlist({ category: 'video', sessionID: 1, state: 'loading' })]);
});

test('the real senders\' dialect: events are application/x-apple-plist, headers X-Apple-*', () => {
  const { play, openEvents, events } = setup({ dialect: 'apple' });
  openEvents();
  assert.equal(play().head.status, 200);
  assert.equal(events[0].contentType, 'application/x-apple-plist');
});

test('the player\'s states become events once each: loading, playing, paused, playing, stopped', () => {
  const { play, report, request, openEvents, states, player } = setup();
  openEvents();
  play();
  report('loading');
  report('loading', { bytes: 1000 });
  report('playing', { duration: 120, position: 36 });
  report('playing', { duration: 120, position: 36.5 });
  assert.equal(request('POST', '/rate?value=0.000000').head.status, 200);
  assert.deepEqual(player.calls.at(-1), { kind: 'rate', rate: 0 });
  report('paused', { duration: 120, position: 37 });
  report('paused', { duration: 120, position: 37 });
  assert.equal(request('POST', '/rate?value=1.000000').head.status, 200);
  report('playing', { duration: 120, position: 37 });
  assert.equal(request('POST', '/stop').head.status, 200);
  assert.deepEqual(states(), ['loading', 'playing', 'paused', 'playing', 'stopped']);
  assert.equal(player.calls.at(-1)?.kind, 'stop');
});

test('activity and TXT follow the video: receiving video (flag 17) while loaded, idle after POST /stop', () => {
  const { play, request, receiver, advertiser } = setup();
  const flags = () => {
    const update = advertiser.events.filter((event) => event.service.type === '_vendorplay._tcp').at(-1);
    return Number(update?.service.txt.find(([key]) => key === 'flags')?.[1]);
  };
  assert.equal(receiver.activity, 'idle');
  play();
  assert.equal(receiver.activity, 'receivingVideo');
  assert.equal(advertiser.events.at(-1)?.kind, 'update');
  assert.ok(flags() & (1 << 17), 'ReceiverSessionIsActive in the TXT record');
  request('POST', '/stop');
  assert.equal(receiver.activity, 'idle');
  assert.equal(flags() & (1 << 17), 0);
});

test('binary plist POST /play with Start-Position-Seconds and the session id in the body (pyatv)', () => {
  const { request, player, openEvents, states } = setup();
  openEvents(OTHER);
  const body = encodeBinaryPlist({ 'Content-Location': MOVIE, 'Start-Position': real(0.5), 'Start-Position-Seconds': real(61.25), 'X-Apple-Session-ID': OTHER });
  assert.equal(request('POST', '/play', { body, contentType: 'application/x-apple-binary-plist', session: null }).head.status, 200);
  assert.deepEqual(player.calls, [{ kind: 'load', item: 1, url: MOVIE, start: { seconds: 61.25 } }]);
  assert.deepEqual(states(OTHER), ['loading']);
});

test('binary plist rate 0: the player loads and is told rate 0 (start paused)', () => {
  const { request, player } = setup();
  const body = encodeBinaryPlist({ 'Content-Location': MOVIE, rate: real(0) });
  assert.equal(request('POST', '/play', { body, contentType: 'application/x-vendor-binary-plist' }).head.status, 200);
  assert.deepEqual(player.kinds, ['load', 'rate']);
  assert.deepEqual(player.calls[1], { kind: 'rate', rate: 0 });
});

test('a second POST /play of the same sender replaces its video: item 2, loading again, no stopped', () => {
  const { play, report, player, openEvents, states } = setup();
  openEvents();
  play();
  report('playing', { duration: 60 });
  play(OTHER_MOVIE);
  assert.deepEqual(player.calls.at(-1), { kind: 'load', item: 2, url: OTHER_MOVIE, start: { fraction: 0.3 } });
  assert.deepEqual(states(), ['loading', 'playing', 'loading']);
});

test('reports about an older item are ignored', () => {
  const { play, report, openEvents, states, request } = setup();
  openEvents();
  play();
  play(OTHER_MOVIE);
  report('playing', { item: 1, duration: 60, position: 10 });
  report('failed', { item: 1, error: { code: -1100, domain: 'NSURLErrorDomain', message: 'not found' } });
  assert.deepEqual(states(), ['loading', 'loading']);
  assert.equal(request('GET', '/scrub').body.length > 0, true);
  assert.equal(text(request('GET', '/scrub')), 'duration: 0.000000\nposition: 0.000000\n');
  assert.deepEqual(bplist(request('GET', '/getProperty?playbackErrorLog')).value, []);
});

test('another sender\'s video ends the first sender\'s: it is told stopped, the newcomer loading', () => {
  const { play, openEvents, states, receiver } = setup();
  openEvents(SESSION);
  openEvents(OTHER);
  play(MOVIE, '', SESSION);
  play(OTHER_MOVIE, '', OTHER);
  assert.deepEqual(states(SESSION), ['loading', 'stopped']);
  assert.deepEqual(states(OTHER), ['loading']);
  assert.equal(receiver.video?.owner, OTHER);
  assert.equal(receiver.activity, 'receivingVideo');
});

test('POST /stop from another session leaves the video playing; one without a session id stops it', () => {
  const { play, request, receiver, openEvents, states } = setup();
  openEvents();
  play();
  assert.equal(request('POST', '/stop', { session: OTHER }).head.status, 200);
  assert.equal(receiver.video?.loaded, true);
  assert.equal(request('POST', '/stop', { session: null }).head.status, 200);
  assert.equal(receiver.video?.loaded, false);
  assert.deepEqual(states(), ['loading', 'stopped']);
  // Once stopped, another stop says nothing more.
  request('POST', '/stop');
  assert.deepEqual(states(), ['loading', 'stopped']);
});

test('the receiver stopping tells the video\'s sender stopped', () => {
  const { play, receiver, openEvents, states } = setup();
  openEvents();
  play();
  receiver.stop();
  deliverReplies();
  assert.deepEqual(states(), ['loading', 'stopped']);
});

// ---------------------------------------------------------------------------------------------
// The connection that carried POST /play is the video's (pyatv's stop() closes it).

test('closing the connection that carried POST /play stops its video as POST /stop does: stopped, idle, the player stops, nothing loaded', () => {
  const { play, report, hangUp, request, openEvents, states, receiver, advertiser, player, log } = setup();
  const flags = () => Number(advertiser.events.filter((event) => event.service.type === '_vendorplay._tcp').at(-1)?.service.txt.find(([key]) => key === 'flags')?.[1]);
  openEvents();
  play();
  report('playing', { duration: 60, position: 18 });
  assert.ok(flags() & (1 << 17));
  hangUp();
  assert.deepEqual(states(), ['loading', 'playing', 'stopped']);
  assert.equal(receiver.video?.loaded, false);
  assert.equal(receiver.activity, 'idle');
  assert.equal(flags() & (1 << 17), 0, 'ReceiverSessionIsActive clear in the TXT record');
  assert.equal(player.calls.at(-1)?.kind, 'stop');
  assert.deepEqual(linesAbout(log, 'video 1 stopped'), ['video 1 stopped: the connection that carried its POST /play (192.0.2.20:52001) closed']);
  // Another connection (the same sender's, anew) asks: nothing is loaded.
  assert.equal(text(request('GET', '/playback-info')), encodeXmlPlist({ readyToPlay: false }));
});

test('another connection of the same sender closing, or its event connection, leaves the video playing; the /play connection then stops it', () => {
  const { play, report, hangUp, request, openEvents, states, receiver } = setup();
  const events = openEvents();
  play();
  report('playing', { duration: 60 });
  // The same sender asks on a second connection (a one-shot GET /playback-info) and closes it.
  assert.equal(request('GET', '/playback-info', { address: '192.0.2.20' }).head.status, 200);
  hangUp(SESSION, '192.0.2.20');
  assert.equal(receiver.video?.loaded, true);
  // Its reverse event connection closes.
  events.close();
  deliverReplies();
  assert.equal(receiver.video?.loaded, true);
  assert.equal(receiver.activity, 'receivingVideo');
  assert.deepEqual(states(), ['loading', 'playing']);
  hangUp();
  assert.equal(receiver.video?.loaded, false);
  assert.equal(receiver.activity, 'idle');
});

test('a POST /play on another connection moves the video there: the first connection closing no longer stops it', () => {
  const { request, hangUp, openEvents, states, receiver } = setup();
  openEvents();
  const playOn = (address: string | undefined, url: string) => request('POST', '/play', { body: utf8Encode(`Content-Location: ${url}\n`), contentType: 'text/parameters', address });
  assert.equal(playOn(undefined, MOVIE).head.status, 200);
  assert.equal(playOn('192.0.2.20', OTHER_MOVIE).head.status, 200);
  hangUp();
  assert.equal(receiver.video?.url, OTHER_MOVIE);
  hangUp(SESSION, '192.0.2.20');
  assert.equal(receiver.video?.loaded, false);
  assert.deepEqual(states(), ['loading', 'loading', 'stopped']);
});

test('the /play connection is not closed for idleness while its video is loaded, nor to make room; once the video ends it is', () => {
  const { play, report, request, advance, receiver, sender } = setup({ limits: { idleTimeoutMs: 10_000, maxConnectionsPerAddress: 1 } });
  play();
  report('playing', { duration: 600 });
  const connection = sender(SESSION).connection;
  advance(35_000);
  assert.equal(connection.closed, false);
  assert.equal(receiver.video?.loaded, true);
  // At maxConnectionsPerAddress it is not the idle one that makes room: the newcomer is refused.
  const newcomer = sender(OTHER);
  assert.equal(newcomer.connection.closed, true);
  assert.match(newcomer.connection.text, /^HTTP\/1\.1 503 /);
  assert.equal(connection.closed, false);
  assert.equal(request('POST', '/stop').head.status, 200);
  advance(9_999);
  assert.equal(connection.closed, false);
  advance(1);
  assert.equal(connection.closed, true);
});

// ---------------------------------------------------------------------------------------------
// GET /playback-info (spec 2.9), GET and POST /scrub

test('GET /playback-info with nothing loaded: exactly {readyToPlay: false}, what real receivers answer', () => {
  const { request } = setup();
  const response = request('GET', '/playback-info');
  assert.equal(response.head.status, 200);
  assert.equal(response.head.headers.get('Content-Type'), 'text/x-vendor-plist+xml');
  assert.equal(text(response), encodeXmlPlist({ readyToPlay: false }));
  assert.ok(text(response).includes('<key>readyToPlay</key>\n\t<false/>'));
});

test('GET /playback-info while loading with no report: every key, not ready, empty ranges, the start position', () => {
  const { request } = setup();
  request('POST', '/play', { body: encodeBinaryPlist({ 'Content-Location': MOVIE, 'Start-Position-Seconds': real(5) }), contentType: 'application/x-vendor-binary-plist' });
  const info = decodeXmlPlist(request('GET', '/playback-info').body, { exactReals: true });
  assert.deepEqual(info, {
    duration: real(0),
    loadedTimeRanges: [],
    playbackBufferEmpty: true,
    playbackBufferFull: false,
    playbackLikelyToKeepUp: false,
    position: real(5),
    rate: real(0),
    readyToPlay: false,
    seekableTimeRanges: [],
  });
});

test('GET /playback-info while playing: the player\'s facts, the position moved on at its rate since the report', () => {
  const { play, report, request, advance } = setup();
  play();
  report('playing', { duration: 120, position: 36, rate: 1, bufferEmpty: false, bufferFull: true, likelyToKeepUp: true, loaded: [{ start: 30, duration: 45.5 }], seekable: [{ start: 0, duration: 120 }] });
  advance(2500);
  const response = request('GET', '/playback-info');
  const xml = text(response);
  assert.ok(xml.includes('<key>rate</key>\n\t<real>1.0</real>'), 'rate is a real even when integral');
  assert.deepEqual(decodeXmlPlist(response.body, { exactReals: true }), {
    duration: real(120),
    loadedTimeRanges: [{ duration: real(45.5), start: real(30) }],
    playbackBufferEmpty: false,
    playbackBufferFull: true,
    playbackLikelyToKeepUp: true,
    position: real(38.5),
    rate: real(1),
    readyToPlay: true,
    seekableTimeRanges: [{ duration: real(120), start: real(0) }],
  });
  // Paused: the position stays where the player said.
  report('paused', { duration: 120, position: 40 });
  advance(5000);
  assert.equal(text(request('GET', '/scrub')), 'duration: 120.000000\nposition: 40.000000\n');
});

test('a live stream (duration Infinity) is written with duration 0; its window is in seekableTimeRanges', () => {
  const { play, report, request } = setup();
  play('https://cdn.example/live/master.m3u8');
  report('playing', { duration: Infinity, position: 3600, seekable: [{ start: 3500, duration: 120 }] });
  const info = decodeXmlPlist(request('GET', '/playback-info').body) as PlistDict;
  assert.equal(info.duration, 0);
  assert.deepEqual(info.seekableTimeRanges, [{ duration: 120, start: 3500 }]);
});

test('GET /scrub: text/parameters duration and position; with nothing loaded both 0', () => {
  const { play, report, request } = setup();
  const idle = request('GET', '/scrub');
  assert.equal(idle.head.status, 200);
  assert.equal(idle.head.headers.get('Content-Type'), 'text/parameters');
  assert.equal(text(idle), 'duration: 0.000000\nposition: 0.000000\n');
  play();
  report('paused', { duration: 83.124794, position: 12.5 });
  assert.equal(text(request('GET', '/scrub')), 'duration: 83.124794\nposition: 12.500000\n');
});

test('POST /scrub?position= seeks the player; the position is the target until the player reports; past the end it is the end', () => {
  const { play, report, request, player } = setup();
  play();
  report('paused', { duration: 100, position: 10 });
  assert.equal(request('POST', '/scrub?position=42.25').head.status, 200);
  assert.deepEqual(player.calls.at(-1), { kind: 'seek', seconds: 42.25 });
  assert.equal(text(request('GET', '/scrub')), 'duration: 100.000000\nposition: 42.250000\n');
  request('POST', '/scrub?position=500');
  assert.deepEqual(player.calls.at(-1), { kind: 'seek', seconds: 100 });
});

// ---------------------------------------------------------------------------------------------
// Failures: bad URLs end in a clear state, an event, an error-log entry and a log line.

test('a failed load: stopped (once), an error-log entry with the player\'s error, one warn line, nothing loaded', () => {
  const { play, report, request, openEvents, states, log, receiver, player } = setup();
  openEvents();
  play();
  report('loading');
  report('failed', { error: { code: -1100, domain: 'NSURLErrorDomain', message: 'HTTP 404 from the server' }, serverAddress: '192.0.2.7' });
  assert.deepEqual(states(), ['loading', 'stopped']);
  assert.equal(receiver.video?.loaded, false);
  assert.equal(receiver.activity, 'idle');
  assert.equal(player.calls.at(-1)?.kind, 'stop');
  const warnings = log.lines.filter((line) => line.level === 'warn' && line.message.includes('failed'));
  assert.deepEqual(warnings.map((line) => line.message), [`video 1 failed: ${MOVIE}: NSURLErrorDomain -1100: HTTP 404 from the server`]);
  const reply = bplist(request('POST', '/getProperty?playbackErrorLog', { body: new Uint8Array(0), contentType: 'application/x-vendor-binary-plist' }));
  assert.equal(reply.errorCode, 0);
  const entries = reply.value as PlistDict[];
  assert.equal(entries.length, 1);
  const entry = entries[0];
  assert.deepEqual(Object.keys(entry), ['comment', 'cs-guid', 'date', 'domain', 's-ip', 'status', 'uri']);
  assert.equal(entry.comment, 'HTTP 404 from the server');
  assert.equal(entry.domain, 'NSURLErrorDomain');
  assert.equal(entry.status, -1100);
  assert.equal(entry.uri, MOVIE);
  assert.equal(entry['s-ip'], '192.0.2.7');
  assert.match(String(entry['cs-guid']), /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
  assert.ok(entry.date instanceof Date);
  assert.equal(text(request('GET', '/playback-info')), encodeXmlPlist({ readyToPlay: false }));
});

test('a player that fetches the item and never gets ready: after limits.videoLoadTimeoutMs, stopped with NSURLErrorDomain -1001', () => {
  const { play, report, advance, request, openEvents, states, log } = setup({ limits: { videoLoadTimeoutMs: 5000 } });
  openEvents();
  play();
  report('loading', { requests: 1, bytes: 4096 });
  advance(4999);
  assert.deepEqual(states(), ['loading']);
  advance(1);
  assert.deepEqual(states(), ['loading', 'stopped']);
  const [entry] = bplist(request('GET', '/getProperty?playbackErrorLog')).value as PlistDict[];
  assert.equal(entry.status, -1001);
  assert.equal(entry.domain, 'NSURLErrorDomain');
  assert.match(String(entry.comment), /not ready to play in time \(5000 ms, limits.videoLoadTimeoutMs\)/);
  assert.equal(linesAbout(log, 'video 1 failed').length, 1);
});

test('a load no player takes (no report, or loading with nothing fetched) fails limits.videoLoadTimeoutMs after POST /play: stopped, an error-log entry, nothing loaded, idle', () => {
  const { play, report, advance, request, states, openEvents, receiver, player, log } = setup({ limits: { videoLoadTimeoutMs: 5000 } });
  openEvents();
  play();
  advance(2000);
  // The Node host with no screen page open: loading, nothing fetched.
  report('loading');
  advance(2999);
  assert.deepEqual(states(), ['loading']);
  assert.equal(receiver.activity, 'receivingVideo');
  advance(1);
  assert.deepEqual(states(), ['loading', 'stopped']);
  assert.equal(receiver.video?.loaded, false);
  assert.equal(receiver.activity, 'idle');
  assert.deepEqual(player.kinds, ['load', 'stop']);
  assert.equal(text(request('GET', '/playback-info')), encodeXmlPlist({ readyToPlay: false }));
  const [entry] = bplist(request('GET', '/getProperty?playbackErrorLog')).value as PlistDict[];
  assert.deepEqual({ status: entry.status, domain: entry.domain, comment: entry.comment, uri: entry.uri }, {
    status: -1001,
    domain: 'NSURLErrorDomain',
    comment: 'no player took the video in time (is a screen open?) (5000 ms, limits.videoLoadTimeoutMs)',
    uri: MOVIE,
  });
  assert.deepEqual(linesAbout(log, 'video 1 failed'), [`video 1 failed: ${MOVIE}: NSURLErrorDomain -1001: no player took the video in time (is a screen open?) (5000 ms, limits.videoLoadTimeoutMs)`]);
  // A screen that opens later and reports on the abandoned item changes nothing: it is over.
  report('playing', { item: 1, duration: 60, position: 0 });
  advance(60_000);
  assert.deepEqual(states(), ['loading', 'stopped']);
  assert.equal(receiver.video?.loaded, false);
  assert.deepEqual(player.kinds, ['load', 'stop']);
});

test('a player that takes the item late gets the whole limits.videoLoadTimeoutMs from then to get ready', () => {
  const { play, report, advance, request, states, openEvents } = setup({ limits: { videoLoadTimeoutMs: 5000 } });
  openEvents();
  play();
  advance(4000);
  // A page opens and fetches: the timeout runs again from here.
  report('loading', { requests: 1, bytes: 100 });
  advance(4999);
  assert.deepEqual(states(), ['loading']);
  advance(1);
  assert.deepEqual(states(), ['loading', 'stopped']);
  const [entry] = bplist(request('GET', '/getProperty?playbackErrorLog')).value as PlistDict[];
  assert.equal(entry.comment, 'the video was not ready to play in time (5000 ms, limits.videoLoadTimeoutMs)');
});

test('a player that gets ready in time is not failed later, even when it rebuffers', () => {
  const { play, report, advance, states, openEvents } = setup({ limits: { videoLoadTimeoutMs: 5000 } });
  openEvents();
  play();
  report('loading');
  advance(1000);
  report('playing', { duration: 60, position: 0 });
  report('loading', { duration: 60, position: 1, readyToPlay: true });
  advance(60_000);
  assert.deepEqual(states(), ['loading', 'playing', 'loading']);
});

test('played to the end: stopped, and the player unloads it', () => {
  const { play, report, player, states, openEvents } = setup();
  openEvents();
  play();
  report('playing', { duration: 10 });
  report('ended', { duration: 10, position: 10 });
  assert.deepEqual(states(), ['loading', 'playing', 'stopped']);
  assert.equal(player.calls.at(-1)?.kind, 'stop');
});

test('a player that drops a playing item (reports idle) ends the video; idle before it started does not', () => {
  const { play, report, states, openEvents } = setup();
  openEvents();
  play();
  report('idle');
  assert.deepEqual(states(), ['loading']);
  report('playing', { duration: 10 });
  report('idle');
  assert.deepEqual(states(), ['loading', 'playing', 'stopped']);
});

// ---------------------------------------------------------------------------------------------
// Bad inputs: the right status and one log line naming the cause.

test('bad POST /play bodies are 400, start nothing, and are logged once each', () => {
  const { request, player, log, receiver } = setup();
  const cases: [Uint8Array, string, RegExp][] = [
    [new Uint8Array(0), 'text/parameters', /no body/],
    [utf8Encode('Start-Position: 0.5\n'), 'text/parameters', /without Content-Location/],
    [utf8Encode(`Content-Location: ${MOVIE}\nStart-Position: 2\n`), 'text/parameters', /Start-Position 2 is not a fraction from 0 to 1/],
    [utf8Encode('bplist00 this is not one'), 'application/x-apple-binary-plist', /not a property list/],
    [utf8Encode('Content-Location: ftp://192.0.2.7/a.mp4\n'), 'text/parameters', /not an http or https URL/],
  ];
  for (const [body, contentType, reason] of cases) {
    const before = log.lines.length;
    const response = request('POST', '/play', { body, contentType });
    assert.equal(response.head.status, 400, String(reason));
    assert.match(text(response), reason);
    const lines = log.lines.slice(before).filter((line) => line.message.includes('POST /play'));
    assert.equal(lines.length, 1, `one log line for ${reason}: ${JSON.stringify(lines)}`);
    assert.match(lines[0].message, reason);
  }
  assert.deepEqual(player.calls, []);
  assert.equal(receiver.activity, 'idle');
});

test('a URL longer than limits.maxVideoUrlBytes is 400', () => {
  const { play } = setup({ limits: { maxVideoUrlBytes: 64 } });
  const response = play(`http://192.0.2.7/${'x'.repeat(80)}.mp4`);
  assert.equal(response.head.status, 400);
  assert.match(text(response), /this receiver takes up to 64 \(limits.maxVideoUrlBytes\)/);
});

test('POST /rate, POST /scrub and PUT /setProperty with no video loaded: 409 with one log line', () => {
  const { request, log, player } = setup();
  const endTime = encodeBinaryPlist({ value: { epoch: 0, flags: 1, timescale: 1, value: 10 } });
  for (const [method, target, body] of [['POST', '/rate?value=1.000000'], ['POST', '/scrub?position=10'], ['PUT', '/setProperty?forwardEndTime', endTime]] as const) {
    const before = log.lines.length;
    const response = request(method, target, { body, contentType: body ? 'application/x-vendor-binary-plist' : undefined });
    assert.equal(response.head.status, 409, target);
    assert.match(text(response), /no video is loaded \(POST \/play first\)/);
    assert.equal(log.lines.slice(before).filter((line) => line.message.includes(target.split('?')[0])).length, 1, target);
  }
  assert.deepEqual(player.calls, []);
});

test('bad /rate and /scrub queries are 400: missing, not a number, negative, beyond limits.maxVideoRate', () => {
  const { play, request, player } = setup();
  play();
  const loads = player.calls.length;
  for (const [target, reason] of [
    ['/rate', /no value= in the query/],
    ['/rate?value=fast', /value "fast" is not a number/],
    ['/rate?value=100', /value 100 is beyond the rates this receiver plays \(-8 to 8, limits.maxVideoRate\)/],
    ['/scrub', /no position= in the query/],
    ['/scrub?position=-5', /position -5 is not a number of seconds from 0/],
  ] as const) {
    const response = request('POST', target);
    assert.equal(response.head.status, 400, target);
    assert.match(text(response), reason);
  }
  assert.equal(player.calls.length, loads, 'the player was asked nothing');
  assert.equal(request('POST', '/rate?value=-2').head.status, 200, 'reverse at 2x is a rate players take');
  assert.deepEqual(player.calls.at(-1), { kind: 'rate', rate: -2 });
});

// ---------------------------------------------------------------------------------------------
// PUT /setProperty, GET and POST /getProperty (spec 2.10, 4.2)

function endTimeBody(seconds: number, flags = 1): Uint8Array {
  return encodeBinaryPlist({ value: { epoch: 0, flags, timescale: 1000, value: Math.round(seconds * 1000) } });
}

test('PUT /setProperty?forwardEndTime: binary plist {errorCode: 0}; playback that reaches it ends (stopped)', () => {
  const { play, report, request, advance, states, openEvents, player } = setup();
  openEvents();
  play();
  report('playing', { duration: 120, position: 10, rate: 1 });
  const response = request('PUT', '/setProperty?forwardEndTime', { body: endTimeBody(15), contentType: 'application/x-vendor-binary-plist' });
  assert.equal(response.head.status, 200);
  assert.equal(response.head.headers.get('Content-Type'), 'application/x-vendor-binary-plist');
  assert.deepEqual(decodeBinaryPlist(response.body), { errorCode: 0 });
  advance(4999);
  assert.deepEqual(states(), ['loading', 'playing']);
  advance(1);
  assert.deepEqual(states(), ['loading', 'playing', 'stopped']);
  assert.equal(player.calls.at(-1)?.kind, 'stop');
});

test('reverseEndTime ends reverse playback; an invalid CMTime clears an end time', () => {
  const { play, report, request, advance, states, openEvents } = setup();
  openEvents();
  play();
  report('playing', { duration: 120, position: 50, rate: 1 });
  request('PUT', '/setProperty?forwardEndTime', { body: endTimeBody(52), contentType: 'application/x-vendor-binary-plist' });
  request('PUT', '/setProperty?forwardEndTime', { body: endTimeBody(0, 0), contentType: 'application/x-vendor-binary-plist' });
  advance(10_000);
  assert.deepEqual(states(), ['loading', 'playing'], 'the cleared end time ends nothing');
  request('PUT', '/setProperty?reverseEndTime', { body: endTimeBody(40), contentType: 'application/x-vendor-binary-plist' });
  report('playing', { duration: 120, position: 60, rate: -2 });
  // 20 s of media back to 40 s at twice the speed: 10 s.
  advance(9999);
  assert.deepEqual(states(), ['loading', 'playing']);
  advance(1);
  assert.deepEqual(states(), ['loading', 'playing', 'stopped']);
});

test('/setProperty and /getProperty of unknown properties are 404 naming the known ones; garbage bodies 400', () => {
  const { play, request } = setup();
  play();
  const unknown = request('PUT', '/setProperty?brightness', { body: endTimeBody(1), contentType: 'application/x-vendor-binary-plist' });
  assert.equal(unknown.head.status, 404);
  assert.match(text(unknown), /unknown property "brightness"; known: forwardEndTime, reverseEndTime, isInterestedInDateRange, actionAtItemEnd/);
  const none = request('GET', '/getProperty');
  assert.equal(none.head.status, 404);
  assert.match(text(none), /no property named; known: playbackAccessLog, playbackErrorLog/);
  const garbage = request('PUT', '/setProperty?forwardEndTime', { body: utf8Encode('bplist00xyz'), contentType: 'application/x-vendor-binary-plist' });
  assert.equal(garbage.head.status, 400);
  assert.match(text(garbage), /PUT \/setProperty\?forwardEndTime: body is not a property list/);
});

test("properties senders set after POST /play that change nothing here are answered errorCode 0 (pyatv and iOS stop the video otherwise)", () => {
  const { play, request } = setup();
  play();
  for (const [property, value] of [['isInterestedInDateRange', true], ['actionAtItemEnd', 0]] as const) {
    const response = request('PUT', `/setProperty?${property}`, { body: encodeBinaryPlist({ value }), contentType: 'application/x-apple-binary-plist' });
    assert.equal(response.head.status, 200, property);
    assert.deepEqual(decodeBinaryPlist(response.body), { errorCode: 0 });
  }
});

test('/getProperty?playbackAccessLog, GET and POST alike: errorCode 0 and an entry filled from the player\'s reports', () => {
  const { play, report, request, advance, clock } = setup();
  const loadedAt = clock.wallTime();
  play();
  report('loading', { bytes: 0, requests: 1, serverAddress: '192.0.2.7' });
  advance(500);
  report('loading', { bytes: 250_000, requests: 2, serverAddress: '192.0.2.7', loaded: [{ start: 36, duration: 8 }] });
  advance(500);
  report('playing', { duration: 120, position: 36, bytes: 500_000, requests: 3, serverAddress: '192.0.2.8', startupTime: 0.75, loaded: [{ start: 36, duration: 20 }] });
  advance(10_000);
  report('playing', { duration: 120, position: 46, bytes: 500_000, requests: 3, serverAddress: '192.0.2.8', startupTime: 0.75, stalls: 1, framesDropped: 4, watched: 9.5, loaded: [{ start: 36, duration: 20 }, { start: 80, duration: 4 }] });
  const viaGet = request('GET', '/getProperty?playbackAccessLog');
  const viaPost = request('POST', '/getProperty?playbackAccessLog', { body: new Uint8Array(0), contentType: 'application/x-vendor-binary-plist' });
  assert.equal(viaGet.head.headers.get('Content-Type'), 'application/x-vendor-binary-plist');
  assert.deepEqual(viaGet.body, viaPost.body);
  const reply = decodeBinaryPlist(viaGet.body, { exactReals: true }) as PlistDict;
  assert.equal(reply.errorCode, 0);
  const [entry] = reply.value as PlistDict[];
  const guid = entry['cs-guid'];
  assert.match(String(guid), /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
  assert.deepEqual(entry, {
    bytes: 500_000,
    'c-duration-downloaded': real(24),
    'c-duration-watched': real(9.5),
    'c-frames-dropped': 4,
    // 500,000 bytes fetched in the first second after the load.
    'c-observed-bitrate': real(4_000_000),
    'c-overdue': 0,
    'c-stalls': 1,
    'c-start-time': real(36),
    'c-startup-time': real(0.75),
    'cs-guid': guid,
    date: new Date(loadedAt),
    's-ip': '192.0.2.8',
    's-ip-changes': 1,
    'sc-count': 3,
    uri: MOVIE,
  });
  assert.deepEqual(Object.keys(entry), ['bytes', 'c-duration-downloaded', 'c-duration-watched', 'c-frames-dropped', 'c-observed-bitrate', 'c-overdue', 'c-stalls', 'c-start-time', 'c-startup-time', 'cs-guid', 'date', 's-ip', 's-ip-changes', 'sc-count', 'uri']);
});

test('the access log keeps ended items (at most limits.videoLogEntries); an item no player took has none', () => {
  const { play, report, request } = setup({ limits: { videoLogEntries: 2 } });
  assert.deepEqual(bplist(request('GET', '/getProperty?playbackAccessLog')).value, []);
  play(`${MOVIE}?1`);
  report('playing', { duration: 10, bytes: 100 });
  play(`${MOVIE}?2`);
  play(`${MOVIE}?3`);
  report('playing', { duration: 10, bytes: 300 });
  play(`${MOVIE}?4`);
  report('playing', { duration: 10, bytes: 400 });
  request('POST', '/stop');
  const entries = bplist(request('GET', '/getProperty?playbackAccessLog')).value as PlistDict[];
  assert.deepEqual(entries.map((entry) => entry.uri), [`${MOVIE}?3`, `${MOVIE}?4`]);
  assert.deepEqual(entries.map((entry) => entry.bytes), [300, 400]);
  assert.equal(entries[0]['c-startup-time'], -1, 'unknown startup time: negative, as AVFoundation writes it');
});

test('each sender reads only its own access and error log entries: those of its session id, or with none named, of its address', () => {
  const { request, report } = setup();
  const THIRD = '0f1e2d3c-4b5a-4968-8776-655443322110';
  const play = (url: string, session: string | null, address: string) =>
    assert.equal(request('POST', '/play', { body: utf8Encode(`Content-Location: ${url}\n`), contentType: 'text/parameters', session, address }).head.status, 200);
  const uris = (property: string, session: string | null, address: string) => (bplist(request('GET', `/getProperty?${property}`, { session, address })).value as PlistDict[]).map((entry) => entry.uri);
  const error = (message: string) => ({ code: -12318, domain: 'CoreMediaErrorDomain', message });
  // Sender A (a session id) plays and recovers from an error; sender B (another session, another
  // address) replaces it and fails; sender C (no session id, as airplay-protocol) plays last.
  play(MOVIE, SESSION, '192.0.2.20');
  report('playing', { duration: 10, bytes: 100, error: error('A late') });
  play(OTHER_MOVIE, OTHER, '192.0.2.30');
  report('playing', { duration: 10, bytes: 200 });
  report('failed', { error: error('B broken') });
  const THIRD_MOVIE = 'http://192.0.2.7:8080/movies/third.mp4';
  play(THIRD_MOVIE, null, '192.0.2.40');
  report('playing', { duration: 10, bytes: 300, error: error('C late') });
  for (const property of ['playbackAccessLog', 'playbackErrorLog']) {
    assert.deepEqual(uris(property, SESSION, '192.0.2.20'), [MOVIE], `${property} of A`);
    assert.deepEqual(uris(property, OTHER, '192.0.2.30'), [OTHER_MOVIE], `${property} of B`);
    // No session id: the address says who asks (C's loaded item counts too).
    assert.deepEqual(uris(property, null, '192.0.2.40'), [THIRD_MOVIE], `${property} of C`);
    assert.deepEqual(uris(property, null, '192.0.2.30'), [OTHER_MOVIE], `${property} of B's address`);
    // A session id names the sender wherever it asks from; another session at A's address is not A.
    assert.deepEqual(uris(property, SESSION, '192.0.2.99'), [MOVIE], `${property} of A elsewhere`);
    assert.deepEqual(uris(property, THIRD, '192.0.2.20'), [], `${property} of another session at A's address`);
    assert.deepEqual(uris(property, null, '192.0.2.50'), [], `${property} of a stranger`);
  }
});

test('a recovered error the player repeats in every report is logged once', () => {
  const { play, report, request } = setup();
  play();
  const error = { code: -12318, domain: 'CoreMediaErrorDomain', message: 'segment late' };
  report('playing', { duration: 10, error });
  report('playing', { duration: 10, position: 1, error });
  const entries = bplist(request('GET', '/getProperty?playbackErrorLog')).value as PlistDict[];
  assert.deepEqual(entries.map((entry) => entry.status), [-12318]);
});

// ---------------------------------------------------------------------------------------------
// The screen: video, photos and slideshows take it from each other.

test('a video takes the screen from a photo session (photo event stopped); a photo then ends the video (stopped)', () => {
  const { request, play, openEvents, events, receiver, player } = setup();
  openEvents();
  const photo = request('PUT', '/photo', { body: sampleJpeg(600, 1), contentType: 'image/jpeg' });
  assert.equal(photo.head.status, 200);
  play();
  assert.deepEqual(events.map((event) => `${String(event.category)} ${String(event.state)}`), ['photo stopped', 'video loading']);
  assert.equal(request('PUT', '/photo', { body: sampleJpeg(700, 2), contentType: 'image/jpeg' }).head.status, 200);
  assert.deepEqual(events.map((event) => `${String(event.category)} ${String(event.state)}`), ['photo stopped', 'video loading', 'video stopped']);
  assert.equal(player.calls.at(-1)?.kind, 'stop');
  assert.equal(receiver.activity, 'receivingVideo', 'the photo session holds the screen');
});

test('a video takes the screen from a slideshow (slideshow stopped), and a slideshow from a video', () => {
  const { request, play, openEvents, events, receiver } = setup();
  openEvents();
  const slideshow = utf8Encode('<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>state</key><string>playing</string></dict></plist>');
  assert.equal(request('PUT', '/slideshows/1', { body: slideshow, contentType: 'text/x-vendor-plist+xml' }).head.status, 200);
  play();
  assert.equal(receiver.slideshow?.state, 'idle');
  assert.equal(request('PUT', '/slideshows/1', { body: slideshow, contentType: 'text/x-vendor-plist+xml' }).head.status, 200);
  assert.equal(receiver.video?.loaded, false);
  assert.deepEqual(events.map((event) => `${String(event.category)} ${String(event.state)}`), ['slideshow loading', 'slideshow stopped', 'video loading', 'video stopped', 'slideshow loading']);
});

test('GET /playback-info is answered by the dialect: text/x-apple-plist+xml with --dialect apple', () => {
  const { request } = setup({ dialect: 'apple' });
  assert.equal(request('GET', '/playback-info').head.headers.get('Content-Type'), 'text/x-apple-plist+xml');
  assert.equal(request('GET', '/getProperty?playbackAccessLog').head.headers.get('Content-Type'), 'application/x-apple-binary-plist');
});

test('a player that fails the item inside load() (a URL it refuses at once): loading, then stopped, activity idle', () => {
  const { play, player, openEvents, states, receiver, request } = setup();
  openEvents();
  player.load = (item, url, start) => {
    player.calls.push({ kind: 'load', item, url, start: { ...start } });
    player.report('failed', { item, error: { code: -1, domain: 'url', message: 'the player does not fetch this address' } });
  };
  assert.equal(play().head.status, 200);
  assert.deepEqual(states(), ['loading', 'stopped']);
  assert.equal(receiver.activity, 'idle');
  assert.equal(receiver.video?.loaded, false);
  assert.equal((bplist(request('GET', '/getProperty?playbackErrorLog')).value as PlistDict[])[0].comment, 'the player does not fetch this address');
});
