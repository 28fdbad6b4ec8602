// UDP on node:dgram, adapted to the core's UdpSocket and UdpBinder ports (src/platform.ts): the
// mirroring NTP client (spec 4.5). node:dgram binds asynchronously and the port binds
// synchronously, so the host binds the NTP socket once at start-up (a port in use is then said at
// once, naming the option) and the binder hands out that socket to one session at a time.

import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Logger, UdpBinder, UdpSocket } from '../../../src/platform';

/** A bound UDP socket (IPv4: every known sender mirrors over IPv4) on `port` (0: any) at `address`. */
export async function bindUdp(port: number, address?: string): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: 'udp4' });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ port, address, exclusive: true }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return socket;
}

/**
 * A UdpBinder over one bound socket: each call takes it for a new owner (the previous one's
 * onPacket is detached), and close() only detaches. It binds `port` only as the socket's own
 * port (or 0, any); another port is a clear error.
 */
export function sharedUdpBinder(socket: dgram.Socket, log: Logger): UdpBinder {
  const localPort = (socket.address() as AddressInfo).port;
  let owner: UdpSocket | undefined;
  socket.on('message', (message, remote) => {
    owner?.onPacket(new Uint8Array(message.buffer, message.byteOffset, message.byteLength), remote.address, remote.port);
  });
  socket.on('error', (error) => log('warn', `UDP port ${localPort}: ${error.message}`));
  return (port) => {
    if (port !== 0 && port !== localPort) throw new Error(`UDP port ${port} is not the port bound at start-up (${localPort})`);
    const handle: UdpSocket = {
      localPort,
      send: (bytes, address, remotePort) => {
        if (owner !== handle) return;
        socket.send(bytes, remotePort, address, (error) => {
          if (error) log('debug', `UDP send to ${address}:${remotePort} failed: ${error.message}`);
        });
      },
      close: () => {
        if (owner === handle) owner = undefined;
      },
      onPacket: () => {},
    };
    owner = handle;
    return handle;
  };
}
