// Many sans-I/O connections of one Receiver driven at once, as a host's drivers would drive them
// (src/receiver/connection/connection-driver.ts), for the campaigns that model crowds of senders
// (admission.ts, pairing-lock.ts): bytes in when the connection wants them, its answers taken or
// left unread (a peer that never reads), every deadline fired at its time while time passes,
// and closes noticed. Portable: ECMAScript only.

import type { ReceiverConnection } from '../../src/receiver/connection/connection';
import type { Receiver } from '../../src/receiver/receiver';
import type { ManualClock } from '../support/memory-ports';
import { FuzzFailure } from './engine';

/** One connection of the crowd and how its peer behaves. */
export interface Member {
  readonly connection: ReceiverConnection;
  readonly address: string;
  /** The peer takes what the receiver sends (a driver writes it); false: it never reads. */
  reads: boolean;
  /** The connection has closed (its close event, or its mode). */
  closed: boolean;
  /** Given each piece the peer takes, when it reads. */
  onBytes?: (bytes: Uint8Array) => void;
  /**
   * How a peer that does not read shows: the driver still writes into the host's buffer until it
   * is full (HOST_BUFFER_BYTES) and then tells the connection (hostWriteBlocked), as on Node; or,
   * when false, the answers wait in the connection's own queue.
   */
  hostBuffer?: boolean;
  /** Bytes the host holds for a peer that does not read. */
  hostBuffered?: number;
  /** The driver told the connection that the host's buffer is full. */
  blocked?: boolean;
  /** When the driver last took bytes from the connection. */
  lastTake?: number;
}

/** The host's buffer for a peer that does not read (a socket's send buffer). */
export const HOST_BUFFER_BYTES = 4096;

/** Deadlines fired in one advance, at most, before time is said to be stuck. */
const MAX_FIRINGS = 100_000;

export class Crowd<M extends Member> {
  /** The members not known to be closed (pruned as they close). */
  members: M[] = [];

  constructor(
    readonly receiver: Receiver,
    readonly clock: ManualClock,
  ) {}

  add(member: M): M {
    this.members.push(member);
    return member;
  }

  /** What the driver does after a call: the answers to a reading peer, the close event. */
  poll(member: M): void {
    const { connection } = member;
    const now = this.clock.now();
    if (member.reads) {
      if (member.blocked) {
        // The peer reads again: the host's buffer drains.
        member.blocked = false;
        member.hostBuffered = 0;
        connection.hostWriteBlocked(false, now);
      }
      for (let bytes = connection.pollTransmit(); bytes; bytes = connection.pollTransmit()) {
        member.lastTake = now;
        member.onBytes?.(bytes);
      }
    } else if (member.hostBuffer) {
      while (!member.blocked) {
        const bytes = connection.pollTransmit();
        if (!bytes) break;
        member.lastTake = now;
        member.hostBuffered = (member.hostBuffered ?? 0) + bytes.length;
        if (member.hostBuffered >= HOST_BUFFER_BYTES) {
          member.blocked = true;
          connection.hostWriteBlocked(true, now);
        }
      }
    }
    for (let event = connection.pollEvent(); event; event = connection.pollEvent()) if (event.type === 'close') member.closed = true;
    if (connection.mode === 'closed') member.closed = true;
  }

  pollAll(): void {
    for (const member of this.members) this.poll(member);
  }

  /** Drops the members that have closed. */
  prune(): void {
    if (this.members.some((member) => member.closed)) this.members = this.members.filter((member) => !member.closed);
  }

  /** Feeds bytes as a driver does: only while the connection wants to read. Returns whether they went in. */
  feed(member: M, bytes: Uint8Array): boolean {
    // Closed meanwhile by the receiver (made room for another): the driver hears it first.
    if (!member.closed && member.connection.mode === 'closed') this.poll(member);
    if (member.closed || !member.connection.wantsRead) return false;
    member.connection.receive(bytes, this.clock.now());
    this.poll(member);
    return true;
  }

  /** The peer closes its side. */
  close(member: M): void {
    if (member.closed) return;
    member.connection.transportClosed(undefined, this.clock.now());
    this.poll(member);
    member.closed = true;
  }

  /**
   * Moves time on by `ms`, firing every connection's and the receiver's deadline at its time,
   * earliest first, as one timer per driver would. Fails when deadlines keep coming due without
   * time moving (a deadline that is never cleared).
   */
  advance(ms: number, afterEach?: () => void): void {
    const until = this.clock.now() + ms;
    for (let firings = 0; ; firings++) {
      if (firings > MAX_FIRINGS) throw new FuzzFailure(`deadlines keep coming due at ${this.clock.now()} ms without time moving`);
      let due = this.receiver.pollTimeout();
      for (const member of this.members) {
        if (member.closed) continue;
        const at = member.connection.pollTimeout();
        if (at !== undefined && (due === undefined || at < due)) due = at;
      }
      if (due === undefined || due > until) break;
      if (due > this.clock.now()) this.clock.advance(due - this.clock.now());
      const now = this.clock.now();
      const receiverDue = this.receiver.pollTimeout();
      if (receiverDue !== undefined && receiverDue <= now) this.receiver.handleTimeout(now);
      for (const member of this.members) {
        if (member.closed) continue;
        const at = member.connection.pollTimeout();
        if (at !== undefined && at <= now) {
          member.connection.handleTimeout(now);
          this.poll(member);
          afterEach?.();
        }
      }
    }
    if (until > this.clock.now()) this.clock.advance(until - this.clock.now());
  }

  /** Every peer closes; the receiver must then hold no connection. */
  closeAll(): void {
    for (const member of this.members) this.close(member);
    this.members = [];
    if (this.receiver.connectionCount !== 0) throw new FuzzFailure(`${this.receiver.connectionCount} connections still counted after every peer closed`);
  }
}

/**
 * Adds to a failure of a campaign whose crowd lives across inputs how to replay it: every input
 * from the first (`--count N`), since `--index` alone would start from an empty receiver.
 */
export function withReplayHint(error: unknown, inputsRun: number): unknown {
  if (error instanceof Error) error.message += ` (the crowd lived through the ${inputsRun - 1} inputs before this one: replay with --count ${inputsRun}, not --index)`;
  return error;
}
