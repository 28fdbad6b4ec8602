// ECMA-419 UDP sockets (`embedded:io/socket/udp`) adapted to the core's UdpBinder and UdpSocket
// ports (src/platform.ts): mirroring's NTP client (spec 4.5) and the multicast DNS responder's
// socket on 224.0.0.251:5353. Pure: the socket constructor is
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
  /**
   * Joins a multicast group on every interface (SDK 8.2 lwip: ESP32 and other lwIP boards; the
   * Linux port's own sockets, modules/native/lin-sockets). Absent where a platform's ECMA-419
   * sockets have no multicast (the SDK's Linux ones).
   */
  add?(address: string): void;
}

export interface Udp419Options {
  readonly port: number;
  readonly format: 'buffer';
  /** The IP TTL of what is sent (lwIP honours it; RFC 6762 11 sends mDNS with 255). */
  readonly timeToLive?: number;
  /** The group, for SDKs whose constructor joins it (typings 5.6; SDK 8.2 ignores it and has `add`). */
  readonly multicast?: string;
  onReadable(this: Udp419, packets: number): void;
  onError(this: Udp419): void;
}

/** Makes a bound socket (`new UDP(options)`). */
export type MakeUdp = (options: Udp419Options) => Udp419;

export function ecma419UdpBinder(make: MakeUdp, log: Logger): UdpBinder {
  return (port) => bindUdp(make, log, { port });
}

/** The multicast group a socket joins and the TTL it sends with (mDNS: 224.0.0.251, 255). */
export interface MulticastGroup {
  readonly address: string;
  readonly port: number;
  readonly timeToLive: number;
}

/**
 * The multicast DNS socket: bound to the group's port, the group joined where the socket can
 * (`add`), else said in the log. What the sockets give, per platform (SDK 8.2.3 sources):
 * - lwIP boards (ESP32): `add(group)` joins on every interface (igmp_joingroup); TTL by `timeToLive`.
 * - the Linux port: our own sockets (modules/native/lin-sockets): `add(group)` joins on every
 *   multicast interface; `multicast` in the options binds with SO_REUSEADDR and joins at once.
 * - the SDK's Linux sockets, no longer linked (modules/io/socket/lin/udp.c): no multicast at all ("To do: multicast"),
 *   no SO_REUSEADDR. Sending to the group works; the socket hears the group only when another
 *   socket in its network namespace has joined it (Linux delivers a joined group's datagrams to
 *   every socket bound to the port, IP_MULTICAST_ALL), and binding fails while another responder
 *   (avahi) holds 5353 there.
 * - the SDK's older `socket` module opens multicast sockets but on Linux refuses every valid
 *   group address (its inet_pton check is inverted), so it is no way out there either.
 * Throws when the port cannot be bound (as UdpBinder says).
 */
export function bindMulticastUdp(make: MakeUdp, log: Logger, group: MulticastGroup): UdpSocket & { readonly joined: boolean } {
  let joined = false;
  const handle = bindUdp(make, log, { port: group.port, timeToLive: group.timeToLive, multicast: group.address }, (socket) => {
    if (typeof socket.add !== 'function') return;
    socket.add(group.address);
    joined = true;
  });
  return Object.assign(handle, { joined });
}

function bindUdp(make: MakeUdp, log: Logger, options: Pick<Udp419Options, 'port' | 'timeToLive' | 'multicast'>, bound?: (socket: Udp419) => void): UdpSocket {
  const { port } = options;
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
    ...options,
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
  try {
    bound?.(socket);
  } catch (error) {
    socket.close();
    throw error;
  }
  return handle;
}
