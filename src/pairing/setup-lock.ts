// The pair-setup lock (HAP 5.6.1: one pair-setup at a time for the whole receiver) and the
// queue of senders waiting for it.
//
// An attempt holds the lock from its M1 until it ends, its connection closes, or its deadline
// passes (`timeoutMs` after its M1 or its last progress). An M1 from another connection meanwhile
// is answered Busy and that connection joins the queue, in arrival order, with a deadline of its
// own: it keeps its place while it asks again within `timeoutMs` of its last ask. When the lock is
// free, the first live waiter gets it at its next M1, and anyone else is told Busy and queued
// behind: a fresh connection cannot take the lock from a sender that waited, however quickly it
// asks after an expiry. An attempt that ran out and asks again goes to the back.
//
// One place per address (a second connection from an address already waiting is told Busy
// without a place) and at most MAX_WAITERS places, so a client with many connections cannot push
// everyone else back: a sender waits for at most one attempt per address ahead of it.

import type { TimeSource } from '../platform';

/** Most connections waiting for the lock at once. */
export const MAX_WAITERS = 16;

interface Holder<S> {
  readonly session: S;
  deadline: number;
}

interface Waiter<S> {
  readonly session: S;
  readonly address: string;
  /** The waiter keeps its place until then unless it asks again. */
  deadline: number;
}

/** What an M1 gets: a new attempt, a retry of the attempt it holds, or Busy with why. */
export type LockAnswer = { readonly kind: 'granted' } | { readonly kind: 'retry' } | { readonly kind: 'busy'; readonly reason: string };

export class PairSetupLock<S extends { readonly closed: boolean }> {
  private holder: Holder<S> | undefined;
  private readonly waiters: Waiter<S>[] = [];

  /** `abandoned` is told of an attempt whose connection closed or whose deadline passed. */
  constructor(
    private readonly timeoutMs: number,
    private readonly clock: Pick<TimeSource, 'now'>,
    private readonly abandoned: (session: S) => void,
  ) {}

  /** An M1 of `session`, from `address`. */
  request(session: S, address: string): LockAnswer {
    const now = this.clock.now();
    const holder = this.active();
    if (holder?.session === session) return { kind: 'retry' };
    if (holder) {
      const place = this.enqueue(session, address, now);
      return { kind: 'busy', reason: `another pair-setup is in progress (for at most ${Math.ceil((holder.deadline - now) / 1000)} s more)${place}` };
    }
    this.prune(now);
    const first = this.waiters[0];
    if (first && first.session !== session) {
      const place = this.enqueue(session, address, now);
      return { kind: 'busy', reason: `a sender that asked earlier goes first${place}` };
    }
    if (first) this.waiters.shift();
    this.holder = { session, deadline: now + this.timeoutMs };
    return { kind: 'granted' };
  }

  /** Whether `session` holds the lock now (its deadline not passed). */
  holds(session: S): boolean {
    return this.holder?.session === session && this.clock.now() <= this.holder.deadline;
  }

  /** Whether `session` held the lock, even if its deadline has passed since. */
  heldBy(session: S): boolean {
    return this.holder?.session === session;
  }

  /** A step of the holder made progress: its deadline moves on. */
  progressed(session: S): void {
    if (this.holder?.session === session) this.holder.deadline = this.clock.now() + this.timeoutMs;
  }

  /** The holder's attempt ended; true when `session` held the lock. */
  release(session: S): boolean {
    if (this.holder?.session !== session) return false;
    this.holder = undefined;
    return true;
  }

  /** The connections waiting, first first (for tests and diagnostics). */
  get queue(): readonly S[] {
    this.prune(this.clock.now());
    return this.waiters.map((waiter) => waiter.session);
  }

  /** The holder if it still holds (connection open, deadline not passed); else frees the lock. */
  private active(): Holder<S> | undefined {
    const holder = this.holder;
    if (!holder) return undefined;
    if (!holder.session.closed && this.clock.now() <= holder.deadline) return holder;
    this.holder = undefined;
    this.abandoned(holder.session);
    return undefined;
  }

  /** Puts `session` in the queue or renews its place; says where it stands, for the Busy reason. */
  private enqueue(session: S, address: string, now: number): string {
    this.prune(now);
    const index = this.waiters.findIndex((waiter) => waiter.session === session);
    if (index >= 0) {
      this.waiters[index].deadline = now + this.timeoutMs;
      return `; waiting, ${index + 1} of ${this.waiters.length}`;
    }
    if (this.waiters.some((waiter) => waiter.address === address)) return `; another connection from ${address} waits already`;
    if (this.waiters.length >= MAX_WAITERS) return `; ${MAX_WAITERS} senders wait already`;
    this.waiters.push({ session, address, deadline: now + this.timeoutMs });
    return `; waiting, ${this.waiters.length} of ${this.waiters.length}`;
  }

  private prune(now: number): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i];
      if (waiter.session.closed || now > waiter.deadline) this.waiters.splice(i, 1);
    }
  }
}
