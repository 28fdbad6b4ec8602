// Sends a realtime audio stream, the same for the classic path and a session's stream: audio
// packets of 352 frames to the receiver's data port, paced by the sender's clock (packet n leaves
// when that clock reaches start + n * 352 / 44100 s; the first carries the marker bit), a sync
// packet every second on the control port (RTP time `now - latency` is heard at the sender-clock
// time it carries, `now` being the frame the pacing is at), packets sent again (0x56) when the
// receiver asks (0x55) from a backlog of the last seconds, and after the file `latency` frames of
// silence, as pyatv does, so the receiver plays out what it holds before TEARDOWN.

import { PAYLOAD_TYPE, isRefusal, readRetransmitRequest, writeAudioHeader, writeResentPacket, writeSyncPacket } from '../../src/audio/rtp-packets';
import type { PayloadEncoder } from './audio-format';
import type { SenderClock } from './sender-clock';

export const FRAMES_PER_PACKET = 352;
const SAMPLE_RATE = 44100;
const CHANNELS = 2;
const SYNC_INTERVAL_MS = 1000;
/** Packets kept for resending: about 6 s (a receiver asks within its latency). */
const BACKLOG_PACKETS = 768;

export interface Destination {
  readonly host: string;
  readonly port: number;
}

/** What the streamer needs of a UDP socket (node:dgram's fits; tests pass their own). */
export interface DatagramPort {
  send(bytes: Uint8Array, port: number, host: string): void;
  on(event: 'message', listener: (message: Uint8Array, remote: { readonly address: string; readonly port: number }) => void): unknown;
}

/** Where the frames come from (pcm-source.ts: ffmpeg): `frames` frames at a time, fewer at the end, then undefined. */
export interface FrameSource {
  read(frames: number): Promise<Int16Array | undefined>;
}

export interface StreamerOptions {
  /** Sends sync and resent packets, receives retransmit requests (its port is the sender's control_port). */
  readonly control: DatagramPort;
  /** Sends the audio packets. */
  readonly data: DatagramPort;
  readonly dataTo: Destination;
  readonly controlTo: Destination;
  readonly clock: SenderClock;
  readonly latencyFrames: number;
  readonly ssrc: number;
  readonly firstSequence: number;
  readonly firstRtpTime: number;
  /** Sender-clock ms to wait before the first packet. */
  readonly startDelayMs: number;
  readonly encode: PayloadEncoder;
  /** Waits `hostMs` of this host's time (default: a timer; tests pass one that moves a manual clock). */
  readonly sleep?: (hostMs: number) => Promise<void>;
  /** Seals a packet (a session's stream): header and payload in, the whole packet out; packet number n as its nonce. */
  readonly seal?: (header: Uint8Array, payload: Uint8Array, packetNumber: number) => Uint8Array;
}

export interface StreamStats {
  packets: number;
  resent: number;
  syncs: number;
  retransmitRequests: number;
  fileFrames: number;
  paddingFrames: number;
}

/** The stats in one line for the command's output. */
export function describeStats(stats: StreamStats): string {
  return `sent ${stats.packets} packets (${stats.fileFrames} frames of the file, ${stats.paddingFrames} of padding), ${stats.syncs} sync packets, ${stats.resent} resent for ${stats.retransmitRequests} requests`;
}

export class RtpStreamer {
  readonly stats: StreamStats = { packets: 0, resent: 0, syncs: 0, retransmitRequests: 0, fileFrames: 0, paddingFrames: 0 };
  private readonly backlog = new Map<number, Uint8Array>();
  private stopped = false;
  private wake: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: StreamerOptions) {
    options.control.on('message', (message, remote) => this.onControl(message, remote));
  }

  /** Streams `source` whole, then the latency's padding; resolves when the last packet is sent. */
  async run(source: FrameSource): Promise<void> {
    const { clock, firstRtpTime } = this.options;
    // The clock starts once the first packet is at hand (ffmpeg takes a moment to start, the
    // encoder's first frame a few more): a late first packet would bring the next ones in a burst.
    let payload = await this.nextPayload(source);
    const start = clock.now() + this.options.startDelayMs;
    let nextSync = start;
    let firstSync = true;
    for (let n = 0; payload && !this.stopped; n++) {
      await this.sleepUntil(start + (n * FRAMES_PER_PACKET * 1000) / SAMPLE_RATE);
      if (this.stopped) break;
      while (clock.now() >= nextSync) {
        // One reading of the clock for both times the packet pairs: read twice, a stall between the
        // reads (a busy host) would tell the receiver a time that is not the frame's.
        const now = clock.now();
        this.sendSync(firstSync, firstRtpTime + Math.round(((now - start) * SAMPLE_RATE) / 1000), now);
        firstSync = false;
        nextSync += SYNC_INTERVAL_MS;
      }
      this.sendAudio(n, payload);
      // Read and encode the next packet ahead of its due time: only the send waits for it.
      payload = await this.nextPayload(source);
    }
  }

  /**
   * The next packet's payload: the file's frames (the last packet padded with silence, as pyatv
   * does: every packet is 352 frames), then silence until the latency is covered, then undefined.
   */
  private async nextPayload(source: FrameSource): Promise<Uint8Array | undefined> {
    const pcm = this.stats.paddingFrames === 0 ? await source.read(FRAMES_PER_PACKET) : undefined;
    const whole = new Int16Array(FRAMES_PER_PACKET * CHANNELS);
    if (pcm === undefined) {
      if (this.stats.paddingFrames >= this.options.latencyFrames) return undefined;
      this.stats.paddingFrames += FRAMES_PER_PACKET;
    } else {
      this.stats.fileFrames += pcm.length / CHANNELS;
      whole.set(pcm);
    }
    return this.options.encode(whole, FRAMES_PER_PACKET);
  }

  /** Ends run() at its next packet. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
  }

  private sleepUntil(senderMs: number): Promise<void> {
    const wait = this.options.clock.hostMsUntil(senderMs);
    if (wait <= 0) return Promise.resolve();
    if (this.options.sleep) return this.options.sleep(wait);
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, wait);
    });
  }

  private sendAudio(n: number, payload: Uint8Array): void {
    const { ssrc, firstSequence, firstRtpTime, dataTo, seal } = this.options;
    const sequence = (firstSequence + n) & 0xffff;
    const header = writeAudioHeader({ marker: n === 0, sequence, timestamp: (firstRtpTime + n * FRAMES_PER_PACKET) >>> 0, ssrc });
    let packet: Uint8Array;
    if (seal) {
      packet = seal(header, payload, n);
    } else {
      packet = new Uint8Array(header.length + payload.length);
      packet.set(header);
      packet.set(payload, header.length);
    }
    this.options.data.send(packet, dataTo.port, dataTo.host);
    this.backlog.set(sequence, packet);
    this.backlog.delete((sequence - BACKLOG_PACKETS) & 0xffff);
    this.stats.packets++;
  }

  private sendSync(first: boolean, currentRtpTime: number, senderTimeMs: number): void {
    const { latencyFrames, controlTo, control } = this.options;
    const sync = writeSyncPacket({ first, presentedRtpTime: (currentRtpTime - latencyFrames) >>> 0, senderTimeMs, currentRtpTime: currentRtpTime >>> 0 });
    control.send(sync, controlTo.port, controlTo.host);
    this.stats.syncs++;
  }

  /** A retransmit request: each packet asked that is still in the backlog, sent again whole behind 0x80 0xD6. */
  private onControl(bytes: Uint8Array, remote: { readonly address: string; readonly port: number }): void {
    if (bytes.length < 2 || (bytes[1] & 0x7f) !== PAYLOAD_TYPE.retransmitRequest) return;
    const request = readRetransmitRequest(bytes);
    if (isRefusal(request)) return;
    this.stats.retransmitRequests++;
    for (let i = 0; i < request.count; i++) {
      const original = this.backlog.get((request.firstSequence + i) & 0xffff);
      if (!original) continue;
      this.options.control.send(writeResentPacket(original), remote.port, remote.address);
      this.stats.resent++;
    }
  }
}
