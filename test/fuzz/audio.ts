// Fuzz campaigns of realtime audio (src/audio): the RTP packet readers (which refuse, never
// throw), the ANNOUNCE SDP reader, the Transport and RTP-Info headers, and the playout engine fed
// random packet streams (lost, reordered, repeated, mutated, other SSRCs, sync packets with any
// times, resends, flushes, clock jumps), which may only count and drop, never throw, and whose
// output stays one contiguous run between restarts. Portable: ECMAScript only.

import { latin1Decode, latin1Encode } from '../../src/bytes';
import { AudioStream } from '../../src/audio/audio-stream';
import { createPcmDecoder } from '../../src/audio/decoder';
import { readRtpInfo, RtpInfoError } from '../../src/audio/rtp-info';
import {
  AUDIO_HEADER_BYTES,
  isRefusal,
  readAudioPacket,
  readControlPacket,
  RETRANSMIT_REQUEST_BYTES,
  writeAudioPacket,
  writeResentPacket,
  writeRetransmitRequest,
  writeSyncPacket,
} from '../../src/audio/rtp-packets';
import { readAnnounceSdp, SdpError } from '../../src/audio/sdp';
import { readSenderTransport, TransportHeaderError } from '../../src/audio/transport-header';
import type { AudioFormat, AudioSink } from '../../src/platform';
import type { Rng } from '../support/arbitrary';
import { FuzzFailure, type Campaign } from './engine';
import { mutate, tokens } from './mutate';

const never = (): boolean => false;
const FPP = 352;

function randomAudioPacket(rng: Rng): Uint8Array {
  return writeAudioPacket({ marker: rng.next() < 0.1, sequence: rng.int(0, 0xffff), timestamp: rng.int(0, 2 ** 32 - 1), ssrc: rng.int(0, 2 ** 32 - 1) }, rng.bytes(rng.pick([0, 4, 64, FPP * 4])));
}

function randomControlPacket(rng: Rng): Uint8Array {
  switch (rng.int(0, 2)) {
    case 0:
      return writeSyncPacket({ first: rng.next() < 0.5, presentedRtpTime: rng.int(0, 2 ** 32 - 1), senderTimeMs: rng.int(0, 2 ** 31) * 1000, currentRtpTime: rng.int(0, 2 ** 32 - 1) });
    case 1:
      return writeResentPacket(randomAudioPacket(rng));
    default:
      return writeRetransmitRequest({ firstSequence: rng.int(0, 0xffff), count: rng.int(0, 0xffff) });
  }
}

/** Readers return a packet or a refusal; whatever they accept has the shape its type says. */
export const audioRtpPackets: Campaign<{ bytes: Uint8Array; control: boolean }> = {
  name: 'audio-rtp-packets',
  expected: never,
  generate(rng) {
    const control = rng.next() < 0.5;
    const bytes = control ? randomControlPacket(rng) : randomAudioPacket(rng);
    return { bytes: rng.next() < 0.2 ? bytes : mutate(rng, bytes, { tokens: [Uint8Array.of(0x80, 0xe0), Uint8Array.of(0x80, 0xd6), Uint8Array.of(0x90, 0xd4)] }), control };
  },
  check({ bytes, control }) {
    if (!control) {
      const packet = readAudioPacket(bytes);
      if (!isRefusal(packet) && packet.payload.length !== bytes.length - AUDIO_HEADER_BYTES) throw new FuzzFailure('an audio packet\'s payload is not the bytes after its header');
      return;
    }
    const packet = readControlPacket(bytes);
    if (isRefusal(packet)) {
      if (packet.reason.length === 0) throw new FuzzFailure('a refusal without a reason');
      return;
    }
    if (packet.type === 'retransmitRequest' && bytes.length !== RETRANSMIT_REQUEST_BYTES) throw new FuzzFailure(`a retransmit request of ${bytes.length} bytes was read`);
    if (packet.type === 'sync' && !Number.isFinite(packet.sync.senderTimeMs)) throw new FuzzFailure('a sync packet with a time that is not a number');
  },
};

const PYATV_SDP =
  'v=0\r\no=iTunes 3735928559 0 IN IP4 127.0.0.1\r\ns=iTunes\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 0 RTP/AVP 96\r\n' +
  'a=rtpmap:96 L16/44100/2\r\na=fmtp:96 352 0 16 40 10 14 2 255 0 0 44100\r\n';
const SDP_BODIES = [PYATV_SDP, PYATV_SDP.replace('L16/44100/2', 'AppleLossless'), PYATV_SDP.replace('L16/44100/2', 'mpeg4-generic/48000/2') + 'a=min-latency:11025\r\n'];
const SDP_TOKENS = tokens('\r\n', '\n', 'a=', 'm=audio ', 'a=rtpmap:96 ', 'a=fmtp:96 ', 'a=rsaaeskey:', 'AppleLossless', 'L16/', '/', ' ', ':');

export const audioSdp: Campaign<{ body: string; valid: boolean }> = {
  name: 'audio-sdp',
  expected: (error) => error instanceof SdpError,
  generate(rng) {
    const body = rng.pick(SDP_BODIES);
    return rng.next() < 0.1 ? { body, valid: true } : { body: latin1Decode(mutate(rng, latin1Encode(body), { tokens: SDP_TOKENS })), valid: false };
  },
  check({ body, valid }) {
    let format;
    try {
      format = readAnnounceSdp(body);
    } catch (error) {
      if (valid) throw new FuzzFailure(`a valid ANNOUNCE body was refused: ${(error as Error).message}`);
      throw error;
    }
    const { sampleRate, channels, framesPerPacket } = format;
    for (const [name, value] of Object.entries({ sampleRate, channels, framesPerPacket })) {
      if (!Number.isInteger(value) || value < 1) throw new FuzzFailure(`a format with ${name} ${value} was accepted`);
    }
  },
};

const TRANSPORTS = ['RTP/AVP/UDP;unicast;interleaved=0-1;mode=record;control_port=50123;timing_port=50124', 'seq=4660;rtptime=4294967295'];
const TRANSPORT_TOKENS = tokens(';', ',', '=', 'RTP/AVP/TCP', 'multicast', 'mode=', 'control_port=', 'timing_port=', 'seq=', 'rtptime=', '"');

export const audioTransportHeader: Campaign<{ header: string; rtpInfo: boolean; valid: boolean }> = {
  name: 'audio-transport-header',
  expected: (error) => error instanceof TransportHeaderError || error instanceof RtpInfoError,
  generate(rng) {
    const rtpInfo = rng.next() < 0.5;
    const header = TRANSPORTS[rtpInfo ? 1 : 0];
    return rng.next() < 0.1 ? { header, rtpInfo, valid: true } : { header: latin1Decode(mutate(rng, latin1Encode(header), { tokens: TRANSPORT_TOKENS })), rtpInfo, valid: false };
  },
  check({ header, rtpInfo, valid }) {
    try {
      if (rtpInfo) {
        const info = readRtpInfo(header);
        if (info.seq !== undefined && !(info.seq >= 0 && info.seq <= 0xffff)) throw new FuzzFailure(`seq ${info.seq} was read`);
        return;
      }
      const ports = readSenderTransport(header);
      for (const port of [ports.controlPort, ports.timingPort]) {
        if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535)) throw new FuzzFailure(`port ${port} was read`);
      }
    } catch (error) {
      if (valid) throw new FuzzFailure(`a valid header was refused: ${(error as Error).message}`);
      throw error;
    }
  },
};

/** A sink that checks what the engine promises it: whole frames, one contiguous run between restarts. */
class CheckingSink implements AudioSink {
  latencyMs = 30;
  /** The engine's count of timelines (stats.playoutStarts): a write of a new one may start anywhere. */
  timelines: () => number = () => 0;
  private lastTimeline = -1;
  writes = 0;
  private runEnd = 0;
  configure(_format: AudioFormat): string | undefined {
    return undefined;
  }
  write(pcm: Int16Array, presentationTime: number): void {
    if (pcm.length % 2 !== 0) throw new FuzzFailure(`a write of ${pcm.length} samples, not whole stereo frames`);
    if (pcm.length === 0) throw new FuzzFailure('an empty write');
    if (!Number.isFinite(presentationTime)) throw new FuzzFailure(`a write presented at ${presentationTime}`);
    const timeline = this.timelines();
    if (timeline === this.lastTimeline && Math.abs(presentationTime - this.runEnd) > 1e-6 + Math.abs(this.runEnd) * 1e-12) {
      throw new FuzzFailure(`a write at ${presentationTime} where the last ended at ${this.runEnd}`);
    }
    this.lastTimeline = timeline;
    this.runEnd = presentationTime + ((pcm.length / 2) * 1000) / 44100;
    this.writes++;
  }
  setVolume(): void {}
  flush(): void {}
  ended = false;
  end(): void {
    this.ended = true;
  }
}

type Action =
  | { readonly kind: 'audio' | 'control'; readonly bytes: Uint8Array; readonly advance: number }
  | { readonly kind: 'flush' | 'record'; readonly seq?: number; readonly rtptime?: number; readonly advance: number };

/** A plausible stream (a sender's packets, a sync a second), then disorder: loss, reordering, repeats, mutations, strangers. */
function randomActions(rng: Rng): Action[] {
  const ssrc = rng.int(0, 2 ** 32 - 1);
  let seq = rng.int(0, 0xffff);
  let rtp = rng.int(0, 2 ** 32 - 1);
  const actions: Action[] = [];
  const sent: Uint8Array[] = [];
  const count = rng.int(1, 60);
  for (let i = 0; i < count; i++) {
    const roll = rng.next();
    const advance = rng.next() < 0.05 ? rng.int(0, 5000) : rng.int(0, 12);
    if (roll < 0.6) {
      const packet = writeAudioPacket({ marker: i === 0, sequence: seq, timestamp: rtp, ssrc: rng.next() < 0.05 ? rng.int(0, 2 ** 32 - 1) : ssrc }, rng.bytes(rng.next() < 0.9 ? FPP * 4 : rng.int(0, FPP * 4 + 8)));
      seq = (seq + (rng.next() < 0.05 ? rng.int(-3, 40) : 1)) & 0xffff;
      rtp = (rtp + FPP) >>> 0;
      sent.push(packet);
      if (rng.next() < 0.1) continue; // lost
      actions.push({ kind: 'audio', bytes: rng.next() < 0.1 ? mutate(rng, packet) : packet, advance });
    } else if (roll < 0.7) {
      const latency = rng.next() < 0.8 ? 88200 : rng.int(0, 2 ** 32 - 1);
      actions.push({ kind: 'control', bytes: writeSyncPacket({ first: rng.next() < 0.2, presentedRtpTime: (rtp - latency) >>> 0, senderTimeMs: rng.next() < 0.5 ? 10_000 + i * 8 : rng.int(0, 2 ** 31) * 1000, currentRtpTime: rtp }), advance });
    } else if (roll < 0.8 && sent.length > 0) {
      actions.push({ kind: 'control', bytes: writeResentPacket(rng.pick(sent)), advance });
    } else if (roll < 0.85 && sent.length > 0) {
      actions.push({ kind: 'audio', bytes: rng.pick(sent), advance }); // a repeat, or reordered
    } else if (roll < 0.9) {
      actions.push({ kind: 'control', bytes: mutate(rng, randomControlPacket(rng)), advance });
    } else if (roll < 0.95) {
      actions.push({ kind: rng.next() < 0.7 ? 'flush' : 'record', ...(rng.next() < 0.7 ? { seq } : {}), ...(rng.next() < 0.7 ? { rtptime: rtp } : {}), advance });
    } else {
      actions.push({ kind: 'audio', bytes: rng.bytes(rng.int(0, 40)), advance });
    }
  }
  return actions;
}

const BUFFER_PACKETS = 32;

export const audioStream: Campaign<{ actions: Action[]; offset: number; believe: boolean }> = {
  name: 'audio-stream',
  expected: never,
  generate(rng) {
    return { actions: randomActions(rng), offset: rng.int(-5000, 5000), believe: rng.next() < 0.7 };
  },
  check({ actions, offset, believe }) {
    const sink = new CheckingSink();
    const stream = new AudioStream({
      format: { sampleRate: 44100, channels: 2, framesPerPacket: FPP },
      decoder: createPcmDecoder({ channels: 2, bitsPerSample: 16, framesPerPacket: FPP }),
      sink,
      log: () => {},
      bufferLimit: { packets: BUFFER_PACKETS },
      ...(believe ? { senderToLocal: (senderMs: number) => senderMs - 10_000 + offset } : {}),
    });
    sink.timelines = () => stream.stats.playoutStarts;
    let now = 0;
    const runTimers = (until: number): void => {
      for (let guard = 0; guard < 100_000; guard++) {
        const at = stream.pollTimeout();
        if (at === undefined || at > until) return;
        if (!Number.isFinite(at)) throw new FuzzFailure(`a deadline of ${at}`);
        stream.handleTimeout(Math.max(at, now));
      }
      throw new FuzzFailure('the engine\'s timers never settle (a deadline that stays after it was handled)');
    };
    for (const action of actions) {
      now += action.advance;
      runTimers(now);
      if (action.kind === 'audio') stream.receiveAudio(action.bytes, now);
      else if (action.kind === 'control') stream.receiveControl(action.bytes, now);
      else if (action.kind === 'flush' || action.kind === 'record') {
        const info = { ...(action.seq !== undefined ? { seq: action.seq } : {}), ...(action.rtptime !== undefined ? { rtptime: action.rtptime } : {}) };
        if (action.kind === 'flush') stream.flush(info);
        else stream.record(info);
      }
      if (stream.bufferedPackets > BUFFER_PACKETS) throw new FuzzFailure(`${stream.bufferedPackets} packets held in a buffer of ${BUFFER_PACKETS}`);
      for (let request = stream.pollControlTransmit(), drained = 0; request; request = stream.pollControlTransmit(), drained++) {
        if (request.length !== RETRANSMIT_REQUEST_BYTES) throw new FuzzFailure(`a control datagram of ${request.length} bytes`);
        if (drained > 64) throw new FuzzFailure('the control queue grew past its bound');
      }
    }
    runTimers(now + 10_000);
    const { stats } = stream;
    for (const [name, value] of Object.entries({ ...stats, ...stats.drops })) {
      if (typeof value === 'number' && name !== 'lastPresentationErrorMs' && !(Number.isInteger(value) && value >= 0)) throw new FuzzFailure(`counter ${name} is ${value}`);
    }
    stream.end();
    if (!sink.ended) throw new FuzzFailure('end() did not end the sink');
  },
};

export const AUDIO_CAMPAIGNS = [audioRtpPackets, audioSdp, audioTransportHeader, audioStream] as const;
