// ECMA-419 TCP sockets (`embedded:io/socket/tcp`) adapted to the core's Connection port
// (src/platform.ts). Pure: the socket constructor is handed in (main.ts passes Moddable's), so the
// portable suites test the write queue, flow control and close with a scripted socket.
//
// ECMA-419 flow control: a socket says how many bytes it takes now (onWritable(count) and the
// return value of write()); writing more throws. So writes queue here and leave in pieces the
// socket accepts, and close() waits until the queue is out (the Connection promise).

import type { Connection } from '../../src/platform';

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
  const highWater = options.highWaterBytes ?? DEFAULT_HIGH_WATER;
  const queue: Uint8Array[] = [];
  let queued = 0;
  /** Bytes the socket takes now (ECMA-419 onWritable count). */
  let writable = 0;
  let full = false;
  let closing = false;
  let closed = false;
  let closeTimer: unknown;
  let socket: TcpSocket | undefined;
  /** The core holds enough: bytes stay in the socket (ECMA-419 pull reads) until resume(). */
  let paused = false;
  /** Bytes the socket said it has while paused. */
  let unread = 0;
  let remoteAddress = '';
  let remotePort = 0;

  const finish = (error?: string): void => {
    if (closed) return;
    closed = true;
    if (closeTimer !== undefined) options.clearTimer(closeTimer);
    queue.length = 0;
    queued = 0;
    try {
      socket?.close();
    } catch {
      // Already closed by the platform.
    }
    connection.onClose(error);
  };

  const flush = (): void => {
    while (socket && !closed && queue.length > 0 && writable > 0) {
      const head = queue[0];
      const piece = head.length <= writable ? head : head.subarray(0, writable);
      let left: number | void;
      try {
        left = socket.write(piece);
      } catch (error) {
        finish(`write failed: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      writable = typeof left === 'number' ? left : writable - piece.length;
      queued -= piece.length;
      if (piece === head) queue.shift();
      else queue[0] = head.subarray(piece.length);
    }
    if (closed) return;
    if (queue.length === 0 && closing) {
      finish();
      return;
    }
    if (full && queued < highWater) {
      full = false;
      connection.onDrain();
    }
  };

  const connection: Connection = {
    get remoteAddress() {
      return remoteAddress;
    },
    get remotePort() {
      return remotePort;
    },
    localAddress: options.localAddress(),
    localPort: options.localPort,
    write(bytes) {
      if (closed || closing) return false;
      if (bytes.length > 0) {
        // The caller may reuse its buffer once write() returns.
        queue.push(bytes.slice());
        queued += bytes.length;
        flush();
      }
      if (queued >= highWater) full = true;
      return !full;
    },
    close() {
      if (closed || closing) return;
      closing = true;
      if (queue.length === 0) {
        finish();
        return;
      }
      closeTimer = options.setTimer(options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, () => {
        closeTimer = undefined;
        finish('peer did not take the queued bytes before the close timeout');
      });
    },
    pause() {
      paused = true;
    },
    resume() {
      if (!paused) return;
      paused = false;
      if (unread > 0 && socket) {
        unread = 0;
        read(socket);
      }
    },
    onData: noop,
    onClose: noop,
    onDrain: noop,
  };

  const read = (from: TcpSocket): void => {
    const bytes = from.read();
    if (bytes instanceof ArrayBuffer && bytes.byteLength > 0 && !closing) connection.onData(new Uint8Array(bytes));
  };

  // The callbacks take the socket from `this`: a platform may call one before adopt() returns.
  socket = adopt(from, {
    onReadable(count) {
      socket ??= this;
      if (closed || count <= 0) return;
      if (paused) {
        unread = count;
        return;
      }
      read(this);
    },
    onWritable(count) {
      socket ??= this;
      writable = count;
      flush();
    },
    // ECMA-419 reports the peer's close and a failure alike.
    onError() {
      socket ??= this;
      finish();
    },
  });
  // Read once, now the socket is adopted (Moddable's sockets answer only then).
  remoteAddress = socket.remoteAddress ?? '';
  remotePort = socket.remotePort ?? 0;
  flush();
  return connection;
}
