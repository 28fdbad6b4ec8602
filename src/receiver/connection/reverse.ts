// Reverse connections (spec 1.6, 6): after `POST /reverse` with `Upgrade: PTTH/1.0` and a 101,
// the sender's connection turns around: the receiver sends requests on it (`POST /event`,
// `GET /slideshows/1/assets/1`) and reads the sender's responses. Sans-I/O like the connection it
// came from (ReceiverConnection forwards its bytes, deadlines and polls here).

import type { ConnectionEvent } from './connection-driver';
import type { Dialect } from '../../dialect';
import { ChannelError, HEADER, Headers, MessageAssembler, writeRequest, type HeadersInit, type ResponseHead, type SecureChannel } from '../../http';
import type { Logger } from '../../platform';

export interface ReverseResponse {
  readonly head: ResponseHead;
  readonly body: Uint8Array;
}

export interface ReverseRequest {
  readonly method: string;
  readonly target: string;
  readonly headers?: HeadersInit;
  readonly body?: Uint8Array;
}

/** Why a reverse request could not complete; the message says why. */
export class ReverseError extends Error {
  override name = 'ReverseError';
}

/** What a reverse request ends with: the sender's response, or the error that ended it. */
export type ReverseResult = ReverseResponse | ReverseError;

/** Told once, with the result, when a reverse request ends. */
export type ReverseCallback = (result: ReverseResult) => void;

export interface ReverseOptions {
  readonly log: Logger;
  /** Monotonic milliseconds: a request made outside receive() counts its deadline from now. */
  now(): number;
  readonly dialect: Dialect;
  /** The sender's session (X-Vendor-Session-ID of the POST /reverse). */
  readonly sessionId: string | undefined;
  /** X-Vendor-Purpose of the POST /reverse: `slideshow`, `event`... */
  readonly purpose: string | undefined;
  /**
   * A response must be complete within this time, or keep up minBytesPerSecond after it (a
   * progress deadline, as request bodies have), or the connection is closed.
   */
  readonly requestTimeoutMs: number;
  /** The least rate of a response's bytes once requestTimeoutMs has passed (limits.minReverseBytesPerSecond). */
  readonly minBytesPerSecond: number;
  /** Largest response body accepted (a slideshow picture). */
  readonly maxBodyBytes: number;
  /** Most requests waiting to be sent; more fail at once (limits.maxQueuedReverseRequests). */
  readonly maxQueuedRequests: number;
  /**
   * Silent this long (nothing sent or received), the connection is closed unless `senderPresent`
   * says its sender still has another connection open (limits.reverseIdleTimeoutMs).
   */
  readonly idleTimeoutMs: number;
  /** Whether another connection of the same address is open: the sender is still there. */
  senderPresent(): boolean;
}

interface Outstanding {
  readonly request: ReverseRequest;
  readonly callback: ReverseCallback;
}

/**
 * One reverse connection. Requests are sent one at a time, in order (a sender's HTTP server
 * answers in order anyway, and one at a time keeps a board's memory bounded).
 */
export class ReverseConnection {
  readonly sessionId: string | undefined;
  readonly purpose: string | undefined;
  closed = false;
  /** Set by the connection that carries this one: there is something to poll. */
  onWake: () => void = () => {};
  private readonly assembler: MessageAssembler<'response'>;
  private readonly queue: Outstanding[] = [];
  private current: Outstanding | undefined;
  private readonly outgoing: Uint8Array[] = [];
  private readonly events: ConnectionEvent[] = [];
  /**
   * When the current request's response must be whole or have more bytes (monotonic ms), while
   * one is out: requestTimeoutMs from the request, later by each byte's share of the least rate.
   */
  private deadline: number | undefined;
  /** When the current request was sent, and the bytes received since (its response's so far). */
  private sentAt = 0;
  private received = 0;
  /** Monotonic ms of the last bytes sent or received: a silent connection may make room (admission.ts). */
  lastActivity: number;
  private readonly closeListeners: ((reason: string) => void)[] = [];

  constructor(
    private readonly addresses: { readonly remoteAddress: string; readonly remotePort: number },
    private readonly options: ReverseOptions,
    channel: SecureChannel | undefined,
  ) {
    this.sessionId = options.sessionId;
    this.purpose = options.purpose;
    this.assembler = new MessageAssembler('response', { maxBodyBytes: options.maxBodyBytes }, channel);
    this.lastActivity = options.now();
  }

  get remoteAddress(): string {
    return this.addresses.remoteAddress;
  }

  /** Nothing asked of the sender is under way: the connection only waits for events to carry. */
  get silent(): boolean {
    return !this.closed && !this.current && this.queue.length === 0;
  }

  get peer(): string {
    const { remoteAddress, remotePort } = this.addresses;
    return remoteAddress.includes(':') ? `[${remoteAddress}]:${remotePort}` : `${remoteAddress}:${remotePort}`;
  }

  get wantsRead(): boolean {
    return !this.closed;
  }

  get heldBytes(): number {
    return this.assembler.buffered;
  }

  /** Called once when the connection ends, with the reason. */
  onClose(listener: (reason: string) => void): void {
    if (this.closed) listener('already closed');
    else this.closeListeners.push(listener);
  }

  /**
   * Sends a request; `callback` gets the sender's response, or a ReverseError when the connection
   * fails, times out, is closed or has too many requests waiting (then at once).
   */
  request(request: ReverseRequest, callback: ReverseCallback): void {
    if (this.closed) {
      callback(new ReverseError(`reverse connection ${this.peer} is closed`));
      return;
    }
    if (this.queue.length >= this.options.maxQueuedRequests) {
      callback(new ReverseError(`reverse connection ${this.peer} has ${this.queue.length} requests waiting (limits.maxQueuedReverseRequests)`));
      return;
    }
    this.queue.push({ request, callback });
    this.sendNext();
    this.onWake();
  }

  close(reason = 'receiver closed it'): void {
    if (this.closed) return;
    this.end(reason);
    this.events.push({ type: 'close', reason });
    this.onWake();
  }

  /** Plaintext the sender pipelined before the turn-around was read (already decrypted). */
  receivePlaintext(bytes: Uint8Array): void {
    this.assembler.receivePlaintext(bytes);
    this.pump();
  }

  receive(bytes: Uint8Array, now: number): void {
    if (this.closed) return;
    this.lastActivity = now;
    if (this.current) this.progressed(bytes.length);
    try {
      this.assembler.receive(bytes);
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      this.close(`encrypted frame rejected: ${error.message}`);
      return;
    }
    this.pump();
  }

  transportClosed(error: string | undefined, _now: number): void {
    this.outgoing.length = 0;
    this.end(error ? `connection failed: ${error}` : 'sender closed the connection');
  }

  pollTransmit(): Uint8Array | undefined {
    return this.outgoing.shift();
  }

  pollTimeout(): number | undefined {
    if (this.closed) return undefined;
    return this.deadline ?? this.lastActivity + this.options.idleTimeoutMs;
  }

  handleTimeout(now: number): void {
    if (this.closed) return;
    if (!this.current) {
      if (now < this.lastActivity + this.options.idleTimeoutMs) return;
      // A sender that is still there (its control connection is open) keeps its event
      // connection, however long nothing happens; one gone quiet everywhere is let go.
      if (this.options.senderPresent()) {
        this.lastActivity = now;
        return;
      }
      const why = `silent for ${Math.round(now - this.lastActivity)} ms and its address has no other connection (limits.reverseIdleTimeoutMs)`;
      this.options.log('info', `${this.peer} reverse connection (${this.purpose ?? 'no purpose'}) closed: ${why}`);
      this.close(why);
      return;
    }
    if (this.deadline === undefined || now < this.deadline) return;
    const { request } = this.current;
    const { requestTimeoutMs, minBytesPerSecond } = this.options;
    this.close(
      `response to ${request.method} ${request.target} too slow: ${this.received} bytes in ${now - this.sentAt} ms ` +
        `(whole within ${requestTimeoutMs} ms, or at least ${minBytesPerSecond} bytes/s after that)`,
    );
  }

  pollEvent(): ConnectionEvent | undefined {
    return this.events.shift();
  }

  private sendNext(): void {
    if (this.current || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.current = next;
    const { request } = next;
    const headers = new Headers(request.headers);
    // Strict HTTP parsers in senders reject a request without Host.
    if (!headers.has(HEADER.host)) headers.set(HEADER.host, this.peer);
    const sessionHeader = this.options.dialect.headers['Session-ID'];
    if (this.sessionId && !headers.has(sessionHeader)) headers.set(sessionHeader, this.sessionId);
    const bytes = writeRequest({
      method: request.method,
      target: request.target,
      protocol: 'HTTP',
      version: '1.1',
      headers,
      // Content-Length on every request, 0 when empty (spec 6: Content-Length is sent).
      body: request.body ?? new Uint8Array(0),
    });
    this.assembler.expectResponseTo(request.method);
    this.outgoing.push(this.assembler.seal(bytes));
    this.sentAt = this.options.now();
    this.lastActivity = this.sentAt;
    this.received = 0;
    this.progressed(0);
  }

  /**
   * `count` more bytes of the current response: at time t after the request, (t -
   * requestTimeoutMs) x minBytesPerSecond bytes must have come, so the deadline is when the bytes
   * so far stop being enough.
   */
  private progressed(count: number): void {
    const { requestTimeoutMs, minBytesPerSecond } = this.options;
    this.received += count;
    this.deadline = this.sentAt + requestTimeoutMs + Math.floor((this.received * 1000) / minBytesPerSecond);
  }

  private pump(): void {
    for (let event = this.assembler.next(); event && !this.closed; event = this.assembler.next()) {
      if (event.type === 'message') this.complete(event.head, event.body);
      else if (event.type === 'error') {
        this.close(`bad response from sender: ${event.error.status} ${event.error.reason}`);
        return;
      }
    }
  }

  private complete(head: ResponseHead, body: Uint8Array): void {
    const current = this.current;
    this.current = undefined;
    this.deadline = undefined;
    if (!current) {
      this.close('response without a request');
      return;
    }
    current.callback({ head, body });
    if (!head.keepAlive) this.close('sender asked to close');
    else this.sendNext();
  }

  private end(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.deadline = undefined;
    this.assembler.dispose();
    this.options.log('debug', `${this.peer} reverse connection (${this.purpose ?? 'no purpose'}) ended: ${reason}`);
    const failed = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    this.current = undefined;
    for (const outstanding of failed) outstanding.callback(new ReverseError(`reverse connection ${this.peer}: ${reason}`));
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}

/** The reverse connections of all senders, by session and purpose. */
export class ReverseRegistry {
  private readonly connections = new Set<ReverseConnection>();
  private readonly addedListeners: ((connection: ReverseConnection) => void)[] = [];

  add(connection: ReverseConnection): void {
    this.connections.add(connection);
    connection.onClose(() => this.connections.delete(connection));
    for (const listener of this.addedListeners) listener(connection);
  }

  /** Called for every connection added from now on (a slideshow picks up a sender's new ones). */
  onAdded(listener: (connection: ReverseConnection) => void): void {
    this.addedListeners.push(listener);
  }

  /** Open reverse connections of a session, optionally of one purpose, oldest first. */
  find(sessionId: string | undefined, purpose?: string): ReverseConnection[] {
    const found: ReverseConnection[] = [];
    for (const connection of this.connections) {
      if (connection.closed || connection.sessionId !== sessionId) continue;
      if (purpose !== undefined && connection.purpose !== purpose) continue;
      found.push(connection);
    }
    return found;
  }

  get size(): number {
    return this.connections.size;
  }

  /** Open reverse connections of one address. */
  fromAddress(address: string): ReverseConnection[] {
    return [...this.connections].filter((connection) => !connection.closed && connection.remoteAddress === address);
  }

  /**
   * The reverse connection that makes room for a newcomer from `address` at maxReverseConnections:
   * a silent one of an address holding more reverse connections than the newcomer's (so an
   * address only ever loses to one holding fewer), one whose address has no other connection
   * (`companions`: its sender has gone) before one whose sender is still there, then the one
   * quiet longest. Undefined when none may.
   */
  victimFor(address: string, companions: (address: string) => number): ReverseConnection | undefined {
    const counts = new Map<string, number>();
    for (const connection of this.connections) counts.set(connection.remoteAddress, (counts.get(connection.remoteAddress) ?? 0) + 1);
    const own = counts.get(address) ?? 0;
    let victim: ReverseConnection | undefined;
    let victimKey: [number, number, number] | undefined;
    for (const connection of this.connections) {
      const held = counts.get(connection.remoteAddress) ?? 0;
      if (!connection.silent || held <= own) continue;
      const key: [number, number, number] = [companions(connection.remoteAddress) > 0 ? 1 : 0, -held, connection.lastActivity];
      if (!victimKey || key[0] < victimKey[0] || (key[0] === victimKey[0] && (key[1] < victimKey[1] || (key[1] === victimKey[1] && key[2] < victimKey[2])))) {
        victim = connection;
        victimKey = key;
      }
    }
    return victim;
  }

  closeAll(reason: string): void {
    for (const connection of [...this.connections]) connection.close(reason);
  }
}
