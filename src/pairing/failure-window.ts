// Wrong setup codes counted per key (a sender's identity, an address) in a decaying window, so
// that whoever guesses is slowed down without locking out anyone else. Each key holds a count
// that leaks away: one failure is forgotten per `decayMs`. Past `backoffAfter` failures each
// attempt from that key waits 2^(count - backoffAfter) s after its last failure, at most
// MAX_BACKOFF_SECONDS. A guesser on one address thus gets about one guess per decayMs in the
// long run, while a sender on another address is not slowed at all.
//
// The window is memory only: the permanent budget of failures of a fixed PIN is the
// pair-setup's stored count (pair-setup.ts), which survives restarts.

import type { TimeSource } from '../platform';

/** Longest wait between attempts of one key once backing off. */
export const MAX_BACKOFF_SECONDS = 60;
/** Keys remembered at most; the ones whose count has leaked away are dropped first, then the oldest. */
const MAX_KEYS = 1024;

export interface FailureWindowLimits {
  /** Failures of one key (within the decay) before its attempts wait. */
  readonly pairingFailuresBeforeBackoff: number;
  /** One failure of a key is forgotten per this many milliseconds. */
  readonly pairingFailureDecayMs: number;
}

interface KeyFailures {
  /** The count at `at`; it leaks from there. */
  count: number;
  /** When the last failure was recorded. */
  at: number;
}

/** What `FailureWindow.wait` found: the seconds to wait (0: none), the key that waits and its failures. */
export interface FailureWait {
  readonly seconds: number;
  readonly key: string;
  readonly failures: number;
}

export class FailureWindow {
  private readonly keys = new Map<string, KeyFailures>();

  constructor(
    private readonly limits: FailureWindowLimits,
    private readonly clock: Pick<TimeSource, 'now'>,
  ) {}

  /** The failures of `key` now, after leaking (a fraction counts towards the next whole one). */
  failures(key: string): number {
    const entry = this.keys.get(key);
    return entry ? this.leaked(entry, this.clock.now()) : 0;
  }

  /** The longest wait any of `keys` must still make before an attempt (0: none). */
  wait(keys: readonly string[]): FailureWait {
    const now = this.clock.now();
    let longest: FailureWait = { seconds: 0, key: '', failures: 0 };
    for (const key of keys) {
      const entry = this.keys.get(key);
      if (!entry) continue;
      const count = Math.floor(this.leaked(entry, now));
      const over = count - this.limits.pairingFailuresBeforeBackoff;
      if (over < 0) continue;
      const left = entry.at + Math.min(2 ** over, MAX_BACKOFF_SECONDS) * 1000 - now;
      const seconds = left > 0 ? Math.ceil(left / 1000) : 0;
      if (seconds > longest.seconds) longest = { seconds, key, failures: count };
    }
    return longest;
  }

  /** One failure for each of `keys`. */
  record(keys: readonly string[]): void {
    const now = this.clock.now();
    for (const key of keys) {
      const entry = this.keys.get(key);
      if (entry) {
        entry.count = this.leaked(entry, now) + 1;
        entry.at = now;
        // Most recent last: the oldest are forgotten first when the table is full.
        this.keys.delete(key);
        this.keys.set(key, entry);
      } else {
        this.makeRoom(now);
        this.keys.set(key, { count: 1, at: now });
      }
    }
  }

  /** A success: `keys` start afresh. */
  clear(keys: readonly string[]): void {
    for (const key of keys) this.keys.delete(key);
  }

  /** Every key starts afresh (a person reset the count). */
  clearAll(): void {
    this.keys.clear();
  }

  private leaked(entry: KeyFailures, now: number): number {
    return Math.max(0, entry.count - (now - entry.at) / this.limits.pairingFailureDecayMs);
  }

  private makeRoom(now: number): void {
    if (this.keys.size < MAX_KEYS) return;
    for (const [key, entry] of this.keys) if (this.leaked(entry, now) === 0) this.keys.delete(key);
    if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
  }
}
