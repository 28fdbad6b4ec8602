// The sender's end of a reverse connection (spec 1.6) on an in-memory connection: sends
// POST /reverse, checks the 101, then reads the requests the receiver sends on it (POST /event,
// GET /slideshows/1/assets/1) and answers them, by hand or with a responder. Portable (runs in XS).

import { HEADER, MessageAssembler, writeResponse, type HeadersInit, type RequestHead } from '../../src/http';
import type { Receiver } from '../../src/receiver/receiver';
import { MemoryConnection } from './memory-ports';

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

/** Peers the receiver wrote to since replies were last delivered. */
const written = new Set<ReversePeer>();

/**
 * Lets every peer read what the receiver wrote and send its responder's answers, until nothing
 * more is written: the network delivering replies, as a socket would after the core's call has
 * returned (never inside it). Synchronous: tests call it where time would pass.
 */
export function deliverReplies(): void {
  for (let round = 0; written.size > 0; round++) {
    if (round > 10_000) throw new Error('reverse peers kept answering for 10,000 rounds');
    const peers = [...written];
    written.clear();
    for (const peer of peers) peer.readWritten();
  }
}

/** A connection that tells its owner that the core wrote to it. */
class WatchedConnection extends MemoryConnection {
  onWritten: () => void = () => {};
  override write(bytes: Uint8Array): boolean {
    const ok = super.write(bytes);
    this.onWritten();
    return ok;
  }
}

export class ReversePeer {
  readonly connection = new WatchedConnection();
  private readonly sent: PeerRequest[] = [];
  private readonly unanswered: PeerRequest[] = [];

  /** Every request the receiver sent, in order. */
  get requests(): PeerRequest[] {
    this.parse();
    return this.sent;
  }

  /** Requests not answered yet, oldest first. */
  get pending(): PeerRequest[] {
    this.parse();
    return this.unanswered;
  }
  responder: Responder | undefined;
  private readonly assembler = new MessageAssembler('request');
  private read = 0;
  private turned = false;

  private constructor(options: ReversePeerOptions) {
    this.responder = options.responder;
    this.connection.remotePort = options.remotePort ?? 51000;
    this.connection.onWritten = () => written.add(this);
  }

  /** Opens a reverse connection to `receiver`; returns once it has turned around (101). */
  static open(receiver: Receiver, options: ReversePeerOptions = {}): ReversePeer {
    const peer = new ReversePeer(options);
    const prefix = options.prefix ?? 'X-Vendor-';
    receiver.accept(peer.connection);
    let head = 'POST /reverse HTTP/1.1\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\n';
    if (options.purpose !== undefined) head += `${prefix}Purpose: ${options.purpose}\r\n`;
    if (options.sessionId !== undefined) head += `${prefix}Session-ID: ${options.sessionId}\r\n`;
    peer.connection.send(`${head}Content-Length: 0\r\n\r\n`);
    const answer = peer.connection.text;
    const end = answer.indexOf('\r\n\r\n');
    if (!answer.startsWith('HTTP/1.1 101 ') || end < 0) throw new Error(`POST /reverse not answered 101: ${JSON.stringify(answer.slice(0, 80))}`);
    // The receiver may have sent a request right after the 101 (a slideshow picks the
    // connection up at once): what follows the 101's head is the first request.
    peer.assembler.receive(peer.connection.written.slice(end + 4));
    peer.read = peer.connection.chunks.length;
    peer.turned = true;
    written.add(peer);
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
  readWritten(): void {
    this.parse();
    while (this.responder && this.unanswered.length > 0) {
      const answer = this.responder(this.unanswered[0]);
      if (!answer) break;
      this.answer(answer);
    }
  }

  /** Reads the requests the receiver wrote since last time. */
  private parse(): void {
    if (!this.turned) return;
    const chunks = this.connection.chunks;
    while (this.read < chunks.length) this.assembler.receive(chunks[this.read++]);
    for (let event = this.assembler.next(); event; event = this.assembler.next()) {
      if (event.type === 'error') throw new Error(`receiver sent an unparseable request: ${event.error.status} ${event.error.reason}`);
      if (event.type === 'message') {
        const request = { head: event.head, body: event.body };
        this.sent.push(request);
        this.unanswered.push(request);
      }
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

