// One connection of the receiver, sans-I/O (DESIGN 6, in the quinn-proto shape): bytes and time
// in, bytes, deadlines and events out. It never touches a socket or a timer; a ConnectionDriver
// (src/receiver/connection/connection-driver.ts) does, and tests feed bytes and compare bytes.
//
//   receive(bytes, now) -> MessageAssembler (secure channel, parser, body) -> router -> handler
//   handler -> Response now, or LATER and request.respond(response) -> queued response bytes
//   pollTransmit() -> bytes;  pollTimeout() / handleTimeout(now);  pollEvent() -> close
//
// A connection changes mode at most a few times, each a clear state (`Mode` below):
//   request    HTTP/1.1 or RTSP/1.0 request/response, keep-alive and pipelining; `encrypted`
//              once every byte is framed by a SecureChannel (spec 5.4: after pair-verify or
//              transient pair-setup)
//   reverse    after POST /reverse and 101 (spec 1.6): a ReverseConnection takes the bytes
//   stream     after POST /stream on the mirroring port (spec 4.4): a StreamTakeover (the
//              mirroring session) takes the bytes, those not yet parsed first
//              (MessageAssembler.takeRemaining), and its deadlines; nothing is written.
//   closed     nothing more is read or written
//
// The modes are a discriminated union that carries each mode's object (quinn-proto's `State`
// enum), and every sans-I/O method says what it does in each mode in one switch. The other way,
// handing the driver the new sans-I/O object on a mode change, reads worse here: this object is
// what the Receiver counts, makes room with and closes at stop, and what the sans-I/O tests
// drive byte for byte, before and after a turn-around; its last bytes (the 101) must leave before
// the reverse connection's first request; and a stream sends nothing and ends through this
// object's close. All of them would have to learn of the swap; with the union nobody outside does.

import { ConnectionState } from '../../connection-state';
import type { ConnectionEvent, SansIoConnection } from './connection-driver';
import { readMakerHeader, type Dialect } from '../../dialect';
import {
  ChannelError,
  HEADER,
  Headers,
  MessageAssembler,
  STATUS,
  applyKeepAlive,
  httpDate,
  writeResponse,
  type ByteAllocator,
  type ErrorEvent,
  type Protocol,
  type RequestHead,
} from '../../http';
import { utf8Encode } from '../../bytes';
import { logsAt, type Logger } from '../../platform';
import type { ReceiverLimits } from '../limits';
import { LATER, sessionIdOf, splitTarget, type Admitted, type BodyStream, type Request, type SplitTarget, type Response, type Route, type Router, type StreamTakeover } from './router';
import { keepAnswer, keptAnswer } from './kept-answers';
import { ReverseConnection } from './reverse';
import type { Occupation } from './admission';

type ConnectionMode = 'request' | 'encrypted' | 'reverse' | 'stream' | 'closed';

/** The mode a connection is in, with what that mode carries (see the header). */
type Mode =
  | { readonly kind: 'request' }
  /**
   * Kept to the end: the reverse connection closes itself (its close ends this connection's
   * bookkeeping), and its last bytes and its close event are polled from it.
   */
  | { readonly kind: 'reverse'; readonly reverse: ReverseConnection }
  | { readonly kind: 'stream'; readonly stream: StreamTakeover }
  | { readonly kind: 'closed' };

/** The addresses of a connection, as its host reports them. */
export interface ConnectionAddresses {
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
}

/** What a connection needs from the receiver that owns it. */
export interface ConnectionContext {
  readonly log: Logger;
  readonly router: Router;
  readonly limits: ReceiverLimits;
  /** The dialect of what the receiver writes. */
  readonly dialect: Dialect;
  /** Value of the `Server` header, e.g. `VendorTunes/220.68`. */
  readonly serverHeader: string;
  /** Milliseconds since the Unix epoch, for Date headers. */
  wallTime(): number;
  /** Monotonic milliseconds, for deadlines set by an answer given later (outside receive). */
  now(): number;
  /**
   * Access control (spec 5.2): a password or PIN is required, so only routes marked `open`
   * are served until the connection is paired and encrypted.
   */
  readonly pairingRequired: boolean;
  /**
   * The receiver's look at each request head before it is routed (access lists, who a session's
   * sender is): a refusal to answer instead, or undefined to go on. `open`: its route needs no
   * identity (Route.open). Absent: every head goes on.
   */
  readonly screenRequest?: (connection: ReceiverConnection, head: RequestHead, open: boolean) => Response | undefined;
  /** Called once when the connection has closed, for the receiver's bookkeeping. */
  onClosed(connection: ReceiverConnection): void;
  /** The next arrival order for a request head, counted over all connections (Request.order). */
  nextRequestOrder(): number;
  /**
   * A request of the sender's session is being handled: events it causes wait until its answer
   * has left (EventSender.hold). Returns the release, called once the answer is handed out.
   */
  holdEvents(sessionId: string | undefined): () => void;
  /** Whether `connection`'s address has another connection open that is not a reverse one. */
  senderPresent(connection: ReceiverConnection): boolean;
  /**
   * Logs a connection closed by a deadline or a limit: the first of each `cause` at once, then
   * one line per interval with the count (a flood of them must not flood the log).
   */
  logClosed(cause: string, message: string): void;
  /** Where request bodies are joined (ReceiverPorts.allocateBytes); zero-filled arrays when absent. */
  readonly allocateBytes?: ByteAllocator;
}

/**
 * A named deadline of the connection; at most one of each is armed. `turn` is due at once: the
 * connection gave up its turn after maxRequestsPerTurn requests and continues when called back.
 * `write`: answers have waited to leave for limits.writeTimeoutMs (a peer that reads nothing).
 */
type TimerName = 'head' | 'body' | 'idle' | 'turn' | 'write';

/** Bytes to send and what their leaving releases (held events). */
interface Outgoing {
  readonly bytes: Uint8Array;
  readonly sent?: () => void;
}

/** The request being answered: handed to a handler that answers later. */
interface Answering {
  readonly id: number;
  readonly head: RequestHead;
  readonly releaseEvents: () => void;
}

/** How much a peer may send past maxHeldBytes after being paused (bytes already in flight). */
const IN_FLIGHT_ALLOWANCE = 64 * 1024;

export class ReceiverConnection implements SansIoConnection {
  private modeState: Mode = { kind: 'request' };
  /** The sender's session (`X-Vendor-Session-ID`), from the first request that carries it. */
  sessionId: string | undefined;
  /** State kept for the life of the connection, handed to every handler. */
  readonly state = new ConnectionState();
  onWake: () => void = () => {};
  private assembler: MessageAssembler<'request'>;
  /** The route of the request whose body is being read (undefined: refused, being skipped). */
  private route: Route | undefined;
  /** That request's target, split once when its head is routed. */
  private target: SplitTarget | undefined;
  private order = 0;
  /** What the current request's route admitted on its head (Route.admit), until it is over. */
  private admitted: Admitted | undefined;
  /** Where the current request's body goes as it arrives (Admitted.body), until its last piece. */
  private bodyStream: BodyStream | undefined;
  /** Since when the body stream has been full: the sender is held back by us, not slow. */
  private bodyHeldSince: number | undefined;
  /** A handler answers later: later requests wait in the assembler, answered in order. */
  private answering: Answering | undefined;
  private nextRequestId = 1;
  private readonly outgoing: Outgoing[] = [];
  /** Bytes in `outgoing`: answers the peer has not taken yet (the driver stops taking while the host's buffer is full). */
  private unsentBytes = 0;
  /** The host's write queue is full (hostWriteBlocked): the peer is taking nothing. */
  private hostBlocked = false;
  /** What the bytes last handed out release, once the driver has written them. */
  private justSent: (() => void) | undefined;
  private readonly events: ConnectionEvent[] = [];
  private readonly timers: Record<TimerName, number | undefined> = { head: undefined, body: undefined, idle: undefined, turn: undefined, write: undefined };
  /** When the body of the current request started (its head was read), and its bytes so far. */
  private bodyStartedAt: number | undefined;
  /** The body on the clock is an over-limit one the parser drops after its 413 (no head is current then). */
  private droppingBody = false;
  private bodyBytes = 0;
  /** Requests answered since this connection's turn began (fairness, maxRequestsPerTurn). */
  private requestsThisTurn = 0;
  /** When the connection last did anything (bytes in, an answer out), in request mode. */
  private activityAt: number;
  /** When the first byte of the current unfinished head arrived (slow-loris guard). */
  private headStartedAt: number | undefined;
  /** The latest time the connection was given (receive, handleTimeout), for deadlines set later. */
  private now: number;
  /** Whether the log keeps debug lines: the line of every answer is built only then. */
  private readonly logsDebug: boolean;
  /** `address:port` of the sender, for log lines. */
  readonly peer: string;

  constructor(
    readonly addresses: ConnectionAddresses,
    private readonly context: ConnectionContext,
    now: number,
  ) {
    this.now = now;
    this.activityAt = now;
    this.logsDebug = logsAt(context.log, 'debug');
    this.peer = hostPort(addresses.remoteAddress, addresses.remotePort);
    this.assembler = this.newAssembler();
    this.timers.idle = now + context.limits.idleTimeoutMs;
  }

  private newAssembler(): MessageAssembler<'request'> {
    const { limits } = this.context;
    return new MessageAssembler(
      'request',
      {
        maxHeadBytes: limits.maxHeadBytes,
        maxHeaderCount: limits.maxHeaderCount,
        maxBodyBytes: limits.maxBodyBytes,
      },
      undefined,
      this.context.allocateBytes,
    );
  }

  /** The mode, named (`encrypted` for a request connection behind a secure channel). */
  get mode(): ConnectionMode {
    const mode = this.modeState;
    switch (mode.kind) {
      case 'request':
        return this.state.encrypted ? 'encrypted' : 'request';
      case 'reverse':
        return mode.reverse.closed ? 'closed' : 'reverse';
      default:
        return mode.kind;
    }
  }

  get wantsRead(): boolean {
    const mode = this.modeState;
    switch (mode.kind) {
      case 'request':
        // Answers the peer does not take stop the reading of more requests (backpressure), and
        // a body stream that holds as much as it may stops the reading of its body.
        return this.assembler.buffered < this.context.limits.maxHeldBytes && !this.outputFull && this.bodyStream?.full !== true;
      case 'reverse':
        return mode.reverse.wantsRead;
      case 'stream':
        return mode.stream.wantsRead;
      case 'closed':
        return false;
    }
  }

  /** Bytes held unread: unparsed input and partial frames (flow control keeps this bounded). */
  get heldBytes(): number {
    const mode = this.modeState;
    switch (mode.kind) {
      case 'reverse':
        return mode.reverse.heldBytes;
      case 'stream':
        return mode.stream.heldBytes;
      default:
        return this.assembler.buffered;
    }
  }

  receive(bytes: Uint8Array, now: number): void {
    const mode = this.modeState;
    if (mode.kind === 'reverse') {
      mode.reverse.receive(bytes, now);
      return;
    }
    if (mode.kind === 'closed' || bytes.length === 0) return;
    this.now = now;
    this.activityAt = now;
    if (mode.kind === 'stream') {
      mode.stream.receive(bytes, now);
      return;
    }
    this.receiveRequests(bytes, now);
  }

  /** Request mode: the bytes go to the assembler, and the requests they complete are answered. */
  private receiveRequests(bytes: Uint8Array, now: number): void {
    this.requestsThisTurn = 0;
    if (this.bodyStartedAt !== undefined) this.bodyBytes += bytes.length;
    if (this.headStartedAt === undefined && !this.assembler.current) this.headStartedAt = now;
    try {
      this.assembler.receive(bytes);
    } catch (error) {
      this.rejectFrame(error);
      return;
    }
    const { maxHeldBytes } = this.context.limits;
    if (this.assembler.buffered > maxHeldBytes + IN_FLIGHT_ALLOWANCE) {
      this.context.log('warn', `${this.peer} sent ${this.assembler.buffered} bytes while its requests waited (limits.maxHeldBytes ${maxHeldBytes}): closing`);
      this.close('peer ignored flow control');
      return;
    }
    this.pump();
  }

  transportClosed(error: string | undefined, now: number): void {
    const mode = this.modeState;
    if (mode.kind === 'reverse') {
      mode.reverse.transportClosed(error, now);
      return;
    }
    if (error) this.context.log('debug', `${this.peer} connection ended: ${error}`);
    if (mode.kind === 'stream') mode.stream.transportClosed(now);
    this.releaseSent();
    this.finish('peer closed the connection', false);
  }

  pollTransmit(): Uint8Array | undefined {
    // The bytes handed out by the previous call have been written by now.
    this.releaseSent();
    // A reverse connection's bytes follow those queued here (the 101 that turned it around).
    const mode = this.modeState;
    if (mode.kind === 'reverse' && this.outgoing.length === 0) return mode.reverse.pollTransmit();
    const next = this.outgoing.shift();
    if (!next) return undefined;
    const wasFull = this.outputFull;
    this.unsentBytes -= next.bytes.length;
    if (this.modeState.kind === 'request') {
      // Bytes left: the peer takes them, so the write deadline starts again from now.
      this.timers.write = this.outgoing.length > 0 || this.hostBlocked ? this.context.now() + this.context.limits.writeTimeoutMs : undefined;
      // Requests waited for these answers to leave: they are read again at the next turn.
      if (wasFull && !this.outputFull) this.timers.turn = this.now;
    }
    this.justSent = next.sent;
    return next.bytes;
  }

  /**
   * The host's write queue is full or drained (ConnectionDriver). While it is full the peer takes
   * nothing: the write deadline runs even when every answer has left this connection's own queue
   * (a peer that reads nothing fills the host's buffers first: the kernel's on Node).
   */
  hostWriteBlocked(blocked: boolean, now: number): void {
    this.hostBlocked = blocked;
    if (this.modeState.kind !== 'request') return;
    if (blocked) this.timers.write ??= now + this.context.limits.writeTimeoutMs;
    else if (this.outgoing.length === 0) this.timers.write = undefined;
  }

  /** Queues bytes to send; the write deadline runs from the moment something waits to leave. */
  private send(outgoing: Outgoing): void {
    if (this.outgoing.length === 0 && this.modeState.kind === 'request') this.timers.write ??= this.context.now() + this.context.limits.writeTimeoutMs;
    this.outgoing.push(outgoing);
    this.unsentBytes += outgoing.bytes.length;
  }

  /** More answers wait unsent than limits.maxUnsentAnswerBytes: no more requests are read. */
  private get outputFull(): boolean {
    return this.unsentBytes > this.context.limits.maxUnsentAnswerBytes;
  }

  /** Bytes of answers waiting to be taken by the driver (the host's buffer is full). */
  get unsent(): number {
    return this.unsentBytes;
  }

  /** When the connection last carried anything: among equals, the one quiet longest makes room first. */
  get lastActivity(): number {
    const mode = this.modeState;
    return mode.kind === 'reverse' ? mode.reverse.lastActivity : this.activityAt;
  }

  /** What the connection is doing, for admission (admission.ts OCCUPATIONS). */
  get occupation(): Occupation {
    const mode = this.modeState;
    switch (mode.kind) {
      case 'closed':
      case 'stream':
        // A mirroring stream ends itself when its data stops (limits.mirrorMissedHeartbeats).
        return 'busy';
      case 'reverse':
        return mode.reverse.silent ? 'silent-reverse' : 'busy';
      case 'request':
        if (this.answering || this.state.held) return 'busy';
        if (this.outputFull || this.hostBlocked) return 'unread-answers';
        if (this.droppingBody) return 'refused-body';
        if (this.assembler.current) return this.route ? 'body' : 'refused-body';
        if (this.assembler.buffered > 0) return 'head';
        return this.state.encrypted ? 'encrypted-idle' : 'idle';
    }
  }

  /** Runs what the last bytes handed out release (events held for their answer). */
  private releaseSent(): void {
    const sent = this.justSent;
    this.justSent = undefined;
    sent?.();
  }

  pollTimeout(): number | undefined {
    const mode = this.modeState;
    if (mode.kind === 'reverse') return mode.reverse.pollTimeout();
    if (mode.kind === 'stream') return mode.stream.pollTimeout();
    // Request mode; closed, every timer is clear. Read by name, not in a loop over TIMER_NAMES:
    // this runs after every read, and a keyed read of five names is a slow property access.
    const { head, body, idle, turn, write } = this.timers;
    return earliest(earliest(earliest(head, body), earliest(idle, turn)), write);
  }

  handleTimeout(now: number): void {
    const mode = this.modeState;
    if (mode.kind === 'reverse') {
      mode.reverse.handleTimeout(now);
      return;
    }
    this.now = now;
    if (mode.kind === 'stream') {
      mode.stream.handleTimeout(now);
      return;
    }
    // Request mode; closed, every timer is clear.
    const { limits } = this.context;
    if (this.timers.write !== undefined && now >= this.timers.write) {
      const waiting = this.hostBlocked ? `${this.unsentBytes} bytes of answers here and the host's full buffer` : `${this.unsentBytes} bytes of answers`;
      const why = `its peer took none of ${waiting} for ${limits.writeTimeoutMs} ms (limits.writeTimeoutMs)`;
      this.context.logClosed('write', `${this.peer} closed: ${why}`);
      // Nobody will read them: they are dropped, not handed to the host on the way out.
      for (const outgoing of this.outgoing.splice(0)) outgoing.sent?.();
      this.unsentBytes = 0;
      this.close(why);
      return;
    }
    if (this.timers.head !== undefined && now >= this.timers.head) {
      this.context.logClosed('head', `${this.peer} request head not complete within ${limits.headerTimeoutMs} ms (limits.headerTimeoutMs): answering 408 and closing`);
      this.write('HTTP', '1.1', STATUS.requestTimeout, new Headers(), undefined, true);
      this.close(`request head not complete within ${limits.headerTimeoutMs} ms`);
      return;
    }
    if (this.timers.body !== undefined && now >= this.timers.body) {
      const head = this.assembler.current;
      const refused = this.droppingBody || (head !== undefined && !this.route);
      const why = `${refused ? 'the body of a refused request' : 'request body'} arrived slower than ${limits.minBodyBytesPerSecond} bytes/s (limits.minBodyBytesPerSecond; ${this.bodyBytes} bytes in ${Math.round(now - (this.bodyStartedAt ?? now))} ms)`;
      // A refused request has had its answer: its connection only closes.
      if (head && !refused) this.answer(head, { status: STATUS.requestTimeout, reason: why, close: true }, undefined);
      else {
        this.context.logClosed('refused body', `${this.peer} closed: ${why}`);
        this.close(why);
      }
      return;
    }
    if (this.timers.idle !== undefined && now >= this.timers.idle) {
      // A connection something lives on is kept open on purpose (a sender that plays a video
      // and asks nothing more until it ends): it is not idle, it waits.
      if (!this.state.held) {
        this.close(`idle for ${limits.idleTimeoutMs} ms`);
        return;
      }
      this.timers.idle = now + limits.idleTimeoutMs;
    }
    if (this.timers.turn !== undefined && now >= this.timers.turn) {
      // The others have had their turn: go on with the requests waiting here.
      this.timers.turn = undefined;
      this.requestsThisTurn = 0;
      this.pump();
    }
  }

  pollEvent(): ConnectionEvent | undefined {
    this.releaseSent();
    const mode = this.modeState;
    if (mode.kind === 'reverse' && this.events.length === 0) return mode.reverse.pollEvent();
    return this.events.shift();
  }

  /** Closes the connection after the bytes queued so far have been sent. */
  close(reason: string): void {
    const mode = this.modeState;
    if (mode.kind === 'reverse') {
      mode.reverse.close(reason);
      return;
    }
    this.finish(reason, true);
  }

  /** Answers the request `id` whose handler returned LATER (Request.respond calls this). */
  respond(id: number, response: Response): void {
    const answering = this.answering;
    if (this.modeState.kind === 'closed' || !answering || answering.id !== id) return;
    this.answering = undefined;
    this.now = this.context.now();
    this.answer(answering.head, response, answering.releaseEvents);
    // Requests that waited behind it, and the deadline that waited with them.
    this.pump();
    this.onWake();
  }

  /** Closes a request or stream connection (a reverse one closes itself: see turnAround). */
  private finish(reason: string, announce: boolean): void {
    const mode = this.modeState;
    if (mode.kind === 'closed') return;
    this.modeState = { kind: 'closed' };
    this.state.closed = true;
    for (const name of TIMER_NAMES) this.timers[name] = undefined;
    this.context.log('debug', `${this.peer} closing: ${reason}`);
    if (mode.kind === 'stream') mode.stream.end(reason);
    this.answering?.releaseEvents();
    this.answering = undefined;
    this.endAdmission();
    if (!announce) for (const outgoing of this.outgoing.splice(0)) outgoing.sent?.();
    // spec 5.4: the session keys go with the connection.
    this.assembler.dispose();
    this.context.onClosed(this);
    this.endHolds();
    if (announce) {
      this.events.push({ type: 'close', reason });
      this.onWake();
    }
  }

  /**
   * Tells what lived on the connection that it closed (ConnectionState.hold: the video of a POST
   * /play on it stops). A failure there is logged; the connection is closed whatever happens.
   */
  private endHolds(): void {
    try {
      this.state.markClosed();
    } catch (error) {
      this.context.log('error', `${this.peer} closing: ending what lived on the connection failed: ${describe(error)}`);
    }
  }

  /** Reads messages until more bytes are needed or a handler answers later; then sets the deadlines. */
  private pump(): void {
    const { maxRequestsPerTurn } = this.context.limits;
    while (this.modeState.kind === 'request' && !this.answering) {
      // Backpressure: the peer has not taken the answers so far; the rest wait in the assembler
      // (and the socket: wantsRead is false) until they leave (pollTransmit starts a turn).
      if (this.outputFull) break;
      // A full body stream takes no more: the rest waits in the assembler until onDrained.
      if (this.bodyStream?.full) break;
      if (this.requestsThisTurn >= maxRequestsPerTurn) {
        // Fairness: the rest wait for the next turn, after the driver has served the others.
        if (this.assembler.buffered > 0) this.timers.turn = this.now;
        break;
      }
      const event = this.assembler.next();
      if (!event) break;
      switch (event.type) {
        case 'head':
          this.headStartedAt = undefined;
          this.droppingBody = false;
          this.begin(event.head);
          break;
        case 'chunk':
          this.bodyStream?.write(event.data);
          break;
        case 'message':
          this.endBodyStream();
          this.bodyStartedAt = undefined;
          this.requestsThisTurn++;
          this.complete(event.head, event.body);
          break;
        case 'error':
          this.endBodyStream();
          this.bodyStartedAt = undefined;
          this.requestsThisTurn++;
          this.refuseMessage(event.error);
          // A 413 whose body is dropped keeps the connection: the body keeps the rate a read one must.
          if (this.assembler.discarding > 0 && this.modeState.kind === 'request') {
            this.droppingBody = true;
            this.startBodyClock();
          }
          break;
      }
    }
    this.armTimers();
  }

  /**
   * The deadlines: while a head is incomplete, the header deadline counted from its first byte;
   * while idle between requests or inside a body, the idle deadline from the last bytes (or
   * the last answer); none while a handler is at work.
   */
  private armTimers(): void {
    if (this.modeState.kind !== 'request') return;
    const { limits } = this.context;
    this.timers.head = undefined;
    this.timers.body = undefined;
    if (this.answering) {
      // A handler is at work: the sender is waiting for us, not the other way round.
      this.timers.idle = undefined;
      return;
    }
    if (this.droppingBody && this.assembler.discarding === 0) {
      this.droppingBody = false;
      this.bodyStartedAt = undefined;
    }
    this.timers.idle = this.now + limits.idleTimeoutMs;
    if (this.bodyStream?.full) {
      // The receiver holds the body back: no progress is owed until the stream has drained.
      this.bodyHeldSince ??= this.now;
    } else if (this.bodyStartedAt !== undefined) {
      // At time t after the head, (t - grace) x rate bytes must have come: the deadline is
      // when the bytes so far stop being enough.
      this.timers.body = this.bodyStartedAt + limits.bodyGraceMs + Math.floor((this.bodyBytes * 1000) / limits.minBodyBytesPerSecond);
    }
    if (this.headStartedAt !== undefined && this.assembler.buffered > 0 && !this.assembler.current) {
      this.timers.head = this.headStartedAt + limits.headerTimeoutMs;
    }
  }

  private begin(head: RequestHead): void {
    const { router, limits, log } = this.context;
    this.order = this.context.nextRequestOrder();
    this.state.lastRequestAt = this.now;
    this.sessionId ??= sessionIdOf(head);
    const target = splitTarget(head.target);
    const match = router.match(head.protocol, head.method, target.path);
    let refusal: Response;
    const screened = this.context.screenRequest?.(this, head, match.kind === 'route' && match.route.open === true);
    if (screened) {
      refusal = screened;
    } else if (match.kind === 'route') {
      const routeLimit = match.route.maxBodyBytes;
      const bodyLimit = (typeof routeLimit === 'function' ? routeLimit(head) : routeLimit) ?? limits.maxBodyBytes;
      if (this.context.pairingRequired && !match.route.open && !this.state.encrypted) {
        // spec 5.2: until the sender has paired with the PIN or password, only the pairing
        // endpoints and the information ones are served. RTSP has a status for exactly this.
        const status = head.protocol === 'RTSP' ? STATUS.connectionAuthorizationRequired : STATUS.forbidden;
        refusal = { status, reason: 'this connection is not paired; this receiver asks for a PIN or password first' };
      } else if (expectsContinue(head) && head.contentLength !== undefined && head.contentLength > bodyLimit) {
        // RFC 9110 10.1.1: the sender waits for leave to send a body already known to be too
        // large; it gets the 413 instead of a 100 Continue (and the close below).
        refusal = { status: STATUS.contentTooLarge, reason: `body exceeds the limit of ${bodyLimit} bytes (Content-Length ${head.contentLength})` };
      } else {
        const { remoteAddress, remotePort } = this.addresses;
        const admission = match.route.admit?.(head, { order: this.order, sessionId: this.sessionId, remoteAddress, remotePort });
        if (admission === undefined || !('status' in admission)) {
          this.admitted = admission;
          this.route = match.route;
          this.target = target;
          const stream = admission?.body;
          if (stream) {
            this.bodyStream = stream;
            stream.onDrained = () => this.bodyStreamDrained(stream);
          }
          this.assembler.readBody(stream ? 'stream' : 'whole', bodyLimit);
          if (head.framing !== 'none') this.beginBody(head);
          return;
        }
        refusal = admission;
      }
    } else {
      const headers = new Headers();
      if (match.status === STATUS.methodNotAllowed) headers.set(HEADER.allow, match.allow.join(', '));
      refusal = { status: match.status, headers, reason: ROUTING_REFUSALS[match.status] };
    }
    // Refused on its head, whatever its body: answered now; a small body is read past and the
    // connection kept, a large or unknown one closes it (reading it would only cost time).
    this.route = undefined;
    const length = head.contentLength;
    // A sender that waits for 100 Continue will not send the body: it is not there to skip.
    const skippable = head.framing === 'none' || (length !== undefined && length <= limits.maxBodyBytes && !expectsContinue(head));
    this.assembler.readBody('skip', skippable ? limits.maxBodyBytes : 0);
    this.answer(head, skippable ? refusal : { ...refusal, close: true }, undefined);
    // The body read past keeps the rate an accepted one must (limits.minBodyBytesPerSecond):
    // a trickle of it would otherwise hold the connection for as long as the idle timer allows.
    if (skippable && head.framing !== 'none' && this.modeState.kind === 'request') this.startBodyClock();
    if (!skippable) log('debug', `${this.peer} body of the refused request not read (${length ?? 'unknown'} bytes)`);
  }

  /**
   * A body follows an accepted head: its deadline starts, and a sender that waits for leave to
   * send it (`Expect: 100-continue`, RFC 9110 10.1.1) gets a 100 Continue first.
   */
  private beginBody(head: RequestHead): void {
    this.startBodyClock();
    if (expectsContinue(head)) this.send({ bytes: this.assembler.seal(CONTINUE) });
  }

  private complete(head: RequestHead, body: Uint8Array): void {
    const route = this.route;
    const target = this.target;
    this.route = undefined;
    this.target = undefined;
    if (!route || !target) return; // refused on its head, already answered
    const { path, query } = target;
    const id = this.nextRequestId++;
    const request: Request = {
      head,
      protocol: head.protocol,
      method: head.method,
      path,
      query,
      body,
      sessionId: this.sessionId,
      admitted: this.admitted,
      remoteAddress: this.addresses.remoteAddress,
      remotePort: this.addresses.remotePort,
      localAddress: this.addresses.localAddress,
      localPort: this.addresses.localPort,
      state: this.state,
      order: this.order,
      respond: (response) => this.respond(id, response),
    };
    // A costly request ends the connection's turn (see Route.costly).
    if (route.costly) this.requestsThisTurn = this.context.limits.maxRequestsPerTurn;
    const releaseEvents = this.context.holdEvents(this.sessionId);
    let answer: Response | typeof LATER;
    try {
      answer = route.handler(request);
    } catch (error) {
      this.context.log('error', `${this.peer} ${head.method} ${head.target}: handler failed: ${describe(error)}`);
      answer = { status: STATUS.internalServerError, reason: 'the receiver failed to handle this request (see its log)' };
    }
    this.endAdmission();
    if (answer === LATER) {
      this.answering = { id, head, releaseEvents };
      return;
    }
    this.answer(head, answer, releaseEvents);
  }

  /** A body starts being read (or read past): its rate deadline counts from now. */
  private startBodyClock(): void {
    this.bodyStartedAt = this.now;
    // Bytes of the body already received with the head count towards its rate.
    this.bodyBytes = this.assembler.buffered;
  }

  /**
   * The body stream has drained some: reading goes on (the driver asks wantsRead again), and the
   * time it was full is taken off the body's clock.
   */
  private bodyStreamDrained(stream: BodyStream): void {
    if (stream !== this.bodyStream || this.modeState.kind !== 'request' || stream.full) return;
    const now = this.context.now();
    if (this.bodyHeldSince !== undefined) {
      if (this.bodyStartedAt !== undefined) this.bodyStartedAt += now - this.bodyHeldSince;
      this.bodyHeldSince = undefined;
    }
    // The pieces waiting in the assembler go on at the next turn (as after answers have left).
    this.timers.turn = now;
    this.onWake();
  }

  /** The body stream has had its last piece (or never will): the connection forgets it. */
  private endBodyStream(): void {
    this.bodyStream = undefined;
    this.bodyHeldSince = undefined;
  }

  /** The current request is over (handled, or its body lost): what its route admitted is released. */
  private endAdmission(): void {
    this.endBodyStream();
    const admitted = this.admitted;
    this.admitted = undefined;
    admitted?.release();
  }

  /** Answers a message the parser rejected; a fatal error closes the connection after the answer. */
  private refuseMessage(event: ErrorEvent): void {
    this.route = undefined;
    this.endAdmission();
    this.headStartedAt = undefined;
    const protocol: Protocol = event.protocol ?? 'HTTP';
    this.context.log('warn', `${this.peer} bad ${protocol} request: ${event.status} ${event.reason}`);
    const headers = new Headers();
    if (protocol === 'RTSP' && event.cseq !== undefined) headers.set(HEADER.cseq, event.cseq);
    this.write(protocol, protocol === 'RTSP' ? '1.0' : '1.1', event.status, headers, reasonBody(event.reason, headers), event.fatal);
    if (event.fatal) this.close(`unrecoverable request: ${event.reason}`);
  }

  private answer(head: RequestHead, response: Response, releaseEvents: (() => void) | undefined): void {
    if (this.modeState.kind === 'closed') {
      releaseEvents?.();
      return;
    }
    const { log } = this.context;
    if (response.stream) {
      log('debug', `${this.peer} ${head.protocol} ${head.method} ${head.target}: the connection is now a stream (no answer is written)`);
      releaseEvents?.();
      this.turnIntoStream(response.stream);
      return;
    }
    // Kept bytes first: a cached reply skips the header copy below as well as the writer.
    const reused = this.sendReused(head, response, releaseEvents);
    if (response.reason !== undefined) {
      log(response.status >= STATUS.internalServerError ? 'warn' : 'info', `${this.peer} ${head.protocol} ${head.method} ${head.target}: ${response.status} (${response.reason})`);
    } else if (this.logsDebug) {
      log('debug', `${this.peer} ${head.protocol} ${head.method} ${head.target} -> ${response.status}${reused ? ' (kept bytes)' : ''}`);
    }
    if (reused) {
      if (response.close === true || !head.keepAlive) this.close('request asked to close');
      return;
    }
    const headers = new Headers(response.headers);
    // RFC 2326 12.17: the response carries the request's CSeq. A request without one (some
    // senders) still gets its answer, without CSeq, rather than silence.
    const cseq = head.headers.get(HEADER.cseq);
    if (head.protocol === 'RTSP' && cseq !== undefined && !headers.has(HEADER.cseq)) headers.set(HEADER.cseq, cseq);
    const close = applyKeepAlive(head, headers, response.close === true);
    let body = response.body;
    if (body === undefined && response.reason !== undefined && response.status >= STATUS.badRequest) body = reasonBody(response.reason, headers);
    // HEAD asks for the head a GET would get, without the body (RFC 9110 9.3.2).
    if (head.method === 'HEAD') {
      if (body) headers.set(HEADER.contentLength, body.length);
      body = undefined;
    }
    const bytes = this.write(head.protocol, head.protocol === 'RTSP' ? '1.0' : head.version, response.status, headers, body, close, releaseEvents, response.phrase);
    // Labelled with the Date the answer carries (write set it), not one formatted again.
    if (this.mayReuse(head, response)) keepAnswer(response, head, close, headers.get(HEADER.date) ?? '', bytes);
    if (close) {
      this.close('request asked to close');
      return;
    }
    if (response.secure) this.encrypt(response.secure, response.plaintextMayFollow === true);
    if (response.status === STATUS.switchingProtocols && response.reverse) this.turnAround(head, response.reverse);
  }

  /**
   * Sends the bytes kept for a reusable response (a cached reply, kept-answers.ts) when they
   * still fit: the same version and keep-alive, the same Date (formatted per second). Returns
   * whether it did; the caller then builds the response as usual.
   */
  private sendReused(head: RequestHead, response: Response, releaseEvents: (() => void) | undefined): boolean {
    if (!this.mayReuse(head, response)) return false;
    const close = response.close === true || !head.keepAlive;
    const bytes = keptAnswer(response, head, close, httpDate(this.context.wallTime()));
    if (!bytes) return false;
    this.send({ bytes, sent: releaseEvents });
    return true;
  }

  /** A reusable response is answered from kept bytes, except to HEAD and on an encrypted connection. */
  private mayReuse(head: RequestHead, response: Response): boolean {
    return response.reusable === true && head.method !== 'HEAD' && !this.assembler.encrypted;
  }

  /** Hands the bytes to a ReverseConnection (spec 1.6); this object only forwards to it. */
  private turnAround(head: RequestHead, accept: (connection: ReverseConnection) => void): void {
    const pipelined = this.assembler.takeRemaining();
    for (const name of TIMER_NAMES) this.timers[name] = undefined;
    const { log, dialect, limits } = this.context;
    const purpose = readMakerHeader(head.headers, 'Purpose');
    const reverse = new ReverseConnection(
      this.addresses,
      {
        log,
        now: () => this.context.now(),
        dialect,
        sessionId: this.sessionId,
        purpose,
        requestTimeoutMs: limits.reverseRequestTimeoutMs,
        minBytesPerSecond: limits.minReverseBytesPerSecond,
        maxBodyBytes: limits.maxReverseBodyBytes,
        maxQueuedRequests: limits.maxQueuedReverseRequests,
        idleTimeoutMs: limits.reverseIdleTimeoutMs,
        senderPresent: () => this.context.senderPresent(this),
      },
      this.assembler.secureChannel,
    );
    this.modeState = { kind: 'reverse', reverse };
    reverse.onWake = () => this.onWake();
    // Closed from here on (`mode` says so): the connection's end, told once.
    reverse.onClose(() => {
      this.state.closed = true;
      this.context.onClosed(this);
      this.endHolds();
    });
    log('debug', `${this.peer} turned into a reverse connection (purpose ${purpose ?? 'none'})`);
    if (pipelined.length > 0) reverse.receivePlaintext(pipelined);
    accept(reverse);
  }

  /** Hands the connection to a stream (spec 4.4 POST /stream): the bytes after the request first. */
  private turnIntoStream(stream: StreamTakeover): void {
    const following = this.assembler.takeRemaining();
    this.modeState = { kind: 'stream', stream };
    for (const name of TIMER_NAMES) this.timers[name] = undefined;
    stream.onWake = () => this.onWake();
    stream.onEnd = (reason) => this.finish(reason, true);
    if (following.length > 0) stream.receive(following, this.now);
  }

  /**
   * Switches to encrypted mode (spec 5.4): everything after this response goes through the
   * channel; with `plaintextMayFollow`, unless the sender's next bytes are a plaintext request.
   */
  private encrypt(channel: NonNullable<Response['secure']>, plaintextMayFollow: boolean): void {
    this.state.encrypted = true;
    this.context.log('debug', `${this.peer} connection encrypted`);
    const inTheClear = () => {
      this.state.encrypted = false;
      this.context.log('info', `${this.peer} goes on in the clear after its transient pair-setup (as pyatv's classic audio path does): served in the clear, as this receiver asks no PIN or password`);
    };
    try {
      this.assembler.encrypt(channel, plaintextMayFollow ? inTheClear : undefined);
    } catch (error) {
      this.rejectFrame(error);
    }
  }

  /** spec 5.4: a frame that fails authentication (or a broken channel) ends this connection only. */
  private rejectFrame(error: unknown): void {
    if (!(error instanceof ChannelError)) throw error;
    this.context.log('warn', `${this.peer} encrypted frame rejected: ${error.message}`);
    this.close(`encrypted frame rejected: ${error.message}`);
  }

  private write(protocol: Protocol, version: '1.0' | '1.1', status: number, headers: Headers, body: Uint8Array | undefined, closing: boolean, sent?: () => void, phrase?: string): Uint8Array {
    const { serverHeader, wallTime } = this.context;
    // Date, Server and Content-Length on every response, spelled canonically (some senders
    // match header names byte for byte). The writer adds Content-Length. The PTTH 101 has only
    // Upgrade and Connection (spec 1.6), as senders expect it.
    if (status !== STATUS.switchingProtocols) {
      headers.set(HEADER.date, httpDate(wallTime()));
      headers.set(HEADER.server, serverHeader);
    }
    if (closing && protocol === 'HTTP' && version === '1.1') headers.set(HEADER.connection, 'close');
    const bytes = writeResponse({ protocol, version, status, headers, body, reason: phrase });
    this.send({ bytes: this.assembler.seal(bytes), sent });
    return bytes;
  }
}

const TIMER_NAMES: readonly TimerName[] = ['head', 'body', 'idle', 'turn', 'write'];

/** The earlier of two deadlines, either of which may be unset. */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || (b !== undefined && b < a) ? b : a;
}

/** RFC 9110 15.2.1: the interim answer to `Expect: 100-continue`. */
const CONTINUE = utf8Encode('HTTP/1.1 100 Continue\r\n\r\n');

/** Whether an HTTP/1.1 request waits for 100 Continue before sending its body. */
function expectsContinue(head: RequestHead): boolean {
  const expect = head.headers.get(HEADER.expect);
  return expect !== undefined && head.protocol === 'HTTP' && head.version === '1.1' && head.framing !== 'none' && /(^|,)\s*100-continue\s*($|,)/i.test(expect);
}

/** Why the router refused, in words (logged and sent as the body). */
const ROUTING_REFUSALS: Record<number, string> = {
  [STATUS.notFound]: 'no such path on this receiver',
  [STATUS.methodNotAllowed]: 'this path does not take this method (see Allow)',
  [STATUS.notImplemented]: 'this receiver does not implement this method',
};

/** A refusal's reason as a one-line text body, its Content-Type set on `headers`. */
function reasonBody(reason: string, headers: Headers): Uint8Array {
  headers.set(HEADER.contentType, 'text/plain; charset=utf-8');
  return utf8Encode(`${reason.replace(/[\r\n]+/g, ' ')}\n`);
}

/** `address:port`, an IPv6 address in brackets (RFC 3986 3.2.2). */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
