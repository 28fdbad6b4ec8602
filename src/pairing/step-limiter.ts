// How often costly pairing steps may run: pair-setup M1 makes an SRP key (a 3072-bit modular
// exponentiation: ~10 ms on a desktop, far more on a board) and pair-verify M1 an X25519 key and a
// signature (~5 ms). Every later step needs an M1 before it, so limiting M1s bounds them.
//
// Token buckets, each refilled at its rate per second and holding at most one second's worth
// (at least one token):
//   per connection  pairingStepsPerSecondPerConnection (one socket pipelining M1s)
//   per address     its fair share: pairingStepsPerSecond over one more than the addresses that
//                   asked within the last ACTIVE_MS, at most pairingStepsPerSecondPerAddress
//   the receiver    pairingStepsPerSecond, all addresses together (its CPU budget for pairing)
// A step that finds any empty is refused before any work, with a TLV Backoff error and
// RetryDelay (HAP 5.6: TLV error codes), and counted; the log gets one line per LOG_INTERVAL_MS.
// A step refused only by the receiver's bucket still spends its connection's and address's turn.
//
// Why shares, and one spare: with 64 addresses flooding, each address's bucket refills at 1/65 of
// the budget, so the flood together takes at most 64/65 of it and the rest gathers in the
// receiver's bucket. A flooder's turn is spent even when the receiver's bucket refuses it, so it
// cannot hold a token to take each step the moment it frees: an address that has not asked lately
// (its bucket full) finds a step there at its first ask, however hard the others push, and is
// served at its share from then on.

import { StateKey, type ConnectionState } from '../connection-state';
import { CountedLog } from '../counted-log';
import type { Clock, Logger } from '../platform';

/** At most one log line about refused steps per this many milliseconds. */
const LOG_INTERVAL_MS = 10_000;
/** Addresses remembered at most; ones idle longest are dropped first. */
const MAX_ADDRESSES = 1024;
/** An address that asked within this long shares the budget (counts among those asking). */
const ACTIVE_MS = 1000;

interface StepLimits {
  readonly pairingStepsPerSecond: number;
  readonly pairingStepsPerSecondPerAddress: number;
  readonly pairingStepsPerSecondPerConnection: number;
}

class Bucket {
  private tokens: number;
  private at: number;

  /** A bucket that starts full at `perSecond`. */
  constructor(perSecond: number, now: number) {
    this.tokens = Math.max(1, perSecond);
    this.at = now;
  }

  /** Refills at `perSecond` (which may change between calls: a share) up to a second's worth, at least one. */
  private refill(now: number, perSecond: number): void {
    this.tokens = Math.min(Math.max(1, perSecond), this.tokens + ((now - this.at) * perSecond) / 1000);
    this.at = now;
  }

  /** Milliseconds until a token is there at `perSecond` (0: there is one now). */
  waitMs(now: number, perSecond: number): number {
    this.refill(now, perSecond);
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / perSecond);
  }

  take(): void {
    this.tokens -= 1;
  }
}

const CONNECTION_BUCKET = new StateKey<Bucket>('pairing-steps');

/** An address's bucket, and when it last asked. */
interface AddressEntry {
  readonly bucket: Bucket;
  seen: number;
}

/** What `PairingStepLimiter.admit` decided: go, or wait this many seconds (at least 1). */
type StepAdmission = { readonly ok: true } | { readonly ok: false; readonly retryDelaySeconds: number; readonly reason: string };

export class PairingStepLimiter {
  /** In order of their last ask, the longest idle first. */
  private readonly addresses = new Map<string, AddressEntry>();
  private readonly receiver: Bucket;
  private readonly refusals = new CountedLog(LOG_INTERVAL_MS);
  private servedCount = 0;
  private refusedCount = 0;

  constructor(
    private readonly limits: StepLimits,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.receiver = new Bucket(limits.pairingStepsPerSecond, clock.now());
  }

  /** Steps admitted since start (diagnostics and tests). */
  get served(): number {
    return this.servedCount;
  }

  /** Steps refused since start. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Takes a token from the connection's, the address's and the receiver's bucket, or says how long to wait. */
  admit(address: string, session: ConnectionState, step: string): StepAdmission {
    const now = this.clock.now();
    const { limits } = this;
    let connection = session.get(CONNECTION_BUCKET);
    if (!connection) {
      connection = new Bucket(limits.pairingStepsPerSecondPerConnection, now);
      session.set(CONNECTION_BUCKET, connection);
    }
    const share = this.shareOf(address, now);
    const byAddress = this.addressEntry(address, now, share).bucket;
    const own: [keyof StepLimits | 'share', number][] = [
      ['pairingStepsPerSecondPerConnection', connection.waitMs(now, limits.pairingStepsPerSecondPerConnection)],
      [share < limits.pairingStepsPerSecondPerAddress ? 'share' : 'pairingStepsPerSecondPerAddress', byAddress.waitMs(now, share)],
    ];
    let [limit, longest] = own[0][1] >= own[1][1] ? own[0] : own[1];
    if (longest === 0) {
      // The address's turn, spent whether or not the receiver has a step to give: an address
      // refused here does not keep a token to pounce on the next step that frees (see the header).
      connection.take();
      byAddress.take();
      const receiverWait = this.receiver.waitMs(now, limits.pairingStepsPerSecond);
      if (receiverWait === 0) {
        this.receiver.take();
        this.servedCount++;
        return { ok: true };
      }
      [limit, longest] = ['pairingStepsPerSecond', Math.max(receiverWait, byAddress.waitMs(now, share))];
    }
    this.refusedCount++;
    const reason =
      limit === 'share'
        ? `${step}: more than this address's share (${share.toFixed(2)} a second: limits.pairingStepsPerSecond ${limits.pairingStepsPerSecond} over ${this.activeCount(now)} addresses asking and a spare)`
        : `${step}: more than limits.${limit} (${limits[limit]})`;
    this.noteRefusal(address, now, reason);
    return { ok: false, retryDelaySeconds: Math.max(1, Math.ceil(longest / 1000)), reason };
  }

  /**
   * Steps a second `address` may take now: the budget over the addresses asking (it among them)
   * and one spare share (see the header), at most the per-address limit.
   */
  private shareOf(address: string, now: number): number {
    const entry = this.addresses.get(address);
    const asking = this.activeCount(now) + (entry && now - entry.seen < ACTIVE_MS ? 0 : 1);
    return Math.min(this.limits.pairingStepsPerSecondPerAddress, this.limits.pairingStepsPerSecond / (asking + 1));
  }

  /** Addresses that asked within ACTIVE_MS. */
  private activeCount(now: number): number {
    let count = 0;
    for (const entry of this.addresses.values()) if (now - entry.seen < ACTIVE_MS) count++;
    return count;
  }

  /** The address's entry, marked as asking now (moved to the end: the most recent). */
  private addressEntry(address: string, now: number, share: number): AddressEntry {
    let entry = this.addresses.get(address);
    if (entry) {
      this.addresses.delete(address);
    } else {
      // Still full of addresses: forget the one idle longest (a refill is the worst that happens).
      if (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value as string);
      entry = { bucket: new Bucket(share, now), seen: now };
    }
    entry.seen = now;
    this.addresses.set(address, entry);
    return entry;
  }

  /** Logs the first refusal at once, then one line per LOG_INTERVAL_MS with the count. */
  private noteRefusal(address: string, now: number, reason: string): void {
    const count = this.refusals.note(now);
    if (count === 0) return;
    this.log('warn', `${count === 1 ? `a costly pairing step from ${address} refused` : `${count} costly pairing steps refused in the last ${LOG_INTERVAL_MS / 1000} s, the last from ${address}`} (Backoff): ${reason}`);
  }
}
