// The speaker: the one realtime audio stream that plays, its UDP sockets, its deadline, its volume
// and what the sender says is playing. A stream belongs to a sender's session (a classic ANNOUNCE
// and SETUP, or a session's type 96 stream) and ends with it.
//
// Decisions the spec leaves open ("the RTP streams: not shown"), and what this receiver does, as
// real speakers do:
// - One stream plays at a time: a second sender's stream takes the speaker, and the first one's
//   stream ends with a log line (its session goes on; its sender may set up again).
// - Datagrams on the audio sockets from any address but the playing stream's sender are dropped
//   and counted (one log line now and then, not one per packet).
// - The volume (SET_PARAMETER `volume:`) goes to the sink; what plays (DMAP, artwork, progress)
//   to the screen where there is one.

import type { RtpInfo } from '../../audio/rtp-info';
import { CountedLog } from '../../counted-log';
import type { AudioSink, Logger, TimeSource, UdpSocket } from '../../platform';
import type { MediaSession } from '../media/media-session';
import type { SenderSession, SessionStream } from '../session/session';
import type { Deadlines } from '../timers';

/** At most one line about dropped datagrams per this many milliseconds. */
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * What the speaker needs of a stream's engine (src/audio's AudioStream): datagrams in, frames out
 * to the sink on its deadlines, retransmit requests out, flushes, and its counters for the log.
 */
export interface PlayingStream {
  receiveData(packet: Uint8Array, now: number): void;
  receiveControl(packet: Uint8Array, now: number): void;
  /** RECORD: play from this sequence number and RTP time, when the sender says them. */
  record(start: RtpInfo | undefined): void;
  /** FLUSH: drop what is buffered up to this point (or all), and what the sink holds. */
  flush(until: RtpInfo | undefined): void;
  pollTimeout(): number | undefined;
  handleTimeout(now: number): void;
  /** The next datagram for the sender's control port (a retransmit request), if any. */
  pollControlTransmit(): Uint8Array | undefined;
  /** Ends the stream: what is queued in the sink plays out. Returns the stream's summary for the log. */
  close(): string;
}

interface AudioPlaybackContext {
  readonly log: Logger;
  readonly clock: TimeSource;
  readonly timers: Deadlines;
  readonly sink: AudioSink;
  readonly sockets: { readonly data: UdpSocket; readonly control: UdpSocket };
  readonly media: MediaSession;
  /** The stream that played ended (what it showed goes). */
  ended(): void;
}

/** The stream that plays, and whose it is. */
interface Playing extends SessionStream {
  readonly session: SenderSession;
  readonly stream: PlayingStream;
  readonly senderControlPort: number;
  readonly sampleRate: number;
  readonly what: string;
}

export class AudioPlayback {
  private playing: Playing | undefined;
  private readonly strangers = new CountedLog(DROP_LOG_INTERVAL_MS);

  constructor(private readonly context: AudioPlaybackContext) {
    context.sockets.data.onPacket = (bytes, address) => this.datagram('data', bytes, address);
    context.sockets.control.onPacket = (bytes, address) => this.datagram('control', bytes, address);
  }

  /** The UDP ports a stream's SETUP answer names. */
  get ports(): { readonly data: number; readonly control: number } {
    return { data: this.context.sockets.data.localPort, control: this.context.sockets.control.localPort };
  }

  /** The session whose stream plays, if any. */
  get session(): SenderSession | undefined {
    return this.playing?.session;
  }

  /**
   * `session`'s stream starts (its SETUP): whatever played before ends, then `build` makes the
   * new one's engine. `what` names it for the log (`ALAC 44100 Hz, 2 channels, classic`).
   */
  start(session: SenderSession, build: () => PlayingStream, senderControlPort: number, sampleRate: number, what: string): void {
    const { log, media } = this.context;
    // The sink is the old stream's until it ends: it ends before the new one configures it.
    if (this.playing) this.stop(this.playing.session, `${session.peer} ${session.label} set up a stream (one plays at a time)`);
    const stream = build();
    // The volume the sender set before its stream (senders send it after SETUP or before).
    this.context.sink.setVolume(session.volumeDb);
    const playing: Playing = { session, stream, senderControlPort, sampleRate, what, end: (reason) => this.stop(session, reason) };
    this.playing = playing;
    session.audio = playing;
    media.begin('audio');
    media.announce('audio-started', { address: session.senderAddress, deviceId: session.sender.deviceId }, { session: session.sender.sessionUuid, format: what });
    log('info', `${session.peer} ${session.label} audio stream set up: ${what}; RTP on UDP port ${this.ports.data}, control on ${this.ports.control}`);
    this.arm();
  }

  /** The playing stream's sample rate (44100 before any plays). */
  get sampleRate(): number {
    return this.playing?.sampleRate ?? 44100;
  }

  /** The stream of `session`, if it is the one that plays. */
  streamOf(session: SenderSession): PlayingStream | undefined {
    return this.playing?.session === session ? this.playing.stream : undefined;
  }

  record(session: SenderSession, start: RtpInfo | undefined): boolean {
    const stream = this.streamOf(session);
    if (!stream) return false;
    stream.record(start);
    this.arm();
    return true;
  }

  flush(session: SenderSession, until: RtpInfo | undefined): boolean {
    const stream = this.streamOf(session);
    if (!stream) return false;
    stream.flush(until);
    this.arm();
    return true;
  }

  /** The sender's volume (dB), for the sink: the stream's sender only. */
  setVolume(session: SenderSession, db: number): void {
    if (this.playing?.session === session || !this.playing) this.context.sink.setVolume(db);
  }

  /** Ends `session`'s stream, if it plays; returns whether it did. */
  stop(session: SenderSession, reason: string): boolean {
    const playing = this.playing;
    if (!playing || playing.session !== session) return false;
    this.playing = undefined;
    if (session.audio === playing) session.audio = undefined;
    this.context.timers.cancel('audioPlayout');
    const summary = playing.stream.close();
    this.context.media.end('audio');
    this.context.media.announce('audio-stopped', { address: session.senderAddress, deviceId: session.sender.deviceId }, { session: session.sender.sessionUuid, reason });
    this.context.ended();
    this.context.log('info', `${session.peer} ${session.label} audio stream ended: ${reason}; ${summary}`);
    return true;
  }

  private datagram(socket: 'data' | 'control', bytes: Uint8Array, address: string): void {
    const playing = this.playing;
    const now = this.context.clock.now();
    if (!playing || address !== playing.session.senderAddress) {
      const count = this.strangers.note(now);
      if (count > 0) this.context.log('debug', `audio: ${count === 1 ? 'a datagram' : `${count} datagrams in the last ${DROP_LOG_INTERVAL_MS / 1000} s`} from ${address} on the ${socket} port dropped (${playing ? `the stream playing is ${playing.session.senderAddress}'s` : 'no stream plays'})`);
      return;
    }
    playing.session.lastStreamAt = now;
    if (socket === 'data') playing.stream.receiveData(bytes, now);
    else playing.stream.receiveControl(bytes, now);
    this.arm();
  }

  /** Runs the stream's deadline, sends its retransmit requests, and arms the next. */
  private due(): void {
    const playing = this.playing;
    if (!playing) return;
    playing.stream.handleTimeout(this.context.clock.now());
    this.arm();
  }

  private arm(): void {
    const playing = this.playing;
    if (!playing) return;
    for (let request = playing.stream.pollControlTransmit(); request; request = playing.stream.pollControlTransmit()) {
      this.context.sockets.control.send(request, playing.session.senderAddress, playing.senderControlPort);
    }
    const at = playing.stream.pollTimeout();
    if (at === undefined) this.context.timers.cancel('audioPlayout');
    else this.context.timers.set('audioPlayout', at, () => this.due());
  }
}
