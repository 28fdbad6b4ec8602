// The playout engine of one realtime audio stream, sans-I/O in the quinn-proto shape: datagrams
// in (receiveAudio from the data port, receiveControl from the control port), retransmit requests
// out (pollControlTransmit, for the sender's control port), deadlines by pollTimeout/handleTimeout,
// PCM out to an AudioSink. No sockets, no clock: every call says what time it is.
//
// Timing (the shared audio plan): a sync packet says RTP time P is heard at the sender's clock
// time S; the owner's estimate of the sender's clock (`senderToLocal`, a timing client's) maps S
// to our monotonic clock, so RTP time T is heard at senderToLocal(S + (T - P) / rate). The engine
// writes one contiguous run of frames to the sink, a lead ahead of when it is heard, and compares
// at each packet where its output stands with where the mapping says it should: past the
// tolerance it drops or repeats one frame, so a sender clock that runs fast or slow against ours
// is followed within half a millisecond. Farther than the resync threshold (a sender that re-timed
// its stream, a jump in RTP time) it is no drift: the sink is flushed and a new timeline starts
// where the mapping says (shairport-sync does the same).
//
// Some senders' sync packets carry no usable clock time (pyatv's NTP time counts the frames it
// has sent, not its clock): a sync time that maps farther than maxSyncSkewMs from now is not
// believed. Then the engine does what real receivers do with such senders: it anchors on
// arrival, hearing the first packet's RTP time at its arrival plus the stream's latency, and
// learns the rate of RTP time against our clock from the arrivals (the earliest arrival of each
// second, through the same clock filter the timing client uses), with the same drop or repeat.

import type { AudioSink, Logger } from '../platform';
import { CountedLog } from '../counted-log';
import { ClockFilter } from '../timing/clock';
import type { AudioDecoder } from './decoder';
import { JitterBuffer } from './jitter-buffer';
import type { PacketCipher } from './packet-cipher';
import { isRefusal, readAudioPacket, readControlPacket, writeRetransmitRequest, MAX_AUDIO_PACKET_BYTES, RESENT_HEADER_BYTES, type AudioPacket } from './rtp-packets';
import type { RtpInfo } from './rtp-info';

/** RTP times are 32-bit and wrap: how far `a` is after `b`, signed (RFC 3550 5.1). */
export function rtpTimeAfter(a: number, b: number): number {
  return ((a - b) | 0);
}

/** What the engine needs of the stream's format. */
export interface PlayoutFormat {
  readonly sampleRate: number;
  readonly channels: number;
  readonly framesPerPacket: number;
}

/** The jitter buffer's size: in packets, or in ms of audio (the profile's limit). */
export type BufferLimit = { readonly packets: number } | { readonly ms: number };

export interface AudioStreamOptions {
  readonly format: PlayoutFormat;
  readonly decoder: AudioDecoder;
  readonly sink: AudioSink;
  readonly log: Logger;
  readonly bufferLimit: BufferLimit;
  /** A session's stream: packets are sealed (packet-cipher.ts). Classic streams have none. */
  readonly cipher?: PacketCipher;
  /**
   * The sender's clock (ms) as our monotonic clock at `now`, from the timing client's estimate;
   * undefined when there is none yet. Without it, the engine anchors on arrival.
   */
  readonly senderToLocal?: (senderTimeMs: number, now: number) => number | undefined;
  /** The stream's latency as asked (SDP min-latency, SETUP latencyMin), frames; sync packets' own wins. Default 2 s. */
  readonly latencyFrames?: number;
  /** Written this much before the sink's own latency asks. Default 20 ms. */
  readonly leadMarginMs?: number;
  /** Output this far from the mapping drops or repeats a frame. Default 0.5 ms. */
  readonly driftToleranceMs?: number;
  /**
   * Output this far from the mapping is not drift (a frame at a time would take minutes to close
   * it): the sink is flushed and playout starts again where the mapping says. Default 50 ms
   * (shairport-sync's resync threshold).
   */
  readonly resyncThresholdMs?: number;
  /** A sync time mapping farther than this from now is not believed. Default 1000 ms. */
  readonly maxSyncSkewMs?: number;
  /** With nothing received for this long and nothing held, playout stops until packets come again. Default 2000 ms. */
  readonly idleAfterMs?: number;
  /** Whether gaps are asked for again (the owner knows the sender's control port). Default true. */
  readonly requestRetransmits?: boolean;
  /** RECORD's RTP-Info: the first packet's sequence number and RTP time. */
  readonly start?: RtpInfo;
  readonly maxPacketBytes?: number;
}

/** Why packets were dropped, one counter each. */
export interface DropCounts {
  version: number;
  truncated: number;
  oversized: number;
  type: number;
  authentication: number;
  decode: number;
  ssrc: number;
  late: number;
  window: number;
  duplicate: number;
  flushed: number;
}

export interface AudioStreamStats {
  packetsReceived: number;
  syncPackets: number;
  /** Sync packets whose time was not believed (see the header). */
  syncImplausible: number;
  /** Frames of received audio written to the sink. */
  framesPlayed: number;
  /** Packets whose frames were due and missing while later ones had come: silence written in their place. */
  lostPackets: number;
  /** Packets' worth of silence written while nothing later had come (the sender late, paused or gone). */
  underrunPackets: number;
  silenceFrames: number;
  retransmitsRequested: number;
  retransmitsRecovered: number;
  driftFramesDropped: number;
  driftFramesRepeated: number;
  /**
   * Times playout started a timeline of its own (the sink's writes are one contiguous run within
   * each): the first packets after RECORD, a flush or a pause, and each resync.
   */
  playoutStarts: number;
  /** Output farther than resyncThresholdMs from the mapping (a sync packet that moved it, a jump in RTP time): the sink flushed and the timeline started again. */
  resyncs: number;
  /** Where the output stood against the mapping at the last packet written, ms (positive: late). */
  lastPresentationErrorMs: number;
  readonly drops: DropCounts;
}

type DropReason = keyof DropCounts;

interface DecodedPacket {
  readonly timestamp: number;
  readonly pcm: Int16Array;
}

/** The sync packet believed last: RTP time `presentedRtpTime` heard at sender time `senderTimeMs`. */
interface SyncAnchor {
  readonly presentedRtpTime: number;
  readonly senderTimeMs: number;
}

/**
 * Arrival anchoring: RTP time as ms from `firstRtp` is a clock of its own; its offset against
 * ours (RTP ms - arrival) is sampled each second at the earliest arrival (network queues only
 * ever delay), and once the filter has a line through those samples it gives the rate too.
 */
interface ArrivalAnchor {
  readonly firstRtp: number;
  readonly firstOffset: number;
  readonly filter: ClockFilter;
  windowStart: number;
  windowBest: { offset: number; at: number } | undefined;
}

/** Where the output stands: its first frame's time, frames written since, the next RTP time. */
interface Playout {
  readonly mode: 'sync' | 'arrival';
  /** Arrival anchoring's latency, fixed when playout starts (a sync packet saying another later moves nothing). */
  readonly latencyMs: number;
  readonly outputStart: number;
  framesOut: number;
  cursorRtp: number;
}

const DEFAULT_LATENCY_MS = 2000;
const DEFAULT_LEAD_MARGIN_MS = 20;
const DEFAULT_DRIFT_TOLERANCE_MS = 0.5;
const DEFAULT_MAX_SYNC_SKEW_MS = 1000;
const DEFAULT_RESYNC_THRESHOLD_MS = 50;
/** A first frame the mapping puts this far in the past is not believed (the packets are not that old). */
const MAX_START_IN_PAST_MS = 1000;
const DEFAULT_IDLE_AFTER_MS = 2000;
/** A latency a sync packet says beyond this many seconds is not a latency. */
const MAX_LATENCY_SECONDS = 10;
const ARRIVAL_WINDOW_MS = 1000;
/** A sync packet this close to the anchor's line re-says it (see adoptSync). */
const SYNC_DEADBAND_MS = 10;
/** Retransmit requests waiting for the owner; more are dropped (the owner is not draining). */
const MAX_CONTROL_QUEUE = 64;

export class AudioStream {
  readonly stats: AudioStreamStats = {
    packetsReceived: 0,
    syncPackets: 0,
    syncImplausible: 0,
    framesPlayed: 0,
    lostPackets: 0,
    underrunPackets: 0,
    silenceFrames: 0,
    retransmitsRequested: 0,
    retransmitsRecovered: 0,
    driftFramesDropped: 0,
    driftFramesRepeated: 0,
    playoutStarts: 0,
    resyncs: 0,
    lastPresentationErrorMs: 0,
    drops: { version: 0, truncated: 0, oversized: 0, type: 0, authentication: 0, decode: 0, ssrc: 0, late: 0, window: 0, duplicate: 0, flushed: 0 },
  };

  private readonly format: PlayoutFormat;
  private readonly sink: AudioSink;
  private readonly log: Logger;
  private readonly buffer: JitterBuffer<DecodedPacket>;
  private readonly leadMarginMs: number;
  private readonly toleranceMs: number;
  private readonly maxSyncSkewMs: number;
  private readonly resyncThresholdMs: number;
  /** A jump in RTP time larger than the buffer's span is the sender's clock moving, not a gap to fill. */
  private readonly maxRtpJump: number;
  private readonly idleAfterMs: number;
  private readonly maxPacketBytes: number;
  private readonly msPerFrame: number;
  private readonly logs = new Map<string, CountedLog>();
  private readonly controlQueue: Uint8Array[] = [];

  /** The stream's SSRC: the first packet's after RECORD or a flush. */
  private ssrc: number | undefined;
  /** RECORD's or FLUSH's RTP time: where playout starts, and packets before it are flushed ones. */
  private startRtp: number | undefined;
  private latencyFrames: number;
  private sync: SyncAnchor | undefined;
  /**
   * The last sync packet that came before any estimate of the sender's clock (senders send the
   * first at RECORD, often before the first timing answer), with when it came: believed once an
   * estimate exists, if it then maps near the time it came.
   */
  private unjudgedSync: (SyncAnchor & { readonly cameAt: number }) | undefined;
  private arrival: ArrivalAnchor | undefined;
  private playout: Playout | undefined;
  private lastArrival: number | undefined;
  /** The time the last call said (pollTimeout, which is told none, plans as of then). */
  private lastNow = 0;
  private ended = false;

  constructor(private readonly options: AudioStreamOptions) {
    const { format } = options;
    if (!(format.sampleRate > 0) || !(format.channels > 0) || !(format.framesPerPacket > 0)) throw new RangeError(`audio format ${format.sampleRate} Hz, ${format.channels} channels, ${format.framesPerPacket} frames a packet`);
    this.format = format;
    this.sink = options.sink;
    this.log = options.log;
    this.msPerFrame = 1000 / format.sampleRate;
    const limit = options.bufferLimit;
    const packets = 'packets' in limit ? limit.packets : Math.ceil(limit.ms / (format.framesPerPacket * this.msPerFrame));
    this.buffer = new JitterBuffer(Math.max(1, Math.min(packets, 0x7fff)));
    this.leadMarginMs = options.leadMarginMs ?? DEFAULT_LEAD_MARGIN_MS;
    this.toleranceMs = options.driftToleranceMs ?? DEFAULT_DRIFT_TOLERANCE_MS;
    this.maxSyncSkewMs = options.maxSyncSkewMs ?? DEFAULT_MAX_SYNC_SKEW_MS;
    this.resyncThresholdMs = options.resyncThresholdMs ?? DEFAULT_RESYNC_THRESHOLD_MS;
    this.maxRtpJump = this.buffer.capacity * format.framesPerPacket;
    this.idleAfterMs = options.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS;
    this.maxPacketBytes = options.maxPacketBytes ?? MAX_AUDIO_PACKET_BYTES;
    this.latencyFrames = options.latencyFrames ?? Math.round((DEFAULT_LATENCY_MS * format.sampleRate) / 1000);
    this.restart(options.start);
  }

  /** Packets the buffer holds (for the owner's status). */
  get bufferedPackets(): number {
    return this.buffer.size;
  }

  /** How the playout is anchored, once it has started. */
  get anchoring(): 'sync' | 'arrival' | undefined {
    return this.playout?.mode;
  }

  // --- input ---------------------------------------------------------------------------------

  /** A datagram from the data port. */
  receiveAudio(datagram: Uint8Array, now: number): void {
    if (this.ended) return;
    this.lastNow = now;
    this.stats.packetsReceived++;
    const packet = readAudioPacket(datagram, this.maxPacketBytes);
    if (isRefusal(packet)) return this.drop(packet.refused, packet.reason, now);
    this.accept(packet, datagram, now, false);
  }

  /** A datagram from the control port: sync packets, resent packets. */
  receiveControl(datagram: Uint8Array, now: number): void {
    if (this.ended) return;
    this.lastNow = now;
    const packet = readControlPacket(datagram, this.maxPacketBytes + RESENT_HEADER_BYTES);
    if (isRefusal(packet)) return this.drop(packet.refused, packet.reason, now);
    if (packet.type === 'resent') {
      this.stats.packetsReceived++;
      this.accept(packet.packet, datagram.subarray(RESENT_HEADER_BYTES), now, true);
      return;
    }
    if (packet.type === 'retransmitRequest') return this.drop('type', 'a retransmit request on the receiver\'s control port (senders answer them, receivers send them)', now);
    const { sync } = packet;
    this.stats.syncPackets++;
    const latency = rtpTimeAfter(sync.currentRtpTime, sync.presentedRtpTime);
    if (latency >= 0 && latency <= MAX_LATENCY_SECONDS * this.format.sampleRate) this.latencyFrames = latency;
    const local = this.options.senderToLocal?.(sync.senderTimeMs, now);
    if (local === undefined && this.options.senderToLocal) {
      this.unjudgedSync = { presentedRtpTime: sync.presentedRtpTime, senderTimeMs: sync.senderTimeMs, cameAt: now };
    }
    if (local === undefined || Math.abs(local - now) > this.maxSyncSkewMs) {
      this.stats.syncImplausible++;
      const count = this.note('sync', now);
      if (count > 0) {
        const why = local === undefined ? 'no estimate of the sender\'s clock yet' : `it maps ${(local - now).toFixed(0)} ms from now`;
        this.log(local === undefined ? 'debug' : 'info', `audio stream: ${count} sync packet(s) not believed (${why})${local === undefined ? ', judged again once there is one' : '; anchoring on arrival'}`);
      }
      return;
    }
    this.adoptSync({ presentedRtpTime: sync.presentedRtpTime, senderTimeMs: sync.senderTimeMs });
    this.unjudgedSync = undefined;
  }

  /**
   * Takes a believed sync packet as the anchor, unless it lies on the anchor's line already
   * (within SYNC_DEADBAND_MS): a sender's RTP time and its clock run together, so each sync
   * packet only re-says the same mapping, with the jitter of when the sender read its clock;
   * moving the anchor by that jitter would drop or repeat frames for nothing. A sender that
   * re-timed its stream moves it farther, and is followed.
   */
  private adoptSync(sync: SyncAnchor): void {
    const anchor = this.sync;
    if (anchor) {
      const predicted = anchor.senderTimeMs + rtpTimeAfter(sync.presentedRtpTime, anchor.presentedRtpTime) * this.msPerFrame;
      if (Math.abs(predicted - sync.senderTimeMs) <= SYNC_DEADBAND_MS) return;
    }
    this.sync = sync;
  }

  /** Believes the sync packet that came before the clock estimate, once there is one and it maps near when it came. */
  private judgeEarlySync(now: number): void {
    const early = this.unjudgedSync;
    if (!early || this.sync) return;
    const local = this.options.senderToLocal?.(early.senderTimeMs, now);
    if (local === undefined) return;
    this.unjudgedSync = undefined;
    if (Math.abs(local - early.cameAt) <= this.maxSyncSkewMs) this.adoptSync({ presentedRtpTime: early.presentedRtpTime, senderTimeMs: early.senderTimeMs });
  }

  /** RECORD: the stream (re)starts at `info` (its first sequence number and RTP time, where given). */
  record(info: RtpInfo | undefined): void {
    this.restart(info);
  }

  /** FLUSH: drops what is buffered and what the sink holds; the stream goes on from `info`. */
  flush(info: RtpInfo | undefined): void {
    this.restart(info);
    this.sink.flush();
  }

  setVolume(db: number): void {
    this.sink.setVolume(db);
  }

  /** TEARDOWN: what is written plays out; the engine takes nothing more. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.buffer.clear();
    this.playout = undefined;
    this.controlQueue.length = 0;
    this.options.cipher?.wipe();
    this.sink.end();
  }

  // --- output --------------------------------------------------------------------------------

  /** A retransmit request for the sender's control port, if one is waiting. */
  pollControlTransmit(): Uint8Array | undefined {
    return this.controlQueue.shift();
  }

  /** When handleTimeout should next run (our monotonic ms), or undefined when nothing waits. */
  pollTimeout(): number | undefined {
    if (this.ended) return undefined;
    const playout = this.playout;
    if (!playout) {
      // The same plan begin() follows, as of the last call that said the time.
      const planned = this.plannedStart(this.lastNow);
      return planned === undefined ? undefined : planned.outputStart - this.leadMs();
    }
    const outputAt = this.outputTime(playout);
    // A packet held is written a lead ahead; a missing one waits as long as it can for its
    // retransmission: until the sink would run dry without it.
    return this.buffer.peek() !== undefined ? outputAt - this.leadMs() : outputAt - this.sink.latencyMs;
  }

  handleTimeout(now: number): void {
    if (this.ended) return;
    this.lastNow = now;
    if (!this.playout && !this.begin(now)) return;
    let run = new RunBuilder(this.format.channels);
    let presentationTime = this.outputTime(this.playout!);
    while (this.playout) {
      const playout = this.playout;
      const outputAt = this.outputTime(playout);
      const held = this.buffer.peek();
      if (held !== undefined) {
        if (outputAt > now + this.leadMs()) break;
        if (this.writePacket(playout, held, run, now) === 'resync') {
          // What is gathered and what the sink holds belong to the old timeline.
          run = new RunBuilder(this.format.channels);
          presentationTime = this.outputTime(this.playout!);
        }
        continue;
      }
      if (outputAt > now + this.sink.latencyMs) break;
      if (!this.buffer.holdsAhead && this.lastArrival !== undefined && now - this.lastArrival >= this.idleAfterMs) {
        // The sender stopped sending (paused without a flush, or gone): stop, start again when it comes back.
        this.log('info', `audio stream: nothing received for ${now - this.lastArrival} ms; playout stops until packets come again`);
        this.restart(undefined);
        break;
      }
      // Due and missing: silence in its place, so the output stays one contiguous run. Lost when
      // a later packet came (a gap); otherwise the sender is late or between packets (an underrun).
      if (this.buffer.holdsAhead) this.stats.lostPackets++;
      else this.stats.underrunPackets++;
      this.buffer.take();
      run.silence(this.format.framesPerPacket);
      playout.cursorRtp = (playout.cursorRtp + this.format.framesPerPacket) | 0;
      playout.framesOut += this.format.framesPerPacket;
      this.stats.silenceFrames += this.format.framesPerPacket;
    }
    if (run.frames > 0) this.sink.write(run.build(), presentationTime);
  }

  // --- inside --------------------------------------------------------------------------------

  private leadMs(): number {
    return this.sink.latencyMs + this.leadMarginMs;
  }

  private outputTime(playout: Playout): number {
    return playout.outputStart + playout.framesOut * this.msPerFrame;
  }

  private restart(info: RtpInfo | undefined): void {
    this.buffer.clear();
    if (info?.seq !== undefined) this.buffer.start(info.seq);
    this.startRtp = info?.rtptime;
    this.ssrc = undefined;
    this.arrival = undefined;
    this.playout = undefined;
    this.controlQueue.length = 0;
  }

  /** The RTP time playout starts at: RECORD's or FLUSH's, else the first packet's. */
  private startingRtp(): number | undefined {
    if (this.startRtp !== undefined && this.buffer.cursor !== undefined) return this.startRtp;
    const first = this.buffer.peek();
    if (first !== undefined) return first.timestamp;
    return this.buffer.holdsAhead ? this.startRtp : undefined;
  }

  private tentativeMode(now: number): 'sync' | 'arrival' {
    this.judgeEarlySync(now);
    return this.sync !== undefined && this.options.senderToLocal !== undefined ? 'sync' : 'arrival';
  }

  /** Local time RTP time `rtp` is heard, by the anchor `mode` names (undefined: it has none yet). */
  private rtpToLocal(rtp: number, now: number, mode: 'sync' | 'arrival', latencyMs: number): number | undefined {
    if (mode === 'sync' && this.sync) {
      const senderTime = this.sync.senderTimeMs + rtpTimeAfter(rtp, this.sync.presentedRtpTime) * this.msPerFrame;
      const local = this.options.senderToLocal?.(senderTime, now);
      if (local !== undefined) return local;
    }
    const arrival = this.arrival;
    if (!arrival) return undefined;
    const rtpMs = rtpTimeAfter(rtp, arrival.firstRtp) * this.msPerFrame;
    // The first arrival anchors until the filter has a line (its rate); before that its best
    // sample would jump between seconds with the network's jitter.
    const offset = arrival.filter.drift !== undefined ? arrival.filter.offsetAt(now)! : arrival.firstOffset;
    return rtpMs - offset + latencyMs;
  }

  /** Starts playout when its first frame is a lead away; false while it is not yet. */
  private begin(now: number): boolean {
    const planned = this.plannedStart(now);
    if (planned === undefined || planned.outputStart - this.leadMs() > now) return false;
    const { mode, latencyMs, start } = planned;
    let { outputStart } = planned;
    if (!this.plausibleStart(outputStart, now)) outputStart = now + this.leadMs();
    if (outputStart < now) {
      const count = this.note('late start', now);
      if (count > 0) this.log('warn', `audio stream: its first frame was due ${(now - outputStart).toFixed(1)} ms ago (the stream's latency is shorter than the sink's); played late`);
    }
    this.playout = { mode, latencyMs, outputStart, framesOut: 0, cursorRtp: start };
    this.stats.playoutStarts++;
    return true;
  }

  /**
   * Where playout would start, judged at `now`: the RTP time, the anchor, and when its first
   * frame is heard (a sync mapping that puts it far from now gives way to arrival anchoring).
   */
  private plannedStart(now: number): { readonly start: number; readonly mode: 'sync' | 'arrival'; readonly latencyMs: number; readonly outputStart: number } | undefined {
    const start = this.startingRtp();
    if (start === undefined) return undefined;
    let mode = this.tentativeMode(now);
    const latencyMs = this.latencyFrames * this.msPerFrame;
    let outputStart = this.rtpToLocal(start, now, mode, latencyMs);
    if (mode === 'sync' && outputStart !== undefined && !this.plausibleStart(outputStart, now)) {
      // The sync packet's RTP time is far from the stream's (another stream's, or a sender that
      // restarted its RTP clock): its mapping would play hours of silence or nothing.
      const count = this.note('sync start', now);
      if (count > 0) this.log('warn', `audio stream: the sync packet puts the first frame ${(outputStart - now).toFixed(0)} ms from now; anchoring on arrival`);
      mode = 'arrival';
      outputStart = this.rtpToLocal(start, now, mode, latencyMs);
    }
    return outputStart === undefined ? undefined : { start, mode, latencyMs, outputStart };
  }

  /** Whether a first frame heard at `outputStart` fits the packets held: not long past, not beyond the longest latency. */
  private plausibleStart(outputStart: number, now: number): boolean {
    return outputStart >= now - MAX_START_IN_PAST_MS && outputStart <= now + MAX_LATENCY_SECONDS * 1000 + this.leadMs();
  }

  /**
   * Writes the packet at the cursor, one frame dropped or repeated when the output drifted; or,
   * when the output is farther from the mapping than drift explains, restarts the timeline
   * there (the caller drops what it gathered) and says so.
   */
  private writePacket(playout: Playout, packet: DecodedPacket, run: RunBuilder, now: number): 'written' | 'resync' {
    const channels = this.format.channels;
    let ahead = rtpTimeAfter(packet.timestamp, playout.cursorRtp);
    if (ahead > this.maxRtpJump || -ahead > this.maxRtpJump) {
      // The sender's RTP time jumped (a new stream without a flush): follow it; the mapping
      // decides below whether the output must start again.
      playout.cursorRtp = packet.timestamp;
      ahead = 0;
    }
    if (ahead > 0) {
      // The sender's RTP time jumped ahead of its sequence numbers: silence up to it.
      const frames = Math.min(ahead, this.format.framesPerPacket);
      run.silence(frames);
      playout.framesOut += frames;
      playout.cursorRtp = (playout.cursorRtp + frames) | 0;
      this.stats.silenceFrames += frames;
      return 'written';
    }
    const frames = packet.pcm.length / channels;
    // A packet that overlaps what was written: its first frames are already out.
    let skip = -ahead;
    let repeat = 0;
    if (skip < frames) {
      const firstRtp = (packet.timestamp + skip) | 0;
      const meant = this.rtpToLocal(firstRtp, now, playout.mode, playout.latencyMs);
      if (meant !== undefined) {
        const error = this.outputTime(playout) - meant;
        this.stats.lastPresentationErrorMs = error;
        if (Math.abs(error) > this.resyncThresholdMs) {
          // The packet stays at the cursor: the loop writes it next, on the new timeline.
          if (this.plausibleStart(meant, now)) {
            this.resync(playout, firstRtp, meant, error, now);
            return 'resync';
          }
          // A mapping that puts it hours away is not followed: the output runs on by its own clock.
        } else if (error > this.toleranceMs && frames - skip > 1) {
          skip++;
          this.stats.driftFramesDropped++;
        } else if (error < -this.toleranceMs) {
          repeat = 1;
          this.stats.driftFramesRepeated++;
        }
      }
    }
    this.buffer.take();
    if (skip < frames) {
      if (repeat) run.append(packet.pcm.subarray(skip * channels, (skip + 1) * channels));
      run.append(packet.pcm.subarray(skip * channels));
      const written = frames - skip + repeat;
      playout.framesOut += written;
      this.stats.framesPlayed += written;
    }
    // Never backwards: a packet wholly behind the cursor moves nothing.
    const end = (packet.timestamp + frames) | 0;
    if (rtpTimeAfter(end, playout.cursorRtp) > 0) playout.cursorRtp = end;
    return 'written';
  }

  /** A new timeline with RTP time `rtp` (the packet still at the cursor) at `meant`: the sink drops what it holds of the old one. */
  private resync(playout: Playout, rtp: number, meant: number, error: number, now: number): void {
    this.stats.resyncs++;
    this.stats.playoutStarts++;
    const count = this.note('resync', now);
    if (count > 0) this.log('info', `audio stream: output ${error.toFixed(1)} ms from where the sender asks; starting again there (${count} time(s))`);
    this.sink.flush();
    this.playout = { mode: playout.mode, latencyMs: playout.latencyMs, outputStart: meant, framesOut: 0, cursorRtp: rtp };
  }

  private accept(packet: AudioPacket, bytes: Uint8Array, now: number, resent: boolean): void {
    if (this.ssrc !== undefined && packet.ssrc !== this.ssrc) {
      return this.drop('ssrc', `packet of SSRC 0x${(packet.ssrc >>> 0).toString(16)}, not the stream's 0x${(this.ssrc >>> 0).toString(16)}`, now);
    }
    if (this.buffer.cursor === undefined && this.startRtp !== undefined && rtpTimeAfter(packet.timestamp, this.startRtp) < 0) {
      return this.drop('flushed', `packet of RTP time ${packet.timestamp >>> 0}, before the stream's start at ${this.startRtp >>> 0}`, now);
    }
    const refused = this.buffer.check(packet.sequence);
    if (refused) return this.drop(refused, `packet ${packet.sequence} ${REFUSALS[refused]}`, now);
    let payload = packet.payload;
    if (this.options.cipher) {
      const opened = this.options.cipher.open(bytes);
      if (!(opened instanceof Uint8Array)) return this.drop(opened.refused, opened.reason, now);
      payload = opened;
    }
    let pcm: Int16Array;
    try {
      pcm = this.options.decoder.decode(payload);
    } catch (error) {
      return this.drop('decode', `packet ${packet.sequence}: ${error instanceof Error ? error.message : String(error)}`, now);
    }
    if (pcm.length % this.format.channels !== 0) return this.drop('decode', `packet ${packet.sequence} decoded to ${pcm.length} samples, not whole frames of ${this.format.channels}`, now);
    const placed = this.buffer.place(packet.sequence, { timestamp: packet.timestamp, pcm });
    if (!placed.placed) return this.drop(placed.refused, `packet ${packet.sequence} ${REFUSALS[placed.refused]}`, now);
    this.ssrc ??= packet.ssrc;
    if (resent) this.stats.retransmitsRecovered++;
    else this.noteArrival(packet.timestamp, now);
    if (placed.gap && this.options.requestRetransmits !== false) this.requestRetransmit(placed.gap.firstSequence, placed.gap.count);
  }

  private requestRetransmit(firstSequence: number, count: number): void {
    if (this.controlQueue.length >= MAX_CONTROL_QUEUE) return;
    this.controlQueue.push(writeRetransmitRequest({ firstSequence, count }));
    this.stats.retransmitsRequested += count;
  }

  private noteArrival(timestamp: number, now: number): void {
    this.lastArrival = now;
    if (!this.arrival) {
      this.arrival = { firstRtp: timestamp, firstOffset: -now, filter: new ClockFilter(), windowStart: now, windowBest: undefined };
      this.arrival.filter.add({ offset: -now, delay: 0, at: now });
      return;
    }
    const arrival = this.arrival;
    const offset = rtpTimeAfter(timestamp, arrival.firstRtp) * this.msPerFrame - now;
    if (now - arrival.windowStart >= ARRIVAL_WINDOW_MS) {
      if (arrival.windowBest) arrival.filter.add({ offset: arrival.windowBest.offset, delay: 0, at: arrival.windowBest.at });
      arrival.windowStart = now;
      arrival.windowBest = undefined;
    }
    // The earliest arrival (the largest offset) of each window: it waited least in queues.
    if (!arrival.windowBest || offset > arrival.windowBest.offset) arrival.windowBest = { offset, at: now };
  }

  private note(key: string, now: number): number {
    let counted = this.logs.get(key);
    if (!counted) {
      counted = new CountedLog();
      this.logs.set(key, counted);
    }
    return counted.note(now);
  }

  private drop(reason: DropReason, words: string, now: number): void {
    this.stats.drops[reason]++;
    const count = this.note(reason, now);
    if (count > 0) this.log(reason === 'late' || reason === 'duplicate' ? 'debug' : 'warn', `audio stream: dropped ${count} packet(s) (${reason}): ${words}`);
  }
}

const REFUSALS: Readonly<Record<'late' | 'window' | 'duplicate', string>> = {
  late: 'came after its frames were written',
  window: 'is farther ahead than the jitter buffer holds',
  duplicate: 'is held already',
};

/** One contiguous run of frames for the sink, gathered from packets and silence. */
class RunBuilder {
  private readonly parts: (Int16Array | number)[] = [];
  frames = 0;

  constructor(private readonly channels: number) {}

  silence(frames: number): void {
    this.parts.push(frames);
    this.frames += frames;
  }

  append(pcm: Int16Array): void {
    this.parts.push(pcm);
    this.frames += pcm.length / this.channels;
  }

  build(): Int16Array {
    const out = new Int16Array(this.frames * this.channels);
    let at = 0;
    for (const part of this.parts) {
      if (typeof part === 'number') {
        at += part * this.channels;
      } else {
        out.set(part, at);
        at += part.length;
      }
    }
    return out;
  }
}
