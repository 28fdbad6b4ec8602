// The audio requests of spec 4.3 that this receiver does not serve: buffered audio
// (FLUSHBUFFERED, SETRATEANCHORTIME), PTP peers (SETPEERS), FairPlay (/fp-setup), and ANNOUNCE
// where the host plays no audio. Realtime audio is served by session-audio.ts. Senders that ask
// for these get 501 Not Implemented with a reason and a log line naming the request, never a 404
// that reads like a wrong address (RFC 2326 11.3.8, RFC 9110 15.6.2). OPTIONS does not list them
// (Route.unserved).

import { STATUS } from '../../http';
import { refuse, type Router } from '../connection/router';

/** RTSP methods of an audio session (spec 4.3) not served here (ANNOUNCE where no audio plays). */
export const UNSERVED_AUDIO_METHODS = ['FLUSHBUFFERED', 'SETPEERS', 'SETRATEANCHORTIME'] as const;

/** POST endpoints of an audio session (spec 4.3) not served here. */
export const UNSERVED_AUDIO_POSTS = ['/fp-setup'] as const;

const WHY = 'this receiver plays realtime audio (RTP), not buffered audio, PTP groups or FairPlay streams';
const WHY_NO_AUDIO = 'this host has no audio output: it answers the audio information request but plays no audio';

/** `announce`: ANNOUNCE is refused too (the host plays no audio). */
export function registerUnservedAudioRoutes(router: Router, options: { readonly announce: boolean }): void {
  const methods: readonly string[] = options.announce ? ['ANNOUNCE', ...UNSERVED_AUDIO_METHODS] : UNSERVED_AUDIO_METHODS;
  for (const method of methods) {
    router.add({
      protocol: 'RTSP',
      method,
      path: '*',
      unserved: true,
      maxBodyBytes: 64 * 1024,
      handler: (request) => refuse(STATUS.notImplemented, `${method} ${request.path}: ${method === 'ANNOUNCE' ? WHY_NO_AUDIO : WHY}`),
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
