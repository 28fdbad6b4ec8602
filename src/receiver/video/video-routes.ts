// The video endpoints (spec 4.2): POST /play, POST and GET /scrub, POST /rate, GET /playback-info,
// PUT /setProperty, GET and POST /getProperty; and the wiring of the VideoSession to the
// receiver: video events (spec 6), the screen and the activity (media session), POST /stop.
//
// Decisions the spec leaves open, and what this receiver does:
// - POST /rate, POST /scrub and PUT /setProperty with no video loaded: 409 (Conflict, "no video
//   is loaded"); the request cannot mean anything then. GET /scrub and GET /playback-info are
//   questions, answered 200 whatever is loaded: /scrub with duration and position 0, and
//   /playback-info with what real receivers give (NOTHING_LOADED).
// - /setProperty and /getProperty name their property as the query (`?forwardEndTime`); one
//   this receiver does not know is 404 with the known ones named (Kodi answers 404 to both
//   requests, and senders carry on).
// - The video takes the screen: a photo or slideshow showing ends (their events), and a photo
//   or slideshow started later ends the video (`stopped`).

import type { Dialect } from '../../dialect';
import { HEADER, STATUS } from '../../http';
import type { Clock, Logger, Player, RandomSource } from '../../platform';
import { encodeBinaryPlist } from '../../plist/binary';
import type { PlistValue } from '../../plist/value';
import { encodeXmlPlistBytes } from '../../plist/xml';
import type { ReceiverLimits } from '../limits';
import type { Deadlines } from '../timers';
import { hostPort } from '../connection/connection';
import type { MediaSession } from '../media/media-session';
import { refuse, type Request, type Response, type Router } from '../connection/router';
import { accessLogEntry, errorLogEntry, NOTHING_LOADED, playbackInfoPlist, propertyReply, scrubParameters } from './video-replies';
import { queryNumber, readEndTime, readPlayRequest, VideoRequestError } from './video-request';
import { VideoSession, type VideoCarrier, type VideoSender } from './video-session';

/** spec 4.2: the media type of GET /scrub's body (not maker-named). */
export const TEXT_PARAMETERS = 'text/parameters';

/** spec 4.2 PUT /setProperty: the properties served, and the end time each sets. */
export const SET_PROPERTIES = { forwardEndTime: 'forward', reverseEndTime: 'reverse' } as const;

/** The 404 for a property missing from the query or not served, naming those that are. */
function unknownProperty(what: string, property: string | undefined, known: readonly string[]): Response {
  return refuse(STATUS.notFound, `${what}: ${property === undefined ? 'no property named' : `unknown property ${JSON.stringify(property)}`}; known: ${known.join(', ')}`);
}

/** A CMTime plist is under 200 bytes; a /getProperty body is empty. */
const PROPERTY_BODY_LIMIT = 4096;

/** What the video endpoints need. */
export interface VideoContext {
  readonly clock: Clock;
  readonly timers: Deadlines;
  readonly log: Logger;
  readonly random: RandomSource;
  readonly player: Player;
  readonly media: MediaSession;
  readonly mime: Dialect['mime'];
  readonly limits: Pick<ReceiverLimits, 'maxVideoUrlBytes' | 'videoLoadTimeoutMs' | 'videoLogEntries' | 'maxVideoRate'>;
}

const NO_VIDEO = 'no video is loaded (POST /play first)';

/** The one property a /setProperty or /getProperty names: the query's first parameter. */
function propertyOf(request: Request): string | undefined {
  for (const name of request.query.keys()) return name;
  return undefined;
}

/** Registers the video endpoints and POST /stop handling; returns the session. */
export function registerVideoRoutes(router: Router, context: VideoContext): VideoSession {
  const { clock, log, media, mime, limits } = context;
  const session: VideoSession = new VideoSession({
    clock,
    timers: context.timers,
    log,
    player: context.player,
    random: context.random,
    limits,
    onState: (owner, state) => {
      // Photos and slideshows share the activity: it ends only when the last of them does.
      if (state === 'stopped') {
        if (!session.loaded) media.end('video');
      } else {
        media.begin('video');
      }
      // spec 6: the video event; sent after the answer of the request that caused it.
      media.events.send(owner, 'video', state);
    },
  });

  const binaryPlist = (body: PlistValue): Response => ({
    status: STATUS.ok,
    headers: { [HEADER.contentType]: mime.plistBinary },
    body: encodeBinaryPlist(body),
  });

  router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/play',
    handler: (request): Response => {
      let asked;
      try {
        asked = readPlayRequest(request.body, limits.maxVideoUrlBytes);
      } catch (error) {
        if (!(error instanceof VideoRequestError)) throw error;
        return refuse(STATUS.badRequest, error.message);
      }
      const owner = request.sessionId ?? asked.sessionId;
      // A new video reports from `loading` again, even after the same sender's last one did.
      media.events.reset(owner, 'video');
      media.takeScreen('video', request.order, 'a video took the screen');
      // The video lives as long as this request's connection (video-session.ts).
      const carrier: VideoCarrier = { name: hostPort(request.remoteAddress, request.remotePort), hold: (onClose) => request.state.hold(onClose) };
      session.play({ sessionId: owner, address: request.remoteAddress }, asked.url, asked.start, asked.startPaused, carrier);
      // spec 4.2: 200, empty.
      return { status: STATUS.ok };
    },
  });

  router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/scrub',
    maxBodyBytes: PROPERTY_BODY_LIMIT,
    handler: (request): Response => {
      if (!session.loaded) return refuse(STATUS.conflict, `POST /scrub: ${NO_VIDEO}`);
      let position: number;
      try {
        position = queryNumber(request.query, 'position');
      } catch (error) {
        if (!(error instanceof VideoRequestError)) throw error;
        return refuse(STATUS.badRequest, `POST /scrub: ${error.message}`);
      }
      if (!(position >= 0) || !Number.isFinite(position)) return refuse(STATUS.badRequest, `POST /scrub: position ${position} is not a number of seconds from 0`);
      session.seek(position);
      return { status: STATUS.ok };
    },
  });

  router.add({
    protocol: 'HTTP',
    method: 'GET',
    path: '/scrub',
    maxBodyBytes: 0,
    handler: (): Response => {
      const info = session.info(clock.now());
      return { status: STATUS.ok, headers: { [HEADER.contentType]: TEXT_PARAMETERS }, body: scrubParameters(info?.duration ?? 0, info?.position ?? 0) };
    },
  });

  router.add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/rate',
    maxBodyBytes: PROPERTY_BODY_LIMIT,
    handler: (request): Response => {
      if (!session.loaded) return refuse(STATUS.conflict, `POST /rate: ${NO_VIDEO}`);
      let rate: number;
      try {
        rate = queryNumber(request.query, 'value');
      } catch (error) {
        if (!(error instanceof VideoRequestError)) throw error;
        return refuse(STATUS.badRequest, `POST /rate: ${error.message}`);
      }
      if (!(Math.abs(rate) <= limits.maxVideoRate)) return refuse(STATUS.badRequest, `POST /rate: value ${rate} is beyond the rates this receiver plays (-${limits.maxVideoRate} to ${limits.maxVideoRate}, limits.maxVideoRate)`);
      session.setRate(rate);
      return { status: STATUS.ok };
    },
  });

  router.add({
    protocol: 'HTTP',
    method: 'GET',
    path: '/playback-info',
    maxBodyBytes: 0,
    handler: (): Response => {
      const info = session.info(clock.now());
      return {
        status: STATUS.ok,
        headers: { [HEADER.contentType]: mime.plistXml },
        body: encodeXmlPlistBytes(info ? playbackInfoPlist(info) : NOTHING_LOADED),
      };
    },
  });

  router.add({
    protocol: 'HTTP',
    method: 'PUT',
    path: '/setProperty',
    maxBodyBytes: PROPERTY_BODY_LIMIT,
    handler: (request): Response => {
      const property = propertyOf(request);
      if (property === undefined || !Object.prototype.hasOwnProperty.call(SET_PROPERTIES, property)) {
        return unknownProperty('PUT /setProperty', property, Object.keys(SET_PROPERTIES));
      }
      if (!session.loaded) return refuse(STATUS.conflict, `PUT /setProperty?${property}: ${NO_VIDEO}`);
      let seconds: number | undefined;
      try {
        seconds = readEndTime(request.body);
      } catch (error) {
        if (!(error instanceof VideoRequestError)) throw error;
        return refuse(STATUS.badRequest, `PUT /setProperty?${property}: ${error.message}`);
      }
      session.setEndTime(SET_PROPERTIES[property as keyof typeof SET_PROPERTIES], seconds);
      // spec 4.2, 7: errorCode 0 when it succeeded.
      return binaryPlist(propertyReply());
    },
  });

  // spec 4.2, 2.10: the properties a sender reads, and what each reads: its own entries only.
  const getProperties = {
    playbackAccessLog: (asker: VideoSender) => session.accessLog(asker).map(accessLogEntry),
    playbackErrorLog: (asker: VideoSender) => session.errorLog(asker).map(errorLogEntry),
  };
  // spec 4.2: GET in the reference, POST (binary plist Content-Type, empty body) in the samples.
  const getProperty = (request: Request): Response => {
    const property = propertyOf(request);
    if (property === undefined || !Object.prototype.hasOwnProperty.call(getProperties, property)) {
      return unknownProperty(`${request.method} /getProperty`, property, Object.keys(getProperties));
    }
    return binaryPlist(propertyReply(getProperties[property as keyof typeof getProperties]({ sessionId: request.sessionId, address: request.remoteAddress })));
  };
  for (const method of ['GET', 'POST']) router.add({ protocol: 'HTTP', method, path: '/getProperty', maxBodyBytes: PROPERTY_BODY_LIMIT, handler: getProperty });

  media.register('video', {
    // spec 3, 4.1: POST /stop stops video playback too (a sender without a session id: whatever plays).
    stop: (sessionId) => {
      session.stop('POST /stop', sessionId);
    },
    // A photo or a slideshow took the screen: the video ends.
    yieldScreen: (_order, reason) => {
      session.stop(reason);
    },
  });
  return session;
}
