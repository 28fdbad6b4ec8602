// ECMA-419 TCP sockets (`embedded:io/socket/tcp`) adapted to the core's Connection port
// (src/platform.ts). Pure: the socket constructor is handed in (main.ts passes Moddable's), so the
// portable suites test the write queue, flow control and close with a scripted socket.
//
// ECMA-419 flow control: a socket says how many bytes it takes now (onWritable(count) and the
// return value of write()); writing more throws. So writes queue here and leave in pieces the
// socket accepts, and close() waits until the queue is out (the Connection promise).
//
// A peer that half-closes after its request (`printf ... | nc -q 5`) ends the socket's life for
// ECMA-419: Moddable reports its FIN as onError and never calls onWritable again, though the
// socket is still open for sending (the Linux port's sockets, modules/native/lin-sockets, take
// writes after the FIN and send what close() leaves; an lwIP board's send buffer took the whole
// answer at once). So onError first gives what
// is queued to the socket, in pieces no larger than the socket has ever said it takes, and closes
// only then: otherwise an answer longer than one socket buffer (1,536 bytes with the SDK's Linux
// sockets) was cut off where the first write ended.

import type { Connection } from '../../src/platform';
import { describeError } from '../../src/errors';

/** What this file uses of an ECMA-419 TCP socket in `buffer` format. */
export interface TcpSocket {
  read(): ArrayBuffer | number | undefined;
  /** Returns the bytes still writable (Moddable's sockets), or nothing. */
  write(bytes: ArrayBufferView | ArrayBuffer): number | void;
  close(): void;
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
}

/** The callbacks an ECMA-419 socket calls, with `this` the socket. */
export interface TcpCallbacks {
  onReadable(this: TcpSocket, count: number): void;
  onWritable(this: TcpSocket, count: number): void;
  onError(this: TcpSocket): void;
}

/** Makes a socket from one the listener accepted (`new TCP({from, ...callbacks})`). */
export type AdoptSocket = (from: unknown, callbacks: TcpCallbacks) => TcpSocket;

export interface TcpHostOptions {
  /** The listener's port (ECMA-419 sockets do not report their local address or port). */
  localPort: number;
  /** The device's address on the network, for Connection.localAddress. */
  localAddress(): string;
  /** Bytes queued beyond which write() reports backpressure (returns false). */
  highWaterBytes?: number;
  /** How long a closing connection may take to send what is queued before it is dropped. */
  closeTimeoutMs?: number;
  setTimer(ms: number, callback: () => void): unknown;
  clearTimer(handle: unknown): void;
}

const DEFAULT_HIGH_WATER = 8 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 5000;

function noop(): void {}

/**
 * Adopts an accepted socket as a Connection. The core sets onData, onClose and onDrain; the
 * socket's callbacks drive them.
 */
export function adoptConnection(from: unknown, adopt: AdoptSocket, options: TcpHostOptions): Connection {
  const connection = new AdoptedConnection(options);
  connection.adopt(from, adopt);
  return connection;
}

/** One accepted ECMA-419 socket as the core's Connection: a write queue, pull reads, a timed close. */
class AdoptedConnection implements Connection {
  readonly localAddress: string;
  readonly localPort: number;
  remoteAddress = '';
  remotePort = 0;
  onData: (bytes: Uint8Array) => void = noop;
  onClose: (error?: string) => void = noop;
  onDrain: () => void = noop;

  private readonly highWater: number;
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  /** Bytes the socket takes now (ECMA-419 onWritable count). */
  private writable = 0;
  /** The most the socket has said it takes at once: its buffer, free again when it reports the peer's close. */
  private socketBuffer = 0;
  private full = false;
  private closing = false;
  private closed = false;
  private closeTimer: unknown;
  private socket: TcpSocket | undefined;
  /** The core holds enough: bytes stay in the socket (ECMA-419 pull reads) until resume(). */
  private paused = false;
  /** Bytes the socket said it has while paused. */
  private unread = 0;

  constructor(private readonly options: TcpHostOptions) {
    this.highWater = options.highWaterBytes ?? DEFAULT_HIGH_WATER;
    this.localAddress = options.localAddress();
    this.localPort = options.localPort;
  }

  adopt(from: unknown, adopt: AdoptSocket): void {
    // The socket calls its callbacks with itself as `this`, so the connection goes by name.
    const connection = this;
    // The callbacks take the socket from `this`: a platform may call one before adopt() returns.
    const socket = adopt(from, {
      onReadable(count) {
        connection.socket ??= this;
        connection.readable(count);
      },
      onWritable(count) {
        connection.socket ??= this;
        connection.setWritable(count);
        connection.flush();
      },
      // ECMA-419 reports the peer's close and a failure alike.
      onError() {
        connection.socket ??= this;
        connection.peerClosed();
      },
    });
    this.socket = socket;
    // Read once, now the socket is adopted (Moddable's sockets answer only then).
    this.remoteAddress = socket.remoteAddress ?? '';
    this.remotePort = socket.remotePort ?? 0;
    this.flush();
  }

  write(bytes: Uint8Array): boolean {
    if (this.closed || this.closing) return false;
    if (bytes.length > 0) {
      // The caller may reuse its buffer once write() returns.
      this.queue.push(bytes.slice());
      this.queued += bytes.length;
      this.flush();
    }
    if (this.queued >= this.highWater) this.full = true;
    return !this.full;
  }

  close(): void {
    if (this.closed || this.closing) return;
    this.closing = true;
    if (this.queue.length === 0) {
      this.finish();
      return;
    }
    this.closeTimer = this.options.setTimer(this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, () => {
      this.closeTimer = undefined;
      this.finish('peer did not take the queued bytes before the close timeout');
    });
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.unread > 0 && this.socket) {
      this.unread = 0;
      this.read(this.socket);
    }
  }

  private setWritable(count: number): void {
    this.writable = count;
    if (count > this.socketBuffer) this.socketBuffer = count;
  }

  /**
   * The peer closed (perhaps only its sending half) or the socket failed; no onWritable follows.
   * What is queued goes to the socket once more, as much as its buffer takes (a write that
   * fails ends it), and then the socket closes.
   */
  private peerClosed(): void {
    if (this.closed) return;
    if (this.queue.length > 0) {
      this.writable = this.socketBuffer;
      this.closing = true;
      this.flush();
    }
    this.finish(this.queued > 0 ? `peer closed with ${this.queued} bytes not taken` : undefined);
  }

  private readable(count: number): void {
    if (this.closed || count <= 0 || !this.socket) return;
    if (this.paused) {
      this.unread = count;
      return;
    }
    this.read(this.socket);
  }

  private read(from: TcpSocket): void {
    const bytes = from.read();
    if (bytes instanceof ArrayBuffer && bytes.byteLength > 0 && !this.closing) this.onData(new Uint8Array(bytes));
  }

  /** Writes what the socket takes now; ends a close once the queue is out; says drain below high water. */
  private flush(): void {
    const { queue, socket } = this;
    while (socket && !this.closed && queue.length > 0 && this.writable > 0) {
      const head = queue[0];
      const piece = head.length <= this.writable ? head : head.subarray(0, this.writable);
      let left: number | void;
      try {
        left = socket.write(piece);
      } catch (error) {
        this.finish(`write failed: ${describeError(error)}`);
        return;
      }
      if (typeof left === 'number') this.setWritable(left);
      else this.writable -= piece.length;
      this.queued -= piece.length;
      if (piece === head) queue.shift();
      else queue[0] = head.subarray(piece.length);
    }
    if (this.closed) return;
    if (queue.length === 0 && this.closing) {
      this.finish();
      return;
    }
    if (this.full && this.queued < this.highWater) {
      this.full = false;
      this.onDrain();
    }
  }

  private finish(error?: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.closeTimer !== undefined) this.options.clearTimer(this.closeTimer);
    this.queue.length = 0;
    this.queued = 0;
    try {
      this.socket?.close();
    } catch {
      // Already closed by the platform.
    }
    this.onClose(error);
  }
}
