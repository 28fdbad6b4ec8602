// The ports a host implements: time, randomness, sockets, advertising, storage, display, logging.
// The core reaches the world only through these (DESIGN 2 and 4). Shapes follow ECMA-419:
// callbacks, byte arrays, explicit close.

/** Monotonic and wall-clock time, and timers. */
export interface Clock {
  /** Monotonic milliseconds (never goes back; unrelated to the wall clock). */
  now(): number;
  /** Milliseconds since the Unix epoch, for Date headers and plist dates. */
  wallTime(): number;
  setTimer(ms: number, callback: () => void): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** Opaque to the core. */
export type TimerHandle = unknown;

/** Cryptographically strong random bytes (the host seeds it from hardware where it can). */
export type RandomSource = (length: number) => Uint8Array;

/**
 * One TCP connection, accepted by a listener or opened by the host. The core never calls it
 * directly: a ConnectionDriver (src/connection-driver.ts) moves bytes between it and a sans-I/O
 * connection, and does the flow control.
 */
export interface Connection {
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
  /** Queues bytes for sending. Returns false when the host's buffer is full (backpressure). */
  write(bytes: Uint8Array): boolean;
  /** Closes after queued bytes are sent. */
  close(): void;
  /**
   * Stops delivering bytes until resume() (the core holds enough): Node's `socket.pause()`, on
   * ECMA-419 simply not reading. Bytes wait in the host's and the peer's buffers (TCP flow control).
   */
  pause(): void;
  resume(): void;
  /** Set by the core: bytes arrived. */
  onData: (bytes: Uint8Array) => void;
  /** Set by the core: the peer closed or the connection failed (`error` names why). */
  onClose: (error?: string) => void;
  /** Set by the core: queued bytes drained after write() returned false. */
  onDrain: () => void;
}

/** A service to publish by DNS-SD (RFC 6763). TXT entries are ordered key/value strings. */
export interface ServiceRecord {
  /** Instance name, e.g. `Living Room` or `5855CA1AE288@Living Room`. */
  name: string;
  /** Service type with protocol, e.g. `_vendorplay._tcp`. */
  type: string;
  port: number;
  txt: [string, string][];
}

/** Publishes services by multicast DNS. */
export interface Advertiser {
  publish(service: ServiceRecord): void;
  /** Replaces the TXT record of a published service (announced again). */
  update(service: ServiceRecord): void;
  /** Sends goodbye packets and forgets the service. */
  withdraw(service: ServiceRecord): void;
}

/** Small records (pairing identity and peers). Writes are atomic: a record is whole or absent. */
export interface Store {
  get(key: string): Uint8Array | undefined;
  put(key: string, value: Uint8Array): void;
  delete(key: string): void;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export type Logger = (level: LogLevel, message: string) => void;

/** Severity order, for filtering by a configured level. */
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

/** What the receiver is doing, for a status line on the screen. */
export interface DisplayStatus {
  /** The receiver's name. */
  name: string;
  /** The activity (spec 2.1), e.g. `idle`, `playingLocalMedia`. */
  activity: string;
  /** Slideshow state (spec 3) when a slideshow runs: `loading`, `playing`, `stopped`. */
  slideshow?: string;
}

/**
 * The screen of a frame. The Node host draws a virtual screen in a web page; the Moddable host
 * decodes JPEGs with commodetto onto the panel. A host without a screen (a speaker) has none.
 */
export interface Display {
  /**
   * Shows a JPEG picture, with a transition when given: one of TRANSITIONS
   * (src/receiver/transitions.ts), resolved by the core from the sender's name (spec 4.1
   * X-Vendor-Transition, 2.7 settings.theme); without one, at once.
   */
  showPhoto(jpeg: Uint8Array, transition?: string): void;
  /** Clears the picture (photo session or slideshow stopped). */
  clear(): void;
  showStatus(status: DisplayStatus): void;
  /** Shows the pairing PIN (POST /pair-pin-start), until hidePin. */
  showPin(pin: string): void;
  hidePin(): void;
}
