// How closely the receiver plays realtime audio at the time the sender asks: a classic stream from
// a simulated sender whose clock runs `ppm` fast (0 and +100), over ten minutes of simulated time,
// through the whole Receiver on in-memory ports (the real routes, timing client, jitter buffer and
// playout engine; a manual clock, so the run is exact and takes seconds, not ten minutes).
//
// The sender: a timing server answering from its own clock (one-way delays of 0.3 to 0.9 ms,
// seeded), audio packets of 352 frames paced by its own clock, a sync packet each second saying
// frame R - latency is heard at its clock's now. Each frame carries its own RTP time in its
// samples, so every write to the sink says which frame it starts with; its error is its
// presentation time against the local time the sender asked for that frame (the sender's clock,
// mapped back exactly). The figures are the core's: a real output adds its own (fixed) latency.

import { writeAudioPacket, writeSyncPacket } from '../../src/audio/rtp-packets';
import { utf8Encode } from '../../src/bytes';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { NTP_UNIX_EPOCH_MS, isRaopTimingRequest, raopTimingReply } from '../../src/timing';
import { MemoryAudioSink } from '../support/memory-audio-sink';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { MemoryUdpSocket } from '../support/mirror-ports';
import { report, spread } from './measure';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SENDER = '192.0.2.30';
const RATE = 44100;
const FRAMES = 352;
const LATENCY_FRAMES = 11025;
const SIMULATED_MS = 10 * 60 * 1000;
/** The sender's clock at local 0: NTP-era time, as real senders serve. */
const SENDER_EPOCH_MS = NTP_UNIX_EPOCH_MS + 1_790_000_000_000;

interface ClockRun {
  readonly firstErrorMs: number;
  readonly errorsMs: number[];
  readonly framesDropped: number;
  readonly framesRepeated: number;
  readonly framesHeard: number;
}

function simulate(ppm: number, seed: number): ClockRun {
  const clock = new ManualClock();
  const sink = new MemoryAudioSink();
  const data = new MemoryUdpSocket(6000);
  const control = new MemoryUdpSocket(6001);
  const timingSocket = new MemoryUdpSocket(7012);
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Bench', profile: 'speaker', deviceId: '58:55:CA:1A:E2:88' }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(seed),
    store: new MemoryStore(),
    log,
    timingSocket,
    audioSink: sink,
    audioSockets: { data, control },
  });
  new TimerDriver(receiver, clock);
  const rate = 1 + ppm * 1e-6;
  const senderNow = () => SENDER_EPOCH_MS + clock.now() * rate;
  /** The local time the sender's clock reads `senderMs` at. */
  const localAt = (senderMs: number) => (senderMs - SENDER_EPOCH_MS) / rate;
  let random = seed >>> 0 || 1;
  const delay = () => {
    random = (random * 1664525 + 1013904223) >>> 0;
    return 0.3 + (random / 0x100000000) * 0.6;
  };
  // The sender's timing server: each request answered after a one-way delay each way.
  let timingSeen = 0;
  const answerTiming = () => {
    for (; timingSeen < timingSocket.sent.length; timingSeen++) {
      const request = timingSocket.sent[timingSeen].bytes;
      if (!isRaopTimingRequest(request)) continue;
      clock.setTimer(delay(), () => {
        const at = senderNow();
        const reply = raopTimingReply(request, at, at);
        clock.setTimer(delay(), () => timingSocket.deliver(reply, SENDER, 51_002));
      });
    }
  };
  const sender = new MemorySender(receiver, 50_000, SENDER);
  const sdp = ['v=0', 'o=iTunes 1 0 IN IP4 192.0.2.30', 's=iTunes', 'c=IN IP4 192.0.2.1', 't=0 0', 'm=audio 0 RTP/AVP 96', 'a=rtpmap:96 L16/44100/2', `a=min-latency:${LATENCY_FRAMES}`, ''].join('\r\n');
  sender.request('ANNOUNCE', 'rtsp://192.0.2.30/1', { protocol: 'RTSP', contentType: 'application/sdp', body: utf8Encode(sdp) });
  sender.request('SETUP', 'rtsp://192.0.2.30/1', { protocol: 'RTSP', headers: [['Transport', 'RTP/AVP/UDP;unicast;mode=record;control_port=51001;timing_port=51002']] });
  // A few timing exchanges before the stream starts, as senders do between SETUP and RECORD.
  const settleUntil = 2000;
  while (clock.now() < settleUntil) {
    answerTiming();
    clock.advance(1);
  }
  const startRtp = 1000;
  sender.request('RECORD', 'rtsp://192.0.2.30/1', { protocol: 'RTSP', headers: [['RTP-Info', `seq=0;rtptime=${startRtp}`]] });
  const senderStart = senderNow();
  const asked = (rtp: number) => localAt(senderStart + ((rtp - startRtp + LATENCY_FRAMES) * 1000) / RATE);
  let packet = 0;
  let nextSyncAt = senderStart;
  const endLocal = clock.now() + SIMULATED_MS;
  while (clock.now() < endLocal) {
    // Everything due on the sender's clock goes out now.
    const sent = (senderNow() - senderStart) * (RATE / 1000);
    while (packet * FRAMES <= sent) {
      const rtp = startRtp + packet * FRAMES;
      const pcm = new Uint8Array(FRAMES * 4);
      for (let frame = 0; frame < FRAMES; frame++) {
        const value = rtp + frame;
        // Left: the RTP time's low 15 bits, right: the next 15 (L16 is big-endian).
        pcm[frame * 4] = (value >> 8) & 0x7f;
        pcm[frame * 4 + 1] = value & 0xff;
        pcm[frame * 4 + 2] = (value >> 23) & 0x7f;
        pcm[frame * 4 + 3] = (value >> 15) & 0xff;
      }
      data.deliver(writeAudioPacket({ marker: packet === 0, sequence: packet & 0xffff, timestamp: rtp, ssrc: 7 }, pcm), SENDER, 51_000);
      packet++;
    }
    if (senderNow() >= nextSyncAt) {
      const current = startRtp + Math.floor(sent);
      control.deliver(writeSyncPacket({ first: nextSyncAt === senderStart, presentedRtpTime: current - LATENCY_FRAMES, senderTimeMs: senderNow(), currentRtpTime: current }), SENDER, 51_001);
      nextSyncAt += 1000;
    }
    answerTiming();
    clock.advance(2);
  }
  const errorsMs: number[] = [];
  let framesHeard = 0;
  for (const write of sink.writes) {
    framesHeard += write.pcm.length / 2;
    const rtp = (write.pcm[0] & 0x7fff) | ((write.pcm[1] & 0x7fff) << 15);
    // Silence (before the first packet, or for a gap) carries no RTP time.
    if (write.pcm[0] === 0 && write.pcm[1] === 0) continue;
    errorsMs.push(write.at - asked(rtp));
  }
  sender.request('TEARDOWN', 'rtsp://192.0.2.30/1', { protocol: 'RTSP' });
  const ended = log.lines.map((line) => line.message).find((line) => line.includes('audio stream ended')) ?? '';
  const drift = /drift: (\d+) frames dropped, (\d+) repeated/.exec(ended);
  return { firstErrorMs: errorsMs[0], errorsMs, framesDropped: Number(drift?.[1] ?? 0), framesRepeated: Number(drift?.[2] ?? 0), framesHeard };
}

export function runAudioClockBench(): void {
  for (const ppm of [0, 100, -100]) {
    const runs = [1, 2, 3].map((seed) => simulate(ppm, seed));
    const worst = runs.map((run) => Math.max(...run.errorsMs.map(Math.abs)));
    report({
      bench: 'audio-clock',
      what: `classic stream, sender clock ${ppm >= 0 ? '+' : ''}${ppm} ppm, ${SIMULATED_MS / 60000} simulated minutes, 3 seeds of network delay`,
      firstSampleErrorMs: JSON.stringify(spread(runs.map((run) => run.firstErrorMs))),
      worstErrorMs: JSON.stringify(spread(worst)),
      framesDropped: JSON.stringify(spread(runs.map((run) => run.framesDropped), 0)),
      framesRepeated: JSON.stringify(spread(runs.map((run) => run.framesRepeated), 0)),
      writesChecked: runs[0].errorsMs.length,
      framesHeard: runs[0].framesHeard,
      goal: 'first sample within 10 ms, worst within 5 ms over 10 minutes',
    });
  }
}
