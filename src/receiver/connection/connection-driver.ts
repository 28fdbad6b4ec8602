// Moves bytes between a host's Connection port and a sans-I/O connection (DESIGN 6): the only
// place where a connection meets a socket and a timer. Both hosts use it; what is host-specific
// (node:net, ECMA-419) stays behind the Connection port.
//
//   socket bytes -> connection.receive(bytes, now)
//   connection.pollTransmit() -> socket;  pollEvent() 'close' -> socket.close()
//   connection.pollTimeout() -> one timer -> connection.handleTimeout(now)
//   connection.wantsRead, and a socket whose write queue is full -> pause() / resume()
//
// While the host's write queue is full (write() returned false, no onDrain yet) the driver takes
// no more bytes from the connection: what the peer has not read waits in the connection's own
// queue, where the connection sees it (limits.maxUnsentAnswerBytes, writeTimeoutMs). Unsent
// bytes are then the connection's queue plus at most the host's high-water mark and one write.

import type { Clock, Connection } from '../../platform';
import { HostTimer } from '../timers';

/** What the connection asks of its transport. */
export type ConnectionEvent = { readonly type: 'close'; readonly reason: string };

/** A connection in the quinn-proto shape: fed bytes and time, polled for bytes, deadlines and events. */
export interface SansIoConnection {
  receive(bytes: Uint8Array, now: number): void;
  /** The transport has closed (the peer, or a failure named by `error`). */
  transportClosed(error: string | undefined, now: number): void;
  /** Bytes to send, in order; undefined when there are none now. */
  pollTransmit(): Uint8Array | undefined;
  /** The monotonic time (ms) of the next deadline, if any. */
  pollTimeout(): number | undefined;
  handleTimeout(now: number): void;
  pollEvent(): ConnectionEvent | undefined;
  /** False while the connection holds as much unread input as it may (flow control). */
  readonly wantsRead: boolean;
  /** Set by the driver: called when the connection has something to give outside a driver call (an answer given later). */
  onWake: () => void;
  /**
   * The host's write queue became full (true: the peer takes nothing for now) or drained (false).
   * A connection with a write deadline runs it from here too: a peer that reads nothing may have
   * filled the host's buffers while the connection's own queue is empty.
   */
  hostWriteBlocked?(blocked: boolean, now: number): void;
}

export class ConnectionDriver {
  /** The connection's one host timer (armed lazily, see HostTimer). */
  private readonly timer: HostTimer;
  private servicing = false;
  private again = false;
  private writeBlocked = false;
  private paused = false;
  private done = false;

  constructor(
    private readonly connection: SansIoConnection,
    private readonly port: Connection,
    private readonly clock: Clock,
  ) {
    this.timer = new HostTimer(clock, (now) => {
      if (this.done) return;
      connection.handleTimeout(now);
      this.service();
    });
    connection.onWake = () => this.service();
    port.onData = (bytes) => {
      if (this.done) return;
      connection.receive(bytes, clock.now());
      this.service();
    };
    port.onDrain = () => {
      this.writeBlocked = false;
      connection.hostWriteBlocked?.(false, clock.now());
      this.service();
    };
    port.onClose = (error) => {
      if (this.done) return;
      this.done = true;
      this.timer.clear();
      connection.transportClosed(error, clock.now());
    };
    this.service();
  }

  /** Flushes what the connection has to give, applies its events, flow control and deadline. */
  service(): void {
    if (this.servicing) {
      // Called again from inside a step (an answer given while the driver runs): loop once more.
      this.again = true;
      return;
    }
    this.servicing = true;
    try {
      do {
        this.again = false;
        this.step();
      } while (this.again && !this.done);
    } finally {
      this.servicing = false;
    }
  }

  private step(): void {
    if (this.done) return;
    const { connection, port } = this;
    while (!this.writeBlocked) {
      const bytes = connection.pollTransmit();
      if (!bytes) break;
      if (!port.write(bytes)) {
        this.writeBlocked = true;
        connection.hostWriteBlocked?.(true, this.clock.now());
      }
    }
    for (let event = connection.pollEvent(); event; event = connection.pollEvent()) {
      if (event.type === 'close') {
        this.done = true;
        this.timer.clear();
        // A close sends what was queued before it (the host closes after its queue is out).
        for (let bytes = connection.pollTransmit(); bytes; bytes = connection.pollTransmit()) port.write(bytes);
        port.close();
        return;
      }
    }
    // A full write queue stops reading too: no more requests means no more answers to queue.
    const read = connection.wantsRead && !this.writeBlocked;
    if (read && this.paused) {
      this.paused = false;
      port.resume();
    } else if (!read && !this.paused) {
      this.paused = true;
      port.pause();
    }
    this.timer.arm(connection.pollTimeout());
  }
}
