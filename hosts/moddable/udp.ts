// ECMA-419 UDP sockets (`embedded:io/socket/udp`) adapted to the core's UdpBinder and UdpSocket
// ports (src/platform.ts): mirroring's NTP client (spec 4.5). Pure: the socket constructor is
// handed in (a board's main passes Moddable's UDP with a decoder, the media board), so the portable
// suites test it with a scripted socket. ECMA-419 binds in the constructor: a port in use throws
// there, as UdpBinder asks.

import type { Logger, UdpBinder, UdpSocket } from '../../src/platform';
import { describeError } from '../../src/errors';

/** What this file uses of an ECMA-419 UDP socket in `buffer` format. */
export interface Udp419 {
  /** The next datagram, with the sender's address and port (ECMA-419 9.4.2), or undefined. */
  read(): (ArrayBuffer & { readonly address: string; readonly port: number }) | undefined;
  write(bytes: ArrayBufferView | ArrayBuffer, address: string, port: number): void;
  close(): void;
}

export interface Udp419Options {
  readonly port: number;
  readonly format: 'buffer';
  onReadable(this: Udp419, packets: number): void;
  onError(this: Udp419): void;
}

/** Makes a bound socket (`new UDP(options)`). */
export type MakeUdp = (options: Udp419Options) => Udp419;

export function ecma419UdpBinder(make: MakeUdp, log: Logger): UdpBinder {
  return (port) => {
    let closed = false;
    const handle: UdpSocket = {
      localPort: port,
      send(bytes, address, remotePort) {
        if (closed) return;
        try {
          socket.write(bytes, address, remotePort);
        } catch (error) {
          // A full buffer or an unreachable network: like a lost datagram (NTP asks again).
          log('debug', `UDP send to ${address}:${remotePort} failed: ${describeError(error)}`);
        }
      },
      close() {
        if (closed) return;
        closed = true;
        socket.close();
      },
      onPacket: () => {},
    };
    const socket = make({
      port,
      format: 'buffer',
      onReadable(packets) {
        for (let i = 0; i < packets && !closed; i++) {
          const datagram = this.read();
          if (!datagram) break;
          handle.onPacket(new Uint8Array(datagram), datagram.address, datagram.port);
        }
      },
      onError() {
        log('warn', `UDP port ${port}: socket error`);
      },
    });
    return handle;
  };
}
