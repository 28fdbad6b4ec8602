// The slideshow (spec 2.7, 2.8, 3, 4.1, 6, 8): a state machine that fetches pictures from the
// sender over its slideshow reverse connections, shows each for slideDuration seconds, keeps a
// bounded look-ahead, and reports loading / playing / stopped. Time comes from the clock port and
// its deadlines live in the receiver's timer table (timers.ts: slideshowSlide, slideshowRetry,
// slideshowGone); pictures go to the display port; nothing here touches a socket or a timer.
//
//   idle --play--> loading --first picture--> playing --slide time over, next ready--> playing
//                     ^                          |
//                     +--slide time over, none---+        any --stop--> idle (reported: stopped)

import { describeError } from '../../errors';
import { HEADER, SLIDESHOW_PURPOSE, STATUS } from '../../http';
import { decodePlist } from '../../plist/any';
import { getPath } from '../../plist/path';
import { PlistError, isPlistDict, type PlistValue } from '../../plist/value';
import type { Display, Logger, TimeSource } from '../../platform';
import type { Deadlines } from '../timers';
import { JpegError, inspectJpeg } from '../media/jpeg';
import { DEFAULT_THEME } from './slideshow-themes';
import { transitionOf } from '../media/transitions';
import { ReverseError, type ReverseCallback, type ReverseRequest, type ReverseResponse } from '../connection/reverse';
import type { PictureBudget, PictureGrant } from '../media/picture-budget';

/** spec 8: slideshow pictures are fetched over at most three connections in parallel. */
const PARALLEL_SLIDESHOW_FETCHES = 3;

/** spec 4.1: the request the receiver sends for the next picture. */
const SLIDESHOW_ASSET_TARGET = '/slideshows/1/assets/1';

/**
 * A show whose sender has had no slideshow connection open this long is over: the sender has
 * gone (a sender that reconnects does so within seconds).
 */
export const SENDER_GONE_MS = 30_000;

/** After a bad reply, new fetches wait this long, doubling per bad reply in a row up to the max. */
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8000;

/** What the state machine is doing. `idle` is reported to senders as `stopped` (spec 3). */
type SlideshowPhase = 'idle' | 'loading' | 'playing';

/** The states a slideshow reports (spec 3, 6). */
type SlideshowReport = 'loading' | 'playing' | 'stopped';

export interface SlideshowSettings {
  /** spec 2.7 settings.slideDuration, in milliseconds here. */
  readonly slideDurationMs: number;
  /** spec 2.7 settings.theme: a key of SLIDESHOW_THEMES, handed to the display as the transition. */
  readonly theme: string;
}

/** One picture of the show, from a sender's reply (spec 2.8). */
interface Slide {
  /** info.id; undefined when the sender gave none. Reported as lastAssetID (spec 6). */
  readonly id: number | undefined;
  /** info.key: an integer, or a string in some senders' replies (spec 2.8). */
  readonly key: number | string | undefined;
  readonly jpeg: Uint8Array;
}

/** A picture fetched, with its bytes in the picture budget (the whole reply: the JPEG is a view into it). */
interface FetchedSlide extends Slide {
  readonly grant: PictureGrant | undefined;
}

/** A reply that cannot be shown; the message says why. */
export class SlideshowError extends Error {
  override name = 'SlideshowError';
}

/** A reverse connection as the slideshow uses it (ReverseConnection is one). */
interface AssetConnection {
  readonly peer: string;
  readonly closed: boolean;
  /** Sends a request; the callback gets the response or a ReverseError. */
  request(request: ReverseRequest, callback: ReverseCallback): void;
  /** Called once when the connection ends. */
  onClose(listener: () => void): void;
}

/** The senders' reverse connections (ReverseRegistry is one). */
interface AssetConnections {
  /** Open connections of a session with a purpose, oldest first. */
  find(sessionId: string | undefined, purpose: string): AssetConnection[];
  /** Called for every connection added from now on (a sender that reconnects). */
  onAdded(listener: () => void): void;
}

interface SlideshowContext {
  readonly clock: TimeSource;
  /** The receiver's timer table: the slide, retry and sender-gone deadlines. */
  readonly timers: Deadlines;
  readonly log: Logger;
  /** Where pictures go; a receiver without a screen only logs them. */
  readonly display?: Display;
  readonly connections: AssetConnections;
  /** The Accept header of picture requests: the dialect's binary plist type (spec 4.1). */
  readonly accept: string;
  /** Most pictures fetched or being fetched ahead of the one shown (limits.slideshowLookAhead). */
  readonly lookAhead: number;
  /** Tries a picture that does not arrive is given before the show stops (limits.slideshowPictureTries). */
  readonly pictureTries: number;
  /**
   * Where pictures are counted: each fetch reserves fetchBytes (limits.maxReverseBodyBytes, the
   * largest reply taken) before it is sent, trimmed to the reply's size when it comes; a fetch
   * that does not fit is not sent until a picture is let go (the look-ahead shrinks).
   */
  readonly pictures?: PictureBudget;
  readonly fetchBytes?: number;
  /**
   * Told every change of reported state, in order and never twice in a row: the route module
   * turns these into events (spec 6), the activity and the status line.
   */
  onReport(sessionId: string | undefined, state: SlideshowReport, lastAssetID: number): void;
}

/** spec 2.8: reads a sender's reply to GET /slideshows/1/assets/1. Throws SlideshowError. */
export function readAssetReply(body: Uint8Array): Slide {
  let reply: PlistValue;
  try {
    reply = decodePlist(body);
  } catch (error) {
    const reason = error instanceof PlistError ? error.message : String(error);
    throw new SlideshowError(`reply is not a property list (${body.length} bytes: ${reason})`);
  }
  if (!isPlistDict(reply)) throw new SlideshowError('reply is not a dictionary');
  const data = getPath(reply, 'data');
  if (!(data instanceof Uint8Array)) throw new SlideshowError(data === undefined ? 'reply has no data' : 'reply data is not data');
  try {
    inspectJpeg(data);
  } catch (error) {
    if (!(error instanceof JpegError)) throw error;
    throw new SlideshowError(`reply data is not a JPEG (${data.length} bytes): ${error.message}`);
  }
  return { id: integerOf(getPath(reply, 'info.id')), key: keyOf(getPath(reply, 'info.key')), jpeg: data };
}

function integerOf(value: PlistValue | undefined): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  return undefined;
}

function keyOf(value: PlistValue | undefined): number | string | undefined {
  if (typeof value === 'string') return value;
  return integerOf(value);
}

/**
 * One slideshow at a time: the receiver has one screen, and a new sender's show replaces the
 * current one. Pictures are shown in the sender's asset order, `info.id` of each reply (spec
 * 2.8), whichever connection answers first: with three requests in flight on three connections
 * the sender may take them in any order, so the order the receiver sent them in says nothing.
 * A picture waits while the one before it (id - 1) may still be on its way: only a request that
 * was outstanding when the picture arrived can bring it (the sender numbers assets as requests
 * reach it, so a later request gets a later id). Once none of those is outstanding, the smallest
 * id waiting goes next (a failed request or a sender that skips ids leaves a gap). Replies
 * without an id are shown in arrival order, after those with one.
 */
export class Slideshow {
  private phase: SlideshowPhase = 'idle';
  private session: string | undefined;
  private settings: SlideshowSettings = { slideDurationMs: 3000, theme: DEFAULT_THEME };
  /** Bumped by every start and stop: a reply to an older generation's request is dropped. */
  private generation = 0;
  /**
   * Fetched, not yet shown, in the sender's asset order (info.id); each with the requests that
   * were outstanding when it arrived (only they can bring an earlier asset).
   */
  private readonly ready: { readonly slide: FetchedSlide; readonly waitsFor: readonly number[] }[] = [];
  /** Connections with a picture request outstanding, and that request's number. */
  private readonly fetching = new Map<AssetConnection, number>();
  /** The picture budget's grant of each fetch outstanding. */
  private readonly fetchGrants = new Map<AssetConnection, PictureGrant>();
  /** A fetch is waiting for room in the picture budget (said once in the log per wait). */
  private waitingForBudget = false;
  private nextRequest = 1;
  /** Connections whose end the show listens for (to notice a sender that has gone). */
  private readonly watched = new WeakSet<AssetConnection>();
  /** The slide shown last: its id and key only (the screen holds the picture, counted there). */
  private current: Pick<Slide, 'id' | 'key'> | undefined;
  private shownAt = 0;
  /** The current slide's time is over (or nothing was shown yet): show the next on arrival. */
  private waiting = true;
  private badReplies = 0;
  private retryAt = 0;
  /**
   * Tries in a row in which no picture arrived, and the newest request sent when the last try
   * was counted: a fetch already in flight then that fails too is part of that try (a sender's
   * restart or a stalled link fails every fetch at once), not another one.
   */
  private failedTries = 0;
  private requestAtLastTry = 0;
  private reported: SlideshowReport = 'stopped';

  constructor(private readonly context: SlideshowContext) {
    context.connections.onAdded(() => this.pump());
    context.pictures?.onRelease(() => {
      if (this.waitingForBudget) this.pump();
    });
  }

  get state(): SlideshowPhase {
    return this.phase;
  }

  /** The session whose show runs (undefined when idle or for a sender without a session id). */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** Picture requests outstanding (of any generation: each holds a connection and memory). */
  get fetchesInFlight(): number {
    return this.fetching.size;
  }

  /** Pictures fetched and waiting to be shown. */
  get picturesReady(): number {
    return this.ready.length;
  }

  /** The asset id last shown, 0 before any (spec 6 lastAssetID). */
  get lastAssetID(): number {
    return this.current?.id ?? 0;
  }

  /**
   * spec 3: PUT /slideshows/1 with state playing. Starts a show; for the session whose show
   * runs, applies the new settings to it (the current slide's time counts from when it was
   * shown). Another session's show is stopped first.
   */
  play(sessionId: string | undefined, settings: SlideshowSettings): void {
    const { log, clock } = this.context;
    if (this.phase !== 'idle' && sessionId !== this.session) this.stop('another sender started a slideshow');
    this.settings = settings;
    if (this.phase !== 'idle') {
      log('info', `slideshow: new settings: ${settings.slideDurationMs / 1000} s per slide, theme ${settings.theme}`);
      if (this.context.timers.deadline('slideshowSlide') !== undefined) this.armSlideTimer(Math.max(clock.now(), this.shownAt + settings.slideDurationMs));
      return;
    }
    this.generation++;
    this.resetOrder();
    this.session = sessionId;
    this.phase = 'loading';
    this.current = undefined;
    this.waiting = true;
    this.badReplies = 0;
    this.retryAt = 0;
    this.failedTries = 0;
    this.requestAtLastTry = 0;
    log('info', `slideshow: started for session ${sessionId ?? '(none)'}: ${settings.slideDurationMs / 1000} s per slide, theme ${settings.theme}`);
    this.report('loading');
    this.pump();
  }

  /**
   * spec 3: PUT /slideshows/1 with state stopped, or POST /stop. With a session id, stops only
   * that session's show. Returns whether a show was stopped.
   */
  stop(reason: string, sessionId?: string): boolean {
    if (this.phase === 'idle') return false;
    if (sessionId !== undefined && sessionId !== this.session) return false;
    const { log, display } = this.context;
    this.generation++;
    this.phase = 'idle';
    this.resetOrder();
    this.clearTimers();
    this.waiting = true;
    log('info', `slideshow: stopped (${reason}) after asset ${this.lastAssetID}`);
    display?.clear();
    this.context.pictures?.shown(undefined);
    this.report('stopped');
    this.session = undefined;
    return true;
  }

  /** Starts picture requests while a connection is free and the look-ahead has room. */
  private pump(): void {
    const { connections, lookAhead, clock } = this.context;
    if (this.phase === 'idle') return;
    const open = connections.find(this.session, SLIDESHOW_PURPOSE).filter((connection) => !connection.closed);
    for (const connection of open) {
      if (this.watched.has(connection)) continue;
      this.watched.add(connection);
      connection.onClose(() => this.pump());
    }
    this.watchSender(open.length > 0);
    if (clock.now() < this.retryAt) return; // the retry timer pumps again
    for (const connection of open) {
      if (this.fetching.size >= PARALLEL_SLIDESHOW_FETCHES || this.fetching.size + this.ready.length >= lookAhead) return;
      if (this.fetching.has(connection)) continue;
      const grant = this.reserveFetch();
      if (grant === null) return; // the picture budget is full: a release pumps again
      this.fetch(connection, grant);
    }
  }

  /**
   * Reserves a fetch's bytes in the picture budget: the grant, undefined without a budget, or
   * null when it does not fit now (the fetch waits for a picture to be let go).
   */
  private reserveFetch(): PictureGrant | undefined | null {
    const { pictures, fetchBytes, log } = this.context;
    if (!pictures) return undefined;
    const reservation = pictures.reserve(fetchBytes ?? 0, 'a slideshow picture fetch');
    if (reservation.granted) {
      this.waitingForBudget = false;
      return reservation.grant;
    }
    if (!this.waitingForBudget) log('debug', `slideshow: next picture request waits: ${reservation.reason}`);
    this.waitingForBudget = true;
    return null;
  }

  /**
   * Ends the show when the sender keeps no slideshow connection open for SENDER_GONE_MS: the
   * deadline is armed while it has none (counted from when the last went), and disarmed when one comes.
   */
  private watchSender(connected: boolean): void {
    const { clock, timers } = this.context;
    if (connected) timers.cancel('slideshowGone');
    else if (timers.deadline('slideshowGone') === undefined) {
      timers.set('slideshowGone', clock.now() + SENDER_GONE_MS, () => this.stop(`no slideshow connection from the sender for ${SENDER_GONE_MS / 1000} s`));
    }
  }

  private fetch(connection: AssetConnection, grant: PictureGrant | undefined): void {
    const { log, accept } = this.context;
    const generation = this.generation;
    this.fetching.set(connection, this.nextRequest++);
    if (grant) this.fetchGrants.set(connection, grant);
    log('debug', `slideshow: GET ${SLIDESHOW_ASSET_TARGET} on ${connection.peer}`);
    connection.request({ method: 'GET', target: SLIDESHOW_ASSET_TARGET, headers: { [HEADER.accept]: accept } }, (result) => {
      if (result instanceof ReverseError) this.failed(connection, generation, result);
      else this.replied(connection, generation, result);
    });
  }

  /**
   * Files a reply (or a failed request, as null) in asset order, and shows what is due when the
   * screen waits for a picture.
   */
  private arrived(slide: FetchedSlide | null): void {
    if (slide) {
      // Sorted by id; replies without one after those with one, in arrival order.
      let at = this.ready.length;
      if (slide.id !== undefined) {
        const id = slide.id;
        at = this.ready.findIndex(({ slide: other }) => other.id === undefined || other.id > id);
        if (at < 0) at = this.ready.length;
      }
      this.ready.splice(at, 0, { slide, waitsFor: [...this.fetching.values()] });
    }
    if (!this.waiting) return;
    const due = this.takeDue();
    if (due) this.show(due);
  }

  private replied(connection: AssetConnection, generation: number, response: ReverseResponse): void {
    const { log, pictures } = this.context;
    this.fetching.delete(connection);
    const grant = this.takeFetchGrant(connection);
    if (generation !== this.generation) {
      log('debug', `slideshow: reply on ${connection.peer} dropped: the show it was for has ended`);
      pictures?.release(grant);
      this.pump();
      return;
    }
    // A reply came whole: the sender's pictures arrive (a bad one is skipped below).
    this.failedTries = 0;
    let slide: FetchedSlide;
    try {
      if (response.head.status !== STATUS.ok) throw new SlideshowError(`sender answered ${response.head.status}`);
      // The picture is a view into the reply: the whole reply is what stays held.
      if (grant) pictures?.trim(grant, response.body.length);
      slide = { ...readAssetReply(response.body), grant };
    } catch (error) {
      pictures?.release(grant);
      this.arrived(null);
      this.badReply(connection, describeError(error));
      return;
    }
    this.badReplies = 0;
    log('debug', `slideshow: asset ${slide.id ?? '(no id)'} (key ${slide.key ?? '(none)'}, ${slide.jpeg.length} bytes) from ${connection.peer}`);
    this.arrived(slide);
    this.pump();
  }

  /** A reply that cannot be shown is skipped; new requests pause a while so a broken sender is not hammered. */
  private badReply(connection: AssetConnection, reason: string): void {
    const { log, clock } = this.context;
    this.badReplies++;
    const delay = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** (this.badReplies - 1));
    log('warn', `slideshow: picture from ${connection.peer} skipped: ${reason}; next request in ${delay} ms`);
    this.retryAt = clock.now() + delay;
    this.context.timers.set('slideshowRetry', this.retryAt, () => this.pump());
  }

  /** The connection failed (closed, timed out): it is gone from the registry; the others carry on, and new ones are picked up. */
  private failed(connection: AssetConnection, generation: number, error: unknown): void {
    const request = this.fetching.get(connection) ?? 0;
    this.fetching.delete(connection);
    this.context.pictures?.release(this.takeFetchGrant(connection));
    if (generation === this.generation) this.arrived(null);
    this.context.log('info', `slideshow: picture request on ${connection.peer} failed: ${describeError(error)}`);
    if (generation === this.generation && this.givesUp(request, describeError(error))) return;
    if (generation === this.generation && !connection.closed) {
      // Not a lost connection: treat it as a bad reply, so a retry does not spin.
      this.badReply(connection, describeError(error));
      return;
    }
    this.pump();
  }

  /**
   * Counts a failed fetch (request number `request`) as a try unless it was in flight when the
   * last try was counted; at limits.slideshowPictureTries the picture is given up and the show
   * stops, rather than asking the sender for it forever. Returns whether it stopped.
   */
  private givesUp(request: number, reason: string): boolean {
    if (request <= this.requestAtLastTry) return false;
    this.failedTries++;
    this.requestAtLastTry = this.nextRequest - 1;
    const { pictureTries, log } = this.context;
    if (this.failedTries < pictureTries) return false;
    log('warn', `slideshow: a picture did not arrive in ${this.failedTries} tries (last: ${reason}); giving it up`);
    this.stop(`no picture arrived in ${this.failedTries} tries`);
    return true;
  }

  /** The grant of the fetch on `connection`, which is over. */
  private takeFetchGrant(connection: AssetConnection): PictureGrant | undefined {
    const grant = this.fetchGrants.get(connection);
    this.fetchGrants.delete(connection);
    return grant;
  }

  /**
   * A new show starts with no pictures, and a stopped one lets go of those it fetched; replies
   * to the old one's requests are dropped by generation (their fetches keep their grants until then).
   */
  private resetOrder(): void {
    const dropped = this.ready.splice(0);
    for (const { slide } of dropped) this.context.pictures?.release(slide.grant);
  }

  /**
   * The picture due next, taken from `ready`: the smallest id when it follows the one shown (or
   * comes before it), or when no request that could bring an earlier one is outstanding.
   */
  private takeDue(): FetchedSlide | undefined {
    const first = this.ready[0];
    if (!first) return undefined;
    const { id } = first.slide;
    const expected = (this.current?.id ?? 0) + 1;
    const outstanding = new Set(this.fetching.values());
    if (id === undefined || id <= expected || !first.waitsFor.some((request) => outstanding.has(request))) {
      this.ready.shift();
      return first.slide;
    }
    return undefined;
  }

  private show(slide: FetchedSlide): void {
    const { log, display, clock, pictures } = this.context;
    this.current = { id: slide.id, key: slide.key };
    this.waiting = false;
    this.shownAt = clock.now();
    log('info', `slideshow: showing asset ${slide.id ?? '(no id)'} (key ${slide.key ?? '(none)'}, ${slide.jpeg.length} bytes, theme ${this.settings.theme})`);
    display?.showPhoto(slide.jpeg, transitionOf(this.settings.theme));
    this.phase = 'playing';
    this.report('playing');
    this.armSlideTimer(this.shownAt + this.settings.slideDurationMs);
    // The screen holds the picture now and lets go of the one before (last: a waiting fetch may
    // start from here); the slide lets go of its own share.
    if (pictures && slide.grant) {
      pictures.shown(slide.grant);
      pictures.release(slide.grant);
    }
  }

  private slideOver(): void {
    const next = this.takeDue();
    if (next) {
      this.show(next);
    } else {
      // The sender is slower than the show: keep the picture up and say so.
      this.context.log('info', `slideshow: asset ${this.lastAssetID} shown for its time; waiting for the next picture`);
      this.waiting = true;
      this.phase = 'loading';
      this.report('loading');
    }
    this.pump();
  }

  /** The current slide's time is over at `at` (monotonic ms). */
  private armSlideTimer(at: number): void {
    this.context.timers.set('slideshowSlide', at, () => this.slideOver());
  }

  private clearTimers(): void {
    const { timers } = this.context;
    timers.cancel('slideshowSlide');
    timers.cancel('slideshowRetry');
    timers.cancel('slideshowGone');
    this.retryAt = 0;
  }

  private report(state: SlideshowReport): void {
    if (state === this.reported) return;
    this.reported = state;
    this.context.onReport(this.session, state, this.lastAssetID);
  }
}
