// A sender on an in-memory connection: writes requests with our HTTP/RTSP writer, reads the
// receiver's responses with our parser, and once a pairing step hands it a channel, seals what
// it sends and opens what it reads (spec 5.4). Portable (runs in XS).

import { HEADER, MessageAssembler, writeRequest, type Protocol, type ResponseHead, type SecureChannel } from '../../src/http';
import type { Receiver } from '../../src/receiver/receiver';
import { MemoryConnection } from './memory-ports';

export interface SenderResponse {
  readonly head: ResponseHead;
  readonly body: Uint8Array;
}

export class MemorySender {
  readonly connection = new MemoryConnection();
  private readonly assembler = new MessageAssembler('response');
  private read = 0;
  private cseq = 1;

  constructor(receiver: Receiver, remotePort = 50000, remoteAddress?: string) {
    this.connection.remotePort = remotePort;
    if (remoteAddress !== undefined) this.connection.remoteAddress = remoteAddress;
    receiver.accept(this.connection);
  }

  /** From now on every byte both ways goes through `channel` (the sender's side). */
  encrypt(channel: SecureChannel): void {
    this.assembler.encrypt(channel);
  }

  /** Sends raw bytes (sealed when encrypted). */
  sendBytes(bytes: Uint8Array): void {
    this.connection.send(this.assembler.seal(bytes));
  }

  /** One request and its response (the core answers while it is fed the bytes). */
  request(
    method: string,
    target: string,
    options: { protocol?: Protocol; body?: Uint8Array; contentType?: string; headers?: [string, string][] } = {},
  ): SenderResponse {
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
  pairing(path: string, body: Uint8Array, protocol: Protocol = 'HTTP', contentType = 'application/pairing+tlv8'): SenderResponse {
    return this.request('POST', path, { protocol, body, contentType });
  }

  /** The next response the receiver wrote; throws when none came. */
  response(): SenderResponse {
    const chunks = this.connection.chunks;
    for (;;) {
      for (let event = this.assembler.next(); event; event = this.assembler.next()) {
        if (event.type === 'error') throw new Error(`unparseable response: ${event.error.status} ${event.error.reason}`);
        if (event.type === 'message') return { head: event.head, body: event.body };
      }
      if (this.read >= chunks.length) throw new Error(`no (complete) response; connection ${this.connection.closed ? 'closed' : 'open'}`);
      this.assembler.receive(chunks[this.read++]);
    }
  }

  close(): void {
    this.connection.close();
  }
}

