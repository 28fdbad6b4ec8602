// Store writes of records that change with every request (the group id, spec 2.1: it changes
// with the activity, so with every photo and every stop) held back and written together, off the
// request path: at most one write per record per STORE_WRITE_DELAY_MS, the newest value only,
// and not flushed to the medium (Store.putUnflushed). Losing such a record in a crash costs
// only a new one at the next start; pairings and identity are written at once and flushed.

import type { Logger, Store } from '../platform';
import { describeError } from '../errors';
import type { Deadlines } from './timers';

/**
 * How long a changed record waits before it is written: a photo shown and stopped (two changes)
 * is one write, and a sender showing 300 photos a second costs one write every 2 s.
 */
export const STORE_WRITE_DELAY_MS = 2000;

export class DeferredWrites {
  /** Records changed since the last write, newest value each. */
  private readonly pending = new Map<string, Uint8Array>();

  constructor(
    private readonly store: Store,
    private readonly deadlines: Deadlines<'storeWrite'>,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** Keeps `value` as record `key`, written by the `storeWrite` deadline (or flush). */
  write(key: string, value: Uint8Array): void {
    this.pending.set(key, value.slice());
    // Armed once: changes that follow join this write rather than push it later.
    if (this.deadlines.deadline('storeWrite') === undefined) this.deadlines.set('storeWrite', this.now() + STORE_WRITE_DELAY_MS, () => this.flush());
  }

  /** How many records wait to be written. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Writes what waits now (the deadline, or the receiver's stop). A failed write is logged: it
   * costs only that record. A value the record already holds is skipped by the Store.
   */
  flush(): void {
    this.deadlines.cancel('storeWrite');
    for (const [key, value] of this.pending) {
      try {
        if (this.store.putUnflushed) this.store.putUnflushed(key, value);
        else this.store.put(key, value);
      } catch (error) {
        this.log('warn', `record "${key}" not kept (the next start does without it): ${describeError(error)}`);
      }
    }
    this.pending.clear();
  }
}
