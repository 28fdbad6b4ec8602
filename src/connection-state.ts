// State that lives as long as one connection: pairing progress, whether it is encrypted, and
// whatever later features keep per connection. Modules own typed keys, so nothing here knows
// their types. ("Session" elsewhere means the sender's session, X-Vendor-Session-ID, spec 1.7;
// MediaSession is what owns the screen.)

/** A typed key into a ConnectionState; a module declares its own (`new StateKey<T>('name')`). */
export class StateKey<T> {
  declare private readonly brand: T;
  constructor(readonly name: string) {}
}

export class ConnectionState {
  private readonly values = new Map<StateKey<unknown>, unknown>();
  /** Identifier of the paired sender once pair-verify succeeded (spec 5.3), if any. */
  peerId: string | undefined;
  /** True once the connection is encrypted (after pair-verify or transient pair-setup). */
  encrypted = false;
  /**
   * True once the connection has closed, so receiver-wide state held for it (a pair-setup in
   * progress, which makes other senders wait) is let go without waiting for a timeout.
   */
  closed = false;
  /**
   * When the last request head arrived (monotonic ms; 0 before the first): a sender's session
   * lives while its connection carries requests (limits.sessionTimeoutMs).
   */
  lastRequestAt = 0;
  /** What lives on the connection (hold), each told once if the connection or its session ends first. */
  private readonly holds = new Set<(ending: string) => void>();

  /**
   * Something lives as long as this connection: the sender keeps the connection open to keep it,
   * and closes it to end it (spec 4.2: the video a POST /play on it started; pyatv's stop() is
   * that close). While held the connection is not closed for being idle, nor to make room for
   * another. `onEnd` runs once if the connection closes (`closed`), or the sender's session on it
   * ends (`ended its session (TEARDOWN)`), before the returned release is called; at once when
   * the connection has closed already. Its argument finishes the sentence "the connection ...".
   */
  hold(onEnd: (ending: string) => void): () => void {
    if (this.closed) {
      onEnd('closed');
      return () => {};
    }
    // A function of its own, so the same onEnd held twice is released once per hold.
    const entry = (ending: string) => onEnd(ending);
    this.holds.add(entry);
    return () => {
      this.holds.delete(entry);
    };
  }

  /** Something holds the connection open (see hold). */
  get held(): boolean {
    return this.holds.size > 0;
  }

  /** The connection has closed: `closed` is set and what held it is told, once. */
  markClosed(): void {
    this.closed = true;
    this.endHolds('closed');
  }

  /**
   * The sender's session on this connection ended while the connection stays open (TEARDOWN):
   * what held the connection is told (`ending` finishes "the connection ..."), once.
   */
  endHolds(ending: string): void {
    const holds = [...this.holds];
    this.holds.clear();
    for (const onEnd of holds) onEnd(ending);
  }

  get<T>(key: StateKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  set<T>(key: StateKey<T>, value: T): void {
    this.values.set(key, value);
  }
  delete<T>(key: StateKey<T>): void {
    this.values.delete(key);
  }
}
