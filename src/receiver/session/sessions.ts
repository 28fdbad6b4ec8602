// Senders' sessions, all together: opening one (SETUP), finding the one of a connection, the event
// channels senders open to the receiver's event listener, the sessions' clocks, and their ends.
// Deadlines go in the receiver's timer table: one for the quietest session's timeout, one for the
// next timing request of any session.
//
// Decisions the spec leaves open (it shows no session at all), and what this receiver does:
// - One session per connection; a second SETUP opening one on the same connection is 455 (Method
//   Not Valid in This State): TEARDOWN first. A second sender's session opens beside the first
//   (sessions hold no screen: what a session plays takes the screen as any newer media request
//   does, spec 4.1's "the last asked for"); at limits.maxSessions the session heard from least
//   recently ends to make room, as the connection idle longest makes room for a new connection.
// - The event listener is shared: a connection to it belongs to the newest session of the same
//   sender address that has none yet. A connection from an address with no session waiting for
//   one is closed at once, with a log line.
// - timingProtocol NTP: the receiver asks the sender's timingPort (RAOP timing) from one timing
//   socket all sessions share (config.timingPort, in the answer as timingPort), which hands each
//   session the datagrams of its sender's address (the session whose sender's timingPort they
//   come from, else the newest of that address). PTP is refused (501) with the reason: this
//   receiver keeps no PTP clock. None: no clock is kept (senders that ask nothing of time).

import type { ConnectionState } from '../../connection-state';
import { describeError } from '../../errors';
import { ENCRYPTION_KEY, createEventChannel, type CryptoKernels } from '../../pairing';
import type { Logger, TimeSource, UdpSocket } from '../../platform';
import type { ReceiverLimits } from '../limits';
import type { Deadlines } from '../timers';
import { EventChannel } from './event-channel';
import { SenderSession } from './session';
import { SessionRequestError, type SenderFacts } from './session-setup';
import { SessionTiming } from './session-timing';
import type { Announce } from '../host-events';
import { RequestError } from '../../errors';
import { STATUS } from '../../http';

interface SessionsContext {
  readonly clock: TimeSource;
  readonly timers: Deadlines;
  readonly log: Logger;
  /** The sessions' timing socket (bound by the host at start); without it, NTP timing is refused. */
  readonly timingSocket: UdpSocket | undefined;
  /** The event channels' HKDF and frames run on these (ReceiverPorts.crypto). */
  readonly crypto: CryptoKernels;
  readonly limits: Pick<ReceiverLimits, 'maxSessions' | 'sessionTimeoutMs' | 'maxEventChannelInputBytes'>;
  /** The port of the event listener senders connect to (in SETUP's answer). */
  readonly eventPort: number;
  /** Why the access lists refuse the device a SETUP names (403), or undefined; absent: none refused. */
  readonly refusesDevice?: (deviceId: string, origin: SessionOrigin) => string | undefined;
  /** Tells the host a session began or ended (ReceiverPorts.onEvent). */
  readonly announce?: Announce;
}

/** Where a SETUP came from. */
export interface SessionOrigin {
  readonly peer: string;
  readonly address: string;
  readonly connection: ConnectionState;
}

/** What a session's SETUP answer says. */
export interface SessionPorts {
  readonly eventPort: number;
  readonly timingPort: number | undefined;
}

/** How a session's end reads in the words that finish "the connection that carried ... ". */
const ENDED_ITS_SESSION = (reason: string) => `ended its session (${reason})`;

export class Sessions {
  private readonly sessions: SenderSession[] = [];
  private opened = 0;

  constructor(private readonly context: SessionsContext) {
    if (context.timingSocket) context.timingSocket.onPacket = (bytes, address, port) => this.timingDatagram(bytes, address, port);
  }

  get count(): number {
    return this.sessions.length;
  }

  /** The open sessions, oldest first. */
  list(): readonly SenderSession[] {
    return [...this.sessions];
  }

  /** The session on a connection, if it has one. */
  of(connection: ConnectionState): SenderSession | undefined {
    return this.sessions.find((session) => session.connection === connection);
  }

  /** Opens a session for a SETUP's sender facts; throws a SessionRequestError when it cannot. */
  open(origin: SessionOrigin, sender: SenderFacts): { readonly session: SenderSession; readonly ports: SessionPorts } {
    const { log, clock, limits } = this.context;
    const existing = this.of(origin.connection);
    if (existing) throw new SessionRequestError(`SETUP: this connection has ${existing.label} open already (TEARDOWN it first)`, 455);
    if (sender.timingProtocol === 'PTP') {
      throw new SessionRequestError('SETUP: timingProtocol PTP is not served: this receiver keeps time with senders by NTP (RAOP timing); open the session with timingProtocol NTP', 501);
    }
    const refusal = this.context.refusesDevice?.(sender.deviceId, origin);
    if (refusal) throw new RequestError(STATUS.forbidden, `SETUP: ${refusal}`);
    const now = clock.now();
    while (this.sessions.length >= limits.maxSessions) {
      const quietest = this.sessions.reduce((a, b) => (b.lastHeard < a.lastHeard ? b : a));
      this.end(quietest, `makes room for ${origin.peer}'s session (limits.maxSessions ${limits.maxSessions})`);
    }
    const session = new SenderSession(++this.opened, origin.peer, origin.address, sender, origin.connection, now);
    if (sender.timingProtocol === 'NTP') session.timing = this.startTiming(session, sender.timingPort!, now);
    this.sessions.push(session);
    // The session lives as long as its connection (and keeps it from being closed as idle:
    // its own timeout watches the sender instead).
    session.releaseConnection = origin.connection.hold(() => this.end(session, 'its connection closed'));
    const timingPort = session.timing ? this.context.timingSocket?.localPort : undefined;
    log('info', `${origin.peer} ${session.label} opened: device ${sender.deviceId}, session ${sender.sessionUuid}, timing ${sender.timingProtocol}${session.timing ? ` (asking ${origin.address}:${sender.timingPort} from UDP port ${timingPort})` : ''}${sender.isRemoteControlOnly ? ', remote control only' : ''}; events on port ${this.context.eventPort}`);
    this.arm();
    this.context.announce?.('session-started', { address: origin.address, deviceId: sender.deviceId }, { session: sender.sessionUuid, ...(sender.name !== undefined && { 'sender-name': sender.name }), ...(sender.model !== undefined && { model: sender.model }) });
    return { session, ports: { eventPort: this.context.eventPort, timingPort } };
  }

  /**
   * A connection to the event listener: the event channel of the newest session of its address
   * that has none, or undefined (the caller closes it) when no session is waiting for one.
   */
  acceptEventChannel(peer: string, address: string): EventChannel | undefined {
    const { log, crypto, limits } = this.context;
    const waiting = this.sessions.filter((session) => session.senderAddress === address && !session.eventChannel);
    const session = waiting[waiting.length - 1];
    if (!session) {
      const other = this.sessions.some((candidate) => candidate.senderAddress === address);
      log('warn', `${peer} event channel refused: ${other ? 'every session from that address has its event channel already' : 'no session from that address is waiting for one (SETUP first)'}`);
      return undefined;
    }
    const key = session.connection.get(ENCRYPTION_KEY);
    let secure;
    try {
      secure = key ? createEventChannel(key, crypto) : undefined;
    } catch (error) {
      log('warn', `${peer} event channel refused: its keys could not be derived (${describeError(error)})`);
      return undefined;
    }
    const channel = new EventChannel(peer, secure, {
      log,
      maxInputBytes: limits.maxEventChannelInputBytes,
      onClosed: (closed) => {
        if (session.eventChannel === closed && !session.ended) log('debug', `${session.peer} ${session.label} continues without its event channel`);
      },
    });
    session.eventChannel = channel;
    log('info', `${peer} event channel of ${session.label} open${secure ? ' (encrypted)' : ''}`);
    return channel;
  }

  /**
   * Starts asking a session's sender for its time at `senderPort` (a classic audio SETUP names its
   * timing_port in the Transport header, after the session opened); returns the timing socket's
   * port, or undefined when this host has none.
   */
  keepTime(session: SenderSession, senderPort: number): number | undefined {
    if (!this.context.timingSocket) return undefined;
    session.timing?.close();
    session.timing = this.startTiming(session, senderPort, this.context.clock.now());
    this.arm();
    return this.context.timingSocket.localPort;
  }

  /** TEARDOWN without streams: the session ends, its connection stays. */
  tearDown(session: SenderSession): void {
    this.end(session, 'TEARDOWN');
  }

  /** Ends every session (the receiver stopping). */
  endAll(reason: string): void {
    for (const session of [...this.sessions]) this.end(session, reason);
  }

  private end(session: SenderSession, reason: string): void {
    const index = this.sessions.indexOf(session);
    if (index >= 0) this.sessions.splice(index, 1);
    if (!session.end(reason, ENDED_ITS_SESSION(reason))) return;
    const timing = session.timing;
    const estimate = timing?.estimate;
    const clock = estimate ? `; clock: ${estimate.samples} samples${estimate.againstWall ? `, ${estimate.againstWall.words}` : ''}${estimate.driftPpm !== undefined ? `, drift ${estimate.driftPpm.toFixed(1)} ppm` : ''}` : '';
    this.context.log('info', `${session.peer} ${session.label} ended: ${reason}${clock}`);
    this.arm();
    this.context.announce?.('session-ended', { address: session.senderAddress, deviceId: session.sender.deviceId }, { session: session.sender.sessionUuid, reason });
  }

  private startTiming(session: SenderSession, senderPort: number, now: number): SessionTiming {
    const { timingSocket: socket, log, clock } = this.context;
    if (!socket) throw new SessionRequestError('SETUP: timingProtocol NTP is not served on this host (no UDP); open the session with timingProtocol None', 501);
    const send = (bytes: Uint8Array, port: number) => socket.send(bytes, session.senderAddress, port);
    return new SessionTiming(session.peer, session.senderAddress, senderPort, { log, now: () => clock.now(), wallTime: () => clock.wallTime(), send }, now);
  }

  /** A datagram to the timing socket: to the session of its sender (see the header), else dropped. */
  private timingDatagram(bytes: Uint8Array, address: string, port: number): void {
    const fromAddress = this.sessions.filter((session) => session.timing && session.senderAddress === address);
    const session = fromAddress.find((candidate) => candidate.timing!.senderPort === port) ?? fromAddress[fromAddress.length - 1];
    if (!session) {
      this.context.log('debug', `timing: datagram from ${address}:${port} dropped (no session of that address keeps time)`);
      return;
    }
    session.timing!.receive(bytes, port);
  }

  /** Arms the two deadlines for the earliest of all sessions. */
  private arm(): void {
    const { timers, limits } = this.context;
    let timeoutAt: number | undefined;
    let timingAt: number | undefined;
    for (const session of this.sessions) {
      const at = session.lastHeard + limits.sessionTimeoutMs;
      if (timeoutAt === undefined || at < timeoutAt) timeoutAt = at;
      const next = session.timing?.pollTimeout();
      if (next !== undefined && (timingAt === undefined || next < timingAt)) timingAt = next;
    }
    if (timeoutAt === undefined) timers.cancel('sessionTimeout');
    else timers.set('sessionTimeout', timeoutAt, () => this.timeouts());
    if (timingAt === undefined) timers.cancel('sessionTiming');
    else timers.set('sessionTiming', timingAt, () => this.timing());
  }

  private timeouts(): void {
    const now = this.context.clock.now();
    const { sessionTimeoutMs } = this.context.limits;
    for (const session of [...this.sessions]) {
      if (now - session.lastHeard >= sessionTimeoutMs) this.end(session, `no request from the sender for ${sessionTimeoutMs / 1000} s (limits.sessionTimeoutMs)`);
    }
    this.arm();
  }

  private timing(): void {
    const now = this.context.clock.now();
    for (const session of this.sessions) session.timing?.handleTimeout(now);
    this.arm();
  }
}
