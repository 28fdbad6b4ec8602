// The requests of a sender's session (RTSP, on the connection that carried its SETUP): SETUP
// (the session, or streams in it), RECORD, FLUSH, TEARDOWN, GET_PARAMETER and SET_PARAMETER,
// and the POSTs senders make inside a session: /feedback (every 2 s: the sender is there),
// /command and /audioMode. The spec shows none of them ("other audio requests: not shown");
// they are answered as real receivers answer them. Audio (a classic SETUP with a Transport
// header after ANNOUNCE, a type 96 stream in a session) is played by SessionAudio where the host
// has a sink (src/receiver/audio/); without one, and for every other stream type, a SETUP asking
// for it is refused (501) naming what is not served.
//
// Decisions the spec leaves open, and what this receiver does:
// - RECORD, FLUSH, TEARDOWN, GET_PARAMETER and SET_PARAMETER without a session on the
//   connection: 454 Session Not Found (RFC 2326 11.3.5).
// - POST /feedback is 200 with or without a session (older senders send it beside video too);
//   /command and /audioMode are 200, their bodies logged at debug (real receivers act on none
//   of what senders send there for video and photos).
// - SET_PARAMETER: `volume:` (dB, -144 muted or -30 to 0) and `progress:` are kept and handed to
//   SessionAudio; metadata and artwork bodies (DMAP, images) go to it too; other parameters are
//   accepted and dropped. GET_PARAMETER answers `volume:`; a parameter it does not know is 451
//   (Parameter Not Understood).

import { PROGRESS_PARAMETER, ProgressError, readProgress } from '../../audio/now-playing';
import { RtpInfoError, readRtpInfo, type RtpInfo } from '../../audio/rtp-info';
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

/** What plays a session's audio (src/receiver/audio/), where the host has a sink. */
export interface SessionAudio {
  /** SETUP with a Transport header, on a session ANNOUNCE opened: the answer (its ports). */
  setupClassic(session: SenderSession, request: Request): Response;
  /** Type 96 streams asked in one SETUP: the answer's dictionary for each. */
  setupRealtime(session: SenderSession, streams: readonly PlistDict[]): PlistDict[];
  record(session: SenderSession, start: RtpInfo | undefined): void;
  flush(session: SenderSession, until: RtpInfo | undefined): void;
  /** TEARDOWN of the session's audio stream; returns whether one played. */
  endStream(session: SenderSession, reason: string): boolean;
  setVolume(session: SenderSession, db: number): void;
  /** A SET_PARAMETER body about what plays: DMAP text, artwork (its Content-Type says which). */
  describe(session: SenderSession, contentType: string, body: Uint8Array): void;
  /** The sender's `progress:` (RTP times of start, now and end). */
  progress(session: SenderSession, progress: readonly [number, number, number]): void;
}

/** The stream types SessionAudio plays. */
const AUDIO_STREAM_TYPES: readonly number[] = [96];

/** What the routes need. */
interface SessionRoutesContext {
  readonly log: Logger;
  readonly sessions: Sessions;
  readonly mime: Dialect['mime'];
  /** Bodies of SET_PARAMETER (artwork) and /command: the receiver's body limit. */
  readonly maxBodyBytes: number;
  /** Plays audio, where the host has a sink; without it audio SETUPs are refused (501). */
  readonly audio: SessionAudio | undefined;
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
    context.audio?.record(session, streamPoint(request));
    return ok();
  });

  rtsp('FLUSH', (request) => {
    const session = sessionOf(sessions, request);
    context.audio?.flush(session, streamPoint(request));
    return ok();
  });

  rtsp('TEARDOWN', (request) => {
    const session = sessionOf(sessions, request);
    const streams = teardownStreams(request);
    if (streams) {
      const audio = streams.some((type) => AUDIO_STREAM_TYPES.includes(type)) && context.audio?.endStream(session, 'TEARDOWN of the stream');
      if (!audio) log('debug', `${session.peer} ${session.label} TEARDOWN of ${streams.map(describeStreamType).join(', ')}: no such stream open`);
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
      // Metadata (DMAP), artwork (images): about what plays.
      if (context.audio) context.audio.describe(session, type, request.body);
      else log('debug', `${session.peer} ${session.label} SET_PARAMETER ${type || 'without a Content-Type'} (${request.body.length} bytes) dropped: this host plays no audio`);
      return ok();
    }
    for (const [name, value] of readParameters(request)) setParameter(context, session, name, value);
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

/** SETUP: a session opened (its ports answered), its audio set up, or streams refused by type. */
function setup(context: SessionRoutesContext, request: Request): Response {
  const { sessions, mime, audio } = context;
  if (request.head.headers.get(HEADER.transport) !== undefined && request.body.length === 0) {
    if (!audio) throw new SessionRequestError('SETUP with a Transport header (a classic audio stream) is not served: this host has no audio output', 501, STREAMS_NOT_SERVED);
    const session = sessions.of(request.state);
    if (!session) throw new SessionRequestError('SETUP with a Transport header before ANNOUNCE: announce the stream (its SDP) first', 455);
    return audio.setupClassic(session, request);
  }
  const asked = parseSetup(request.body);
  if (asked.kind === 'streams') {
    const session = sessionOf(sessions, request);
    const unserved = asked.streams.filter((stream) => !(audio && AUDIO_STREAM_TYPES.includes(stream.type)));
    if (unserved.length > 0) {
      const types = unserved.map((stream) => describeStreamType(stream.type));
      // pyatv shows its user the status line only: the phrase says it too.
      throw new SessionRequestError(`SETUP in ${session.label}: stream ${types.join(', ')} not served: ${audio ? 'this receiver plays realtime audio (type 96) and' : 'this host has no audio output and'} takes no other streams in a session (photos, video by URL and mirroring need none)`, 501, STREAMS_NOT_SERVED);
    }
    const answers = audio!.setupRealtime(session, asked.streams.map((stream) => stream.fields));
    return { status: STATUS.ok, headers: { [HEADER.contentType]: mime.plistBinary }, body: encodeBinaryPlist({ streams: answers }) };
  }
  const peer = hostPort(request.remoteAddress, request.remotePort);
  const { ports } = sessions.open({ peer, address: request.remoteAddress, connection: request.state }, asked.sender);
  const answer: PlistDict = { eventPort: ports.eventPort };
  if (ports.timingPort !== undefined) answer.timingPort = ports.timingPort;
  return { status: STATUS.ok, headers: { [HEADER.contentType]: mime.plistBinary }, body: encodeBinaryPlist(answer) };
}

/** RTP-Info (`seq=N;rtptime=M`) of RECORD or FLUSH, when the sender sends one. */
function streamPoint(request: Request): RtpInfo | undefined {
  const text = request.head.headers.get(HEADER.rtpInfo);
  if (text === undefined) return undefined;
  try {
    return readRtpInfo(text);
  } catch (error) {
    if (!(error instanceof RtpInfoError)) throw error;
    throw new RequestError(STATUS.badRequest, `${request.method}: ${error.message}`);
  }
}

/** One `name: value` of SET_PARAMETER: the volume and progress are kept (and played), others dropped. */
function setParameter(context: SessionRoutesContext, session: SenderSession, name: string, value: string): void {
  const { log } = context;
  if (name === 'volume') {
    const volume = Number(value);
    if (!Number.isFinite(volume) || !(volume === VOLUME_DB.muted || (volume >= VOLUME_DB.min && volume <= VOLUME_DB.max))) {
      throw new RequestError(STATUS.badRequest, `SET_PARAMETER: volume ${JSON.stringify(value)} is not ${VOLUME_DB.muted} (muted) or ${VOLUME_DB.min} to ${VOLUME_DB.max} dB`);
    }
    session.volumeDb = volume;
    context.audio?.setVolume(session, volume);
    log('debug', `${session.peer} ${session.label} volume ${volume} dB`);
  } else if (name === PROGRESS_PARAMETER) {
    let progress;
    try {
      progress = readProgress(value);
    } catch (error) {
      if (!(error instanceof ProgressError)) throw error;
      throw new RequestError(STATUS.badRequest, `SET_PARAMETER: ${error.message}`);
    }
    session.progress = [progress.startRtp, progress.currentRtp, progress.endRtp];
    context.audio?.progress(session, session.progress);
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
