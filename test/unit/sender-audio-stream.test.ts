// The audio command's stream (sender/audio/rtp-streamer.ts, audio-format.ts, sender-clock.ts)
// with a manual clock and recording sockets: packets read back with the receiver's own readers
// and decoders (src/audio), sync packets against the sender's clock, resends from the backlog,
// sealed packets opened under the stream key, the ANNOUNCE body read by the receiver's SDP reader,
// and a sender clock that runs fast. Runs on Node and inside XS (test/xs).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alacFmtp, createAlacDecoder, parseAlacFmtp } from '../../src/audio/alac';
import { createPcmDecoder } from '../../src/audio/decoder';
import { PacketCipher } from '../../src/audio/packet-cipher';
import { isRefusal, readAudioPacket, readResentPacket, readSyncPacket, writeRetransmitRequest, type AudioPacket } from '../../src/audio/rtp-packets';
import { readAnnounceSdp } from '../../src/audio/sdp';
import { portableFrameKernel } from '../../src/pairing';
import { NTP_UNIX_EPOCH_MS } from '../../src/timing';
import { RAOP_ALAC_CONFIG } from '../../sender/audio/alac-encoder';
import { announceSdp, payloadEncoder, type SenderCodec } from '../../sender/audio/audio-format';
import { FRAMES_PER_PACKET, RtpStreamer, type DatagramPort, type FrameSource } from '../../sender/audio/rtp-streamer';
import { SenderClock } from '../../sender/audio/sender-clock';

const PACKET_MS = (FRAMES_PER_PACKET * 1000) / 44100;

interface Sent {
  readonly bytes: Uint8Array;
  readonly port: number;
  readonly host: string;
}

/** A socket that records what it sends and hands its message listener to the test. */
function recordingPort(): DatagramPort & { sent: Sent[]; deliver(bytes: Uint8Array, port: number): void } {
  const sent: Sent[] = [];
  let listener: ((message: Uint8Array, remote: { address: string; port: number }) => void) | undefined;
  return {
    sent,
    send: (bytes, port, host) => void sent.push({ bytes: Uint8Array.from(bytes), port, host }),
    on: (_event, handler) => (listener = handler),
    deliver: (bytes, port) => listener?.(bytes, { address: '127.0.0.1', port }),
  };
}

/** Interleaved stereo: a tone on the left, a quieter one on the right. */
function tone(frames: number): Int16Array {
  const pcm = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    pcm[2 * i] = Math.round(9000 * Math.sin((2 * Math.PI * 440 * i) / 44100));
    pcm[2 * i + 1] = Math.round(4000 * Math.sin((2 * Math.PI * 660 * i) / 44100));
  }
  return pcm;
}

/** The file as a FrameSource; `beforeRead` runs before each read (a test moves the clock there). */
function fileSource(pcm: Int16Array, beforeRead: (read: number) => void = () => {}): FrameSource {
  let at = 0;
  let reads = 0;
  return {
    read: async (frames) => {
      beforeRead(reads++);
      if (at >= pcm.length) return undefined;
      const piece = pcm.slice(at, at + frames * 2);
      at += piece.length;
      return piece;
    },
  };
}

interface Run {
  readonly streamer: RtpStreamer;
  /** The host clock when each audio packet left. */
  readonly sentAtHost: number[];
  readonly data: ReturnType<typeof recordingPort>;
  readonly control: ReturnType<typeof recordingPort>;
  readonly packets: AudioPacket[];
}

const START = { ssrc: 0x11223344, sequence: 65530, rtpTime: 0xffffff00 };

async function stream(pcm: Int16Array, options: { codec: SenderCodec; latencyFrames: number; ppm?: number; cipher?: PacketCipher; firstReadMs?: number }): Promise<Run> {
  const manual = { host: 5000 };
  const clock = new SenderClock(options.ppm ?? 0, () => manual.host);
  const sentAtHost: number[] = [];
  const data = recordingPort();
  const send = data.send;
  data.send = (bytes, port, host) => {
    sentAtHost.push(manual.host);
    send(bytes, port, host);
  };
  const control = recordingPort();
  const cipher = options.cipher;
  const streamer = new RtpStreamer({
    control,
    data,
    dataTo: { host: '127.0.0.1', port: 6000 },
    controlTo: { host: '127.0.0.1', port: 6001 },
    clock,
    latencyFrames: options.latencyFrames,
    ssrc: START.ssrc,
    firstSequence: START.sequence,
    firstRtpTime: START.rtpTime,
    startDelayMs: 0,
    encode: payloadEncoder(options.codec),
    seal: cipher ? (header, payload, n) => cipher.seal(header, payload, BigInt(n)) : undefined,
    // Waiting moves the manual clock: each packet leaves when the sender's clock says it is due.
    sleep: async (hostMs) => void (manual.host += hostMs),
  });
  await streamer.run(fileSource(pcm, (read) => void (read === 0 && (manual.host += options.firstReadMs ?? 0))));
  const packets = data.sent.map((sent) => {
    const packet = readAudioPacket(sent.bytes);
    assert.ok(!isRefusal(packet), isRefusal(packet) ? packet.reason : '');
    return packet;
  });
  return { streamer, sentAtHost, data, control, packets };
}

for (const codec of ['alac', 'pcm'] as const) {
  test(`${codec}: the file in 352-frame packets from the RECORD's sequence and RTP time (both wrapping), the first with the marker, the last padded, then latency frames of silence`, async () => {
    const frames = 352 * 10 + 100;
    const pcm = tone(frames);
    const { packets, data, streamer } = await stream(pcm, { codec, latencyFrames: 1000 });
    // 11 packets of the file (the last padded), then ceil(1000 / 352) = 3 of silence.
    assert.equal(packets.length, 14);
    assert.deepEqual(streamer.stats, { packets: 14, resent: 0, syncs: 1, retransmitRequests: 0, fileFrames: frames, paddingFrames: 3 * 352 });
    assert.ok(data.sent.every((sent) => sent.port === 6000 && sent.host === '127.0.0.1'));
    assert.deepEqual(packets.map((packet) => packet.marker), [true, ...Array(13).fill(false)]);
    assert.deepEqual(packets.map((packet) => packet.sequence), [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(packets.map((packet) => packet.timestamp), packets.map((_, n) => (START.rtpTime + n * 352) >>> 0));
    assert.ok(packets.every((packet) => packet.ssrc === START.ssrc));
    const decoder = codec === 'alac' ? createAlacDecoder(RAOP_ALAC_CONFIG) : createPcmDecoder({ channels: 2, bitsPerSample: 16, framesPerPacket: 352 });
    const heard = new Int16Array(14 * 352 * 2);
    packets.forEach((packet, n) => heard.set(decoder.decode(packet.payload), n * 352 * 2));
    assert.deepEqual(heard.subarray(0, pcm.length), pcm);
    assert.ok(heard.subarray(pcm.length).every((sample) => sample === 0));
  });
}

test('a sync packet each second of the sender clock: RTP time now - latency is heard at the clock time it carries, the first with the extension bit', async () => {
  const { control, packets } = await stream(tone(352 * 300), { codec: 'pcm', latencyFrames: 22050 });
  const syncs = control.sent.map((sent) => {
    assert.equal(sent.port, 6001);
    const sync = readSyncPacket(sent.bytes);
    assert.ok(!isRefusal(sync));
    return sync;
  });
  // 300 + 63 packets at 7.98 ms: 2.9 s, so syncs at 0, 1 and 2 s.
  assert.equal(syncs.length, 3);
  assert.deepEqual(syncs.map((sync) => sync.first), [true, false, false]);
  const t0 = syncs[0].senderTimeMs;
  assert.equal(Math.round(t0), NTP_UNIX_EPOCH_MS + 5000);
  for (const sync of syncs) {
    assert.equal((sync.currentRtpTime - sync.presentedRtpTime) >>> 0, 22050);
    // The RTP time the pacing is at, against the clock: within a frame.
    const framesSinceStart = ((sync.currentRtpTime - START.rtpTime) >>> 0) - 0;
    assert.ok(Math.abs(framesSinceStart - ((sync.senderTimeMs - t0) * 44100) / 1000) <= 1, `${framesSinceStart} frames at ${sync.senderTimeMs - t0} ms`);
  }
  // Each sync is sent with the first packet due at or after its second.
  assert.ok(syncs[1].senderTimeMs - t0 >= 1000 && syncs[1].senderTimeMs - t0 < 1000 + PACKET_MS);
  assert.ok(packets.length === 363);
});

test('the pacing starts when the first packet is at hand: a slow start of ffmpeg sends no burst', async () => {
  const { sentAtHost, control } = await stream(tone(352 * 20), { codec: 'alac', latencyFrames: 352, firstReadMs: 400 });
  assert.equal(sentAtHost[0], 5400);
  sentAtHost.forEach((at, n) => assert.ok(Math.abs(at - (5400 + n * PACKET_MS)) < 0.01, `packet ${n} at ${at}`));
  const sync = readSyncPacket(control.sent[0].bytes);
  assert.ok(!isRefusal(sync));
  assert.equal(sync.currentRtpTime, START.rtpTime);
});

test('retransmit requests are answered with 0x56 packets holding the originals, to the asker; packets no longer kept are passed over', async () => {
  const { control, data, streamer } = await stream(tone(352 * 4), { codec: 'alac', latencyFrames: 352 });
  const syncsSent = control.sent.length;
  // Sequence numbers 65532, 65533 and 65534; 7 was never sent.
  control.deliver(writeRetransmitRequest({ firstSequence: 65532, count: 2 }), 50123);
  control.deliver(writeRetransmitRequest({ firstSequence: 7, count: 1 }), 50123);
  control.deliver(Uint8Array.from([0x80, 0xd5, 0, 1]), 50123); // too short: ignored
  const resent = control.sent.slice(syncsSent);
  assert.equal(resent.length, 2);
  assert.deepEqual(resent.map((sent) => sent.port), [50123, 50123]);
  resent.forEach((sent, i) => {
    assert.deepEqual(Array.from(sent.bytes.subarray(0, 2)), [0x80, 0xd6]);
    const original = readResentPacket(sent.bytes);
    assert.ok(!isRefusal(original));
    assert.equal(original.sequence, 65532 + i);
    assert.deepEqual(sent.bytes.subarray(4), data.sent[2 + i].bytes);
  });
  assert.equal(streamer.stats.resent, 2);
  assert.equal(streamer.stats.retransmitRequests, 2);
});

test('sealed packets (a session stream) open under the stream key with the packet number as the nonce counter', async () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
  const pcm = tone(352 * 3);
  const { data } = await stream(pcm, { codec: 'alac', latencyFrames: 352, cipher: new PacketCipher(key, portableFrameKernel) });
  const receiver = new PacketCipher(key, portableFrameKernel);
  const decoder = createAlacDecoder(RAOP_ALAC_CONFIG);
  data.sent.forEach((sent, n) => {
    const counter = sent.bytes.subarray(sent.bytes.length - 8);
    assert.deepEqual(Array.from(counter), [n, 0, 0, 0, 0, 0, 0, 0]);
    const payload = receiver.open(sent.bytes);
    assert.ok(payload instanceof Uint8Array, `packet ${n}`);
    const samples = decoder.decode(payload);
    if (n < 3) assert.deepEqual(samples, pcm.subarray(n * 704, (n + 1) * 704));
  });
});

test('a sender clock N ppm fast reads N ppm more than the host clock from its start', () => {
  const manual = { host: 1000 };
  const clock = new SenderClock(500, () => manual.host);
  assert.equal(clock.now(), NTP_UNIX_EPOCH_MS + 1000);
  manual.host = 11_000;
  assert.ok(Math.abs(clock.now() - (NTP_UNIX_EPOCH_MS + 11_005)) < 1e-6);
  assert.ok(Math.abs(clock.hostMsUntil(NTP_UNIX_EPOCH_MS + 11_005 + 1000.5) - 1000) < 1e-6);
  const slow = new SenderClock(-250, () => manual.host);
  manual.host = 15_000;
  assert.ok(Math.abs(slow.now() - (NTP_UNIX_EPOCH_MS + 15_000 - 1)) < 1e-6);
});

for (const ppm of [0, 500, -500]) {
  test(`a sender clock ${ppm} ppm off paces the packets ${ppm} ppm fast against the host, and its sync packets carry its own time`, async () => {
    const { sentAtHost, control } = await stream(tone(352 * 400), { codec: 'pcm', latencyFrames: 352, ppm });
    // Packet n leaves at n * 352 / 44100 s of the sender's clock: (1 + ppm 1e-6) times less host time.
    const hostMs = sentAtHost[400] - sentAtHost[0];
    const expected = (400 * PACKET_MS) / (1 + ppm / 1e6);
    // Within 10 µs: NTP-era times in ms are doubles good to about 0.5 µs each.
    assert.ok(Math.abs(hostMs - expected) < 0.01, `${hostMs} ms, expected ${expected}`);
    const syncs = control.sent.map((sent) => readSyncPacket(sent.bytes));
    assert.equal(syncs.length, 4);
    const first = syncs[0];
    assert.ok(!isRefusal(first));
    assert.ok(Math.abs(first.senderTimeMs - (NTP_UNIX_EPOCH_MS + 5000)) < 1e-3);
    for (const sync of syncs) {
      assert.ok(!isRefusal(sync));
      assert.ok(Math.abs(((sync.currentRtpTime - START.rtpTime) >>> 0) - ((sync.senderTimeMs - first.senderTimeMs) * 44100) / 1000) <= 1);
    }
  });
}

test('the ANNOUNCE body is read by the receiver\'s SDP reader as the codec, 352 frames a packet and the latency', () => {
  for (const codec of ['alac', 'pcm'] as const) {
    const body = announceSdp({ codec, sessionId: 1234, localAddress: '127.0.0.1', remoteAddress: '127.0.0.1', latencyFrames: 22050 });
    assert.ok(body.endsWith('\r\n') && !/[^\r]\n/.test(body), 'CRLF lines');
    const format = readAnnounceSdp(body);
    assert.equal(format.codec, codec);
    assert.equal(format.sampleRate, 44100);
    assert.equal(format.channels, 2);
    assert.equal(format.framesPerPacket, 352);
    assert.equal(format.minLatencyFrames, 22050);
  }
  assert.match(announceSdp({ codec: 'alac', sessionId: 1, localAddress: '::1', remoteAddress: '::1', latencyFrames: 352 }), /^o=iTunes 1 0 IN IP6 ::1\r$/m);
});

test('the fmtp line is RAOP\'s and reads back as the encoder\'s config', () => {
  assert.equal(alacFmtp(RAOP_ALAC_CONFIG), '352 0 16 40 10 14 2 255 0 0 44100');
  assert.deepEqual(parseAlacFmtp(alacFmtp({ ...RAOP_ALAC_CONFIG, maxFrameBytes: 1500, avgBitRate: 9 })), { ...RAOP_ALAC_CONFIG, maxFrameBytes: 1500, avgBitRate: 9 });
});

test('PCM payloads are L16, big-endian', () => {
  assert.deepEqual(Array.from(payloadEncoder('pcm')(Int16Array.from([1, -2, 0x1234, -32768]), 2)), [0, 1, 0xff, 0xfe, 0x12, 0x34, 0x80, 0]);
});
