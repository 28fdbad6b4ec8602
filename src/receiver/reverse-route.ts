// POST /reverse (spec 1.6, 4.1): the sender asks the receiver to turn a connection around.

import { HEADER } from '../http';
import type { Receiver } from './receiver';
import type { Response } from './router';
import { readMakerHeader } from '../dialect';

/** The protocol token of the reverse upgrade (spec 1.6). */
export const PTTH = 'PTTH/1.0';

export function registerReverseRoute(receiver: Receiver): void {
  const { log } = receiver.ports;
  receiver.router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/reverse',
    maxBodyBytes: 0,
    handler: (request): Response => {
      const upgrade = request.head.headers.get(HEADER.upgrade)?.trim();
      if (!upgrade || upgrade.toUpperCase() !== PTTH) {
        log('info', `${request.remoteAddress}:${request.remotePort} POST /reverse without Upgrade: ${PTTH} (got ${JSON.stringify(upgrade ?? '')}): 400`);
        return { status: 400 };
      }
      const limit = receiver.config.limits.maxReverseConnections;
      if (receiver.reverse.size >= limit) {
        // A sender that reconnects may leave its old connections behind: at the limit, its own
        // oldest one of the same purpose makes room before anyone is refused.
        const purpose = readMakerHeader(request.head.headers, 'Purpose');
        const stale = receiver.reverse.find(request.sessionId, purpose)[0];
        if (request.sessionId !== undefined && stale) stale.close('replaced by a newer reverse connection of the same session');
      }
      if (receiver.reverse.size >= limit) {
        log('warn', `${request.remoteAddress}:${request.remotePort} POST /reverse refused: ${limit} reverse connections open (limits.maxReverseConnections)`);
        return { status: 503, close: true };
      }
      return {
        status: 101,
        // Exactly these two headers (spec 1.6).
        headers: [
          [HEADER.upgrade, PTTH],
          [HEADER.connection, 'Upgrade'],
        ],
        reverse: (connection) => receiver.reverse.add(connection),
      };
    },
  });
}
