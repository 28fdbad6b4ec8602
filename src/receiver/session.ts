// Per-connection state that outlives one request: pairing progress, the secure channel, and
// whatever later features keep per connection. Modules own typed keys, so nothing here knows
// their types.

/** A typed key into a ConnectionSession; a module declares its own (`new SessionKey<T>('name')`). */
export class SessionKey<T> {
  declare private readonly brand: T;
  constructor(readonly name: string) {}
}

/**
 * The framed encryption of a connection after pairing (spec 5.4). `open` takes bytes as they
 * arrive and returns the plaintext of every complete frame (it keeps partial frames); it
 * throws when a frame fails authentication. `seal` frames plaintext for sending.
 */
export interface SecureChannel {
  open(bytes: Uint8Array): Uint8Array[];
  seal(plaintext: Uint8Array): Uint8Array;
}

export class ConnectionSession {
  private readonly values = new Map<SessionKey<unknown>, unknown>();
  /** Identifier of the paired sender once pair-verify succeeded (spec 5.3), if any. */
  peerId: string | undefined;
  /** True once the connection is encrypted (after pair-verify or transient pair-setup). */
  encrypted = false;
  /**
   * True once the connection has closed, so receiver-wide state held for it (a pair-setup in
   * progress, which makes other senders wait) is let go without waiting for a timeout.
   */
  closed = false;

  get<T>(key: SessionKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  set<T>(key: SessionKey<T>, value: T): void {
    this.values.set(key, value);
  }
  delete<T>(key: SessionKey<T>): void {
    this.values.delete(key);
  }
}
