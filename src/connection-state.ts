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
