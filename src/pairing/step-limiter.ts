// How often costly pairing steps may run (issue 15): pair-setup M1 makes an SRP key (a 3072-bit
// modular exponentiation: ~10 ms on a desktop, far more on a board) and pair-verify M1 an X25519
// key and a signature. Without a limit one connection pipelining a thousand M1s keeps the
// receiver busy for seconds. Every later step needs an M1 before it, so limiting M1s bounds them.
//
// Two token buckets, each refilled at its rate per second and holding at most one second's worth:
// one per connection, one per remote address (all its connections together). A step that finds
// either empty is refused before any work, with a TLV Backoff error and RetryDelay (HAP 5.6:
// TLV error codes), and counted; the log gets one line per LOG_INTERVAL_MS with the count.

import { StateKey, type ConnectionState } from '../connection-state';
import { CountedLog } from '../counted-log';
import type { Clock, Logger } from '../platform';

/** At most one log line about refused steps per this many milliseconds. */
const LOG_INTERVAL_MS = 10_000;
/** Addresses remembered at most; buckets that are full again (idle a second) are dropped first. */
const MAX_ADDRESSES = 1024;

interface StepLimits {
  readonly pairingStepsPerSecondPerAddress: number;
  readonly pairingStepsPerSecondPerConnection: number;
}

class Bucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = perSecond;
    this.at = now;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
  }

  /** Milliseconds until a token is there (0: there is one now). */
  waitMs(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
  }

  take(): void {
    this.tokens -= 1;
  }

  full(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.perSecond;
  }
}

const CONNECTION_BUCKET = new StateKey<Bucket>('pairing-steps');

/** What `PairingStepLimiter.admit` decided: go, or wait this many seconds (at least 1). */
type StepAdmission = { readonly ok: true } | { readonly ok: false; readonly retryDelaySeconds: number; readonly reason: string };

export class PairingStepLimiter {
  private readonly addresses = new Map<string, Bucket>();
  private readonly refusals = new CountedLog(LOG_INTERVAL_MS);

  constructor(
    private readonly limits: StepLimits,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Takes a token from the connection's and the address's bucket, or says how long to wait. */
  admit(address: string, session: ConnectionState, step: string): StepAdmission {
    const now = this.clock.now();
    let connection = session.get(CONNECTION_BUCKET);
    if (!connection) {
      connection = new Bucket(this.limits.pairingStepsPerSecondPerConnection, now);
      session.set(CONNECTION_BUCKET, connection);
    }
    const byAddress = this.addressBucket(address, now);
    const connectionWait = connection.waitMs(now);
    const addressWait = byAddress.waitMs(now);
    if (connectionWait === 0 && addressWait === 0) {
      connection.take();
      byAddress.take();
      return { ok: true };
    }
    const limit = addressWait >= connectionWait ? 'pairingStepsPerSecondPerAddress' : 'pairingStepsPerSecondPerConnection';
    const reason = `${step}: more than limits.${limit} (${this.limits[limit]})`;
    this.refused(address, now, reason);
    return { ok: false, retryDelaySeconds: Math.max(1, Math.ceil(Math.max(connectionWait, addressWait) / 1000)), reason };
  }

  private addressBucket(address: string, now: number): Bucket {
    let bucket = this.addresses.get(address);
    if (bucket) return bucket;
    if (this.addresses.size >= MAX_ADDRESSES) {
      for (const [key, candidate] of this.addresses) if (candidate.full(now)) this.addresses.delete(key);
      // Still full of busy addresses: forget the oldest (a refill is the worst that happens).
      if (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value as string);
    }
    bucket = new Bucket(this.limits.pairingStepsPerSecondPerAddress, now);
    this.addresses.set(address, bucket);
    return bucket;
  }

  /** Logs the first refusal at once, then one line per LOG_INTERVAL_MS with the count. */
  private refused(address: string, now: number, reason: string): void {
    const count = this.refusals.note(now);
    if (count === 0) return;
    this.log('warn', `${count === 1 ? `a costly pairing step from ${address} refused` : `${count} costly pairing steps refused in the last ${LOG_INTERVAL_MS / 1000} s, the last from ${address}`} (Backoff): ${reason}`);
  }
}
