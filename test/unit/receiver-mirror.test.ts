// Screen mirroring in the receiver, sans-I/O (spec 4.4, 4.5, 2.14, 2.1): the mirroring
// listener's routes, the connection turning into a stream, the hand-off to the decoder, NTP on
// its schedule, activity and feature bit, one session at a time, and every hostile stream ending
// only its own session with one clear log line. Portable: runs on Node and inside XS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, latin1Decode, latin1Encode, toHex } from '../../src/bytes';
import { featureMask } from '../../src/discovery';
import { buildAvcC } from '../../src/mirror/avcc';
import { lengthPrefixed } from '../../src/mirror/annexb-stream';
import { msToNtp, ntpServerReply } from '../../src/timing';
import { PACKET_TYPE, writePacket, writePacketHeader } from '../../src/mirror/packet';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import type { ReceiverConnection } from '../../src/receiver/connection/connection';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { RecordingDecoder, memoryUdp } from '../support/mirror-ports';
import { CODEC_DATA, IDR, P_SLICE, PPS, SEI, SPS, STREAM_REQUEST, postStream } from '../support/mirror-stream';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SENDER = { remoteAddress: '192.0.2.20', remotePort: 50000, localAddress: '192.0.2.1', localPort: 7100 };
const OTHER_SENDER = { ...SENDER, remoteAddress: '192.0.2.21', remotePort: 50001 };
const CONTROL = { ...SENDER, remotePort: 50002, localPort: 7000 };


function setup(options: { limits?: Partial<ReceiverLimits>; decoder?: boolean; udp?: boolean; pinRequired?: boolean } = {}) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const decoder = new RecordingDecoder();
  const udp = memoryUdp();
  const receiver = new Receiver(makeConfig({ name: 'Test Screen', deviceId: '58:55:CA:1A:E2:88', ntpPort: 0, limits: options.limits, pinRequired: options.pinRequired ?? false }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(3),
    store: new MemoryStore(),
    log,
    videoDecoder: options.decoder === false ? undefined : decoder,
    udp: options.udp === false ? undefined : udp.binder,
  });
  return { clock, log, decoder, udp, receiver };
}

function drain(connection: ReceiverConnection): string {
  let text = '';
  for (let bytes = connection.pollTransmit(); bytes; bytes = connection.pollTransmit()) text += latin1Decode(bytes);
  return text;
}


function video(units: Uint8Array[], ms: number): Uint8Array {
  const { seconds, fraction } = msToNtp(ms);
  return writePacket(PACKET_TYPE.video, lengthPrefixed(units, 4), seconds, fraction);
}

const HEARTBEAT = writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0));

function closeEvent(connection: ReceiverConnection): string | undefined {
  const event = connection.pollEvent();
  return event?.type === 'close' ? event.reason : undefined;
}

function currentSender(receiver: Receiver): string | undefined {
  return receiver.mirror?.current?.senderAddress;
}

function warnings(log: ReturnType<typeof recordingLogger>): string[] {
  return log.lines.filter((line) => line.level === 'warn' || line.level === 'error').map((line) => line.message);
}

test('feature bit 7 (Screen) and the mirroring listener only with a decoder and UDP', () => {
  const screen = featureMask(['Screen']);
  assert.ok(setup().receiver.features & screen);
  for (const without of [{ decoder: false }, { udp: false }]) {
    const { receiver } = setup(without);
    assert.equal(receiver.features & screen, 0n);
    assert.equal(receiver.mirror, undefined);
    assert.equal(receiver.openMirror(SENDER, 0), undefined);
  }
});

test('GET /stream.xml answers the decoder display\'s geometry; the main port does not serve it', () => {
  const { receiver } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(latin1Encode('GET /stream.xml HTTP/1.1\r\nContent-Length: 0\r\n\r\n'), 1);
  const answer = drain(connection);
  assert.match(answer, /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/x-vendor-plist\+xml\r\n/);
  assert.match(answer, /<key>height<\/key>\n\t<integer>720<\/integer>/);
  assert.match(answer, /<key>refreshRate<\/key>\n\t<real>0\.01666/);
  const main = receiver.open(CONTROL, 0)!;
  main.receive(latin1Encode('GET /stream.xml HTTP/1.1\r\n\r\n'), 1);
  assert.match(drain(main), /^HTTP\/1\.1 404 /);
});

test('POST /stream: no answer, the activity is receivingScreenMirroring, NTP asks the sender at once and every 3 s', () => {
  const { receiver, udp, clock } = setup();
  clock.advance(1000);
  const connection = receiver.openMirror(SENDER, 1000)!;
  connection.receive(postStream(), 1000);
  assert.equal(drain(connection), '', 'spec 4.4: the connection is no longer HTTP; nothing is answered');
  assert.equal(receiver.activity, 'receivingScreenMirroring');
  assert.deepEqual(receiver.activityFields().igl, true);
  assert.equal(receiver.activityFields().receiverSessionIsActive, true, 'flag 17 set');
  assert.equal(udp.ports[0], 0, 'bound on the configured NTP port');
  const socket = udp.sockets[0];
  assert.equal(connection.pollTimeout(), 1000, 'the first request is due at once');
  connection.handleTimeout(1000);
  assert.equal(socket.sent.length, 1);
  assert.deepEqual([socket.sent[0].address, socket.sent[0].port, socket.sent[0].bytes[0]], ['192.0.2.20', 7010, 0x23]);
  connection.receive(HEARTBEAT, 2000);
  assert.equal(connection.pollTimeout(), 4000);
  connection.handleTimeout(4000);
  assert.equal(socket.sent.length, 2);
});

test('codec data configures the decoder; video goes out as Annex B with parameter sets before key frames, at the recovered time', () => {
  const { receiver, decoder, udp, clock } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  // The request and the first packets in one chunk: the bytes after the body go to the stream.
  connection.receive(concat(postStream(), CODEC_DATA), 0);
  connection.handleTimeout(0);
  const socket = udp.sockets[0];
  // The sender's clock is 5000 ms ahead; the path takes 2 ms each way.
  clock.advance(4);
  socket.deliver(ntpServerReply(socket.sent[0].bytes, 5002, 5002), '192.0.2.20', 7010);
  connection.receive(concat(video([SEI, IDR], 5100), video([P_SLICE], 5133.333)), 4);
  assert.deepEqual(decoder.kinds, ['configure', 'decode', 'decode']);
  const configure = decoder.calls[0];
  assert.ok(configure.kind === 'configure');
  assert.equal(configure.config.codec, 'avc1.4d401f');
  assert.equal(toHex(configure.config.parameterSets), '00000001' + toHex(SPS) + '00000001' + toHex(PPS));
  const [key, next] = decoder.decoded;
  assert.equal(key.keyFrame, true);
  assert.equal(toHex(key.accessUnit), ['00000001' + toHex(SPS), '00000001' + toHex(PPS), '00000001' + toHex(SEI), '00000001' + toHex(IDR)].join(''));
  assert.equal(next.keyFrame, false);
  assert.equal(toHex(next.accessUnit), '00000001' + toHex(P_SLICE));
  // sender 5100 -> local 100, plus latencyMs 90 (spec 2.13).
  assert.ok(Math.abs(key.presentationTime - 190) < 0.01, `${key.presentationTime}`);
  assert.ok(Math.abs(next.presentationTime - 223.333) < 0.01, `${next.presentationTime}`);
  // The same codec data again changes nothing; different codec data reconfigures.
  connection.receive(CODEC_DATA, 10);
  assert.equal(decoder.kinds.filter((kind) => kind === 'configure').length, 1);
  connection.receive(writePacket(PACKET_TYPE.codecData, buildAvcC([Uint8Array.of(0x67, 0x64, 0, 0x28, 0xac)], [PPS], 2)), 11);
  assert.equal(decoder.kinds.filter((kind) => kind === 'configure').length, 2);
  connection.receive(writePacket(PACKET_TYPE.video, lengthPrefixed([P_SLICE], 2)), 12);
  assert.equal(toHex(decoder.decoded[2].accessUnit), '00000001' + toHex(P_SLICE), 'the new NAL length size (2) is used');
});

test('a second sender is refused while a session runs (503, closed); the first keeps the screen', () => {
  const { receiver, log } = setup();
  const first = receiver.openMirror(SENDER, 0)!;
  first.receive(postStream(), 0);
  const second = receiver.openMirror(OTHER_SENDER, 10)!;
  second.receive(postStream(), 10);
  assert.match(drain(second), /^HTTP\/1\.1 503 Service Unavailable\r\n[^]*one mirroring session at a time: the first sender keeps the screen/);
  assert.match(closeEvent(second) ?? '', /close/);
  assert.equal(receiver.mirror?.current?.senderAddress, '192.0.2.20');
  assert.ok(log.lines.some((line) => /192\.0\.2\.21:50001 HTTP POST \/stream: 503/.test(line.message)));
});

test('POST /stop on the main port ends the session: the connection closes, the decoder resets, idle again', () => {
  const { receiver, decoder, udp } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(concat(postStream(), CODEC_DATA), 0);
  const control = receiver.open(CONTROL, 5)!;
  control.receive(latin1Encode('POST /stop HTTP/1.1\r\nContent-Length: 0\r\n\r\n'), 5);
  assert.match(drain(control), /^HTTP\/1\.1 200 OK/);
  assert.equal(closeEvent(connection), 'POST /stop');
  assert.equal(decoder.kinds[decoder.kinds.length - 1], 'reset');
  assert.equal(udp.sockets[0].closed, true);
  assert.equal(receiver.activity, 'idle');
  // A new session may start now.
  const again = receiver.openMirror(OTHER_SENDER, 10)!;
  again.receive(postStream(), 10);
  assert.equal(drain(again), '');
  assert.equal(receiver.activity, 'receivingScreenMirroring');
});

test('the sender closing the connection ends the session', () => {
  const { receiver, decoder, log } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(concat(postStream(), CODEC_DATA, HEARTBEAT), 0);
  connection.transportClosed(undefined, 50);
  assert.equal(receiver.activity, 'idle');
  assert.equal(decoder.kinds[decoder.kinds.length - 1], 'reset');
  assert.deepEqual(warnings(log), []);
  assert.ok(log.lines.some((line) => line.level === 'info' && /ended: the sender closed the mirroring connection/.test(line.message)));
});

/** Each hostile stream: what to send after POST /stream, what to do then, and the one warning it must cause. */
const HOSTILE: { name: string; run: (connection: ReceiverConnection) => void; warning: RegExp }[] = [
  {
    name: 'an oversized payload size',
    run: (connection) => connection.receive(writePacketHeader({ payloadSize: 0x7fffffff, payloadType: 0, option: 6, ntpSeconds: 0, ntpFraction: 0 }), 10),
    warning: /ended: packet 2 \(type 0\) announces a 2147483647-byte payload; the limit is 4194304 \(limits\.maxMirrorPayloadBytes\)/,
  },
  {
    name: 'a truncated header',
    run: (connection) => {
      connection.receive(HEARTBEAT.subarray(0, 70), 10);
      connection.transportClosed(undefined, 20);
    },
    warning: /ended: the stream ended inside a packet header \(70 of 128 bytes\)/,
  },
  {
    name: 'garbage avcC',
    run: (connection) => connection.receive(writePacket(PACKET_TYPE.codecData, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)), 10),
    warning: /ended: codec data is not a valid avcC record: avcC SPS 1 is 1800 bytes; only 0 are left/,
  },
  {
    name: 'a video payload whose NAL length runs past it',
    run: (connection) => connection.receive(writePacket(PACKET_TYPE.video, Uint8Array.of(0, 0, 0, 50, 0x65, 1)), 10),
    warning: /ended: video packet 1 is malformed: NAL unit 0: length 50 runs 48 bytes past the payload/,
  },
  {
    name: 'a stalled sender (no heartbeat)',
    run: (connection) => {
      connection.handleTimeout(3000);
      connection.handleTimeout(5000);
    },
    warning: /ended: no packet from the sender for 5 s \(limits\.mirrorMissedHeartbeats 5\): the sender stalled/,
  },
];

for (const hostile of HOSTILE) {
  test(`${hostile.name} ends only that session, with one clear log line`, () => {
    const { receiver, log, decoder } = setup();
    const control = receiver.open(CONTROL, 0)!;
    const connection = receiver.openMirror(SENDER, 0)!;
    connection.receive(concat(postStream(), CODEC_DATA), 0);
    hostile.run(connection);
    const lines = warnings(log);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0], hostile.warning);
    assert.equal(currentSender(receiver), undefined);
    assert.equal(receiver.activity, 'idle');
    assert.equal(decoder.kinds[decoder.kinds.length - 1], 'reset');
    // The receiver serves on: the control connection answers, and a new session starts.
    control.receive(latin1Encode('GET /server-info HTTP/1.1\r\n\r\n'), 6000);
    assert.match(drain(control), /^HTTP\/1\.1 200 OK/);
    const next = receiver.openMirror(OTHER_SENDER, 6000)!;
    next.receive(postStream(), 6000);
    assert.equal(currentSender(receiver), '192.0.2.21');
  });
}

test('an unknown packet type is skipped and logged once; the session goes on', () => {
  const { receiver, log, decoder } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(concat(postStream(), CODEC_DATA, writePacket(5, new Uint8Array(64)), writePacket(5, new Uint8Array(8)), video([IDR], 0)), 0);
  assert.equal(log.lines.filter((line) => line.level === 'info' && /unknown type 5 \(64 bytes\) skipped/.test(line.message)).length, 1);
  assert.deepEqual(decoder.kinds, ['configure', 'decode']);
  assert.ok(receiver.mirror?.current);
});

test('a plist missing a required key is refused (400) and the connection closes; DRM keys get 501', () => {
  const { receiver } = setup();
  const missing = { ...STREAM_REQUEST };
  delete missing.latencyMs;
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(concat(postStream(missing), CODEC_DATA), 0);
  assert.match(drain(connection), /^HTTP\/1\.1 400 Bad Request\r\n[^]*required key latencyMs missing/);
  assert.ok(closeEvent(connection));
  const drm = receiver.openMirror(OTHER_SENDER, 0)!;
  drm.receive(postStream({ ...STREAM_REQUEST, param1: new Uint8Array(72), param2: new Uint8Array(16) }), 0);
  assert.match(drain(drm), /^HTTP\/1\.1 501 Not Implemented\r\n[^]*encrypted with a DRM scheme the spec does not show/);
  // Closed by the refusal itself: nothing followed the request on this connection.
  assert.equal(closeEvent(drm), 'request asked to close');
  assert.equal(receiver.activity, 'idle');
});

test('NTP answers from anyone but the sender\'s port 7010 are ignored', () => {
  const { receiver, udp } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(postStream(), 0);
  connection.handleTimeout(0);
  const socket = udp.sockets[0];
  socket.deliver(ntpServerReply(socket.sent[0].bytes, 5000, 5000), '192.0.2.99', 7010);
  socket.deliver(ntpServerReply(socket.sent[0].bytes, 5000, 5000), '192.0.2.20', 7011);
  assert.equal(receiver.mirror?.current?.clockOffset, undefined);
  socket.deliver(ntpServerReply(socket.sent[0].bytes, 5000, 5000), '192.0.2.20', 7010);
  assert.equal(receiver.mirror?.current?.clockOffset, 5000);
});

test('a slideshow taking the screen ends mirroring (one media session)', () => {
  const { receiver } = setup();
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(postStream(), 0);
  receiver.media.takeScreen('slideshow', 99, 'a slideshow took the screen');
  assert.equal(closeEvent(connection), 'a slideshow took the screen');
  assert.equal(receiver.activity, 'receivingVideo');
});

test('with a PIN required, mirroring (which has no pairing of its own) is refused with 403', () => {
  const { receiver } = setup({ pinRequired: true });
  const connection = receiver.openMirror(SENDER, 0)!;
  connection.receive(postStream(), 0);
  assert.match(drain(connection), /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.equal(receiver.activity, 'idle');
});
