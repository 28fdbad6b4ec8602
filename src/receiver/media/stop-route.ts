// POST /stop (spec 3, 4.1): stops the sender's photo or slideshow session and video playback.
// One route for all of them: the media session asks each of its features to stop.

import { STATUS } from '../../http';
import type { MediaSession } from './media-session';
import type { Response, Router } from '../connection/router';

/** Largest body taken (spec 4.1: none; some senders send a small empty plist). It is ignored. */
const MAX_STOP_BODY_BYTES = 4096;

export function registerStopRoute(router: Router, media: MediaSession): void {
  router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/stop',
    maxBodyBytes: MAX_STOP_BODY_BYTES,
    handler: (request): Response => {
      media.stop(request.sessionId, request.order);
      // spec 4.1: 200, empty body.
      return { status: STATUS.ok };
    },
  });
}
