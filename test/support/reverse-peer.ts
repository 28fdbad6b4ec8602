// The sender's end of a reverse connection (spec 1.6) on an in-memory connection: sends
// POST /reverse, checks the 101, then reads the requests the receiver sends on it (POST /event,
// GET /slideshows/1/assets/1) and answers them, by hand or with a responder. Portable (runs in XS).

import { joinBytes } from '../../src/bytes';
import { HEADER, MessageParser, writeResponse, type HeadersInit, type RequestHead } from '../../src/http';
import type { Receiver } from '../../src/receiver/receiver';
import { MemoryConnection, settle } from './memory-ports';

export interface PeerRequest {
  readonly head: RequestHead;
  readonly body: Uint8Array;
}

export interface PeerAnswer {
  readonly status?: number;
  readonly headers?: HeadersInit;
  readonly body?: Uint8Array;
}

/** Decides the answer to a request, or undefined to leave it for the test to answer. */
export type Responder = (request: PeerRequest) => PeerAnswer | undefined;

export interface ReversePeerOptions {
  readonly sessionId?: string;
  /** X-Vendor-Purpose: `event`, `slideshow`; none when undefined. */
  readonly purpose?: string;
  readonly remotePort?: number;
  /** Header name prefix: `X-Vendor-` (default) or `X-Apple-`. */
  readonly prefix?: string;
  readonly responder?: Responder;
}

/** A connection that tells its owner, after the current job, that the core wrote to it. */
class WatchedConnection extends MemoryConnection {
  onWritten: () => void = () => {};
  override write(bytes: Uint8Array): boolean {
    const ok = super.write(bytes);
    // Never answer inside the core's write(): it has not finished sending (it arms its timer
    // after writing). A later job answers.
    void Promise.resolve().then(() => this.onWritten());
    return ok;
  }
}

export class ReversePeer {
  readonly connection = new WatchedConnection();
  /** Every request the receiver sent, in order. */
  readonly requests: PeerRequest[] = [];
  /** Requests not answered yet, oldest first. */
  readonly pending: PeerRequest[] = [];
  responder: Responder | undefined;
  private readonly parser = new MessageParser('request');
  private read = 0;
  private current: { head: RequestHead; parts: Uint8Array[] } | undefined;
  private turned = false;

  private constructor(options: ReversePeerOptions) {
    this.responder = options.responder;
    this.connection.remotePort = options.remotePort ?? 51000;
    this.connection.onWritten = () => this.pump();
  }

  /** Opens a reverse connection to `receiver`; resolves once it has turned around (101). */
  static async open(receiver: Receiver, options: ReversePeerOptions = {}): Promise<ReversePeer> {
    const peer = new ReversePeer(options);
    const prefix = options.prefix ?? 'X-Vendor-';
    receiver.accept(peer.connection);
    let head = 'POST /reverse HTTP/1.1\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\n';
    if (options.purpose !== undefined) head += `${prefix}Purpose: ${options.purpose}\r\n`;
    if (options.sessionId !== undefined) head += `${prefix}Session-ID: ${options.sessionId}\r\n`;
    peer.connection.send(`${head}Content-Length: 0\r\n\r\n`);
    for (let i = 0; i < 10; i++) await settle();
    const answer = peer.connection.text;
    const end = answer.indexOf('\r\n\r\n');
    if (!answer.startsWith('HTTP/1.1 101 ') || end < 0) throw new Error(`POST /reverse not answered 101: ${JSON.stringify(answer.slice(0, 80))}`);
    // The receiver may have sent a request right after the 101 (a slideshow picks the
    // connection up at once): what follows the 101's head is the first request.
    peer.parser.receive(peer.connection.written.slice(end + 4));
    peer.read = peer.connection.chunks.length;
    peer.turned = true;
    peer.pump();
    return peer;
  }

  get closed(): boolean {
    return this.connection.closed;
  }

  /** Answers the oldest pending request. */
  answer(answer: PeerAnswer = {}): PeerRequest {
    const request = this.pending.shift();
    if (!request) throw new Error('no request to answer');
    this.write(answer);
    return request;
  }

  /** The sender drops the connection. */
  close(): void {
    this.connection.close();
  }

  private write(answer: PeerAnswer): void {
    if (this.connection.closed) return;
    const bytes = writeResponse({ protocol: 'HTTP', version: '1.1', status: answer.status ?? 200, headers: answer.headers, body: answer.body ?? new Uint8Array(0) });
    this.connection.send(bytes);
  }

  /** Reads what the receiver wrote since last time; answers what the responder takes. */
  private pump(): void {
    if (!this.turned) return;
    const chunks = this.connection.chunks;
    while (this.read < chunks.length) this.parser.receive(chunks[this.read++]);
    for (let event = this.parser.next(); event; event = this.parser.next()) {
      if (event.type === 'head') this.current = { head: event.head, parts: [] };
      else if (event.type === 'body') this.current?.parts.push(event.data.slice());
      else if (event.type === 'error') throw new Error(`receiver sent an unparseable request: ${event.status} ${event.reason}`);
      else if (event.type === 'end' && this.current) {
        const request = { head: this.current.head, body: joinBytes(this.current.parts) };
        this.current = undefined;
        this.requests.push(request);
        this.pending.push(request);
      }
    }
    while (this.responder && this.pending.length > 0) {
      const answer = this.responder(this.pending[0]);
      if (!answer) break;
      this.answer(answer);
    }
  }
}

/** The value of a request header (for assertions). */
export function headerOf(request: PeerRequest, name: string): string | undefined {
  return request.head.headers.get(name);
}

/** Content-Type of a request. */
export function contentTypeOf(request: PeerRequest): string | undefined {
  return request.head.headers.get(HEADER.contentType);
}

