// Photos (spec 3, 4.1, 6): PUT /photo shows a JPEG at once, caches it (cacheOnly) or shows a cached
// one (displayCached); the photo session this opens ends with POST /stop (the photo event).
//
// Decisions the spec leaves open, and what this receiver does:
// - Which picture is shown when requests overlap. Senders upload the photos either side of the
//   one shown with cacheOnly, on several connections, while the person swipes: requests finish
//   in any order. The screen always shows what was asked for last, by the arrival order of the
//   request heads (Request.order): a display request that finishes after a newer display or a
//   POST /stop changes nothing on the screen (it is still cached and answered 200), and a
//   cacheOnly never touches the screen. A displayCached whose key is still being uploaded is
//   answered 412 at once (spec 3), and the sender sends the picture in full.
// - A shown picture that carries an AssetKey is cached too (it counts as the most recent use),
//   so going back to it is a displayCached; a frame's three entries hold the previous, the shown
//   and the next photo.
// - Activity: spec 2.1's table has no photo row. Real receivers treat a photo session like a
//   video session (the screen belongs to a sender: flag ReceiverSessionIsActive set, the group
//   fields of "receiving video"), so the first picture shown moves to receivingVideo and the
//   end of the session back to idle.
// - A photo session belongs to the sender session that shows pictures. Another session's
//   picture takes the screen over: the previous one gets its photo event (state stopped) and its
//   cached pictures are dropped. POST /stop from another session leaves the screen alone and
//   only drops that session's cached pictures; one without a session id stops whatever is shown.
// - Memory: every picture is counted in the picture budget (limits.pictureBudgetBytes,
//   media/picture-budget.ts) once, however many hold it. An upload reserves its Content-Length on
//   its head (the cache gives back least recently used photos first); one that still does not
//   fit is answered 413 before its body is read, naming the limit. The shown picture is the
//   request's bytes, held by the screen (and by the cache when it has a key): never a second copy.
//   Its grant carries that array, so the host is told when the last holder lets go.
// - Streaming: on a screen that decodes a picture as it arrives (Display.openPhotoStream), one
//   that need not be kept goes to the screen piece by piece (photo-stream.ts), up to
//   limits.maxStreamedPhotoBytes, holding at most limits.maxStreamedPhotoHeldBytes (what it counts
//   in the picture budget). Need not be kept: shown at once (no AssetAction) and not cached, that
//   is without an AssetKey, or with a Content-Length larger than the whole cache (it would not be
//   cached anyway). A picture that would be cached, or a chunked one with a key, is read whole.
//   The streamed picture takes the screen when its header has passed the checks; the screen
//   keeps none of its bytes, so nothing of it is counted as shown.
// - Statuses: a body that is not a JPEG (src/receiver/media/jpeg.ts), or one the screen's decoder
//   cannot read (Display.cannotShow; for cacheOnly too, as a cached picture is for showing) 415;
//   over maxPhotoBytes 413 (the connection's parser, from the route's limit), a streamed one over
//   maxStreamedPhotoBytes 413 on its head (naming the limit); no body, or no
//   AssetKey where one is needed, or an unknown AssetAction 400; displayCached of a key not
//   cached 412 (spec 4.1, 7).

import { readMakerHeader } from '../../dialect';
import { RequestError } from '../../errors';
import { STATUS } from '../../http';
import type { Display, JpegFrame, Logger, PhotoStreamSink } from '../../platform';
import { JpegError, describeJpegFrame, inspectJpeg, type JpegInfo } from '../media/jpeg';
import type { ReceiverLimits } from '../limits';
import type { MediaFeature, MediaSession } from '../media/media-session';
import { PhotoCache, ownBytes } from './photo-cache';
import type { PictureBudget, PictureGrant } from '../media/picture-budget';
import { refuse, type Admitted, type Answer, type Arrival, type Request, type Response, type Router } from '../connection/router';
import { StreamedPhotoUpload } from './photo-stream';
import { cannotShowReason, notJpegReason } from './photo-refusals';
import type { RequestHead } from '../../http';
import { transitionOf } from '../media/transitions';

/** spec 4.1: the values of X-Vendor-AssetAction. */
const ASSET_ACTIONS = ['cacheOnly', 'displayCached'] as const;
export type AssetAction = (typeof ASSET_ACTIONS)[number];

/** What photos need: the screen, the media session, the limits and a log. */
interface PhotoContext {
  readonly log: Logger;
  readonly display: Display;
  readonly media: MediaSession;
  readonly limits: Pick<ReceiverLimits, 'photoCacheBytes' | 'photoCacheEntries' | 'maxPhotoBytes' | 'maxStreamedPhotoBytes' | 'maxStreamedPhotoHeldBytes'>;
  /** Where every picture byte is counted (limits.pictureBudgetBytes). */
  readonly pictures: PictureBudget;
}

/** A PUT /photo let in on its head: its picture's bytes reserved until the handler has run. */
class PhotoUpload implements Admitted {
  constructor(
    readonly grant: PictureGrant,
    private readonly pictures: PictureBudget,
  ) {}

  release(): void {
    this.pictures.release(this.grant);
  }
}

/**
 * The picture's frame header. A body that is not a JPEG is refused 415: JpegError is the media
 * check's own (a slideshow reply fails it too), so a photo request turns it into its refusal
 * here. A JPEG the screen's decoder cannot read (Display.cannotShow: progressive on a board,
 * sampling factors it lacks) is refused 415 as well, before the answer, so the sender is told
 * instead of getting a 200 and a blank screen.
 */
function inspectPicture(jpeg: Uint8Array, display: Display): JpegInfo {
  let info: JpegInfo;
  try {
    info = inspectJpeg(jpeg);
  } catch (error) {
    if (!(error instanceof JpegError)) throw error;
    throw new RequestError(STATUS.unsupportedMediaType, notJpegReason(error.message));
  }
  const reason = display.cannotShow?.(info);
  if (reason !== undefined) throw new RequestError(STATUS.unsupportedMediaType, cannotShowReason(reason, info));
  return info;
}

export class PhotoFeature implements MediaFeature {
  readonly cache: PhotoCache;
  /** A photo session is on: a picture is on the screen. */
  active = false;
  /** The sender session whose picture is shown (undefined: none, or a sender without one). */
  owner: string | undefined;
  /** AssetKey of the picture shown, when it had one. */
  shownKey: string | undefined;
  /**
   * Arrival order (Request.order) of the newest request that decided the screen: a picture
   * shown or a stop. A request that arrived before it and finishes later changes nothing.
   */
  private decidedAt = 0;

  constructor(private readonly context: PhotoContext) {
    const { limits, pictures } = context;
    this.cache = new PhotoCache({ maxBytes: limits.photoCacheBytes, maxEntries: limits.photoCacheEntries }, pictures);
    pictures.addReclaimer((needed) => this.giveBack(needed));
  }

  /**
   * A PUT /photo head: the picture's bytes (its Content-Length, or maxPhotoBytes for a chunked
   * body) are reserved before the body is read; 413 naming the budget when they cannot be.
   */
  admit(head: RequestHead, arrival: Arrival): Response | Admitted | undefined {
    const bytes = head.framing === 'chunked' ? this.context.limits.maxPhotoBytes : (head.contentLength ?? 0);
    if (bytes === 0) return undefined; // displayCached, or no picture (400 in handle)
    if (this.streams(head)) return this.admitStream(head, arrival);
    const reservation = this.context.pictures.reserve(bytes, `PUT /photo of ${bytes} bytes`);
    if (!reservation.granted) return refuse(STATUS.contentTooLarge, reservation.reason);
    return new PhotoUpload(reservation.grant, this.context.pictures);
  }

  /**
   * Whether the picture goes to the screen as it arrives (see the header): the screen can take
   * it so, and it need not be kept.
   */
  streams(head: RequestHead): boolean {
    const { display, limits } = this.context;
    if (!display.openPhotoStream) return false;
    // cacheOnly keeps it, displayCached has no body, an unknown action is refused (400) whole.
    if (readMakerHeader(head.headers, 'AssetAction') !== undefined) return false;
    if (readMakerHeader(head.headers, 'AssetKey') === undefined) return true;
    return head.contentLength !== undefined && head.contentLength > limits.photoCacheBytes;
  }

  /** The largest body a PUT /photo may have: larger when it is drawn as it arrives. */
  maxBodyBytes(head: RequestHead): number {
    const { limits } = this.context;
    return this.streams(head) ? limits.maxStreamedPhotoBytes : limits.maxPhotoBytes;
  }

  /** A streamed PUT /photo's head: at most maxStreamedPhotoBytes, and its held bytes reserved. */
  private admitStream(head: RequestHead, arrival: Arrival): Response | Admitted {
    const { limits, pictures } = this.context;
    const length = head.contentLength;
    const what = `${arrival.remoteAddress}:${arrival.remotePort} PUT /photo`;
    if (length !== undefined && length > limits.maxStreamedPhotoBytes) {
      return refuse(STATUS.contentTooLarge, `PUT /photo of ${length} bytes is over limits.maxStreamedPhotoBytes (${limits.maxStreamedPhotoBytes}), the largest picture this screen draws as it arrives`);
    }
    const held = Math.min(length ?? limits.maxStreamedPhotoHeldBytes, limits.maxStreamedPhotoHeldBytes);
    const reservation = pictures.reserve(held, `PUT /photo drawn as it arrives (${length ?? 'chunked'} bytes, ${held} held)`);
    if (!reservation.granted) return refuse(STATUS.contentTooLarge, reservation.reason);
    const key = readMakerHeader(head.headers, 'AssetKey');
    const transition = readMakerHeader(head.headers, 'Transition');
    return new StreamedPhotoUpload(reservation.grant, { ...this.context, open: (frame) => this.openStream(arrival, frame, key, transition, length, what) }, what);
  }

  /**
   * A streamed picture's header has passed: it takes the screen unless a newer request decided
   * it; the display draws it as the rest arrives.
   */
  private openStream(arrival: Arrival, frame: JpegFrame, key: string | undefined, transition: string | undefined, length: number | undefined, what: string): PhotoStreamSink | undefined {
    const { log, display } = this.context;
    const size = describeJpegFrame(frame);
    if (arrival.order < this.decidedAt) {
      log('debug', `${what} ${key ?? '(no key)'} (request #${arrival.order}, ${size}) not shown: request #${this.decidedAt} was asked for later`);
      return undefined;
    }
    const sink = display.openPhotoStream!(frame, transition === undefined ? undefined : transitionOf(transition));
    // The screen keeps none of its bytes: the picture shown before lets go of its share.
    this.context.pictures.shown(undefined);
    log('debug', `${what} ${key ?? '(no key)'} (${size}, ${length ?? 'chunked'} bytes): drawn as it arrives`);
    this.tookScreen(arrival, key, transition, length);
    return sink;
  }

  /**
   * The picture budget is short of `needed` bytes: cached photos leave, least recently used
   * first, until that much is free (the one on the screen stays: the screen keeps it anyway).
   */
  private giveBack(needed: number): void {
    const { pictures, log } = this.context;
    const before = pictures.usedBytes;
    for (const key of this.cache.keys()) {
      if (before - pictures.usedBytes >= needed) return;
      if (this.active && key === this.shownKey) continue;
      this.cache.delete(key);
      log('debug', `photo ${key} left the cache: the picture budget needs ${needed} bytes`);
    }
  }

  /** PUT /photo (spec 4.1). */
  handle(request: Request): Answer {
    // Drawn as it arrived: its answer once the screen has finished it.
    if (request.admitted instanceof StreamedPhotoUpload) return request.admitted.finish((response) => request.respond(response));
    const what = `${request.remoteAddress}:${request.remotePort} PUT /photo`;
    const key = readMakerHeader(request.head.headers, 'AssetKey');
    const transition = readMakerHeader(request.head.headers, 'Transition');
    const actionText = readMakerHeader(request.head.headers, 'AssetAction');
    let action: AssetAction | undefined;
    if (actionText !== undefined) {
      action = ASSET_ACTIONS.find((known) => known.toLowerCase() === actionText.toLowerCase());
      if (!action) return refuse(STATUS.badRequest, `unknown AssetAction ${JSON.stringify(actionText)}; known: ${ASSET_ACTIONS.join(', ')}`);
    }

    if (action === 'displayCached') {
      if (!key) return refuse(STATUS.badRequest, 'displayCached without an AssetKey');
      const cached = this.cache.use(key);
      // spec 4.1, 7: the sender then sends the picture in full.
      if (!cached) return refuse(STATUS.preconditionFailed, `displayCached ${key}: not in the cache`);
      this.show(request, cached.jpeg, key, transition, cached.grant);
      return { status: STATUS.ok };
    }

    // One copy only, shared by the cache and the screen (a view would hold its whole buffer).
    const jpeg = ownBytes(request.body);
    if (jpeg.length === 0) return refuse(STATUS.badRequest, `${action ?? 'display'} without a picture in the body`);
    const size = describeJpegFrame(inspectPicture(jpeg, this.context.display));

    if (action === 'cacheOnly' && !key) return refuse(STATUS.badRequest, 'cacheOnly without an AssetKey');
    const { pictures } = this.context;
    const upload = request.admitted instanceof PhotoUpload ? request.admitted : undefined;
    let grant: PictureGrant;
    if (upload) {
      grant = upload.grant;
      pictures.trim(grant, jpeg.length);
    } else {
      // Not admitted on its head (no Content-Length): counted now.
      const reservation = pictures.reserve(jpeg.length, `PUT /photo of ${jpeg.length} bytes`);
      if (!reservation.granted) return refuse(STATUS.contentTooLarge, reservation.reason);
      grant = reservation.grant;
    }
    // The array is this picture's alone (the body's own, or ownBytes' copy): once the cache and
    // the screen have let go, the host may free it at once (PictureGrant.picture).
    grant.picture = jpeg;
    try {
      if (action === 'cacheOnly' && key) {
        this.store(key, jpeg, request.sessionId, grant, `${what} cacheOnly ${key} (${size}, ${jpeg.length} bytes)`);
        return { status: STATUS.ok };
      }
      if (key) this.store(key, jpeg, request.sessionId, grant, `${what} ${key} (${size}, ${jpeg.length} bytes)`);
      this.show(request, jpeg, key, transition, grant);
      return { status: STATUS.ok };
    } finally {
      // The cache and the screen hold their own shares; an admitted upload's is let go by the connection.
      if (!upload) pictures.release(grant);
    }
  }

  /**
   * POST /stop (spec 3): ends the photo session (the screen is cleared, the cache emptied, the
   * sender told with the photo event, activity back to idle). `order` is the stop's arrival
   * order: display requests asked before it do not show when they finish later.
   */
  stop(sessionId: string | undefined, order: number): void {
    const { log, media, display } = this.context;
    if (this.active && sessionId !== undefined && this.owner !== undefined && sessionId !== this.owner) {
      const dropped = this.cache.deleteSession(sessionId);
      log('debug', `POST /stop from session ${sessionId}: the photo shown is session ${this.owner}'s; ${dropped} cached photos of ${sessionId} dropped`);
      return;
    }
    this.decidedAt = Math.max(this.decidedAt, order);
    this.cache.clear();
    if (!this.active) return;
    const owner = this.owner ?? sessionId;
    this.active = false;
    this.owner = undefined;
    this.shownKey = undefined;
    display.clear();
    this.context.pictures.shown(undefined);
    // A slideshow still running keeps the activity it shares with photos.
    media.end('photo');
    log('debug', `photo session ${owner ?? '(no session id)'} stopped`);
    // Sent once the answer to the /stop has left (EventSender.hold).
    media.events.send(owner, 'photo', 'stopped');
  }

  /**
   * Another feature takes the screen (a slideshow or a video starts): the photo session ends as it would on
   * POST /stop, its sender is told, but the screen is left to the newcomer and the cache kept.
   * `order` is the taking request's arrival order: photos asked before it no longer show.
   */
  yieldScreen(order: number, reason: string): void {
    this.decidedAt = Math.max(this.decidedAt, order);
    if (!this.active) return;
    const owner = this.owner;
    this.active = false;
    this.owner = undefined;
    this.shownKey = undefined;
    this.context.log('debug', `photo session ${owner ?? '(no session id)'} ended: ${reason}`);
    this.context.media.end('photo');
    this.context.media.events.send(owner, 'photo', 'stopped');
  }

  private store(key: string, jpeg: Uint8Array, sessionId: string | undefined, grant: PictureGrant, what: string): void {
    const { log } = this.context;
    const { stored, evicted } = this.cache.put(key, jpeg, sessionId, grant);
    if (!stored) {
      const { maxBytes } = this.cache.limits;
      log('info', `${what}: not cached, larger than the whole cache (limits.photoCacheBytes ${maxBytes}); a displayCached of it gets 412`);
      return;
    }
    log('debug', `${what}: cached${evicted.length ? `, evicted ${evicted.join(', ')}` : ''} (${this.cache.size} photos, ${this.cache.bytes} bytes)`);
  }

  private show(request: Request, jpeg: Uint8Array, key: string | undefined, transition: string | undefined, grant: PictureGrant | undefined): void {
    const { log, display } = this.context;
    if (request.order < this.decidedAt) {
      log('debug', `PUT /photo ${key ?? '(no key)'} (request #${request.order}) not shown: request #${this.decidedAt} was asked for later`);
      return;
    }
    // The sender's name for the transition, resolved to the one the screen draws (transitions.ts).
    display.showPhoto(jpeg, transition === undefined ? undefined : transitionOf(transition));
    this.context.pictures.shown(grant);
    this.tookScreen(request, key, transition, jpeg.length);
  }

  /** A picture asked for by `arrival` is on the screen: the photo session, its owner and events follow. */
  private tookScreen(arrival: Arrival, key: string | undefined, transition: string | undefined, bytes: number | undefined): void {
    const { log, media } = this.context;
    const { sessionId } = arrival;
    this.decidedAt = arrival.order;
    if (this.active && this.owner !== undefined && sessionId !== undefined && this.owner !== sessionId) {
      // Another sender took the screen: the previous session has ended.
      const previous = this.owner;
      this.cache.deleteSession(previous);
      log('info', `photo session ${previous} ended: session ${sessionId} shows a photo`);
      media.events.send(previous, 'photo', 'stopped');
    }
    // A new session reports its own end, even when an earlier one of the same sender did.
    if (sessionId !== undefined && (!this.active || this.owner !== sessionId)) media.events.reset(sessionId, 'photo');
    this.active = true;
    this.owner = sessionId;
    this.shownKey = key;
    log('debug', `photo ${key ?? '(no key)'} shown${transition ? ` with transition ${transition}` : ''} for session ${sessionId ?? '(none)'}`);
    // The picture takes the screen: a video playing there ends (a slideshow carries on).
    media.takeScreen('photo', arrival.order, 'a photo took the screen');
    media.announce('photo-shown', { sessionId, address: arrival.remoteAddress }, { ...(key !== undefined && { key }), ...(bytes !== undefined && { bytes: String(bytes) }) });
  }
}

/** Serves PUT /photo on a receiver with a screen, and ends photo sessions on POST /stop. */
export function registerPhotoRoutes(router: Router, context: PhotoContext): PhotoFeature {
  const feature = new PhotoFeature(context);
  router.add({
    protocol: 'HTTP',
    method: 'PUT',
    path: '/photo',
    // Over it the connection's parser answers 413 (and keeps the connection when the body is
    // small enough to read and drop); a streamed picture's own limit is checked in admit.
    maxBodyBytes: (head) => feature.maxBodyBytes(head),
    // The picture budget is asked on the head: 413 before the body when the picture cannot fit.
    admit: (head, arrival) => feature.admit(head, arrival),
    handler: (request) => feature.handle(request),
  });
  context.media.register('photo', feature);
  return feature;
}
