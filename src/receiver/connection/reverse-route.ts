// POST /reverse (spec 1.6, 4.1): the sender asks the receiver to turn a connection around.

import { readMakerHeader } from '../../dialect';
import { HEADER, PTTH, STATUS } from '../../http';
import type { Logger } from '../../platform';
import type { ReverseRegistry } from './reverse';
import { refuse, type Response, type Router } from './router';

interface ReverseRouteContext {
  readonly log: Logger;
  readonly reverse: ReverseRegistry;
  /** limits.maxReverseConnections */
  readonly maxReverseConnections: number;
}

export function registerReverseRoute(router: Router, context: ReverseRouteContext): void {
  const { log, reverse } = context;
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
      if (reverse.size >= limit) {
        // A sender that reconnects may leave its old connections behind: at the limit, its own
        // oldest one of the same purpose makes room before anyone is refused.
        const purpose = readMakerHeader(request.head.headers, 'Purpose');
        const stale = reverse.find(request.sessionId, purpose)[0];
        if (request.sessionId !== undefined && stale) stale.close('replaced by a newer reverse connection of the same session');
      }
      if (reverse.size >= limit) {
        log('warn', `${request.remoteAddress}:${request.remotePort} POST /reverse refused: ${limit} reverse connections open`);
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
