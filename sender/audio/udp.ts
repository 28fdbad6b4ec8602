// The audio command's UDP sockets: bound on a free port of the family the receiver's address
// has, before their port is named in a SETUP.

import dgram from 'node:dgram';
import { SendError } from '../wire';

export function bindUdp(receiverHost: string): Promise<dgram.Socket> {
  const socket = dgram.createSocket(receiverHost.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', (error) => reject(new SendError(`cannot open a UDP port: ${error.message}`)));
    socket.bind(0, () => {
      socket.removeAllListeners('error');
      // A datagram refused (ICMP port unreachable: the receiver closed the port) is no reason to stop.
      socket.on('error', () => {});
      resolve(socket);
    });
  });
}
