// A session's clock: with `timingProtocol: NTP`, the receiver asks the sender's timingPort for
// its time (RAOP timing packets, src/timing/raop-timing.ts) every 3 s from the sessions' timing
// socket, keeps the offset and drift (src/timing/clock.ts) that the session's streams map sender
// timestamps with, and answers the sender's own timing requests. The sessions share one socket
// (a board has few): Sessions hands each session the datagrams from its sender.

import { describeError } from '../../errors';
import type { Logger } from '../../platform';
import { RAOP_TIMING_FORMAT, TimingClient, againstWallClock, isRaopTimingRequest, raopTimingReply } from '../../timing';

interface SessionTimingContext {
  readonly log: Logger;
  /** The monotonic clock, for answers that arrive outside handleTimeout. */
  now(): number;
  /**
   * The wall clock (ms since the Unix epoch): the estimate is said against it too, for a person
   * (or a test) comparing clocks: a sender that serves Unix time shows its true offset there.
   */
  wallTime(): number;
  /** Sends a datagram to the sender's address from the sessions' timing socket. */
  send(bytes: Uint8Array, port: number): void;
}

/** Requests sent a quarter second apart when a session starts keeping time, then one each 3 s. */
const TIMING_BURST = 4;

export class SessionTiming {
  private readonly client: TimingClient;
  private closed = false;
  /** Answers the sender gave that were not usable, and timing requests from it answered. */
  refused = 0;
  answered = 0;

  constructor(
    readonly peer: string,
    readonly senderAddress: string,
    readonly senderPort: number,
    private readonly context: SessionTimingContext,
    now: number,
  ) {
    // A burst of requests first: an audio stream may start within a second of SETUP.
    this.client = new TimingClient(RAOP_TIMING_FORMAT, now, { burst: TIMING_BURST });
  }

  /**
   * Samples taken, and the estimate: the sender's clock minus our monotonic clock, the same
   * against our wall clock (againstWallClock: its words for log lines), and the drift (ppm).
   */
  get estimate(): { readonly samples: number; readonly offsetMs: number | undefined; readonly againstWall: ReturnType<typeof againstWallClock> | undefined; readonly driftPpm: number | undefined } {
    const { filter } = this.client;
    const now = this.context.now();
    const offsetMs = filter.offsetAt(now);
    const drift = filter.drift;
    return {
      samples: filter.count,
      offsetMs,
      againstWall: offsetMs === undefined ? undefined : againstWallClock(offsetMs, now, this.context.wallTime()),
      driftPpm: drift === undefined ? undefined : drift * 1e6,
    };
  }

  /**
   * The sender's clock against our monotonic clock at `now` (sender ms = local ms + offset, in the
   * sender's own NTP-timestamp milliseconds: ntpMs), once there is a sample.
   */
  offsetAt(now: number): number | undefined {
    return this.client.filter.offsetAt(now);
  }

  get requestsSent(): number {
    return this.client.requestsSent;
  }

  pollTimeout(): number | undefined {
    return this.closed ? undefined : this.client.pollTimeout();
  }

  handleTimeout(now: number): void {
    if (this.closed) return;
    this.client.handleTimeout(now);
    for (let request = this.client.pollTransmit(); request; request = this.client.pollTransmit()) {
      this.send(request, this.senderPort);
    }
  }

  /** The session ended: no more requests, datagrams ignored. */
  close(): void {
    this.closed = true;
  }

  private send(bytes: Uint8Array, port: number): void {
    try {
      this.context.send(bytes, port);
    } catch (error) {
      // A lost datagram: the next request comes in 3 s.
      this.context.log('debug', `${this.peer} timing datagram not sent: ${describeError(error)}`);
    }
  }

  /** A datagram from the sender's address (`port` its source port). */
  receive(bytes: Uint8Array, port: number): void {
    if (this.closed) return;
    const now = this.context.now();
    if (isRaopTimingRequest(bytes)) {
      // The sender asks our time: our monotonic clock is the one our timestamps are on.
      this.answered++;
      this.send(raopTimingReply(bytes, now, now), port);
      return;
    }
    const sample = this.client.receive(bytes, now);
    if (typeof sample === 'string') {
      this.refused++;
      this.context.log('debug', `${this.peer} timing: ${sample}`);
      return;
    }
    const { againstWall, driftPpm } = this.estimate;
    this.context.log('debug', `${this.peer} timing offset ${sample.offset.toFixed(3)} ms, delay ${sample.delay.toFixed(3)} ms; ${againstWall!.words}${driftPpm === undefined ? '' : `, drift ${driftPpm.toFixed(1)} ppm`}`);
  }
}
