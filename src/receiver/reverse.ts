// Reverse connections (spec 1.6, 6): after `POST /reverse` with `Upgrade: PTTH/1.0` and a 101,
// the sender's connection turns around: the receiver sends requests on it (`POST /event`,
// `GET /slideshows/1/assets/1`) and parses the sender's responses.

import { HEADER, Headers, MessageParser, writeRequest, type HeadersInit, type ResponseHead } from '../http';
import { joinBytes } from '../bytes';
import type { Dialect } from '../dialect';
import type { Clock, Connection, Logger, TimerHandle } from '../platform';
import type { SecureChannel } from './session';

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

/** Thrown (as a rejection) when a reverse request cannot complete; the message says why. */
export class ReverseError extends Error {
  override name = 'ReverseError';
}

export interface ReverseOptions {
  readonly clock: Clock;
  readonly log: Logger;
  readonly dialect: Dialect;
  /** The sender's session (X-Vendor-Session-ID of the POST /reverse). */
  readonly sessionId: string | undefined;
  /** X-Vendor-Purpose of the POST /reverse: `slideshow`, `event`... */
  readonly purpose: string | undefined;
  /** The sender as seen from here, for the Host header (strict HTTP parsers require one). */
  readonly host: string;
  /** A response must be complete within this time, or the connection is closed. */
  readonly requestTimeoutMs: number;
  /** Largest response body accepted (a slideshow picture). */
  readonly maxBodyBytes: number;
  /** The secure channel when the connection was encrypted before it turned around. */
  readonly channel?: SecureChannel;
}

interface Outstanding {
  readonly request: ReverseRequest;
  readonly resolve: (response: ReverseResponse) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One reverse connection. Requests are sent one at a time, in order (a sender's HTTP server
 * answers in order anyway, and one at a time keeps a board's memory bounded).
 */
export class ReverseConnection {
  readonly sessionId: string | undefined;
  readonly purpose: string | undefined;
  closed = false;
  private readonly parser: MessageParser<'response'>;
  private readonly queue: Outstanding[] = [];
  private current: Outstanding | undefined;
  private head: ResponseHead | undefined;
  private chunks: Uint8Array[] = [];
  private timer: TimerHandle | undefined;
  private readonly closeListeners: ((reason: string) => void)[] = [];

  constructor(
    private readonly port: Connection,
    initial: Uint8Array,
    private readonly options: ReverseOptions,
  ) {
    this.sessionId = options.sessionId;
    this.purpose = options.purpose;
    this.parser = new MessageParser('response', { maxBodyBytes: options.maxBodyBytes });
    port.onData = (bytes) => this.receive(bytes);
    port.onClose = (error) => this.finish(error ? `connection failed: ${error}` : 'sender closed the connection');
    port.onDrain = () => {};
    if (initial.length > 0) this.receive(initial);
  }

  get peer(): string {
    return `${this.port.remoteAddress}:${this.port.remotePort}`;
  }

  /** Called once when the connection ends, with the reason. */
  onClose(listener: (reason: string) => void): void {
    if (this.closed) listener('already closed');
    else this.closeListeners.push(listener);
  }

  /** Sends a request; resolves with the sender's response, rejects when the connection fails. */
  request(request: ReverseRequest): Promise<ReverseResponse> {
    if (this.closed) return Promise.reject(new ReverseError(`reverse connection ${this.peer} is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.sendNext();
    });
  }

  close(reason = 'receiver closed it'): void {
    if (this.closed) return;
    // Record the reason first: closing the port reports a close of its own.
    this.finish(reason);
    this.port.close();
  }

  private sendNext(): void {
    if (this.current || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.current = next;
    const { request } = next;
    const headers = new Headers(request.headers);
    // Strict HTTP parsers in senders reject a request without Host.
    if (!headers.has(HEADER.host)) headers.set(HEADER.host, this.options.host);
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
    this.parser.expectResponseTo(request.method);
    this.port.write(this.options.channel ? this.options.channel.seal(bytes) : bytes);
    this.timer = this.options.clock.setTimer(this.options.requestTimeoutMs, () => {
      this.timer = undefined;
      this.close(`no response to ${request.method} ${request.target} within ${this.options.requestTimeoutMs} ms`);
    });
  }

  private receive(bytes: Uint8Array): void {
    if (this.closed) return;
    let plaintexts = [bytes];
    if (this.options.channel) {
      try {
        plaintexts = this.options.channel.open(bytes);
      } catch (error) {
        this.close(`encrypted frame rejected: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
    for (const plaintext of plaintexts) this.parser.receive(plaintext);
    for (let event = this.parser.next(); event && !this.closed; event = this.parser.next()) {
      switch (event.type) {
        case 'head':
          this.head = event.head;
          this.chunks = [];
          break;
        case 'body':
          this.chunks.push(event.data);
          break;
        case 'end':
          this.complete();
          break;
        case 'error':
          this.close(`bad response from sender: ${event.status} ${event.reason}`);
          return;
      }
    }
  }

  private complete(): void {
    const current = this.current;
    const head = this.head;
    this.current = undefined;
    this.head = undefined;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    if (!current || !head) {
      this.close('response without a request');
      return;
    }
    const body = joinBytes(this.chunks);
    this.chunks = [];
    current.resolve({ head, body });
    if (!head.keepAlive) this.close('sender asked to close');
    else this.sendNext();
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.options.log('debug', `${this.peer} reverse connection (${this.purpose ?? 'no purpose'}) ended: ${reason}`);
    const failed = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    this.current = undefined;
    for (const outstanding of failed) outstanding.reject(new ReverseError(`reverse connection ${this.peer}: ${reason}`));
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

  closeAll(reason: string): void {
    for (const connection of [...this.connections]) connection.close(reason);
  }
}
