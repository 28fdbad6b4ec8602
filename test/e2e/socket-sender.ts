// Our own sender on one socket, for the end-to-end suites that speak to the built command byte
// by byte: requests over HTTP or RTSP, in the clear or through a channel after pairing. Loopback only.

import net from 'node:net';
import { concat } from '../../src/bytes';
import { MessageParser, writeRequest, type Protocol, type ResponseHead, type SecureChannel } from '../../src/http';
import { PROMPT_MS, until, within } from './receiver-process';

/** Our own sender on a socket: requests over HTTP or RTSP, in the clear or through a channel. */
export class SocketSender {
  private readonly parser = new MessageParser('response');
  private readonly responses: { head: ResponseHead; body: Uint8Array }[] = [];
  private current: { head: ResponseHead; parts: Uint8Array[] } | undefined;
  private channel: SecureChannel | undefined;
  private wake: (() => void) | undefined;
  private cseq = 1;
  ended = false;
  /** The bytes of the last request as they went on the wire (sealed when encrypted). */
  lastWire: Uint8Array = new Uint8Array(0);
  /** The local port, which the receiver's log lines name (`127.0.0.1:PORT ...`); kept after the close. */
  readonly localPort: number;

  private constructor(private readonly socket: net.Socket) {
    this.localPort = socket.localPort ?? 0;
    socket.on('data', (data: Buffer) => {
      try {
        const bytes = new Uint8Array(data);
        for (const plaintext of this.channel ? this.channel.open(bytes) : [bytes]) this.parser.receive(plaintext);
      } catch {
        this.ended = true;
      }
      for (let event = this.parser.next(); event; event = this.parser.next()) {
        if (event.type === 'head') this.current = { head: event.head, parts: [] };
        else if (event.type === 'body') this.current?.parts.push(event.data.slice());
        else if (event.type === 'end' && this.current) {
          this.responses.push({ head: this.current.head, body: concat(...this.current.parts) });
          this.current = undefined;
        }
      }
      this.notify();
    });
    const end = () => {
      this.ended = true;
      this.notify();
    };
    socket.on('close', end);
    socket.on('error', end);
  }

  /** Connects to the receiver on 127.0.0.1, from `localAddress` when given (any 127.x address is a sender of its own). */
  static connect(port: number, localAddress?: string): Promise<SocketSender> {
    return within(
      PROMPT_MS,
      `connect to 127.0.0.1:${port}`,
      new Promise((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(new SocketSender(socket)));
        socket.once('error', reject);
      }),
    );
  }

  encrypt(channel: SecureChannel): void {
    this.channel = channel;
  }

  /** The wire bytes of a request (sealed when encrypted), without sending them. */
  wire(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string } = {}): Uint8Array {
    const protocol = options.protocol ?? 'HTTP';
    const headers: [string, string][] = protocol === 'RTSP' ? [['CSeq', String(this.cseq++)]] : [['Host', '127.0.0.1']];
    if (options.body) headers.push(['Content-Type', options.contentType ?? 'application/octet-stream']);
    const bytes = writeRequest({ protocol, version: protocol === 'RTSP' ? '1.0' : '1.1', method, target, headers, body: options.body ?? (method === 'POST' ? new Uint8Array(0) : undefined) });
    return this.channel ? this.channel.seal(bytes) : bytes;
  }

  send(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string } = {}): void {
    this.lastWire = this.wire(method, target, options);
    this.socket.write(this.lastWire);
  }

  sendWire(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  async request(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string } = {}) {
    this.send(method, target, options);
    return this.response();
  }

  async response(timeoutMs = PROMPT_MS): Promise<{ head: ResponseHead; body: Uint8Array }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const next = this.responses.shift();
      if (next) return next;
      if (this.ended) throw new Error('connection ended before a response');
      if (Date.now() > deadline) throw new Error(`no response within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Whether the receiver closed the connection within `timeoutMs`. */
  async closedByPeer(timeoutMs = PROMPT_MS): Promise<boolean> {
    await until(() => 'still open', () => this.ended, timeoutMs).catch(() => undefined);
    return this.ended;
  }

  close(): void {
    this.socket.destroy();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
