// One screen mirroring session (src/receiver/mirror/mirror-session.ts, spec 4.4, 4.5, 2.14):
// packets in, decoder calls out, NTP to the sender's clock, and every way it ends.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat } from '../../src/bytes';
import { buildAvcC } from '../../src/mirror/avcc';
import { portableNalKernel, START_CODE } from '../../src/mirror/nal-kernel';
import { msToNtp, NTP_SENDER_PORT, ntpServerReply } from '../../src/timing';
import { PACKET_HEADER_BYTES, PACKET_TYPE, writePacket } from '../../src/mirror/packet';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { parseStreamRequest } from '../../src/mirror/stream-request';
import { MirrorSession } from '../../src/receiver/mirror/mirror-session';
import { MemoryUdpSocket, RecordingDecoder } from '../support/mirror-ports';
import { recordingLogger } from '../support/memory-ports';
import { CODEC_DATA, IDR, P_SLICE, PPS, SPS, STREAM_REQUEST } from '../support/mirror-stream';

const SENDER = '10.0.0.7';

function session(maxMirrorPayloadBytes = 4096) {
  const decoder = new RecordingDecoder();
  const socket = new MemoryUdpSocket(40000);
  const log = recordingLogger();
  const ended: string[] = [];
  const time = { now: 0 };
  const mirror = new MirrorSession(
    `${SENDER}:51000`,
    SENDER,
    parseStreamRequest(encodeBinaryPlist(STREAM_REQUEST)),
    {
      log,
      limits: { maxMirrorPayloadBytes, mirrorMissedHeartbeats: 3 },
      decoder,
      nalKernel: portableNalKernel,
      socket,
      now: () => time.now,
      wallTime: () => 1_000_000 + time.now,
      onEnded: (_, reason) => ended.push(reason),
    },
    0,
  );
  const ends: string[] = [];
  mirror.onEnd = (reason) => ends.push(reason);
  return { mirror, decoder, socket, log, ended, ends, time };
}

/** A video packet of 4-byte-length NAL units, stamped with sender time `senderMs`. */
function video(senderMs: number, ...units: Uint8Array[]): Uint8Array {
  const payload = concat(...units.flatMap((unit) => [Uint8Array.of(0, 0, 0, unit.length), unit]));
  const { seconds, fraction } = msToNtp(senderMs);
  return writePacket(PACKET_TYPE.video, payload, seconds, fraction);
}

const annexB = (...units: Uint8Array[]) => concat(...units.flatMap((unit) => [START_CODE, unit]));

test('codec data configures the decoder, once per change', () => {
  const { mirror, decoder, log } = session();
  mirror.receive(CODEC_DATA, 10);
  mirror.receive(CODEC_DATA, 20);
  assert.deepEqual(decoder.kinds, ['configure']);
  const config = decoder.calls[0].kind === 'configure' ? decoder.calls[0].config : undefined;
  assert.equal(config?.codec, 'avc1.4d401f');
  assert.deepEqual(config?.parameterSets, annexB(SPS, PPS));
  assert.match(log.lines[0].message, /mirroring codec avc1\.4d401f, NAL length size 4, 1 SPS, 1 PPS$/);
  mirror.receive(writePacket(PACKET_TYPE.codecData, buildAvcC([SPS], [PPS], 2)), 30);
  assert.deepEqual(decoder.kinds, ['configure', 'configure']);
  assert.equal(mirror.configurations, 2);
});

test('key frames get the parameter sets in front; other pictures do not', () => {
  const { mirror, decoder } = session();
  mirror.receive(concat(CODEC_DATA, video(50_000, IDR), video(50_125, P_SLICE)), 100);
  const [key, next] = decoder.decoded;
  assert.deepEqual(key.accessUnit, annexB(SPS, PPS, IDR));
  assert.equal(key.keyFrame, true);
  assert.deepEqual(next.accessUnit, annexB(P_SLICE));
  assert.equal(next.keyFrame, false);
  // Before NTP answers, the first picture is shown latencyMs after it arrived; the rest follow the sender's clock.
  assert.equal(key.presentationTime, 100 + 90);
  assert.equal(next.presentationTime, 100 + 90 + 125);
  assert.equal(mirror.videoPackets, 2);
});

test('video before any codec data is dropped, with one warning however many come', () => {
  const { mirror, decoder, log } = session();
  mirror.receive(concat(video(1, IDR), video(2, P_SLICE)), 0);
  assert.deepEqual(decoder.calls, []);
  assert.deepEqual(log.lines.map((line) => line.level), ['warn']);
  assert.match(log.lines[0].message, /video before any codec data/);
  assert.equal(mirror.active, true);
});

test('NTP: a request to the sender\'s port 7010 at once, and its answer sets the clock offset', () => {
  const { mirror, socket, decoder, time } = session();
  let wakes = 0;
  mirror.onWake = () => wakes++;
  assert.equal(mirror.pollTimeout(), 0);
  mirror.handleTimeout(0);
  assert.equal(socket.sent.length, 1);
  assert.deepEqual([socket.sent[0].address, socket.sent[0].port], [SENDER, NTP_SENDER_PORT]);
  assert.equal(mirror.pollTimeout(), 3000, 'the heartbeat deadline and the next request coincide');
  // The sender's clock runs 10 s ahead of ours; its answer arrives at once.
  socket.deliver(ntpServerReply(socket.sent[0].bytes, 10_000, 10_000), SENDER, NTP_SENDER_PORT);
  assert.equal(mirror.clockOffset, 10_000);
  assert.equal(wakes, 1);
  time.now = 500;
  mirror.receive(concat(CODEC_DATA, video(15_000, IDR)), 500);
  assert.equal(decoder.decoded[0].presentationTime, 15_000 - 10_000 + 90);
});

test('a datagram from anyone but the sender\'s NTP port is not an answer', () => {
  const { mirror, socket, log } = session();
  let wakes = 0;
  mirror.onWake = () => wakes++;
  mirror.handleTimeout(0);
  const reply = ntpServerReply(socket.sent[0].bytes, 10_000, 10_000);
  socket.deliver(reply, '10.0.0.99', NTP_SENDER_PORT);
  socket.deliver(reply, SENDER, 7011);
  assert.equal(mirror.clockOffset, undefined);
  assert.equal(wakes, 0);
  assert.equal(log.lines.filter((line) => /ignored \(not the sender's 7010\)/.test(line.message)).length, 2);
});

test('no packet for mirrorMissedHeartbeats seconds ends the session; any packet moves the deadline', () => {
  const { mirror, decoder, socket, ended, ends, log } = session();
  mirror.receive(writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0)), 2000);
  mirror.handleTimeout(3000);
  assert.equal(mirror.active, true);
  assert.equal(mirror.pollTimeout(), 5000, 'the heartbeat deadline, before the next NTP request at 6000');
  mirror.handleTimeout(5000);
  assert.equal(mirror.active, false);
  assert.deepEqual(ended, ['no packet from the sender for 3 s (limits.mirrorMissedHeartbeats 3): the sender stalled']);
  assert.deepEqual(ends, ended);
  assert.equal(log.lines.at(-1)?.level, 'warn');
  assert.deepEqual(decoder.kinds, ['reset']);
  assert.equal(socket.closed, true);
  assert.equal(mirror.pollTimeout(), undefined);
  assert.equal(mirror.wantsRead, false);
});

test('how the sender closed: between packets, inside a header, inside a payload', () => {
  const clean = session();
  clean.mirror.receive(CODEC_DATA, 0);
  clean.mirror.transportClosed(1);
  assert.deepEqual(clean.ended, ['the sender closed the mirroring connection']);
  assert.equal(clean.log.lines.at(-1)?.level, 'info');

  const inHeader = session();
  inHeader.mirror.receive(CODEC_DATA.subarray(0, 100), 0);
  inHeader.mirror.transportClosed(1);
  assert.deepEqual(inHeader.ended, [`the stream ended inside a packet header (100 of ${PACKET_HEADER_BYTES} bytes)`]);

  const inPayload = session();
  inPayload.mirror.receive(CODEC_DATA.subarray(0, PACKET_HEADER_BYTES + 3), 0);
  inPayload.mirror.transportClosed(1);
  assert.deepEqual(inPayload.ended, [`the stream ended inside a packet payload (3 of ${CODEC_DATA.length - PACKET_HEADER_BYTES} bytes)`]);
  assert.equal(inPayload.log.lines.at(-1)?.level, 'warn');
});

test('a broken stream ends the session with a warning naming what broke', () => {
  const badCodec = session();
  badCodec.mirror.receive(writePacket(PACKET_TYPE.codecData, Uint8Array.of(1, 2, 3)), 0);
  assert.match(badCodec.ended[0] ?? '', /^codec data is not a valid avcC record: /);

  const badVideo = session();
  badVideo.mirror.receive(concat(CODEC_DATA, writePacket(PACKET_TYPE.video, Uint8Array.of(0, 0, 0, 9, 0x65))), 0);
  assert.match(badVideo.ended[0] ?? '', /^video packet 1 is malformed: /);

  const tooBig = session(64);
  tooBig.mirror.receive(writePacket(PACKET_TYPE.video, new Uint8Array(65)).subarray(0, PACKET_HEADER_BYTES), 0);
  assert.equal(tooBig.mirror.active, false);
  assert.equal(tooBig.ended.length, 1);
  for (const broken of [badCodec, badVideo, tooBig]) assert.equal(broken.log.lines.at(-1)?.level, 'warn');
});

test('packets of unknown types are read past: logged at info once per type, then at debug', () => {
  const { mirror, log } = session();
  mirror.receive(concat(writePacket(7, new Uint8Array(4)), writePacket(7, new Uint8Array(4)), writePacket(9, new Uint8Array(0))), 0);
  assert.deepEqual(log.lines.map((line) => line.level), ['info', 'debug', 'info']);
  assert.match(log.lines[0].message, /packet of unknown type 7 \(4 bytes\) skipped/);
  assert.equal(mirror.active, true);
});

test('end() ends once: later ends, packets and timeouts change nothing', () => {
  const { mirror, decoder, ended, log } = session();
  mirror.end('POST /stop');
  mirror.end('again');
  mirror.receive(CODEC_DATA, 1);
  mirror.handleTimeout(10_000);
  mirror.transportClosed(10_001);
  assert.deepEqual(ended, ['POST /stop']);
  assert.deepEqual(decoder.kinds, ['reset']);
  assert.equal(log.lines.length, 1);
  assert.match(log.lines[0].message, /mirroring session -808788724 ended: POST \/stop \(0 video packets, 0 codec configurations\)/);
});

test('a socket that fails to close or send does not stop the session ending or going on', () => {
  const { mirror, socket, ended, log } = session();
  socket.close(); // closed under it: sending throws
  mirror.handleTimeout(0);
  assert.equal(mirror.active, true);
  assert.match(log.lines.at(-1)?.message ?? '', /NTP request not sent: send on a closed socket/);
  socket.close = () => {
    throw new Error('already closed');
  };
  mirror.end('done');
  assert.deepEqual(ended, ['done']);
});
