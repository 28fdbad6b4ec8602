// Whether a connection stays open after a response, and the Connection header that says so
// (RFC 9112 9.3 and 9.6, RFC 2326 12.8): one decision for every writer of responses.

import { HEADER, type Headers } from './headers';
import type { RequestHead } from './message';

/**
 * Decides for the response to `request`: it closes when the responder wants to or the request
 * did not keep the connection alive. HTTP/1.1 says `Connection: close` when closing; HTTP/1.0
 * says `Connection: keep-alive` when staying open; RTSP has no such header. Returns whether the
 * connection closes after this response.
 */
export function applyKeepAlive(request: Pick<RequestHead, 'protocol' | 'version' | 'keepAlive'>, headers: Headers, responderCloses: boolean): boolean {
  const close = responderCloses || !request.keepAlive;
  if (request.protocol === 'HTTP') {
    if (close && request.version === '1.1') headers.set(HEADER.connection, 'close');
    else if (!close && request.version === '1.0') headers.set(HEADER.connection, 'keep-alive');
  }
  return close;
}
