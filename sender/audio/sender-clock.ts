// The audio sender's clock: NTP time (ms since 1900, as real senders' timing servers serve it),
// read from this host's clock, optionally running `ppm` parts per million fast (or slow, when
// negative) from the moment it is made, so a test can show a receiver follows a sender whose
// clock drifts. The same clock paces the packets, stamps the sync packets and answers timing
// requests, as one crystal does all three in a real sender.

import { NTP_UNIX_EPOCH_MS } from '../../src/timing';

/** This host's clock: Unix time in ms, monotonic (performance.now from the time origin). */
export function hostClockMs(): number {
  return performance.timeOrigin + performance.now();
}

export class SenderClock {
  private readonly rate: number;
  private readonly hostStart: number;

  constructor(
    readonly ppm = 0,
    private readonly host: () => number = hostClockMs,
  ) {
    this.rate = 1 + ppm / 1e6;
    this.hostStart = host();
  }

  /** The sender's NTP time now, in ms since 1900. */
  now(): number {
    return this.at(this.host());
  }

  /** The sender's NTP time at host time `hostMs`. */
  at(hostMs: number): number {
    return NTP_UNIX_EPOCH_MS + this.hostStart + (hostMs - this.hostStart) * this.rate;
  }

  /** Host ms until the sender's clock reads `senderMs` (negative when it has). */
  hostMsUntil(senderMs: number): number {
    return (senderMs - this.now()) / this.rate;
  }
}
