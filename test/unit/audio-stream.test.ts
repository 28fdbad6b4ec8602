// The playout engine, driven by a manual clock with pyatv-shaped packets (0x80 0xE0 first, then
// 0x80 0x60; sync packets 0x90/0x80 0xD4 every second; resent packets 0x80 0xD6 + the original).
// Each frame's PCM carries its own RTP time (left: low 15 bits, right: the next 15), so a test
// reads back exactly which frame was written where: order, silence, drops and repeats, and when
// each frame is heard against when the sender asked.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { AudioStream, type AudioStreamOptions } from '../../src/audio/audio-stream';
import { createPcmDecoder } from '../../src/audio/decoder';
import { PacketCipher } from '../../src/audio/packet-cipher';
import { isRefusal, readSyncPacket, writeAudioHeader, writeAudioPacket, writeResentPacket, writeSyncPacket } from '../../src/audio/rtp-packets';
import { portableFrameKernel } from '../../src/pairing/frame-kernel';
import type { AudioFormat, AudioSink, LogLevel } from '../../src/platform';

const RATE = 44100;
const FPP = 352;
const MS_PER_FRAME = 1000 / RATE;
const SSRC = 0x1234abcd;
/** pyatv's latency: 22050 + 44100 frames. */
const LATENCY = 22050 + RATE;

class RecordingSink implements AudioSink {
  latencyMs = 40;
  readonly writes: { pcm: Int16Array; presentationTime: number }[] = [];
  readonly volumes: number[] = [];
  flushes = 0;
  ended = false;
  configure(_format: AudioFormat): string | undefined {
    return undefined;
  }
  write(pcm: Int16Array, presentationTime: number): void {
    this.writes.push({ pcm, presentationTime });
  }
  setVolume(db: number): void {
    this.volumes.push(db);
  }
  flush(): void {
    this.flushes++;
  }
  end(): void {
    this.ended = true;
  }
  /** Every frame written, as its RTP time (0 for silence), with the local time it is heard. */
  frames(): { rtp: number; at: number }[] {
    const out: { rtp: number; at: number }[] = [];
    for (const { pcm, presentationTime } of this.writes) {
      for (let i = 0; i < pcm.length / 2; i++) out.push({ rtp: pcm[2 * i] | (pcm[2 * i + 1] << 15), at: presentationTime + i * MS_PER_FRAME });
    }
    return out;
  }
  /** Whether each write starts where the one before ended (within float rounding). */
  contiguous(): boolean {
    for (let i = 1; i < this.writes.length; i++) {
      const previous = this.writes[i - 1];
      const end = previous.presentationTime + (previous.pcm.length / 2) * MS_PER_FRAME;
      if (Math.abs(this.writes[i].presentationTime - end) > 1e-6) return false;
    }
    return true;
  }
}

/** L16 big-endian stereo frames whose samples say their own RTP time. */
function payloadFor(rtp: number, frames = FPP): Uint8Array {
  const bytes = new Uint8Array(frames * 4);
  for (let i = 0; i < frames; i++) {
    const t = rtp + i;
    const left = t & 0x7fff;
    const right = (t >>> 15) & 0x7fff;
    bytes[4 * i] = left >> 8;
    bytes[4 * i + 1] = left & 0xff;
    bytes[4 * i + 2] = right >> 8;
    bytes[4 * i + 3] = right & 0xff;
  }
  return bytes;
}

/** pyatv's sender: sequence and RTP time from a start, the marker on the first packet. */
class Sender {
  seq: number;
  rtp: number;
  first = true;
  constructor(
    seq = 65530,
    rtp = 1_000_000,
    readonly ssrc = SSRC,
  ) {
    this.seq = seq;
    this.rtp = rtp;
  }
  next(): Uint8Array {
    const packet = writeAudioPacket({ marker: this.first, sequence: this.seq, timestamp: this.rtp, ssrc: this.ssrc }, payloadFor(this.rtp));
    this.first = false;
    this.seq = (this.seq + 1) & 0xffff;
    this.rtp += FPP;
    return packet;
  }
}

interface Harness {
  readonly stream: AudioStream;
  readonly sink: RecordingSink;
  readonly logs: string[];
}

function harness(options: Partial<AudioStreamOptions> = {}): Harness {
  const sink = new RecordingSink();
  const logs: string[] = [];
  const stream = new AudioStream({
    format: { sampleRate: RATE, channels: 2, framesPerPacket: FPP },
    decoder: createPcmDecoder({ channels: 2, bitsPerSample: 16, framesPerPacket: FPP }),
    sink,
    log: (level: LogLevel, message: string) => logs.push(`${level}: ${message}`),
    bufferLimit: { ms: 3000 },
    ...options,
  });
  return { stream, sink, logs };
}

/** Runs the engine's timers up to `until`. */
function runUntil(stream: AudioStream, until: number): void {
  for (let guard = 0; guard < 1_000_000; guard++) {
    const at = stream.pollTimeout();
    if (at === undefined || at > until) return;
    stream.handleTimeout(Math.max(at, 0));
  }
  assert.fail('the engine never settles');
}

/** The sender's clock is ours + 5 s, exactly (a perfect estimate). */
const senderToLocal = (senderMs: number): number => senderMs - 5000;

test('the first frame is presented exactly when the sync packet asks', () => {
  const { stream, sink } = harness({ senderToLocal });
  const sender = new Sender();
  // At local 100 (sender 5100), pyatv is sending RTP time 1_000_000; 1_000_000 - LATENCY is heard now.
  const sync = writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 5100, currentRtpTime: sender.rtp });
  stream.receiveControl(sync, 100);
  for (let i = 0; i < 8; i++) stream.receiveAudio(sender.next(), 100 + i);
  // The NTP time as the packet carries it (5100 ms to 2^-32 s), through the estimate, plus the latency.
  const syncRead = readSyncPacket(sync);
  assert.ok(!isRefusal(syncRead));
  const asked = senderToLocal(syncRead.senderTimeMs) + LATENCY * MS_PER_FRAME;
  assert.equal(stream.pollTimeout(), asked - sink.latencyMs - 20, 'written the sink latency and the margin ahead');
  runUntil(stream, asked - 60);
  assert.equal(sink.writes.length, 1);
  assert.equal(stream.anchoring, 'sync');
  assert.equal(sink.writes[0].presentationTime, asked);
  const frames = sink.frames();
  assert.equal(frames[0].rtp, 1_000_000);
  assert.deepEqual(frames.map((frame) => frame.rtp), Array.from({ length: frames.length }, (_, i) => 1_000_000 + i), 'in order, no silence');
});

test('sync packets that re-say the anchor with a few ms of jitter (a busy sender reading its clock late) move nothing: no frame dropped or repeated', () => {
  const { stream, sink } = harness({ senderToLocal, driftToleranceMs: 2 });
  const sender = new Sender();
  const firstRtp = sender.rtp;
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: firstRtp - LATENCY, senderTimeMs: 5100, currentRtpTime: firstRtp }), 100);
  // 6 s of packets, a sync each second whose clock reading is up to 8 ms late.
  for (let i = 0; i < 750; i++) {
    const at = 100 + i * FPP * MS_PER_FRAME;
    if (i > 0 && i % 125 === 0) {
      const rtp = firstRtp + i * FPP;
      stream.receiveControl(writeSyncPacket({ first: false, presentedRtpTime: rtp - LATENCY, senderTimeMs: 5100 + i * FPP * MS_PER_FRAME + ((i / 125) % 2) * 8, currentRtpTime: rtp }), at);
    }
    stream.receiveAudio(sender.next(), at);
    runUntil(stream, at);
  }
  assert.equal(stream.stats.driftFramesDropped + stream.stats.driftFramesRepeated, 0);
  assert.ok(stream.stats.framesPlayed > 100_000, `${stream.stats.framesPlayed} frames played`);
  assert.ok(sink.writes.length > 0);
});

test('a lost packet is asked for once with pyatv\'s request bytes, and the resent one fills the gap', () => {
  const { stream, sink } = harness({ senderToLocal });
  const sender = new Sender(65534);
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 5000, currentRtpTime: sender.rtp }), 0);
  const sent: Uint8Array[] = [];
  for (let i = 0; i < 6; i++) sent.push(sender.next());
  for (const [i, packet] of sent.entries()) if (i !== 2 && i !== 3) stream.receiveAudio(packet, i * 8);
  const request = stream.pollControlTransmit();
  assert.ok(request);
  assert.equal(toHex(request), '80d50001' + '0000' + '0002', 'sequence 0 and 1 (past the wrap), asked once');
  assert.equal(stream.pollControlTransmit(), undefined);
  stream.receiveControl(writeResentPacket(sent[2]), 60);
  stream.receiveControl(writeResentPacket(sent[3]), 61);
  runUntil(stream, LATENCY * MS_PER_FRAME);
  const frames = sink.frames();
  assert.equal(frames.length, 6 * FPP);
  assert.ok(frames.every((frame, i) => frame.rtp === 1_000_000 + i), 'every frame, in order');
  assert.equal(stream.stats.retransmitsRequested, 2);
  assert.equal(stream.stats.retransmitsRecovered, 2);
  assert.equal(stream.stats.lostPackets, 0);
});

test('a gap still open when its frames are due is silence, counted; the output stays contiguous', () => {
  const { stream, sink } = harness({ senderToLocal });
  const sender = new Sender();
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 5000, currentRtpTime: sender.rtp }), 0);
  const sent = [sender.next(), sender.next(), sender.next()];
  stream.receiveAudio(sent[0], 0);
  stream.receiveAudio(sent[2], 16);
  assert.ok(stream.pollControlTransmit());
  runUntil(stream, 1600);
  const frames = sink.frames();
  assert.ok(frames.length >= 3 * FPP);
  assert.ok(frames.slice(FPP, 2 * FPP).every((frame) => frame.rtp === 0), 'silence where packet 2 was');
  assert.equal(frames[2 * FPP].rtp, 1_000_000 + 2 * FPP);
  assert.ok(sink.contiguous());
  assert.equal(stream.stats.lostPackets, 1);
  // The packet that comes after its frames were written is late.
  stream.receiveControl(writeResentPacket(sent[1]), 2100);
  assert.equal(stream.stats.drops.late, 1);
});

test('reordered packets are played in order; packets of another SSRC, duplicates and those beyond the window are dropped and counted', () => {
  const { stream, sink, logs } = harness({ senderToLocal, bufferLimit: { packets: 16 } });
  const sender = new Sender(100);
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 5000, currentRtpTime: sender.rtp }), 0);
  const sent = Array.from({ length: 6 }, () => sender.next());
  for (const i of [0, 2, 1, 3, 5, 4]) stream.receiveAudio(sent[i], i);
  stream.receiveAudio(sent[3], 7);
  const stranger = new Sender(104, 1_000_000 + 4 * FPP, 0x5eed);
  for (let i = 0; i < 100; i++) stream.receiveAudio(stranger.next(), 8);
  const far = new Sender(100 + 16, 1_000_000 + 16 * FPP);
  stream.receiveAudio(far.next(), 9);
  runUntil(stream, 2000);
  assert.ok(sink.frames().slice(0, 6 * FPP).every((frame, i) => frame.rtp === 1_000_000 + i));
  assert.equal(stream.stats.drops.ssrc, 100);
  assert.equal(stream.stats.drops.duplicate, 1);
  assert.equal(stream.stats.drops.window, 1);
  assert.equal(stream.stats.packetsReceived, 108);
  assert.equal(logs.filter((line) => line.includes('(ssrc)')).length, 1, 'a flood of drops is one log line');
});

test('FLUSH drops what is buffered and what the sink holds; the stream goes on from its sequence number, with a new SSRC', () => {
  const { stream, sink } = harness({ senderToLocal });
  const sender = new Sender(10);
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 5000, currentRtpTime: sender.rtp }), 0);
  for (let i = 0; i < 5; i++) stream.receiveAudio(sender.next(), i);
  assert.equal(stream.bufferedPackets, 5);
  const after = new Sender(40, 2_000_000, 0x0b0b);
  stream.flush({ seq: 40, rtptime: 2_000_000 });
  assert.equal(sink.flushes, 1);
  assert.equal(stream.bufferedPackets, 0);
  stream.receiveAudio(sender.next(), 10);
  assert.equal(stream.stats.drops.late, 1, 'a packet from before the flush');
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: after.rtp - LATENCY, senderTimeMs: 6000, currentRtpTime: after.rtp }), 1000);
  for (let i = 0; i < 3; i++) stream.receiveAudio(after.next(), 1000 + i);
  runUntil(stream, 3000);
  assert.equal(sink.writes[0].presentationTime, 1000 + LATENCY * MS_PER_FRAME);
  assert.equal(sink.frames()[0].rtp, 2_000_000);
  assert.equal(stream.stats.drops.ssrc, 0);
});

test('volume passes to the sink; end() ends the sink and takes nothing more', () => {
  const { stream, sink } = harness();
  stream.setVolume(-12.5);
  assert.deepEqual(sink.volumes, [-12.5]);
  stream.end();
  assert.equal(sink.ended, true);
  stream.receiveAudio(new Sender().next(), 0);
  assert.equal(stream.stats.packetsReceived, 0);
  assert.equal(stream.pollTimeout(), undefined);
});

test('bad datagrams are counted by reason and never thrown', () => {
  const { stream } = harness();
  stream.receiveAudio(new Uint8Array(3), 0);
  stream.receiveAudio(Uint8Array.of(0x40, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0);
  stream.receiveAudio(writeAudioPacket({ marker: false, sequence: 1, timestamp: 1, ssrc: 1 }, new Uint8Array(5)), 0);
  stream.receiveControl(Uint8Array.of(0x80, 0xd5, 0, 1, 0, 0, 0, 1), 0);
  stream.receiveControl(new Uint8Array(0), 0);
  assert.deepEqual({ ...stream.stats.drops }, { version: 1, truncated: 2, oversized: 0, type: 1, authentication: 0, decode: 1, ssrc: 0, late: 0, window: 0, duplicate: 0, flushed: 0 });
});

test('a session\'s sealed packets are opened; one that does not open is an authentication drop', () => {
  const key = new Uint8Array(32).fill(7);
  const { stream, sink } = harness({ senderToLocal, cipher: new PacketCipher(key, portableFrameKernel) });
  const sealer = new PacketCipher(key, portableFrameKernel);
  const seal = (seq: number, rtp: number): Uint8Array => sealer.seal(writeAudioHeader({ marker: false, sequence: seq, timestamp: rtp, ssrc: SSRC }), payloadFor(rtp));
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: 1_000_000 - LATENCY, senderTimeMs: 5000, currentRtpTime: 1_000_000 }), 0);
  stream.receiveAudio(seal(1, 1_000_000), 0);
  const bad = seal(2, 1_000_000 + FPP);
  bad[20] ^= 1;
  stream.receiveAudio(bad, 1);
  stream.receiveAudio(seal(2, 1_000_000 + FPP), 2);
  runUntil(stream, 2000);
  assert.equal(stream.stats.drops.authentication, 1);
  assert.ok(sink.frames().slice(0, 2 * FPP).every((frame, i) => frame.rtp === 1_000_000 + i));
});

test('a sync time far from the sender\'s clock (pyatv\'s frame count) is not believed: the first packet is heard at its arrival plus the latency', () => {
  const { stream, sink } = harness({ senderToLocal });
  const sender = new Sender();
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 3.9e12, currentRtpTime: sender.rtp }), 50);
  assert.equal(stream.stats.syncImplausible, 1);
  for (let i = 0; i < 4; i++) stream.receiveAudio(sender.next(), 200 + i * 8);
  runUntil(stream, 1700);
  assert.equal(stream.anchoring, 'arrival');
  assert.equal(sink.writes[0].presentationTime, 200 + LATENCY * MS_PER_FRAME, 'the sync packet\'s latency, from the first arrival');
});

// The long simulations run at 4000 Hz mono with a decoder of their own: the drift logic counts
// milliseconds, not samples, and 10 minutes at 44100 Hz stereo is 53 million samples, minutes of
// work inside XS. Each payload is its first frame's RTP time (4 bytes); the decoder expands it to
// frames whose values are that time plus their index, modulo 32767, plus 1 (never silence's 0).
const SLOW_RATE = 4000;
const SLOW_MS_PER_FRAME = 1000 / SLOW_RATE;
const SLOW_FPP = 352;
const MARK_MODULUS = 32767;

const markDecoder = {
  decode(payload: Uint8Array): Int16Array {
    const rtp = ((payload[0] << 24) | (payload[1] << 16) | (payload[2] << 8) | payload[3]) >>> 0;
    const pcm = new Int16Array(SLOW_FPP);
    let mark = rtp % MARK_MODULUS;
    for (let i = 0; i < SLOW_FPP; i++) {
      pcm[i] = mark + 1;
      mark = mark + 1 === MARK_MODULUS ? 0 : mark + 1;
    }
    return pcm;
  },
};

/**
 * A sender whose clock gains 100 ppm on ours, for 10 simulated minutes: packets sent on its clock
 * (arriving 1 to 3 ms later), a sync packet each of its seconds, a perfect estimate of its clock.
 */
function fastSender(options: { believeSync: boolean; drift?: number }): { sink: RecordingSink; stream: AudioStream; trueLocal: (rtp: number) => number; startRtp: number } {
  const drift = options.drift ?? 100e-6;
  const latency = SLOW_RATE + SLOW_RATE / 2;
  const toLocal = (senderMs: number): number => (senderMs - 5000) / (1 + drift);
  const sink = new RecordingSink();
  const stream = new AudioStream({
    format: { sampleRate: SLOW_RATE, channels: 1, framesPerPacket: SLOW_FPP },
    decoder: markDecoder,
    sink,
    log: () => {},
    bufferLimit: { ms: 3000 },
    ...(options.believeSync ? { senderToLocal: toLocal } : { latencyFrames: latency }),
  });
  const startRtp = 7_000_000;
  const senderStart = 5000;
  // RTP time T is heard at the sender's time of its sending plus the latency, on the sender's clock.
  const trueLocal = (rtp: number): number => toLocal(senderStart + (rtp - startRtp + latency) * SLOW_MS_PER_FRAME);
  const packets = Math.floor((10 * 60 * SLOW_RATE) / SLOW_FPP);
  let nextSyncRtp = startRtp;
  const payload = new Uint8Array(4);
  for (let k = 0; k < packets; k++) {
    const rtp = startRtp + k * SLOW_FPP;
    const senderNow = senderStart + (rtp - startRtp) * SLOW_MS_PER_FRAME;
    const sentAt = toLocal(senderNow);
    if (rtp >= nextSyncRtp) {
      stream.receiveControl(writeSyncPacket({ first: k === 0, presentedRtpTime: rtp - latency, senderTimeMs: options.believeSync ? senderNow : 1e12, currentRtpTime: rtp }), sentAt + 1);
      nextSyncRtp += SLOW_RATE;
    }
    const arrival = sentAt + 1 + ((k * 7919) % 3);
    runUntil(stream, arrival);
    new DataView(payload.buffer).setUint32(0, rtp);
    stream.receiveAudio(writeAudioPacket({ marker: k === 0, sequence: k & 0xffff, timestamp: rtp, ssrc: SSRC }, payload), arrival);
  }
  return { sink, stream, trueLocal, startRtp };
}

/**
 * Every written frame in one pass: how many, how many silent, the RTP time steps between
 * neighbours, and the largest distance (ms) between when a frame is heard and `trueLocal` of its
 * RTP time (rebuilt from the marks, which wrap), from `fromMs` on. Writes must be contiguous.
 */
function scan(sink: RecordingSink, startRtp: number, trueLocal: (rtp: number) => number, fromMs = -Infinity): { frames: number; silent: number; steps: number[]; worst: number } {
  let frames = 0;
  let silent = 0;
  let worst = 0;
  let rtp = startRtp - 1;
  let previousMark = ((startRtp - 1) % MARK_MODULUS) + 1;
  // How often each step (1, 2, ...) occurs; a step past the end is counted in the last.
  const steps = [0, 0, 0, 0];
  for (let w = 0; w < sink.writes.length; w++) {
    const { pcm, presentationTime } = sink.writes[w];
    for (let i = 0; i < pcm.length; i++) {
      const mark = pcm[i];
      frames++;
      if (mark === 0) {
        silent++;
        continue;
      }
      let step = mark - previousMark;
      if (step < 0) step += MARK_MODULUS;
      steps[step < 3 ? step : 3]++;
      rtp += step;
      previousMark = mark;
      // Between a write's ends and its drops the error changes linearly (RTP time and output
      // advance one frame each): checking the frames at the ends of those stretches bounds all.
      if (i === 0 || i === pcm.length - 1 || step !== 1) {
        const at = presentationTime + i * SLOW_MS_PER_FRAME;
        if (at >= fromMs) worst = Math.max(worst, Math.abs(at - trueLocal(rtp)));
        if (step !== 1 && i > 0 && at >= fromMs) worst = Math.max(worst, Math.abs(at - SLOW_MS_PER_FRAME - trueLocal(rtp - step)));
      }
    }
  }
  return { frames, silent, steps, worst };
}

/** Whether each write starts where the one before ended (mono, at the slow rate). */
function contiguous(sink: RecordingSink): boolean {
  for (let i = 1; i < sink.writes.length; i++) {
    const previous = sink.writes[i - 1];
    if (Math.abs(sink.writes[i].presentationTime - (previous.presentationTime + previous.pcm.length * SLOW_MS_PER_FRAME)) > 1e-6) return false;
  }
  return true;
}

test('a sender clock 100 ppm fast over 10 minutes: one contiguous output, every frame within 1 ms of when it was asked', () => {
  const { sink, stream, trueLocal, startRtp } = fastSender({ believeSync: true });
  assert.equal(stream.anchoring, 'sync');
  assert.ok(contiguous(sink), 'each write starts where the last ended');
  assert.ok(Math.abs(sink.writes[0].presentationTime - trueLocal(startRtp)) < 1e-6, 'the first frame when asked (to the NTP fraction\'s rounding)');
  const { frames, silent, steps, worst } = scan(sink, startRtp, trueLocal);
  assert.ok(frames > 595 * SLOW_RATE, `${frames} frames written`);
  assert.equal(silent, 0, 'no silence');
  assert.equal(steps[0], 0, 'no frame repeated (the sender is fast)');
  assert.equal(steps[3], 0, 'no step of more than one dropped frame');
  assert.equal(steps[2], stream.stats.driftFramesDropped, 'each drop skips exactly one frame');
  assert.ok(worst <= 1, `worst presentation error ${worst.toFixed(3)} ms`);
  // 100 ppm of 600 s at 4000 Hz: 240 frames dropped.
  assert.ok(Math.abs(stream.stats.driftFramesDropped - 240) <= 5, `${stream.stats.driftFramesDropped} frames dropped`);
  assert.equal(stream.stats.driftFramesRepeated, 0);
});

test('the same sender anchored on arrival: the rate is learnt from arrivals and followed within a few ms once learnt', () => {
  const { sink, stream, trueLocal, startRtp } = fastSender({ believeSync: false });
  assert.equal(stream.anchoring, 'arrival');
  assert.ok(contiguous(sink));
  // Arrival anchoring hears the first packet at its arrival (1 ms after sending) + the latency on
  // our clock (its 150 ppm of difference from the sender's is what drift correction then takes up).
  assert.ok(Math.abs(sink.writes[0].presentationTime - (1 + 1500)) < 1e-6);
  const { silent, worst } = scan(sink, startRtp, (rtp) => trueLocal(rtp) + 1, sink.writes[0].presentationTime + 60_000);
  assert.equal(silent, 0);
  assert.ok(worst <= 2.5, `worst error after the first minute ${worst.toFixed(3)} ms (arrival jitter is 2 ms)`);
  assert.ok(Math.abs(stream.stats.driftFramesDropped - 240) <= 30, `${stream.stats.driftFramesDropped} frames dropped`);
});

test('a sync packet that moves the mapping by more than 50 ms restarts the timeline there: the sink flushed, the next write where the sender now asks', () => {
  const { stream, sink } = harness({ senderToLocal });
  const sender = new Sender();
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: sender.rtp - LATENCY, senderTimeMs: 5000, currentRtpTime: sender.rtp }), 0);
  for (let i = 0; i < 200; i++) stream.receiveAudio(sender.next(), i * 8);
  runUntil(stream, 1500);
  assert.equal(stream.stats.playoutStarts, 1);
  const written = sink.frames().length;
  // The sender says the same RTP time is heard 200 ms later (it re-timed its stream).
  const current = 1_000_000 + 1500 * 44.1;
  stream.receiveControl(writeSyncPacket({ first: false, presentedRtpTime: current - LATENCY, senderTimeMs: 6500 + 200, currentRtpTime: current }), 1500);
  runUntil(stream, 1900);
  assert.equal(stream.stats.resyncs, 1);
  assert.equal(stream.stats.playoutStarts, 2);
  assert.equal(sink.flushes, 1);
  const frames = sink.frames();
  const next = frames[written];
  assert.ok(Math.abs(next.at - (200 + LATENCY * MS_PER_FRAME + (next.rtp - 1_000_000) * MS_PER_FRAME)) < 1e-6, 'heard where the new sync packet says');
  assert.equal(stream.stats.driftFramesDropped + stream.stats.driftFramesRepeated, 0, 'not chased a frame at a time');
});

test('a sender that changes SSRC without a flush is followed once the old stream has played out and been silent for idleAfterMs', () => {
  const { stream, sink } = harness({ senderToLocal, idleAfterMs: 500 });
  const first = new Sender(1);
  stream.receiveControl(writeSyncPacket({ first: true, presentedRtpTime: first.rtp - LATENCY, senderTimeMs: 5000, currentRtpTime: first.rtp }), 0);
  for (let i = 0; i < 3; i++) stream.receiveAudio(first.next(), i);
  // A new SSRC from 10 ms on, its RTP time continuing where the first left off.
  const second = new Sender(900, first.rtp, 0x22222222);
  for (let now = 10; now < 4000; now += 8) {
    runUntil(stream, now);
    stream.receiveAudio(second.next(), now);
  }
  runUntil(stream, 4000);
  // The old stream's three packets play at 1500 ms; the next is missing with nothing held and
  // nothing accepted for 500 ms: playout stops, and the new SSRC's next packet starts a stream.
  assert.ok(stream.stats.drops.ssrc > 150 && stream.stats.drops.ssrc < 200, `${stream.stats.drops.ssrc} dropped`);
  assert.equal(stream.stats.playoutStarts, 2);
  const rtps = sink.frames().map((frame) => frame.rtp);
  assert.equal(rtps[0], 1_000_000);
  assert.ok(rtps.some((rtp) => rtp > 1_000_000 + 3 * FPP), 'the new stream is heard');
});

test('after FLUSH with an RTP time only, packets before it are flushed ones', () => {
  const { stream } = harness({ senderToLocal });
  const sender = new Sender(5, 10_000);
  stream.flush({ rtptime: 10_000 + 2 * FPP });
  stream.receiveAudio(sender.next(), 0);
  stream.receiveAudio(sender.next(), 1);
  stream.receiveAudio(sender.next(), 2);
  assert.equal(stream.stats.drops.flushed, 2);
  assert.equal(stream.bufferedPackets, 1);
});

test('a sender clock 100 ppm slow over 10 minutes: frames repeated, never dropped, every frame within 1 ms', () => {
  const { sink, stream, trueLocal, startRtp } = fastSender({ believeSync: true, drift: -100e-6 });
  assert.ok(contiguous(sink));
  const { silent, steps, worst } = scan(sink, startRtp, trueLocal);
  assert.equal(silent, 0);
  assert.equal(steps[0], stream.stats.driftFramesRepeated, 'each repeat writes one frame twice');
  assert.equal(steps[2] + steps[3], 0, 'nothing dropped');
  assert.ok(Math.abs(stream.stats.driftFramesRepeated - 240) <= 5, `${stream.stats.driftFramesRepeated} frames repeated`);
  assert.ok(worst <= 1, `worst presentation error ${worst.toFixed(3)} ms`);
});
