// The requests of a sender's session (RTSP, on the connection that carried its SETUP): SETUP
// (the session, or streams in it), RECORD, FLUSH, TEARDOWN, GET_PARAMETER and SET_PARAMETER,
// and the POSTs senders make inside a session: /feedback (every 2 s: the sender is there),
// /command and /audioMode. The spec shows none of them ("other audio requests: not shown");
// they are answered as real receivers answer them. Audio streams are not served yet: a SETUP
// asking for one is refused (501) naming the stream type.
//
// Decisions the spec leaves open, and what this receiver does:
// - RECORD, FLUSH, TEARDOWN, GET_PARAMETER and SET_PARAMETER without a session on the
//   connection: 454 Session Not Found (RFC 2326 11.3.5).
// - POST /feedback is 200 with or without a session (older senders send it beside video too);
//   /command and /audioMode are 200, their bodies logged at debug (real receivers act on none
//   of what senders send there for video and photos).
// - SET_PARAMETER: `volume:` (dB, -144 muted or -30 to 0) and `progress:` are kept; other
//   parameters, and metadata and artwork bodies (DMAP, images), are accepted and dropped: the
//   receiver plays no audio to describe. GET_PARAMETER answers `volume:`; a parameter it does
//   not know is 451 (Parameter Not Understood).

import { utf8Decode } from '../../bytes';
import { RequestError } from '../../errors';
import { HEADER, STATUS } from '../../http';
import { PlistError, TEXT_PARAMETERS, decodeBinaryPlist, decodeParameters, encodeBinaryPlist, encodeParametersBytes, isPlistDict, type PlistDict } from '../../plist';
import type { Dialect } from '../../dialect';
import type { Logger } from '../../platform';
import { hostPort } from '../connection/connection';
import type { Request, Response, Router } from '../connection/router';
import { SenderSession, VOLUME_DB } from './session';
import { SessionRequestError, describeStreamType, parseSetup } from './session-setup';
import type { Sessions } from './sessions';

/** The status line's phrase of a refused stream SETUP (see SessionRequestError.phrase). */
const STREAMS_NOT_SERVED = 'Audio And Data Streams Not Served';

/** A session SETUP is a few hundred bytes of plist; a streams SETUP with keys under 2 KB. */
const SETUP_BODY_LIMIT = 16 * 1024;

/** What the routes need. */
interface SessionRoutesContext {
  readonly log: Logger;
  readonly sessions: Sessions;
  readonly mime: Dialect['mime'];
  /** Bodies of SET_PARAMETER (artwork) and /command: the receiver's body limit. */
  readonly maxBodyBytes: number;
}

function sessionOf(sessions: Sessions, request: Request): SenderSession {
  const session = sessions.of(request.state);
  if (!session) throw new SessionRequestError(`${request.method}: no session on this connection (SETUP first)`, 454);
  return session;
}

function contentType(request: Request): string {
  return (request.head.headers.get(HEADER.contentType) ?? '').split(';')[0].trim().toLowerCase();
}

function ok(): Response {
  return { status: STATUS.ok };
}

export function registerSessionRoutes(router: Router, context: SessionRoutesContext): void {
  const { log, sessions } = context;
  const rtsp = (method: string, handler: (request: Request) => Response, maxBodyBytes = context.maxBodyBytes) =>
    router.add({ protocol: 'RTSP', method, path: '*', maxBodyBytes, handler });

  rtsp('SETUP', (request) => setup(context, request), SETUP_BODY_LIMIT);

  rtsp('RECORD', (request) => {
    const session = sessionOf(sessions, request);
    session.recording = true;
    log('debug', `${session.peer} ${session.label} recording`);
    return ok();
  });

  // Nothing is buffered until audio streams are served: nothing to drop.
  rtsp('FLUSH', (request) => (sessionOf(sessions, request), ok()));

  rtsp('TEARDOWN', (request) => {
    const session = sessionOf(sessions, request);
    const streams = teardownStreams(request);
    if (streams) {
      // No stream of a session is served yet, so none is open to end.
      log('debug', `${session.peer} ${session.label} TEARDOWN of ${streams.map(describeStreamType).join(', ')}: no such stream open`);
      return ok();
    }
    sessions.tearDown(session);
    return ok();
  });

  rtsp('GET_PARAMETER', (request) => {
    const session = sessionOf(sessions, request);
    const asked = request.body.length === 0 ? ['volume'] : parameterNames(request);
    const unknown = asked.filter((name) => name !== 'volume');
    if (unknown.length > 0) throw new RequestError(STATUS.parameterNotUnderstood, `GET_PARAMETER: ${unknown.join(', ')} not known (this receiver answers volume)`);
    return { status: STATUS.ok, headers: { [HEADER.contentType]: TEXT_PARAMETERS }, body: encodeParametersBytes([['volume', session.volumeDb]]) };
  });

  rtsp('SET_PARAMETER', (request) => {
    const session = sessionOf(sessions, request);
    const type = contentType(request);
    if (type !== TEXT_PARAMETERS) {
      // Metadata (DMAP), artwork (images), a binary plist: about audio this receiver does not play.
      log('debug', `${session.peer} ${session.label} SET_PARAMETER ${type || 'without a Content-Type'} (${request.body.length} bytes) dropped`);
      return ok();
    }
    for (const [name, value] of readParameters(request)) setParameter(log, session, name, value);
    return ok();
  });

  for (const path of ['/feedback', '/command', '/audioMode']) {
    router.add({
      method: 'POST',
      path,
      maxBodyBytes: context.maxBodyBytes,
      handler: (request) => {
        const session = sessions.of(request.state);
        if (path !== '/feedback') log('debug', `${hostPort(request.remoteAddress, request.remotePort)} POST ${path}${describeBody(request)}${session ? ` in ${session.label}` : ''}`);
        return ok();
      },
    });
  }
}

/** SETUP: a session opened (its ports answered), or streams refused by type. */
function setup(context: SessionRoutesContext, request: Request): Response {
  const { sessions, mime } = context;
  if (request.head.headers.get(HEADER.transport) !== undefined && request.body.length === 0) {
    throw new SessionRequestError('SETUP with a Transport header (a classic audio stream) is not served: this receiver plays no audio', 501, STREAMS_NOT_SERVED);
  }
  const asked = parseSetup(request.body);
  if (asked.kind === 'streams') {
    const session = sessionOf(sessions, request);
    const types = asked.streams.map((stream) => describeStreamType(stream.type));
    // pyatv shows its user the status line only: the phrase says it too.
    throw new SessionRequestError(`SETUP in ${session.label}: stream ${types.join(', ')} not served: this receiver plays no audio and takes no data streams in a session (photos, video by URL and mirroring need none)`, 501, STREAMS_NOT_SERVED);
  }
  const peer = hostPort(request.remoteAddress, request.remotePort);
  const { ports } = sessions.open({ peer, address: request.remoteAddress, connection: request.state }, asked.sender);
  const answer: PlistDict = { eventPort: ports.eventPort };
  if (ports.timingPort !== undefined) answer.timingPort = ports.timingPort;
  return { status: STATUS.ok, headers: { [HEADER.contentType]: mime.plistBinary }, body: encodeBinaryPlist(answer) };
}

/** One `name: value` of SET_PARAMETER: the volume and progress are kept, others dropped. */
function setParameter(log: Logger, session: SenderSession, name: string, value: string): void {
  if (name === 'volume') {
    const volume = Number(value);
    if (!Number.isFinite(volume) || !(volume === VOLUME_DB.muted || (volume >= VOLUME_DB.min && volume <= VOLUME_DB.max))) {
      throw new RequestError(STATUS.badRequest, `SET_PARAMETER: volume ${JSON.stringify(value)} is not ${VOLUME_DB.muted} (muted) or ${VOLUME_DB.min} to ${VOLUME_DB.max} dB`);
    }
    session.volumeDb = volume;
    log('debug', `${session.peer} ${session.label} volume ${volume} dB`);
  } else if (name === 'progress') {
    const parts = value.split('/').map(Number);
    if (parts.length !== 3 || !parts.every((part) => Number.isInteger(part) && part >= 0 && part < 2 ** 32)) {
      throw new RequestError(STATUS.badRequest, `SET_PARAMETER: progress ${JSON.stringify(value)} is not start/current/end RTP times`);
    }
    session.progress = [parts[0], parts[1], parts[2]];
  } else {
    log('debug', `${session.peer} ${session.label} SET_PARAMETER ${name} dropped (not a parameter this receiver keeps)`);
  }
}

/** GET_PARAMETER's body: the names asked for, one per line (`volume\r\n`), no values. */
function parameterNames(request: Request): string[] {
  let body: string;
  try {
    body = utf8Decode(request.body);
  } catch {
    throw new RequestError(STATUS.badRequest, 'GET_PARAMETER: the body is not UTF-8 text');
  }
  return body
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function readParameters(request: Request): Map<string, string> {
  try {
    return decodeParameters(request.body);
  } catch (error) {
    if (!(error instanceof PlistError)) throw error;
    throw new RequestError(STATUS.badRequest, `${request.method}: ${error.message}`);
  }
}

/** TEARDOWN's body: the stream types it ends, or undefined for the whole session. */
function teardownStreams(request: Request): number[] | undefined {
  if (request.body.length === 0) return undefined;
  let plist;
  try {
    plist = decodeBinaryPlist(request.body);
  } catch (error) {
    throw new RequestError(STATUS.badRequest, `TEARDOWN: the body is not a binary property list (${error instanceof PlistError ? error.message : String(error)})`);
  }
  if (!isPlistDict(plist) || plist.streams === undefined) return undefined;
  if (!Array.isArray(plist.streams)) throw new RequestError(STATUS.badRequest, 'TEARDOWN: streams is not an array');
  return plist.streams.map((stream, index) => {
    const type = isPlistDict(stream) ? stream.type : undefined;
    if (typeof type !== 'number' && typeof type !== 'bigint') throw new RequestError(STATUS.badRequest, `TEARDOWN: streams[${index}] has no integer type`);
    return Number(type);
  });
}

/** ` (a binary plist of type updateMRSupportedCommands, 312 bytes)`, for debug lines. */
function describeBody(request: Request): string {
  if (request.body.length === 0) return '';
  try {
    const plist = decodeBinaryPlist(request.body);
    const type = isPlistDict(plist) && typeof plist.type === 'string' ? ` of type ${plist.type}` : '';
    return ` (a binary plist${type}, ${request.body.length} bytes)`;
  } catch {
    return ` (${request.body.length} bytes)`;
  }
}
