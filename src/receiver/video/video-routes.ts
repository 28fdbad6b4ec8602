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
import { inContext, RequestError } from '../../errors';
import { HEADER, STATUS } from '../../http';
import type { Clock, Logger, Player, RandomSource } from '../../platform';
import { encodeBinaryPlist } from '../../plist/binary';
import { TEXT_PARAMETERS } from '../../plist/parameters';
import type { PlistValue } from '../../plist/value';
import { encodeXmlPlistBytes } from '../../plist/xml';
import type { ReceiverLimits } from '../limits';
import type { Deadlines } from '../timers';
import { hostPort } from '../connection/connection';
import type { MediaSession } from '../media/media-session';
import type { Request, Response, Router } from '../connection/router';
import { accessLogEntry, errorLogEntry, NOTHING_LOADED, playbackInfoPlist, propertyReply, scrubParameters } from './video-replies';
import { queryNumber, readEndTime, readPlayRequest, VideoRequestError } from './video-request';
import { VideoSession, type VideoCarrier, type VideoSender } from './video-session';

/** spec 4.2 PUT /setProperty: the properties served, and the end time each sets. */
const SET_PROPERTIES = { forwardEndTime: 'forward', reverseEndTime: 'reverse' } as const;

/**
 * Properties senders set after POST /play that change nothing here (not in the spec): answered
 * errorCode 0 as real receivers answer them, since pyatv and iOS give up on the video otherwise.
 * `isInterestedInDateRange`: date-range metadata of live streams; `actionAtItemEnd`: what follows
 * the item (there is no queue: it ends).
 */
const ACCEPTED_SET_PROPERTIES = ['isInterestedInDateRange', 'actionAtItemEnd'] as const;

/** A CMTime plist is under 200 bytes; a /getProperty body is empty. */
const PROPERTY_BODY_LIMIT = 4096;

/** What the video endpoints need. */
interface VideoContext {
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

/** The 409 of a request that needs a video loaded (see the file's head). */
function needsVideo(session: VideoSession, what: string): void {
  if (!session.loaded) throw new RequestError(STATUS.conflict, `${what}: ${NO_VIDEO}`);
}

/**
 * The video endpoints, one method each, named after what it does. A request that cannot be
 * used throws (VideoRequestError, 400; 404 and 409 as RequestError), answered by the router.
 */
class VideoEndpoints {
  /** spec 4.2, 2.10: the properties a sender reads, and what each reads: its own entries only. */
  private readonly getProperties = {
    playbackAccessLog: (asker: VideoSender) => this.session.accessLog(asker).map(accessLogEntry),
    playbackErrorLog: (asker: VideoSender) => this.session.errorLog(asker).map(errorLogEntry),
  };

  constructor(
    private readonly session: VideoSession,
    private readonly context: VideoContext,
  ) {}

  /** POST /play: load the URL and play it (spec 4.2: 200, empty). */
  play(request: Request): Response {
    const { media, limits } = this.context;
    const asked = readPlayRequest(request.body, limits.maxVideoUrlBytes);
    const owner = request.sessionId ?? asked.sessionId;
    // A new video reports from `loading` again, even after the same sender's last one did.
    media.events.reset(owner, 'video');
    media.takeScreen('video', request.order, 'a video took the screen');
    // The video lives as long as this request's connection (video-session.ts).
    const carrier: VideoCarrier = { name: hostPort(request.remoteAddress, request.remotePort), hold: (onEnd) => request.state.hold(onEnd) };
    this.session.play({ sessionId: owner, address: request.remoteAddress }, asked.url, asked.start, asked.startPaused, carrier);
    return { status: STATUS.ok };
  }

  /** POST /scrub?position=: seek to seconds from the start. */
  seek(request: Request): Response {
    needsVideo(this.session, 'POST /scrub');
    const position = inContext('POST /scrub', () => queryNumber(request.query, 'position'));
    if (!(position >= 0) || !Number.isFinite(position)) throw new VideoRequestError(`POST /scrub: position ${position} is not a number of seconds from 0`);
    this.session.seek(position);
    return { status: STATUS.ok };
  }

  /** GET /scrub: a question, answered whatever is loaded (0 and 0 when nothing is). */
  scrub(): Response {
    const info = this.session.info(this.context.clock.now());
    return { status: STATUS.ok, headers: { [HEADER.contentType]: TEXT_PARAMETERS }, body: scrubParameters(info?.duration ?? 0, info?.position ?? 0) };
  }

  /** POST /rate?value=: play (1), pause (0), or another rate up to limits.maxVideoRate. */
  rate(request: Request): Response {
    const { maxVideoRate } = this.context.limits;
    needsVideo(this.session, 'POST /rate');
    const rate = inContext('POST /rate', () => queryNumber(request.query, 'value'));
    if (!(Math.abs(rate) <= maxVideoRate)) throw new VideoRequestError(`POST /rate: value ${rate} is beyond the rates this receiver plays (-${maxVideoRate} to ${maxVideoRate}, limits.maxVideoRate)`);
    this.session.setRate(rate);
    return { status: STATUS.ok };
  }

  /** GET /playback-info: spec 2.9's plist, or what real receivers answer with nothing loaded. */
  playbackInfo(): Response {
    const info = this.session.info(this.context.clock.now());
    return { status: STATUS.ok, headers: { [HEADER.contentType]: this.context.mime.plistXml }, body: encodeXmlPlistBytes(info ? playbackInfoPlist(info) : NOTHING_LOADED) };
  }

  /** PUT /setProperty?forwardEndTime (or reverseEndTime): where playback ends. */
  setProperty(request: Request): Response {
    const asked = propertyOf(request);
    if ((ACCEPTED_SET_PROPERTIES as readonly (string | undefined)[]).includes(asked)) {
      this.context.log('debug', `PUT /setProperty?${asked}: accepted, no effect here`);
      return this.binaryPlist(propertyReply());
    }
    const property = knownProperty('PUT /setProperty', asked, SET_PROPERTIES, ACCEPTED_SET_PROPERTIES);
    needsVideo(this.session, `PUT /setProperty?${property}`);
    const seconds = inContext(`PUT /setProperty?${property}`, () => readEndTime(request.body));
    this.session.setEndTime(SET_PROPERTIES[property], seconds);
    // spec 4.2, 7: errorCode 0 when it succeeded.
    return this.binaryPlist(propertyReply());
  }

  /** GET /getProperty (the reference) or POST (the samples: binary plist Content-Type, empty body). */
  getProperty(request: Request): Response {
    const property = knownProperty(`${request.method} /getProperty`, propertyOf(request), this.getProperties);
    return this.binaryPlist(propertyReply(this.getProperties[property]({ sessionId: request.sessionId, address: request.remoteAddress })));
  }

  private binaryPlist(body: PlistValue): Response {
    return { status: STATUS.ok, headers: { [HEADER.contentType]: this.context.mime.plistBinary }, body: encodeBinaryPlist(body) };
  }
}

/** The property a request names when `known` serves it; else 404 naming those it does (and `alsoKnown`). */
function knownProperty<Known extends object>(what: string, property: string | undefined, known: Known, alsoKnown: readonly string[] = []): keyof Known & string {
  if (property !== undefined && Object.prototype.hasOwnProperty.call(known, property)) return property as keyof Known & string;
  throw new RequestError(STATUS.notFound, `${what}: ${property === undefined ? 'no property named' : `unknown property ${JSON.stringify(property)}`}; known: ${[...Object.keys(known), ...alsoKnown].join(', ')}`);
}

/**
 * The video routes: method, path, the endpoint, and the largest body when not the receiver's.
 * HTTP, and RTSP too: inside a session senders send them on the RTSP connection that carried
 * SETUP, some as RTSP/1.0 (pyatv: PUT /setProperty and POST /rate; POST /play as HTTP/1.1).
 */
const VIDEO_ROUTES: readonly { readonly method: string; readonly path: string; readonly endpoint: Exclude<keyof VideoEndpoints, 'getProperties'>; readonly maxBodyBytes?: number }[] = [
  { method: 'POST', path: '/play', endpoint: 'play' },
  { method: 'POST', path: '/scrub', endpoint: 'seek', maxBodyBytes: PROPERTY_BODY_LIMIT },
  { method: 'GET', path: '/scrub', endpoint: 'scrub', maxBodyBytes: 0 },
  { method: 'POST', path: '/rate', endpoint: 'rate', maxBodyBytes: PROPERTY_BODY_LIMIT },
  { method: 'GET', path: '/playback-info', endpoint: 'playbackInfo', maxBodyBytes: 0 },
  { method: 'PUT', path: '/setProperty', endpoint: 'setProperty', maxBodyBytes: PROPERTY_BODY_LIMIT },
  { method: 'GET', path: '/getProperty', endpoint: 'getProperty', maxBodyBytes: PROPERTY_BODY_LIMIT },
  { method: 'POST', path: '/getProperty', endpoint: 'getProperty', maxBodyBytes: PROPERTY_BODY_LIMIT },
];

/** Registers the video endpoints and POST /stop handling; returns the session. */
export function registerVideoRoutes(router: Router, context: VideoContext): VideoSession {
  const { clock, log, media, limits } = context;
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
      // The host hears the states people see (VideoSession tells each change once).
      if (state !== 'loading') media.announce(`video-${state}`, { sessionId: owner });
    },
  });
  const endpoints = new VideoEndpoints(session, context);
  for (const { method, path, endpoint, maxBodyBytes } of VIDEO_ROUTES) {
    router.add({ method, path, maxBodyBytes, handler: (request) => endpoints[endpoint](request) });
  }

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
