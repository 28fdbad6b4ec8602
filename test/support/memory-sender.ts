// A sender on an in-memory connection: writes requests with our HTTP/RTSP writer, reads the
// receiver's responses with our parser, and once a pairing step hands it a channel, seals what
// it sends and opens what it reads (spec 5.4). Portable (runs in XS).

import { joinBytes } from '../../src/bytes';
import { HEADER, MessageParser, writeRequest, type Protocol, type ResponseHead } from '../../src/http';
import type { Receiver } from '../../src/receiver/receiver';
import type { SecureChannel } from '../../src/receiver/session';
import { MemoryConnection, settle } from './memory-ports';

export interface SenderResponse {
  readonly head: ResponseHead;
  readonly body: Uint8Array;
}

export class MemorySender {
  readonly connection = new MemoryConnection();
  private channel: SecureChannel | undefined;
  private readonly parser = new MessageParser('response');
  private read = 0;
  private cseq = 1;

  constructor(receiver: Receiver, remotePort = 50000) {
    this.connection.remotePort = remotePort;
    receiver.accept(this.connection);
  }

  /** From now on every byte both ways goes through `channel` (the sender's side). */
  encrypt(channel: SecureChannel): void {
    this.channel = channel;
  }

  /** Sends raw bytes (sealed when encrypted). */
  sendBytes(bytes: Uint8Array): void {
    this.connection.send(this.channel ? this.channel.seal(bytes) : bytes);
  }

  /** One request and its response (the receiver answers through a promise: settled here). */
  async request(
    method: string,
    target: string,
    options: { protocol?: Protocol; body?: Uint8Array; contentType?: string; headers?: [string, string][] } = {},
  ): Promise<SenderResponse> {
    const protocol = options.protocol ?? 'HTTP';
    const headers: [string, string][] = [];
    if (protocol === 'RTSP') headers.push([HEADER.cseq, String(this.cseq++)]);
    if (options.body) headers.push([HEADER.contentType, options.contentType ?? 'application/octet-stream']);
    const bytes = writeRequest({
      protocol,
      version: protocol === 'RTSP' ? '1.0' : '1.1',
      method,
      target,
      headers: [...headers, ...(options.headers ?? [])],
      body: options.body ?? (method === 'POST' ? new Uint8Array(0) : undefined),
    });
    this.sendBytes(bytes);
    return this.response();
  }

  /** POSTs a pairing body (application/pairing+tlv8 unless told otherwise). */
  pairing(path: string, body: Uint8Array, protocol: Protocol = 'HTTP', contentType = 'application/pairing+tlv8'): Promise<SenderResponse> {
    return this.request('POST', path, { protocol, body, contentType });
  }

  /** The next response the receiver wrote; throws when none came. */
  async response(): Promise<SenderResponse> {
    for (let i = 0; i < 20; i++) await settle();
    const chunks = this.connection.chunks;
    let head: ResponseHead | undefined;
    const parts: Uint8Array[] = [];
    for (;;) {
      for (let event = this.parser.next(); event; event = this.parser.next()) {
        if (event.type === 'head') head = event.head;
        else if (event.type === 'body') parts.push(event.data.slice());
        else if (event.type === 'error') throw new Error(`unparseable response: ${event.status} ${event.reason}`);
        else if (event.type === 'end' && head) return { head, body: joinBytes(parts) };
      }
      if (this.read >= chunks.length) throw new Error(`no (complete) response; connection ${this.connection.closed ? 'closed' : 'open'}`);
      const chunk = chunks[this.read++];
      if (this.channel) for (const plaintext of this.channel.open(chunk)) this.parser.receive(plaintext);
      else this.parser.receive(chunk);
    }
  }

  close(): void {
    this.connection.close();
  }
}

