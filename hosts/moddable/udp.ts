// The UdpBinder port (src/platform.ts) on the SDK's ECMA-419 UDP socket (`embedded:io/socket/udp`),
// for mirroring's NTP client (spec 4.5).
//
// The SDK's socket has no way to tell the port it got: on Linux (modules/io/socket/lin/udp.c)
// port 0 does not even bind until the first send, and no platform exposes the port. The core
// advertises its timing port, so for port 0 the binder picks one itself from the dynamic range
// (RFC 6335: 49152-65535) and tries again when that one is taken.

import UDP from 'embedded:io/socket/udp';
import type { UdpBinder, UdpSocket } from '../../src/platform';

const DYNAMIC_FIRST = 49152;
const DYNAMIC_COUNT = 65536 - DYNAMIC_FIRST;
/** Ports tried for port 0 before giving up (each taken one throws "bind failed"). */
const ATTEMPTS = 16;

type Received = ArrayBuffer & { address: string; port: number };

class EcmaUdpSocket implements UdpSocket {
  onPacket: (bytes: Uint8Array, address: string, port: number) => void = () => {};
  private socket: UDP | undefined;

  constructor(readonly localPort: number) {
    // The socket calls onReadable with `this` the socket; the callback reads through `owner`.
    const owner = this;
    this.socket = new UDP({
      port: localPort,
      onReadable(this: UDP, packets: number) {
        for (let i = 0; i < packets; i++) {
          const packet = this.read() as Received | undefined;
          if (!packet) break;
          owner.onPacket(new Uint8Array(packet), packet.address, packet.port);
        }
      },
    });
  }

  send(bytes: Uint8Array, address: string, port: number): void {
    if (!this.socket) throw new Error(`udp ${this.localPort}: closed`);
    this.socket.write(bytes, address, port);
  }

  close(): void {
    (this.socket as (UDP & { close(): void }) | undefined)?.close();
    this.socket = undefined;
  }
}

/** Binds `port`; for 0, a free port of the dynamic range (`random` in [0, 1) picks where to start). */
export function ecmaUdpBinder(random: () => number = Math.random): UdpBinder {
  return (port) => {
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`udp: port ${port}`);
    if (port !== 0) return new EcmaUdpSocket(port);
    const start = Math.floor(random() * DYNAMIC_COUNT);
    let last: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // Spread over the range: a run of taken ports (another app's block) is stepped over.
      const candidate = DYNAMIC_FIRST + ((start + attempt * 997) % DYNAMIC_COUNT);
      try {
        return new EcmaUdpSocket(candidate);
      } catch (error) {
        last = error;
      }
    }
    throw new Error(`udp: no free port in ${ATTEMPTS} tries of the dynamic range (${last instanceof Error ? last.message : String(last)})`);
  };
}
