// The slideshow endpoints (spec 4.1): GET /slideshow-features and PUT /slideshows/1; and the
// wiring of the Slideshow state machine to the receiver: events (spec 6), activity, POST /stop.

import type { PictureBudget } from '../media/picture-budget';
import type { Dialect } from '../../dialect';
import { describeError, RequestError } from '../../errors';
import { HEADER, STATUS } from '../../http';
import type { Clock, Logger } from '../../platform';
import { decodePlist } from '../../plist/any';
import { getPath } from '../../plist/path';
import { isPlistDict, type PlistValue } from '../../plist/value';
import { encodeXmlPlistBytes } from '../../plist/xml';
import type { ReceiverLimits } from '../limits';
import type { Deadlines } from '../timers';
import type { MediaSession } from '../media/media-session';
import type { ReverseRegistry } from '../connection/reverse';
import type { Request, Response, Router } from '../connection/router';
import { ReplyCache } from '../connection/reply-cache';
import { Slideshow, type SlideshowSettings } from './slideshow';
import { DEFAULT_THEME, slideshowFeatures, themeKey, themeLanguage } from './slideshow-themes';

/** spec 2.7 slideDuration when a sender gives none (the common sender default), in seconds. */
const DEFAULT_SLIDE_DURATION_S = 3;
/** The slide durations accepted, in seconds: from one second to an hour. */
const MIN_SLIDE_DURATION_S = 1;
const MAX_SLIDE_DURATION_S = 3600;

/** A PUT /slideshows/1 body is a small dictionary (spec 2.7). */
const SLIDESHOW_BODY_LIMIT = 16 * 1024;

/** spec 2.7: what a PUT /slideshows/1 asks. */
interface SlideshowRequest {
  readonly state: 'playing' | 'stopped';
  readonly settings: SlideshowSettings;
  /** The theme the sender named when it is not in SLIDESHOW_THEMES (DEFAULT_THEME is used). */
  readonly unknownTheme?: string;
}

/** A PUT /slideshows/1 body that cannot start or stop a show (400); the message says why. */
class SlideshowRequestError extends RequestError {
  override name = 'SlideshowRequestError';

  constructor(reason: string) {
    super(STATUS.badRequest, reason);
  }
}

/** Reads a PUT /slideshows/1 body (spec 2.7; nested `settings` dict). Throws SlideshowRequestError. */
export function readSlideshowRequest(body: Uint8Array): SlideshowRequest {
  let plist: PlistValue;
  try {
    plist = decodePlist(body);
  } catch (error) {
    throw new SlideshowRequestError(`body is not a property list: ${describeError(error)}`);
  }
  if (!isPlistDict(plist)) throw new SlideshowRequestError('body is not a dictionary');
  const state = getPath(plist, 'state');
  if (state !== 'playing' && state !== 'stopped') throw new SlideshowRequestError(`state ${JSON.stringify(describeValue(state))} is not playing or stopped`);
  const duration = getPath(plist, 'settings.slideDuration');
  let seconds = DEFAULT_SLIDE_DURATION_S;
  if (duration !== undefined) {
    seconds = typeof duration === 'bigint' ? Number(duration) : typeof duration === 'number' ? duration : NaN;
    if (!(seconds >= MIN_SLIDE_DURATION_S && seconds <= MAX_SLIDE_DURATION_S)) {
      throw new SlideshowRequestError(`settings.slideDuration ${describeValue(duration)} is not a number of seconds from ${MIN_SLIDE_DURATION_S} to ${MAX_SLIDE_DURATION_S}`);
    }
  }
  const theme = getPath(plist, 'settings.theme');
  if (theme !== undefined && typeof theme !== 'string') throw new SlideshowRequestError(`settings.theme ${describeValue(theme)} is not a string`);
  const key = theme === undefined ? DEFAULT_THEME : themeKey(theme);
  return {
    state,
    settings: { slideDurationMs: Math.round(seconds * 1000), theme: key ?? DEFAULT_THEME },
    ...(key === undefined && { unknownTheme: theme }),
  };
}

function describeValue(value: PlistValue | undefined): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : value instanceof Uint8Array ? 'data' : 'a dictionary';
}

/** What the slideshow endpoints need: time, the media session, the senders' reverse connections. */
interface SlideshowRoutesContext {
  readonly clock: Clock;
  readonly timers: Deadlines;
  readonly log: Logger;
  readonly media: MediaSession;
  readonly reverse: ReverseRegistry;
  readonly mime: Dialect['mime'];
  readonly limits: Pick<ReceiverLimits, 'slideshowLookAhead' | 'slideshowPictureTries' | 'maxReverseBodyBytes'>;
  /** Where the pictures fetched and shown are counted (limits.pictureBudgetBytes). */
  readonly pictures: PictureBudget;
}

/** Registers the slideshow endpoints and POST /stop handling; returns the slideshow. */
export function registerSlideshowRoutes(router: Router, context: SlideshowRoutesContext): Slideshow {
  const { clock, log, media, mime } = context;
  const slideshow = new Slideshow({
    clock,
    timers: context.timers,
    log,
    display: media.display,
    connections: context.reverse,
    accept: mime.plistBinary,
    lookAhead: context.limits.slideshowLookAhead,
    pictureTries: context.limits.slideshowPictureTries,
    pictures: context.pictures,
    fetchBytes: context.limits.maxReverseBodyBytes,
    onReport: (sessionId, state, lastAssetID) => {
      // A photo session of the same activity may still hold the screen.
      if (state === 'stopped') media.end('slideshow');
      else media.begin('slideshow');
      media.updateStatus({ slideshow: state === 'stopped' ? undefined : state });
      // spec 6: the slideshow event; delivery problems are logged by the event sender.
      media.events.send(sessionId, 'slideshow', state, { lastAssetID });
    },
  });

  const plistReply = (body: PlistValue): Response => ({
    status: STATUS.ok,
    headers: { [HEADER.contentType]: mime.plistXml },
    body: encodeXmlPlistBytes(body),
  });

  const featuresReplies = new ReplyCache<Response>();
  router.add({
    protocol: 'HTTP',
    method: 'GET',
    path: '/slideshow-features',
    maxBodyBytes: 0,
    // spec 4.1: the themes, named in the language of Accept-Language. The theme table is fixed
    // and the dialect's MIME type with it: one reply per language, built once (reply-cache.ts).
    handler: (request: Request) => {
      const language = themeLanguage(request.head.headers.get(HEADER.acceptLanguage));
      return featuresReplies.get([mime], language, () => plistReply(slideshowFeatures(language)));
    },
  });

  router.add({
    protocol: 'HTTP',
    method: 'PUT',
    path: '/slideshows/1',
    maxBodyBytes: SLIDESHOW_BODY_LIMIT,
    handler: (request: Request): Response => {
      const asked = readSlideshowRequest(request.body);
      if (asked.unknownTheme !== undefined) log('info', `slideshow: theme ${JSON.stringify(asked.unknownTheme)} is not one of ours: ${DEFAULT_THEME}`);
      if (asked.state === 'playing') {
        // The slideshow takes the screen: a photo session showing there ends (spec 6 photo event).
        media.takeScreen('slideshow', request.order, 'a slideshow took the screen');
        slideshow.play(request.sessionId, asked.settings);
      } else if (!slideshow.stop('the sender stopped it', request.sessionId)) log('debug', `slideshow: PUT /slideshows/1 stopped: no show of session ${request.sessionId ?? '(none)'} runs`);
      // spec 4.1: the reply is an empty dictionary.
      return plistReply({});
    },
  });

  media.register('slideshow', {
    // spec 3: POST /stop ends the sender's slideshow (a sender without a session id: whichever runs).
    stop: (sessionId) => {
      slideshow.stop('POST /stop', sessionId);
    },
    // A photo shown does not stop a show (its next slide takes the screen back); a video does.
    yieldScreen: (_order, reason, by) => {
      if (by !== 'photo') slideshow.stop(reason);
    },
  });
  return slideshow;
}
