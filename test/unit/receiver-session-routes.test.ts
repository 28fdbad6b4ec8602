// A sender's session on the receiver, through its connections (in-memory ports): SETUP with each
// timing protocol, the answer's ports, the clock kept through RAOP timing, the event channel,
// RECORD / FLUSH / GET_PARAMETER / SET_PARAMETER / TEARDOWN, feedback keeping the session alive
// and its timeout ending it, streams refused by type, a second sender, and bad bodies.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Decode, utf8Encode } from '../../src/bytes';
import { decodeBinaryPlist, encodeBinaryPlist, isPlistDict, type PlistDict } from '../../src/plist';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { raopTimingReply, readTimestamp } from '../../src/timing';
import { ManualClock, MemoryConnection, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { MemoryUdpSocket } from '../support/mirror-ports';
import { MemoryPlayer } from '../support/memory-player';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SENDER = '192.0.2.20';

function setup(limits: Partial<ReceiverLimits> = {}) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const timingSocket = new MemoryUdpSocket(7012);
  const receiver = new Receiver(makeConfig({ name: 'Living Room', deviceId: '58:55:CA:1A:E2:88', limits }), { crypto: portableCryptoKernels, clock, random: seededRandom(5), store: new MemoryStore(), log, timingSocket });
  new TimerDriver(receiver, clock);
  const lines = (about: string) => log.lines.filter((line) => line.message.includes(about)).map((line) => `${line.level} ${line.message}`);
  return { clock, log, receiver, timingSocket, lines };
}

/** What pyatv sends to open a session (its keys and types). */
function sessionBody(overrides: PlistDict = {}, without: string[] = []): Uint8Array {
  const body: PlistDict = {
    deviceID: 'AA:BB:CC:DD:EE:FF',
    sessionUUID: '3A6E2B1C-1F4D-4C9E-9C3B-6B9D0E0A7F11',
    timingPort: 55_000,
    timingProtocol: 'NTP',
    isMultiSelectAirPlay: true,
    groupContainsGroupLeader: false,
    macAddress: 'AA:BB:CC:DD:EE:FF',
    model: 'iPhone14,3',
    name: 'pyatv',
    osBuildVersion: '20F66',
    osName: 'iPhone OS',
    osVersion: '16.5',
    senderSupportsRelay: false,
    sourceVersion: '690.7.1',
    statsCollectionEnabled: false,
    ...overrides,
  };
  for (const key of without) delete body[key];
  return encodeBinaryPlist(body);
}

function setupSession(sender: MemorySender, body = sessionBody()) {
  return sender.request('SETUP', 'rtsp://192.0.2.1/3413821438', { protocol: 'RTSP', body, contentType: 'application/x-apple-binary-plist' });
}

function plistOf(body: Uint8Array): PlistDict {
  const plist = decodeBinaryPlist(body);
  assert.ok(isPlistDict(plist));
  return plist;
}

const text = (body: Uint8Array) => utf8Decode(body, false);

test('SETUP opens a session: the answer names the event port and the timing port, and the clock is asked at once', () => {
  const { clock, receiver, timingSocket, lines } = setup();
  const sender = new MemorySender(receiver, 50_001, SENDER);
  const response = setupSession(sender);
  assert.equal(response.head.status, 200, text(response.body));
  assert.equal(response.head.headers.get('Content-Type'), 'application/x-vendor-binary-plist');
  assert.deepEqual(plistOf(response.body), { eventPort: 7002, timingPort: 7012 });
  assert.equal(receiver.sessions.count, 1);
  assert.deepEqual(lines('opened'), [`info ${SENDER}:50001 session 1 (pyatv, iPhone14,3) opened: device AA:BB:CC:DD:EE:FF, session 3A6E2B1C-1F4D-4C9E-9C3B-6B9D0E0A7F11, timing NTP (asking ${SENDER}:55000 from UDP port 7012); events on port 7002`]);
  // The first timing request is due at once, to the sender's timing port.
  clock.advance(0);
  assert.equal(timingSocket.sent.length, 1);
  const [request] = timingSocket.sent;
  assert.deepEqual([request.address, request.port, request.bytes.length, request.bytes[1]], [SENDER, 55_000, 32, 0xd2]);
});

test("the session's clock: a sender 5 s ahead is measured through RAOP timing, four requests a quarter second apart and then every 3 s, and the sender's own requests are answered", () => {
  const { clock, receiver, timingSocket } = setup();
  const sender = new MemorySender(receiver, 50_001, SENDER);
  setupSession(sender);
  clock.advance(0);
  for (let i = 0; i < 4; i++) {
    const request = timingSocket.sent.at(-1)!;
    clock.advance(1);
    // The sender's clock reads ours + 5000 ms; 1 ms each way.
    const reply = raopTimingReply(request.bytes, clock.now() + 5000, clock.now() + 5000);
    clock.advance(1);
    timingSocket.deliver(reply, SENDER, 55_000);
    sender.request('POST', '/feedback', { protocol: 'RTSP' });
    clock.advance(i < 3 ? 248 : 2998);
  }
  assert.equal(timingSocket.sent.length, 5, 'four in the burst, the fifth 3 s after the fourth');
  assert.equal(clock.now(), 3750);
  const timing = receiver.sessions.list()[0].timing!;
  assert.ok(Math.abs(timing.estimate.offsetMs! - 5000) < 0.01, `offset ${timing.estimate.offsetMs}`);
  assert.equal(timing.estimate.samples, 4);
  // The sender asks our time: answered from the same socket, its transmit time as our origin.
  const asked = new Uint8Array(32);
  asked.set([0x80, 0xd2, 0x00, 0x07]);
  asked.set([0, 0, 0, 9, 0x80, 0, 0, 0], 24);
  timingSocket.deliver(asked, SENDER, 55_000);
  const answer = timingSocket.sent.at(-1)!;
  assert.equal(answer.bytes[1], 0xd3);
  assert.equal(readTimestamp(answer.bytes, 8), readTimestamp(asked, 24));
  // From elsewhere: dropped.
  const before = timingSocket.sent.length;
  timingSocket.deliver(asked, '192.0.2.99', 55_000);
  assert.equal(timingSocket.sent.length, before);
  // Garbage from the sender (an NTP packet, a cut one, an answer to nothing asked): refused one by
  // one, the estimate as it was.
  const estimate = timing.estimate.offsetMs;
  for (const junk of [new Uint8Array(48), new Uint8Array(7), raopTimingReply(asked, 1, 1)]) timingSocket.deliver(junk, SENDER, 55_000);
  assert.equal(timing.refused, 3);
  assert.equal(timing.estimate.offsetMs, estimate);
  assert.equal(timing.estimate.samples, 4);
});

test('timingProtocol None keeps no clock; PTP is refused naming the reason; NTP without a port is malformed', () => {
  const { receiver, timingSocket } = setup();
  const none = setupSession(new MemorySender(receiver, 50_002, SENDER), sessionBody({ timingProtocol: 'None' }, ['timingPort']));
  assert.equal(none.head.status, 200);
  assert.deepEqual(plistOf(none.body), { eventPort: 7002 });
  assert.equal(timingSocket.sent.length, 0);
  const ptp = setupSession(new MemorySender(receiver, 50_003, SENDER), sessionBody({ timingProtocol: 'PTP' }));
  assert.equal(ptp.head.status, 501);
  assert.match(text(ptp.body), /timingProtocol PTP is not served/);
  const noPort = setupSession(new MemorySender(receiver, 50_004, SENDER), sessionBody({}, ['timingPort']));
  assert.equal(noPort.head.status, 400);
  assert.match(text(noPort.body), /timingProtocol NTP without a timingPort/);
  assert.equal(receiver.sessions.count, 1, 'only the None session opened');
});

test('bad SETUP bodies get 400 naming what is wrong, and open nothing', () => {
  const { receiver } = setup();
  const cases: [Uint8Array, RegExp][] = [
    [utf8Encode('deviceID: x'), /not a binary property list/],
    [encodeBinaryPlist(['a']), /is a array, not a dictionary|is an? array, not a dictionary/],
    [sessionBody({ deviceID: 42 }), /deviceID is a integer, not a string|deviceID is an? integer, not a string/],
    [sessionBody({ timingPort: 70_000 }), /timingPort 70000 is not a UDP port/],
    [sessionBody({ timingProtocol: 'GPS' }), /timingProtocol "GPS" is not one of NTP, PTP, None/],
    [sessionBody({ isRemoteControlOnly: 'yes' }), /isRemoteControlOnly is a string, not a boolean/],
    [sessionBody({ name: 'x'.repeat(300) }), /name is 300 characters/],
    [encodeBinaryPlist({ timingProtocol: 'None' }), /required keys deviceID, sessionUUID missing/],
  ];
  let port = 50_010;
  for (const [body, reason] of cases) {
    const response = setupSession(new MemorySender(receiver, port++, SENDER), body);
    assert.equal(response.head.status, 400, text(response.body));
    assert.match(text(response.body), reason);
  }
  const empty = new MemorySender(receiver, port++, SENDER).request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' });
  assert.equal(empty.head.status, 400);
  assert.match(text(empty.body), /SETUP without a body/);
  const fairPlay = setupSession(new MemorySender(receiver, port++, SENDER), sessionBody({ ekey: new Uint8Array(72), eiv: new Uint8Array(16) }));
  assert.equal(fairPlay.head.status, 501);
  assert.equal(receiver.sessions.count, 0);
});

test('streams are refused by type until they are served; without a session first, 454; a second session on one connection, 455', () => {
  const { receiver } = setup();
  const sender = new MemorySender(receiver, 50_001, SENDER);
  const early = setupSession(sender, encodeBinaryPlist({ streams: [{ type: 96, ct: 1, spf: 352 }] }));
  assert.equal(early.head.status, 454);
  assert.equal(setupSession(sender).head.status, 200);
  const audio = setupSession(sender, encodeBinaryPlist({ streams: [{ type: 96, ct: 1, spf: 352, sr: 44_100, shk: new Uint8Array(32), controlPort: 6001 }] }));
  assert.equal(audio.head.status, 501);
  assert.equal(audio.head.reason, 'Audio And Data Streams Not Served', 'senders that show only the status line say why too');
  assert.match(text(audio.body), /stream type 96 \(realtime audio\) not served/);
  const unknown = setupSession(sender, encodeBinaryPlist({ streams: [{ type: 42 }] }));
  assert.match(text(unknown.body), /type 42 \(unknown\)/);
  assert.equal(setupSession(sender, encodeBinaryPlist({ streams: [{ ct: 1 }] })).head.status, 400, 'a stream without a type');
  const again = setupSession(sender);
  assert.equal(again.head.status, 455);
  assert.match(text(again.body), /has session 1 \(pyatv, iPhone14,3\) open already/);
  assert.equal(receiver.sessions.count, 1);
});

test('RECORD, FLUSH, the volume both ways, progress, and 451 for a parameter not known', () => {
  const { receiver } = setup();
  const sender = new MemorySender(receiver, 50_001, SENDER);
  const noSession = sender.request('RECORD', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' });
  assert.equal(noSession.head.status, 454);
  setupSession(sender);
  assert.equal(sender.request('RECORD', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 200);
  assert.equal(sender.request('FLUSH', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 200);
  const get = () => sender.request('GET_PARAMETER', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: utf8Encode('volume\r\n'), contentType: 'text/parameters' });
  assert.equal(text(get().body), 'volume: 0.000000\n', 'the loudest before the sender sets one');
  const set = (line: string) => sender.request('SET_PARAMETER', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: utf8Encode(line), contentType: 'text/parameters' });
  assert.equal(set('volume: -11.5\r\n').head.status, 200);
  assert.equal(text(get().body), 'volume: -11.500000\n');
  assert.equal(set('volume: -144\r\n').head.status, 200, 'muted');
  const loud = set('volume: 6\r\n');
  assert.equal(loud.head.status, 400);
  assert.match(text(loud.body), /volume "6" is not -144 \(muted\) or -30 to 0 dB/);
  assert.equal(set('progress: 1000/2000/90000\r\n').head.status, 200);
  assert.equal(set('progress: 1/2\r\n').head.status, 400);
  // Metadata and artwork of audio: accepted and dropped.
  assert.equal(sender.request('SET_PARAMETER', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: new Uint8Array(100), contentType: 'image/jpeg' }).head.status, 200);
  const unknown = sender.request('GET_PARAMETER', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: utf8Encode('brightness\r\n'), contentType: 'text/parameters' });
  assert.equal(unknown.head.status, 451);
  assert.match(text(unknown.body), /brightness not known/);
});

test('TEARDOWN of a stream leaves the session; TEARDOWN of the session ends it, its event channel and its clock, and the connection stays', () => {
  const { clock, receiver, timingSocket, lines } = setup();
  const sender = new MemorySender(receiver, 50_001, SENDER);
  setupSession(sender);
  const events = new MemoryConnection();
  events.remoteAddress = SENDER;
  events.remotePort = 50_002;
  receiver.acceptEvent(events);
  assert.equal(events.closed, false);
  const stream = sender.request('TEARDOWN', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: encodeBinaryPlist({ streams: [{ type: 96 }] }), contentType: 'application/x-apple-binary-plist' });
  assert.equal(stream.head.status, 200);
  assert.equal(receiver.sessions.count, 1);
  const whole = sender.request('TEARDOWN', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' });
  assert.equal(whole.head.status, 200);
  assert.equal(receiver.sessions.count, 0);
  assert.equal(events.closed, true, 'the event channel closed');
  assert.match(lines('ended: TEARDOWN')[0], /session 1 \(pyatv, iPhone14,3\) ended: TEARDOWN; clock: 0 samples/);
  const sent = timingSocket.sent.length;
  clock.advance(10_000);
  assert.equal(timingSocket.sent.length, sent, 'no more timing requests');
  assert.equal(sender.connection.closed, false, 'the connection stays');
  assert.equal(sender.request('RECORD', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 454);
  assert.equal(setupSession(sender).head.status, 200, 'a new session on the same connection');
});

test('feedback keeps a session; without any request for limits.sessionTimeoutMs it ends', () => {
  const { clock, receiver, lines } = setup({ sessionTimeoutMs: 30_000 });
  const sender = new MemorySender(receiver, 50_001, SENDER);
  setupSession(sender);
  for (let i = 0; i < 30; i++) {
    clock.advance(2000);
    assert.equal(sender.request('POST', '/feedback', { protocol: 'RTSP' }).head.status, 200);
  }
  assert.equal(receiver.sessions.count, 1, 'alive after 60 s of feedback');
  clock.advance(29_999);
  assert.equal(receiver.sessions.count, 1);
  clock.advance(1);
  assert.equal(receiver.sessions.count, 0);
  assert.match(lines('ended')[0], /session 1 \(pyatv, iPhone14,3\) ended: no request from the sender for 30 s \(limits.sessionTimeoutMs\)/);
});

test('the connection closing ends its session; a second sender opens its own beside the first; past maxSessions the quietest makes room', () => {
  const { clock, receiver, lines } = setup({ maxSessions: 2 });
  const first = new MemorySender(receiver, 50_001, SENDER);
  setupSession(first);
  clock.advance(1000);
  const second = new MemorySender(receiver, 50_001, '192.0.2.30');
  assert.equal(setupSession(second, sessionBody({ name: 'phone' })).head.status, 200);
  assert.equal(receiver.sessions.count, 2);
  clock.advance(1000);
  first.request('POST', '/feedback', { protocol: 'RTSP' });
  clock.advance(1000);
  const third = new MemorySender(receiver, 50_001, '192.0.2.40');
  assert.equal(setupSession(third, sessionBody({ name: 'tablet' })).head.status, 200);
  assert.equal(receiver.sessions.count, 2);
  assert.match(lines('ended')[0], /session 2 \(phone, iPhone14,3\) ended: makes room for 192\.0\.2\.40:50001's session \(limits.maxSessions 2\)/);
  first.close();
  assert.equal(receiver.sessions.count, 1);
  assert.match(lines('ended')[1], /session 1 \(pyatv, iPhone14,3\) ended: its connection closed/);
});

test('an event channel is taken for the newest waiting session of its address; others are closed at once with a log line', () => {
  const { receiver, lines } = setup();
  const connect = (address: string, port: number) => {
    const events = new MemoryConnection();
    events.remoteAddress = address;
    events.remotePort = port;
    receiver.acceptEvent(events);
    return events;
  };
  const stranger = connect('192.0.2.99', 40_000);
  assert.equal(stranger.closed, true);
  assert.deepEqual(lines('event channel refused'), ['warn 192.0.2.99:40000 event channel refused: no session from that address is waiting for one (SETUP first)']);
  setupSession(new MemorySender(receiver, 50_001, SENDER));
  const channel = connect(SENDER, 40_001);
  assert.equal(channel.closed, false);
  assert.deepEqual(lines('event channel of'), [`info ${SENDER}:40001 event channel of session 1 (pyatv, iPhone14,3) open`]);
  const extra = connect(SENDER, 40_002);
  assert.equal(extra.closed, true);
  assert.match(lines('event channel refused')[1], /every session from that address has its event channel already/);
  // What the sender writes unasked is dropped, up to the limit, then the channel closes.
  channel.send(new Uint8Array(1000));
  assert.equal(channel.closed, false);
  channel.send(new Uint8Array(64 * 1024));
  assert.equal(channel.closed, true);
  assert.match(lines('event channel closed').at(-1)!, /wrote 66536 bytes on it unasked \(limits.maxEventChannelInputBytes 65536\)/);
  assert.equal(receiver.sessions.count, 1, 'the session goes on without it');
});

test("video played inside a session ends with it: TEARDOWN, and the sender going quiet", () => {
  const clock = new ManualClock();
  const log = recordingLogger();
  const player = new MemoryPlayer();
  const receiver = new Receiver(makeConfig({ name: 'Living Room', deviceId: '58:55:CA:1A:E2:88', profile: 'desktop', limits: { sessionTimeoutMs: 30_000 } }), { crypto: portableCryptoKernels, clock, random: seededRandom(5), store: new MemoryStore(), log, timingSocket: new MemoryUdpSocket(7012), player, display: new RecordingDisplay(clock) });
  new TimerDriver(receiver, clock);
  const stopped = () => log.lines.filter((line) => line.message.startsWith('video') && line.message.includes('stopped')).map((line) => line.message);
  const play = (sender: MemorySender) =>
    sender.request('POST', '/play', { body: utf8Encode('Content-Location: http://192.0.2.20:8080/clip.mp4\nStart-Position: 0\n'), contentType: 'text/parameters' });

  const sender = new MemorySender(receiver, 50_001, SENDER);
  setupSession(sender, sessionBody({ timingProtocol: 'None' }, ['timingPort']));
  assert.equal(sender.request('RECORD', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 200);
  assert.equal(play(sender).head.status, 200);
  player.report('playing');
  assert.equal(sender.request('TEARDOWN', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 200);
  assert.deepEqual(stopped(), [`video 1 stopped: the connection that carried its POST /play (${SENDER}:50001) ended its session (TEARDOWN)`]);
  assert.equal(player.kinds.at(-1), 'stop');

  const quiet = new MemorySender(receiver, 50_002, SENDER);
  setupSession(quiet, sessionBody({ timingProtocol: 'None' }, ['timingPort']));
  assert.equal(play(quiet).head.status, 200);
  player.report('playing');
  clock.advance(30_000);
  assert.equal(stopped()[1], `video 2 stopped: the connection that carried its POST /play (${SENDER}:50002) ended its session (no request from the sender for 30 s (limits.sessionTimeoutMs))`);
});

test("pyatv's play_url on one connection: SETUP, RECORD, POST /play as HTTP, setProperty and /rate as RTSP, /playback-info", () => {
  const clock = new ManualClock();
  const log = recordingLogger();
  const player = new MemoryPlayer();
  const receiver = new Receiver(makeConfig({ name: 'Living Room', deviceId: '58:55:CA:1A:E2:88', profile: 'desktop', dialect: 'apple' }), { crypto: portableCryptoKernels, clock, random: seededRandom(5), store: new MemoryStore(), log, timingSocket: new MemoryUdpSocket(7012), player, display: new RecordingDisplay(clock) });
  new TimerDriver(receiver, clock);
  const sender = new MemorySender(receiver, 50_001, SENDER);
  assert.equal(setupSession(sender).head.status, 200);
  assert.equal(sender.request('RECORD', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 200);
  assert.equal(sender.request('POST', '/feedback', { protocol: 'RTSP' }).head.status, 200);
  const play = sender.request('POST', '/play', { body: encodeBinaryPlist({ 'Content-Location': 'http://192.0.2.20:8080/clip.mp4', 'Start-Position-Seconds': 0, uuid: 'x', rate: 1 }), contentType: 'application/x-apple-binary-plist' });
  assert.equal(play.head.status, 200, text(play.body));
  const cmTime = { flags: 0, value: 0, epoch: 0, timescale: 0 };
  const steps: [string, string, PlistDict | undefined][] = [
    ['PUT', '/setProperty?isInterestedInDateRange', { value: true }],
    ['PUT', '/setProperty?actionAtItemEnd', { value: 0 }],
    ['POST', '/rate?value=1.000000', undefined],
    ['PUT', '/setProperty?forwardEndTime', { value: cmTime }],
    ['PUT', '/setProperty?reverseEndTime', { value: cmTime }],
  ];
  for (const [method, target, body] of steps) {
    const response = sender.request(method, target, { protocol: 'RTSP', ...(body && { body: encodeBinaryPlist(body), contentType: 'application/x-apple-binary-plist' }) });
    assert.equal(response.head.status, 200, `${method} ${target}: ${text(response.body)}`);
  }
  player.report('playing', { duration: 5, position: 1 });
  const info = sender.request('GET', '/playback-info');
  assert.equal(info.head.status, 200);
  assert.match(text(info.body), /<key>duration<\/key>/);
});
