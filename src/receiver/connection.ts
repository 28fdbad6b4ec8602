// One connection of the receiver: bytes in, parsed requests routed to handlers, responses out.
//
// A connection changes mode at most a few times (DESIGN 6). Each mode is one state here:
//   request    HTTP/1.1 or RTSP/1.0 request/response, keep-alive and pipelining
//   encrypted  the same, with every byte in both directions framed by a SecureChannel
//              (spec 5.4: after pair-verify or transient pair-setup)
//   reverse    after POST /reverse and 101 (spec 1.6): a ReverseConnection owns the socket
//   closed     nothing more is read or written
// Later, `stream` (after POST /stream on the mirroring port) takes over the same way: the new
// owner gets the bytes the parser has not consumed (`MessageParser.takeRemaining`).

import { joinBytes } from '../bytes';
import { readMakerHeader, type Dialect } from '../dialect';
import { HEADER, Headers, MessageParser, STATUS, httpDate, writeResponse, type ErrorEvent, type Protocol, type RequestHead } from '../http';
import type { Clock, Connection, Logger, TimerHandle } from '../platform';
import type { ReceiverLimits } from './config';
import { sessionIdOf, splitTarget, type Request, type Response, type Route, type Router } from './router';
import { ReverseConnection } from './reverse';
import { ConnectionSession, type SecureChannel } from './session';

export type ConnectionMode = 'request' | 'encrypted' | 'reverse' | 'closed';

/** What a connection needs from the receiver that owns it. */
export interface ConnectionContext {
  readonly clock: Clock;
  readonly log: Logger;
  readonly router: Router;
  readonly limits: ReceiverLimits;
  /** The dialect of what the receiver writes. */
  readonly dialect: Dialect;
  /** Reverse connections: their request timeout and largest response body. */
  readonly reverseLimits: { readonly requestTimeoutMs: number; readonly maxBodyBytes: number };
  /** Value of the `Server` header, e.g. `VendorTunes/220.68`. */
  readonly serverHeader: string;
  /**
   * Access control (spec 5.2): a password or PIN is required, so only routes marked `open`
   * are served until the connection is paired and encrypted.
   */
  readonly pairingRequired: boolean;
  /** Called once when the connection has closed, for the receiver's bookkeeping. */
  onClosed(connection: ReceiverConnection): void;
  /** The next arrival order for a request head, counted over all connections (Request.order). */
  nextRequestOrder(): number;
  /**
   * A handler of the session starts: events it causes wait for its answer (EventSender.hold).
   * Returns what to call once the response is written.
   */
  holdEvents?(sessionId: string | undefined): () => void;
}

/** A request whose head has arrived and whose body is being collected. */
interface PendingRequest {
  readonly head: RequestHead;
  readonly route: Route | undefined;
  readonly refusal: Response | undefined;
  readonly chunks: Uint8Array[];
  size: number;
  /** The body, when its length is known: filled as it arrives (see collect). */
  body?: Uint8Array;
  /** Request.order, taken when the head arrived. */
  readonly order: number;
}

export class ReceiverConnection {
  mode: ConnectionMode = 'request';
  /** The sender's session (`X-Vendor-Session-ID`), from the first request that carries it. */
  sessionId: string | undefined;
  /** State kept for the life of the connection, handed to every handler. */
  readonly session = new ConnectionSession();
  private channel: SecureChannel | undefined;
  private parser: MessageParser<'request'>;
  private pending: PendingRequest | undefined;
  /** A handler is running: further requests wait in the parser, answered in order. */
  private busy = false;
  private timer: TimerHandle | undefined;
  /** When the first byte of the current unfinished head arrived (slow-loris guard). */
  private headStartedAt: number | undefined;

  constructor(
    readonly port: Connection,
    private readonly context: ConnectionContext,
  ) {
    this.parser = this.newParser();
    port.onData = (bytes) => this.receive(bytes);
    port.onClose = (error) => this.closed(error);
    port.onDrain = () => {};
    this.armTimer();
  }

  private newParser(): MessageParser<'request'> {
    const { limits } = this.context;
    return new MessageParser('request', {
      maxHeadBytes: limits.maxHeadBytes,
      maxHeaderCount: limits.maxHeaderCount,
      maxBodyBytes: limits.maxBodyBytes,
    });
  }

  get peer(): string {
    return `${this.port.remoteAddress}:${this.port.remotePort}`;
  }

  /** Closes the connection (after queued bytes are sent). */
  close(reason?: string): void {
    if (this.mode === 'closed') return;
    if (reason) this.context.log('debug', `${this.peer} closing: ${reason}`);
    this.port.close();
    this.closed();
  }

  private receive(bytes: Uint8Array): void {
    if (this.mode === 'closed' || this.mode === 'reverse') return;
    if (this.channel) {
      let plaintexts: Uint8Array[];
      try {
        plaintexts = this.channel.open(bytes);
      } catch (error) {
        // spec 5.4: a frame that fails authentication ends this connection only.
        this.context.log('warn', `${this.peer} encrypted frame rejected: ${describe(error)}`);
        this.close('frame failed authentication');
        return;
      }
      for (const plaintext of plaintexts) this.feed(plaintext);
    } else {
      this.feed(bytes);
    }
    this.pump();
  }

  private feed(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.headStartedAt === undefined && !this.pending) this.headStartedAt = this.context.clock.now();
    this.parser.receive(bytes);
  }

  private closed(error?: string): void {
    if (this.mode === 'closed') return;
    this.mode = 'closed';
    this.session.closed = true;
    if (error) this.context.log('debug', `${this.peer} connection ended: ${error}`);
    this.clearTimer();
    this.context.onClosed(this);
  }

  /** Pulls parser events until it needs more bytes or a handler is running. */
  private pump(): void {
    while ((this.mode === 'request' || this.mode === 'encrypted') && !this.busy) {
      const event = this.parser.next();
      if (!event) break;
      switch (event.type) {
        case 'head':
          this.headStartedAt = undefined;
          this.begin(event.head);
          break;
        case 'body':
          // A refused request's body is read past, not kept.
          if (this.pending && !this.pending.refusal) this.collect(this.pending, event.data);
          break;
        case 'end':
          this.finish();
          break;
        case 'error':
          this.refuse(event);
          break;
      }
    }
    this.armTimer();
  }

  private begin(head: RequestHead): void {
    const { router, limits } = this.context;
    const order = this.context.nextRequestOrder();
    this.sessionId ??= sessionIdOf(head);
    const { path } = splitTarget(head.target);
    const match = router.match(head.protocol, head.method, path);
    if (match.kind === 'route') {
      if (this.context.pairingRequired && !match.route.open && !this.session.encrypted) {
        // spec 5.2: until the sender has paired with the PIN or password, only the pairing
        // endpoints and the information ones are served. RTSP has a status for exactly this.
        const status = head.protocol === 'RTSP' ? STATUS.connectionAuthorizationRequired : STATUS.forbidden;
        this.context.log('info', `${this.peer} ${head.protocol} ${head.method} ${head.target}: ${status} (connection not paired; a password or PIN is required)`);
        this.pending = { head, route: undefined, refusal: { status }, chunks: [], size: 0, order };
        return;
      }
      this.parser.setBodyLimit(match.route.maxBodyBytes ?? limits.maxBodyBytes);
      this.pending = { head, route: match.route, refusal: undefined, chunks: [], size: 0, order };
      return;
    }
    const headers = new Headers();
    if (match.status === 405) headers.set(HEADER.allow, match.allow.join(', '));
    this.context.log('info', `${this.peer} ${head.protocol} ${head.method} ${head.target}: ${match.status} (${REFUSALS[match.status]})`);
    this.pending = { head, route: undefined, refusal: { status: match.status, headers }, chunks: [], size: 0, order };
  }

  /**
   * Keeps a piece of a body. With a Content-Length (the parser has checked it against the
   * route's limit before the first piece), the pieces are copied into one array of that length
   * as they arrive: the last byte is not followed by a copy of the whole body (a 4 MB photo),
   * and the body is never held twice. Otherwise (chunked) they are joined at the end.
   */
  private collect(pending: PendingRequest, data: Uint8Array): void {
    const length = pending.head.contentLength;
    if (length !== undefined && pending.route) {
      pending.body ??= new Uint8Array(length);
      pending.body.set(data, pending.size);
    } else {
      pending.chunks.push(data);
    }
    pending.size += data.length;
  }

  private finish(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    const { head } = pending;
    if (pending.refusal || !pending.route) {
      this.respond(head, pending.refusal ?? { status: 500 });
      return;
    }
    const { path, query } = splitTarget(head.target);
    const request: Request = {
      head,
      protocol: head.protocol,
      method: head.method,
      path,
      query,
      body: pending.body ?? joinBytes(pending.chunks),
      sessionId: this.sessionId,
      remoteAddress: this.port.remoteAddress,
      remotePort: this.port.remotePort,
      localAddress: this.port.localAddress,
      localPort: this.port.localPort,
      session: this.session,
      order: pending.order,
    };
    const handler = pending.route.handler;
    this.busy = true;
    const releaseEvents = this.context.holdEvents?.(this.sessionId);
    // Handlers may answer at once or later; either way requests are answered in order.
    new Promise<Response>((resolve) => resolve(handler(request)))
      .catch((error: unknown): Response => {
        this.context.log('error', `${this.peer} ${head.method} ${head.target}: handler failed: ${describe(error)}`);
        return { status: 500 };
      })
      .then((response) => {
        this.busy = false;
        this.context.log('debug', `${this.peer} ${head.protocol} ${head.method} ${head.target} -> ${response.status}`);
        this.respond(head, response);
        releaseEvents?.();
        this.pump();
      });
  }

  /** Answers a message the parser rejected; a fatal error closes the connection after the answer. */
  private refuse(event: ErrorEvent): void {
    this.pending = undefined;
    this.headStartedAt = undefined;
    const protocol: Protocol = event.protocol ?? 'HTTP';
    this.context.log('warn', `${this.peer} bad ${protocol} request: ${event.status} ${event.reason}`);
    const headers = new Headers();
    if (protocol === 'RTSP' && event.cseq !== undefined) headers.set(HEADER.cseq, event.cseq);
    this.write(protocol, protocol === 'RTSP' ? '1.0' : '1.1', event.status, headers, undefined, event.fatal);
    if (event.fatal) this.close(`unrecoverable request: ${event.reason}`);
  }

  private respond(head: RequestHead, response: Response): void {
    if (this.mode === 'closed') return;
    const headers = new Headers(response.headers);
    // RFC 2326 12.17: the response carries the request's CSeq. A request without one (some
    // senders) still gets its answer, without CSeq, rather than silence.
    const cseq = head.headers.get(HEADER.cseq);
    if (head.protocol === 'RTSP' && cseq !== undefined && !headers.has(HEADER.cseq)) headers.set(HEADER.cseq, cseq);
    const close = response.close === true || !head.keepAlive;
    if (head.protocol === 'HTTP') {
      if (close && head.version === '1.1') headers.set(HEADER.connection, 'close');
      else if (!close && head.version === '1.0') headers.set(HEADER.connection, 'keep-alive');
    }
    // HEAD asks for the head a GET would get, without the body (RFC 9110 9.3.2).
    const body = head.method === 'HEAD' ? undefined : response.body;
    if (head.method === 'HEAD' && response.body) headers.set(HEADER.contentLength, response.body.length);
    this.write(head.protocol, head.protocol === 'RTSP' ? '1.0' : head.version, response.status, headers, body, close);
    if (close) {
      this.close('request asked to close');
      return;
    }
    if (response.secure) this.encrypt(response.secure);
    if (response.status === 101 && response.reverse) this.turnAround(head, response.reverse);
  }

  /** Hands the socket to a ReverseConnection (spec 1.6); this object only waits for the close. */
  private turnAround(head: RequestHead, accept: (connection: ReverseConnection) => void): void {
    const pending = this.parser.takeRemaining();
    this.mode = 'reverse';
    this.clearTimer();
    const { clock, log, dialect, reverseLimits } = this.context;
    const purpose = readMakerHeader(head.headers, 'Purpose');
    const reverse = new ReverseConnection(this.port, pending, {
      clock,
      log,
      dialect,
      sessionId: this.sessionId,
      purpose,
      host: hostPort(this.port.remoteAddress, this.port.remotePort),
      requestTimeoutMs: reverseLimits.requestTimeoutMs,
      maxBodyBytes: reverseLimits.maxBodyBytes,
      channel: this.channel,
    });
    reverse.onClose(() => this.closed());
    log('debug', `${this.peer} turned into a reverse connection (purpose ${purpose ?? 'none'})`);
    accept(reverse);
  }

  /**
   * Switches to encrypted mode. Bytes the sender pipelined after the request that established
   * the keys are already ciphertext: they leave the parser and go through the channel.
   */
  private encrypt(channel: SecureChannel): void {
    const pipelined = this.parser.takeRemaining();
    this.parser = this.newParser();
    this.channel = channel;
    this.mode = 'encrypted';
    this.session.encrypted = true;
    this.context.log('debug', `${this.peer} connection encrypted`);
    if (pipelined.length > 0) this.receive(pipelined);
  }

  private write(protocol: Protocol, version: '1.0' | '1.1', status: number, headers: Headers, body: Uint8Array | undefined, closing: boolean): void {
    const { clock, serverHeader } = this.context;
    // Date, Server and Content-Length on every response, spelled canonically (some senders
    // match header names byte for byte). The writer adds Content-Length. The PTTH 101 has only
    // Upgrade and Connection (spec 1.6), as senders expect it.
    if (status !== 101) {
      headers.set(HEADER.date, httpDate(clock.wallTime()));
      headers.set(HEADER.server, serverHeader);
    }
    if (closing && protocol === 'HTTP' && version === '1.1') headers.set(HEADER.connection, 'close');
    const bytes = writeResponse({ protocol, version, status, headers, body });
    this.port.write(this.channel ? this.channel.seal(bytes) : bytes);
  }

  /**
   * One timer at a time: while a head is incomplete, the header deadline counted from its first
   * byte; while idle between requests or inside a body, the idle deadline; none while a
   * handler runs.
   */
  private armTimer(): void {
    this.clearTimer();
    if (this.mode === 'closed' || this.mode === 'reverse' || this.busy) return;
    const { clock, limits } = this.context;
    let ms = limits.idleTimeoutMs;
    let why = `idle for ${limits.idleTimeoutMs} ms`;
    if (this.headStartedAt !== undefined && this.parser.buffered > 0 && !this.pending) {
      ms = Math.max(0, this.headStartedAt + limits.headerTimeoutMs - clock.now());
      why = `request head not complete within ${limits.headerTimeoutMs} ms`;
    }
    this.timer = clock.setTimer(ms, () => {
      this.timer = undefined;
      if (why.startsWith('request head')) {
        this.context.log('warn', `${this.peer} ${why}: answering 408 and closing`);
        this.write('HTTP', '1.1', 408, new Headers(), undefined, true);
      }
      this.close(why);
    });
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.context.clock.clearTimer(this.timer);
    this.timer = undefined;
  }
}

const REFUSALS: Record<number, string> = {
  404: 'no such path',
  405: 'path does not take this method',
  501: 'method not implemented',
};


/** `address:port`, an IPv6 address in brackets (RFC 3986 3.2.2). */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
