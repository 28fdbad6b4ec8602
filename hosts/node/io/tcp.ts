// TCP listeners on node:net, adapted to the core's Connection port (src/platform.ts).

import net from 'node:net';
import type { Connection } from '../../../src/platform';

/** Wraps a node:net socket as a Connection. The core sets the callbacks. */
function socketConnection(socket: net.Socket): Connection {
  const connection: Connection = {
    remoteAddress: normaliseAddress(socket.remoteAddress ?? ''),
    remotePort: socket.remotePort ?? 0,
    localAddress: normaliseAddress(socket.localAddress ?? ''),
    localPort: socket.localPort ?? 0,
    write: (bytes) => (socket.destroyed ? false : socket.write(bytes)),
    close: () => {
      // A paused socket never reads the peer's FIN and would never finish closing: read (and
      // drop) what is left while the end is sent.
      socket.resume();
      if (!socket.destroyed) socket.end();
      // A peer that never reads must not hold the socket forever.
      setTimeout(() => socket.destroy(), 5000).unref();
    },
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    onData: () => {},
    onClose: () => {},
    onDrain: () => {},
  };
  socket.setNoDelay(true);
  socket.on('data', (data: Buffer) => connection.onData(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)));
  socket.on('drain', () => connection.onDrain());
  let error: string | undefined;
  socket.on('error', (cause) => (error = cause.message));
  socket.on('close', () => connection.onClose(error));
  return connection;
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) to `127.0.0.1`. */
function normaliseAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Listens on `port` (0 picks a free one) at `host`, handing each connection to `accept`. */
export function listen(port: number, host: string | undefined, accept: (connection: Connection) => void): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => accept(socketConnection(socket)));
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
