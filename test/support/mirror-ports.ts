// In-memory ports for screen mirroring's portable tests: a VideoDecoder that records each call, a
// UDP binder whose sockets record what they send and let the test deliver datagrams, and a
// simulated NTP server (the sender's clock). Portable (runs in the XS suite too).

import type { ScreenGeometry, UdpBinder, UdpSocket, VideoDecoder, VideoDecoderConfig } from '../../src/platform';

export type DecoderCall =
  | { readonly kind: 'configure'; readonly config: VideoDecoderConfig }
  | { readonly kind: 'decode'; readonly accessUnit: Uint8Array; readonly presentationTime: number; readonly keyFrame: boolean }
  | { readonly kind: 'reset' };

export class RecordingDecoder implements VideoDecoder {
  readonly calls: DecoderCall[] = [];
  constructor(readonly geometry: ScreenGeometry = { width: 1280, height: 720, refreshRate: 1 / 60, overscanned: true }) {}
  configure(config: VideoDecoderConfig): void {
    this.calls.push({ kind: 'configure', config });
  }
  decode(accessUnit: Uint8Array, presentationTime: number, keyFrame: boolean): void {
    // A copy: the core may hand over a view it reuses.
    this.calls.push({ kind: 'decode', accessUnit: accessUnit.slice(), presentationTime, keyFrame });
  }
  reset(): void {
    this.calls.push({ kind: 'reset' });
  }
  get kinds(): string[] {
    return this.calls.map((call) => call.kind);
  }
  get decoded(): { accessUnit: Uint8Array; presentationTime: number; keyFrame: boolean }[] {
    return this.calls.flatMap((call) => (call.kind === 'decode' ? [call] : []));
  }
}

export interface SentDatagram {
  readonly bytes: Uint8Array;
  readonly address: string;
  readonly port: number;
}

export class MemoryUdpSocket implements UdpSocket {
  readonly sent: SentDatagram[] = [];
  closed = false;
  onPacket: (bytes: Uint8Array, address: string, port: number) => void = () => {};
  constructor(readonly localPort: number) {}
  send(bytes: Uint8Array, address: string, port: number): void {
    if (this.closed) throw new Error('send on a closed socket');
    this.sent.push({ bytes: bytes.slice(), address, port });
  }
  close(): void {
    this.closed = true;
  }
  /** The test delivers a datagram. */
  deliver(bytes: Uint8Array, address: string, port: number): void {
    if (!this.closed) this.onPacket(bytes, address, port);
  }
}

/** A binder that records every socket it binds; `fail` makes the next bind throw. */
export function memoryUdp(): { binder: UdpBinder; sockets: MemoryUdpSocket[]; ports: number[]; fail: { next: boolean } } {
  const sockets: MemoryUdpSocket[] = [];
  const ports: number[] = [];
  const fail = { next: false };
  const binder: UdpBinder = (port) => {
    ports.push(port);
    if (fail.next) {
      fail.next = false;
      throw new Error(`port ${port} in use`);
    }
    const socket = new MemoryUdpSocket(port === 0 ? 40000 + sockets.length : port);
    sockets.push(socket);
    return socket;
  };
  return { binder, sockets, ports, fail };
}
