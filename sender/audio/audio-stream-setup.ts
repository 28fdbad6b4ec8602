// What both ways of opening a realtime audio stream share: the options the command passes, the
// refusal of a request answered other than 200 (with the receiver's reason), the numbers a
// stream starts from, and what ends a stream early.

import { randomBytes } from 'node:crypto';
import { utf8Decode } from '../../src/bytes';
import { HEADER, type ResponseHead } from '../../src/http';
import { payloadEncoder, type SenderCodec } from './audio-format';
import { RtpStreamer, type DatagramPort, type StreamerOptions } from './rtp-streamer';
import type { PcmSource } from './pcm-source';
import type { SenderClock } from './sender-clock';
import { describeEndpoint, SendError, type ControlConnection, type Message } from '../wire';

export interface AudioOptions {
  /** ffmpeg decoding the file (the command closes it). */
  readonly source: PcmSource;
  readonly codec: SenderCodec;
  readonly latencyFrames: number;
  readonly startDelayMs: number;
  /** Stop the packets after this long (then TEARDOWN), or undefined: the whole file. */
  readonly stopAfterMs: number | undefined;
  /** SET_PARAMETER volume, in dB (0 is full, -144 silent). */
  readonly volumeDb: number;
  readonly clock: SenderClock;
  readonly say: (line: string) => void;
}

/** Throws SendError naming the request and the receiver's answer unless it is 200. */
export function expectOk(what: string, response: Message<ResponseHead>): void {
  if (response.head.status === 200) return;
  const type = response.head.headers.get(HEADER.contentType) ?? '';
  const reason = /^text\/plain\b/i.test(type) && response.body.length > 0 ? `: ${utf8Decode(response.body.subarray(0, 500), false).split(/\r?\n/)[0].trim()}` : '';
  throw new SendError(`${what}: the receiver answered ${response.head.status} ${response.head.reason}${reason}`);
}

/** Random 32-bit and 16-bit numbers a stream starts from (SSRC, RTP time, sequence), as senders pick them. */
export function randomStart(): { readonly ssrc: number; readonly rtpTime: number; readonly sequence: number } {
  const bytes = randomBytes(10);
  return { ssrc: bytes.readUInt32BE(0), rtpTime: bytes.readUInt32BE(4), sequence: bytes.readUInt16BE(8) };
}

/**
 * Ends a stream early: Ctrl-C or --stop-after stops the packets (TEARDOWN follows; a second
 * Ctrl-C quits at once), and the receiver closing the control connection stops them and fails
 * the command.
 */
export class StreamStopper {
  private streamer: { stop(): void } | undefined;
  private interrupted = false;
  private lost: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly interrupt = (): void => {
    if (this.interrupted) process.exit(130);
    this.interrupted = true;
    this.say('stopping (Ctrl-C): TEARDOWN');
    this.streamer?.stop();
  };

  constructor(
    private readonly control: ControlConnection,
    private readonly say: (line: string) => void,
  ) {
    process.on('SIGINT', this.interrupt);
    control.onClose = (reason) => {
      this.lost = reason;
      this.streamer?.stop();
    };
  }

  /** The streamer to stop (after `stopAfterMs` when given); stopped at once when Ctrl-C came before it. */
  watch(streamer: { stop(): void }, stopAfterMs: number | undefined): void {
    this.streamer = streamer;
    if (this.interrupted || this.lost) streamer.stop();
    if (stopAfterMs !== undefined) this.timer = setTimeout(() => streamer.stop(), stopAfterMs);
  }

  /** Throws SendError when the receiver has closed the connection. */
  check(): void {
    if (this.lost) throw new SendError(`control connection to ${describeEndpoint(this.control.endpoint)}: ${this.lost}`);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    process.off('SIGINT', this.interrupt);
  }
}

/**
 * The streamer of a stream set up either way: its packets to the receiver's data port, its
 * control traffic to the receiver's control port, from the numbers the stream starts at, the
 * payloads of the command's codec (sealed, in a session).
 */
export function streamerFor(
  options: AudioOptions,
  sockets: { readonly control: DatagramPort; readonly data: DatagramPort },
  host: string,
  ports: { readonly data: number; readonly control: number },
  start: ReturnType<typeof randomStart>,
  seal?: StreamerOptions['seal'],
): RtpStreamer {
  return new RtpStreamer({
    control: sockets.control,
    data: sockets.data,
    dataTo: { host, port: ports.data },
    controlTo: { host, port: ports.control },
    clock: options.clock,
    latencyFrames: options.latencyFrames,
    ssrc: start.ssrc,
    firstSequence: start.sequence,
    firstRtpTime: start.rtpTime,
    startDelayMs: options.startDelayMs,
    encode: payloadEncoder(options.codec),
    seal,
  });
}
