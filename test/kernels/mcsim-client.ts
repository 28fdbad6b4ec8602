// By-hand clients of a receiver running in the Moddable simulator (test/kernels/mcsim-*.ts):
// hap-controller with the protocol's 4-digit PIN, one request at a time on a socket in the clear
// or through a pairing channel, and JPEGs of noise at a chosen size.

import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { HttpClient } from 'hap-controller';
import jpeg from 'jpeg-js';
import { concat } from '../../src/bytes';
import { MessageParser, writeRequest, type Protocol, type ResponseHead } from '../../src/http';
import type { SecureChannel } from '../../src/http/secure-channel';

export const HOST = '127.0.0.1';

/** hap-controller insists on HomeKit's XXX-XX-XXX PIN format; the protocol's PIN is 4 digits (spec 5.3). */
export class PinClient extends HttpClient {
  override verifyPin(): void {}
}

/** One request at a time on a socket, in the clear or through a channel. */
export class Sender {
  private readonly parser = new MessageParser('response');
  private channel: SecureChannel | undefined;
  private pending: ((response: { head: ResponseHead; body: Uint8Array }) => void) | undefined;
  private current: { head: ResponseHead; parts: Uint8Array[] } | undefined;
  private cseq = 1;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => {
      for (const plaintext of this.channel ? this.channel.open(new Uint8Array(data)) : [new Uint8Array(data)]) this.parser.receive(plaintext);
      for (let event = this.parser.next(); event; event = this.parser.next()) {
        if (event.type === 'head') this.current = { head: event.head, parts: [] };
        else if (event.type === 'body') this.current?.parts.push(event.data.slice());
        else if (event.type === 'end' && this.current) {
          const done = { head: this.current.head, body: concat(...this.current.parts) };
          this.current = undefined;
          this.pending?.(done);
        }
      }
    });
  }

  static connect(port: number): Promise<Sender> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: HOST }, () => resolve(new Sender(socket)));
      socket.once('error', reject);
    });
  }

  encrypt(channel: SecureChannel): void {
    this.channel = channel;
  }

  request(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string; headers?: [string, string][] } = {}): Promise<{ head: ResponseHead; body: Uint8Array }> {
    const protocol = options.protocol ?? 'HTTP';
    const headers: [string, string][] = [...(options.headers ?? [])];
    if (protocol === 'RTSP') headers.push(['CSeq', String(this.cseq++)]);
    if (options.body) headers.push(['Content-Type', options.contentType ?? 'application/octet-stream']);
    const bytes = writeRequest({ protocol, version: protocol === 'RTSP' ? '1.0' : '1.1', method, target, headers, body: options.body ?? (method === 'POST' ? new Uint8Array(0) : undefined) });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method} ${target}: no answer in 60 s`)), 60_000);
      this.pending = (response) => {
        clearTimeout(timer);
        resolve(response);
      };
      this.socket.write(this.channel ? this.channel.seal(bytes) : bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * A JPEG of noise (it compresses badly) of at most `bytes`, as large as a few tries get: a side
 * scaled from the first try's size, then grown a block at a time while it still fits.
 */
export function photo(bytes: number): Uint8Array {
  const encode = (side: number) => new Uint8Array(jpeg.encode({ data: new Uint8Array(randomBytes(side * side * 4)), width: side, height: side }, 90).data);
  let side = Math.floor(Math.sqrt(bytes / 2) / 16) * 16;
  let best = encode(side);
  while (best.length > bytes) {
    side = Math.floor((side * Math.sqrt(bytes / best.length) * 0.99) / 16) * 16;
    best = encode(side);
  }
  for (let tries = 0; tries < 4; tries++) {
    const larger = encode(side + 16);
    if (larger.length > bytes) break;
    side += 16;
    best = larger;
  }
  return best;
}
