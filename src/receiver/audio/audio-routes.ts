// The audio-streaming requests of spec 4.3 that this receiver does not serve: it answers the audio
// information request (RTSP GET /info, OPTIONS), pairs and opens senders' sessions (SETUP,
// RECORD, TEARDOWN... in ../session/), but plays no audio. Senders that try to stream get 501 Not
// Implemented with a reason and a log line naming the request, never a 404 that reads like a
// wrong address (RFC 2326 11.3.8, RFC 9110 15.6.2). OPTIONS does not list them (Route.unserved).

import { STATUS } from '../../http';
import { refuse, type Router } from '../connection/router';

/** RTSP methods of an audio session (spec 4.3) not served here. */
export const UNSERVED_AUDIO_METHODS = ['ANNOUNCE', 'FLUSHBUFFERED', 'SETPEERS', 'SETRATEANCHORTIME'] as const;

/** POST endpoints of an audio session (spec 4.3) not served here. */
export const UNSERVED_AUDIO_POSTS = ['/fp-setup'] as const;

const WHY = 'this receiver answers the audio information request but does not stream audio';

export function registerUnservedAudioRoutes(router: Router): void {
  for (const method of UNSERVED_AUDIO_METHODS) {
    router.add({
      protocol: 'RTSP',
      method,
      path: '*',
      unserved: true,
      maxBodyBytes: 64 * 1024,
      handler: (request) => refuse(STATUS.notImplemented, `${method} ${request.path}: ${WHY}`),
    });
  }
  for (const path of UNSERVED_AUDIO_POSTS) {
    router.add({
      method: 'POST',
      path,
      unserved: true,
      maxBodyBytes: 64 * 1024,
      handler: () => refuse(STATUS.notImplemented, `POST ${path}: ${WHY}`),
    });
  }
}
