// POST /reverse (spec 1.6, 4.1): the sender asks the receiver to turn a connection around.

import { readMakerHeader } from '../../dialect';
import { HEADER, PTTH, STATUS } from '../../http';
import type { Logger } from '../../platform';
import { CountedLog } from '../../counted-log';
import type { ReverseConnection, ReverseRegistry } from './reverse';
import { refuse, type Response, type Router } from './router';

interface ReverseRouteContext {
  readonly log: Logger;
  readonly reverse: ReverseRegistry;
  /** limits.maxReverseConnections */
  readonly maxReverseConnections: number;
  /** limits.maxReverseConnectionsPerAddress */
  readonly maxReverseConnectionsPerAddress: number;
  /** Connections of `address` open other than reverse ones (its sender is still there). */
  companions(address: string): number;
  /** Monotonic ms, for the rate of log lines. */
  now(): number;
}

/** At most one log line about reverse connections closed to make room, and one about those refused, per this many ms. */
const ROOM_LOG_INTERVAL_MS = 10_000;

export function registerReverseRoute(router: Router, context: ReverseRouteContext): void {
  const { log, reverse } = context;
  const madeRoom = new CountedLog(ROOM_LOG_INTERVAL_MS);
  // A flood of POST /reverse from one address must not flood the log too.
  const refusals = new CountedLog(ROOM_LOG_INTERVAL_MS);
  const refused = (newcomer: string, why: string) => {
    const count = refusals.note(context.now());
    if (count > 0) log('warn', `${count === 1 ? `${newcomer} POST /reverse refused` : `${count} POST /reverse refused in the last ${ROOM_LOG_INTERVAL_MS / 1000} s, the last from ${newcomer}`}: ${why}`);
  };
  const makeRoom = (victim: ReverseConnection, why: string, newcomer: string) => {
    const count = madeRoom.note(context.now());
    if (count > 0) log('info', `${count === 1 ? `${victim.peer} reverse connection` : `${count} reverse connections`} closed to make room for ${newcomer}: ${why}`);
    victim.close(why);
  };
  router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/reverse',
    maxBodyBytes: 0,
    handler: (request): Response => {
      const upgrade = request.head.headers.get(HEADER.upgrade)?.trim();
      if (!upgrade || upgrade.toUpperCase() !== PTTH) {
        return refuse(STATUS.badRequest, `POST /reverse needs Upgrade: ${PTTH} (got ${JSON.stringify(upgrade ?? '')})`);
      }
      const limit = context.maxReverseConnections;
      const perAddress = context.maxReverseConnectionsPerAddress;
      const address = request.remoteAddress;
      const newcomer = `${address}:${request.remotePort}`;
      if (reverse.size >= limit || reverse.fromAddress(address).length >= perAddress) {
        // A sender that reconnects may leave its old connections behind: at the limit, its own
        // oldest one of the same purpose makes room before anyone is refused.
        const purpose = readMakerHeader(request.head.headers, 'Purpose');
        const stale = reverse.find(request.sessionId, purpose)[0];
        if (request.sessionId !== undefined && stale) stale.close('replaced by a newer reverse connection of the same session');
      }
      const own = reverse.fromAddress(address);
      if (own.length >= perAddress) {
        // An address competes with itself: its silent one quiet longest makes room.
        const quietest = own.filter((connection) => connection.silent).sort((a, b) => a.lastActivity - b.lastActivity)[0];
        if (!quietest) {
          refused(newcomer, `its address has ${own.length} reverse connections open, none silent`);
          return { ...refuse(STATUS.serviceUnavailable, `${perAddress} reverse connections of this address are open (limits.maxReverseConnectionsPerAddress)`), close: true };
        }
        makeRoom(quietest, `the silent one quiet longest of its address (limits.maxReverseConnectionsPerAddress ${perAddress})`, newcomer);
      }
      if (reverse.size >= limit) {
        const victim = reverse.victimFor(address, context.companions);
        if (victim) makeRoom(victim, `silent, of an address holding more reverse connections (limits.maxReverseConnections ${limit})`, newcomer);
      }
      if (reverse.size >= limit) {
        refused(newcomer, `${limit} reverse connections open`);
        return { ...refuse(STATUS.serviceUnavailable, `${limit} reverse connections are open (limits.maxReverseConnections)`), close: true };
      }
      return {
        status: STATUS.switchingProtocols,
        // Exactly these two headers (spec 1.6).
        headers: [
          [HEADER.upgrade, PTTH],
          [HEADER.connection, 'Upgrade'],
        ],
        reverse: (connection) => reverse.add(connection),
      };
    },
  });
}
