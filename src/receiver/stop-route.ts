// POST /stop (spec 3, 4.1): stops the sender's photo or slideshow session and video playback.
// One route for all of them: each feature registers what it stops with `receiver.onStop`.

import { STATUS } from '../http';
import type { Receiver } from './receiver';
import type { Response } from './router';

/** Largest body taken (spec 4.1: none; some senders send a small empty plist). It is ignored. */
const MAX_STOP_BODY_BYTES = 4096;

export function registerStopRoute(receiver: Receiver): void {
  receiver.router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/stop',
    maxBodyBytes: MAX_STOP_BODY_BYTES,
    handler: async (request): Promise<Response> => {
      await receiver.stopSessions(request.sessionId, request.order);
      // spec 4.1: 200, empty body.
      return { status: STATUS.ok };
    },
  });
}
