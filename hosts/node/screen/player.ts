// The Node host's Player port (src/platform.ts): video plays in the virtual screen page. The
// host keeps what should play (the item, its start, the rate, the last seek) as a VideoCommand
// that goes to the pages with every screen snapshot (Server-Sent Events); the page that plays
// reports what its <video> element does (POST /player/report) and this turns that, with the
// media proxy's counts (media-proxy.ts), into PlayerReports for the core.
//
// Which page plays: the one opened last (a person who opens a new tab looks at it); the others
// show that the video plays elsewhere. When the playing page closes, the one before it takes
// over from the position reached. With no page open the item is reported `idle` (nothing has
// taken it: the core's session stays loading) until a page opens, which then starts it where it
// was asked to start; no page within limits.videoLoadTimeoutMs of POST /play, and the core fails
// the load and stops it here (a page opened later has nothing to play). A page that closes after
// taking it leaves it `loading` until another opens.
//
// The next video's first bytes: while nothing plays, the page that would play points its element
// at a standby request (GET /video/standby), which waits here. A file that POST /play loads is
// sent on it at once (the page is told which request has it): the page's first bytes then need no
// event to the page and no request from it. The element asks that path for the rest of the item
// (ranges, seeks) while it plays. A playlist by its path goes the usual way (the page's HLS player
// asks for it), and the standby request waits on for the next item.

import type { Logger, Player, PlayerError, PlayerReport, PlayerState, StartPosition, TimeRange } from '../../../src/platform';
import { checkMediaUrl, looksLikePlaylist, MediaItem } from './media-proxy';
import type { MediaFetching, MediaLimits } from './media-upstream';
import { MediaDestinations } from './media-destinations';
import { DEFAULT_LIMITS } from '../../../src/receiver';
import { answerText, COMMON_HEADERS, type Exchange } from './exchange';
import { MAX_REPORT_RANGES, type PageVideoReport, type VideoCommand } from './page-protocol';

/**
 * A page's report once checked (parsePageReport): the wire's [start, duration] pairs as the port's
 * TimeRanges.
 */
type PageReport = Omit<PageVideoReport, 'loaded' | 'seekable'> & {
  readonly loaded: readonly TimeRange[];
  readonly seekable: readonly TimeRange[];
};

const STATES: readonly PlayerState[] = ['idle', 'loading', 'playing', 'paused', 'ended', 'failed'];

interface Current {
  readonly item: number;
  readonly url: string;
  /** Undefined when the URL cannot be fetched at all (`invalid` says why). */
  readonly media: MediaItem | undefined;
  readonly invalid: PlayerError | undefined;
  start: StartPosition;
  rate: number;
  seek: { version: number; seconds: number } | null;
  /** Host clock (ms) at load(): startup time counts from here. */
  readonly loadedAt: number;
  /** The playing page's last report and when it came (host ms). */
  page: { report: PageReport; at: number } | undefined;
  /** A page has reported on the item (it stays taken when that page closes). */
  taken: boolean;
  startupTime: number | undefined;
  /** The standby request the item was sent on (which page, its number), if it was. */
  readonly standby: StandbyName | undefined;
}

/** Why a standby request is refused (409): another page plays next. */
const NOT_NEXT = 'this page does not play the next video\n';
/** Why an older standby request of a page is refused (404). */
const ENDED = 'that standby request has ended\n';

/** A page's standby request by name: the page's token and its number for it. */
interface StandbyName {
  readonly token: string;
  readonly number: number;
}

/** A standby request waiting for the next item. */
interface HeldStandby extends StandbyName {
  readonly exchange: Exchange;
}

export interface PagePlayerOptions {
  readonly log?: Logger;
  /** Monotonic milliseconds. */
  readonly now?: () => number;
  /** The media proxy's limits (the receiver's `--limit` values). */
  readonly mediaLimits?: MediaLimits;
  /** Where the media proxy may fetch from (`--media-allow`, `--media-block-private`); loopback and the like are refused by default. */
  readonly destinations?: MediaDestinations;
}

export class PagePlayer implements Player {
  onReport: (report: PlayerReport) => void = () => {};
  private current: Current | undefined;
  /** Tokens of the pages connected now, oldest first; the last plays. */
  private readonly pages: string[] = [];
  private readonly listeners = new Set<(newItem: boolean) => void>();
  /** The standby request of the page that plays next, until an item is sent on it. */
  private held: HeldStandby | undefined;
  /** The last standby request held (a page's numbers only grow: an older one has ended). */
  private latestStandby: StandbyName | undefined;

  private readonly log: Logger | undefined;
  private readonly now: () => number;
  private readonly fetching: MediaFetching;

  constructor(options: PagePlayerOptions = {}) {
    this.log = options.log;
    this.now = options.now ?? (() => performance.now());
    this.fetching = {
      limits: options.mediaLimits ?? DEFAULT_LIMITS,
      destinations: options.destinations ?? new MediaDestinations(),
      log: options.log ?? (() => {}),
    };
  }

  load(item: number, url: string, start: StartPosition): void {
    this.current?.media?.close();
    const checked = checkMediaUrl(url);
    const invalid: PlayerError | undefined = typeof checked === 'string' ? { code: -1, domain: 'url', message: checked } : undefined;
    const media = typeof checked === 'string' ? undefined : new MediaItem(item, checked, (playsAs) => this.mediaChanged(item, playsAs), this.fetching);
    const standby = media && !looksLikePlaylist(url) ? this.takeStandby() : undefined;
    this.current = {
      item,
      url,
      media,
      invalid,
      start: { ...start },
      rate: 1,
      seek: null,
      loadedAt: this.now(),
      page: undefined,
      taken: false,
      startupTime: undefined,
      standby: standby && { token: standby.token, number: standby.number },
    };
    // The pages hear of a new item first (at once: see subscribe), then the rest is done.
    this.changed(true);
    if (standby && media) {
      this.log?.('debug', `video: item ${item} sent on the playing page's standby request ${standby.number}`);
      media.serve(0, standby.exchange.request, standby.exchange.response, COMMON_HEADERS);
    }
    // Else the page will ask for the file now: its first bytes are fetched while it is being told
    // (media-proxy.ts prefetch). With no page open, nothing is fetched until one opens.
    else if (this.playerPage() !== undefined) media?.prefetch();
    if (invalid) this.log?.('warn', `video: item ${item} cannot play: ${invalid.message}`);
    else this.log?.('info', `video: item ${item}: ${url} (${looksLikePlaylist(url) ? 'HLS' : 'file'}), ${this.pages.length === 0 ? 'waiting for the screen page to open' : 'on the screen page'}`);
    this.report();
  }

  setRate(rate: number): void {
    const current = this.current;
    if (!current || !Number.isFinite(rate) || current.rate === rate) return;
    current.rate = rate;
    this.changed();
  }

  seek(seconds: number): void {
    const current = this.current;
    if (!current || !Number.isFinite(seconds)) return;
    const target = Math.max(0, seconds);
    current.seek = { version: (current.seek?.version ?? 0) + 1, seconds: target };
    // A page that loads the item from now on starts there.
    current.start = { seconds: target };
    this.changed();
    if (!current.page) this.report();
  }

  stop(): void {
    const current = this.current;
    if (!current) return;
    current.media?.close();
    this.current = undefined;
    this.log?.('info', `video: item ${current.item} stopped`);
    this.changed();
    this.onReport(idleReport(current.item, current.media));
  }

  /** The command the pages get now, or null when nothing plays. */
  command(): VideoCommand | null {
    const current = this.current;
    if (!current?.media) return null;
    return {
      item: current.item,
      // URL 0 as the proxy numbered it: the sender's spelling (`http://host` for `http://host/`)
      // would be numbered anew, and the facts kept for URL 0 (playlist seen, failure) missed.
      src: current.media.src,
      kind: current.media.playlistSeen || looksLikePlaylist(current.url) ? 'hls' : 'file',
      player: this.playerPage() ?? null,
      start: current.start,
      rate: current.rate,
      seek: current.seek,
      // Only the page it was sent on has it.
      standby: current.standby && current.standby.token === this.playerPage() ? current.standby.number : null,
    };
  }

  /**
   * GET /video/standby?client=TOKEN&n=N (see the header): the standby request `number` of page
   * `token`. Held for the next item when that page plays next (a newer one of the same page
   * replaces it, answered 204); the item sent on it, when it is that request's path asking again;
   * 404 for an older number (the item sent on it is gone, or a newer one replaced it); 409 from a
   * page that does not play next.
   */
  standby(token: string, number: number, exchange: Exchange): void {
    const current = this.current;
    if (current?.standby?.token === token && current.standby.number === number) {
      current.media?.serve(0, exchange.request, exchange.response, COMMON_HEADERS);
      return;
    }
    if (token !== this.playerPage()) return answerText(exchange, 409, NOT_NEXT);
    if (this.latestStandby?.token === token && number <= this.latestStandby.number) return answerText(exchange, 404, ENDED);
    this.releaseStandby(204);
    const held: HeldStandby = { token, number, exchange };
    this.held = held;
    this.latestStandby = { token, number };
    exchange.response.on('close', () => {
      if (this.held === held) this.held = undefined;
    });
  }

  /** The media of `item` while it is the one loaded (the screen server's /media/ITEM/N). */
  media(item: number): MediaItem | undefined {
    return this.current?.item === item ? this.current.media : undefined;
  }

  /** A page opened its event stream: it plays from now on. */
  attach(token: string): void {
    this.pages.push(token);
    this.handOver(`a screen page opened`);
  }

  /** A page's event stream closed. */
  detach(token: string): void {
    const index = this.pages.indexOf(token);
    if (index < 0) return;
    const wasPlaying = index === this.pages.length - 1;
    this.pages.splice(index, 1);
    if (wasPlaying) this.handOver('the playing screen page closed');
  }

  /**
   * A report from page `token`. Returns why it is refused (not the playing page, bad shape), or
   * undefined when taken. A report about an older item is taken and ignored.
   */
  pageReport(token: string, body: unknown): string | undefined {
    if (token !== this.playerPage()) return 'this page is not the one playing';
    const report = parsePageReport(body);
    if (typeof report === 'string') return report;
    const current = this.current;
    if (!current || report.item !== current.item) return undefined;
    const at = this.now();
    const before = current.page?.report.state;
    current.page = { report, at };
    current.taken = true;
    if (report.frameShown && current.startupTime === undefined) {
      current.startupTime = (at - current.loadedAt) / 1000;
      this.log?.('debug', `video: item ${current.item}: first frame ${Math.round(at - current.loadedAt)} ms after load`);
    }
    if (report.state === 'failed' && before !== 'failed') {
      this.log?.('warn', `video: item ${current.item} failed: ${(current.media?.lastError ?? report.error)?.message ?? 'unknown error'}`);
    }
    this.report();
    return undefined;
  }

  /**
   * Calls `listener` after every change of the command; returns the function that stops it.
   * `newItem` is true when the change is a new item to load: the page that plays it fetches it as
   * soon as it hears, so a listener that tells the pages should tell them then, not after the
   * receiver has finished with POST /play (its answer, its log lines).
   */
  subscribe(listener: (newItem: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The token of the page that plays, if any is open. */
  playerPage(): string | undefined {
    return this.pages.at(-1);
  }

  /** The held standby request, when it is the playing page's and still open; it is not held any more. */
  private takeStandby(): HeldStandby | undefined {
    const held = this.held;
    if (!held || held.token !== this.playerPage() || held.exchange.response.destroyed) {
      this.releaseStandby(409);
      return undefined;
    }
    this.held = undefined;
    return held;
  }

  /** Answers the held standby request with `status` (no item came for it) and lets it go. */
  private releaseStandby(status: 204 | 409): void {
    const held = this.held;
    this.held = undefined;
    if (!held || held.exchange.response.destroyed) return;
    answerText(held.exchange, status, status === 409 ? NOT_NEXT : '');
  }

  /** The playing page changed: the new one (re)loads the item from where it was. */
  private handOver(why: string): void {
    const current = this.current;
    if (current?.page) {
      const { report, at } = current.page;
      const position = report.state === 'playing' ? report.position + ((this.now() - at) / 1000) * report.rate : report.position;
      current.start = { seconds: position };
      current.page = undefined;
    }
    this.log?.('debug', `video: ${why}; ${this.pages.length} open, ${this.pages.length ? 'the last opened plays' : 'none plays'}`);
    // A standby request of a page that no longer plays next waits for nothing.
    if (this.held && this.held.token !== this.playerPage()) this.releaseStandby(409);
    // Nothing is held at the media server for a page that is gone (a page that opens asks anew).
    if (this.pages.length === 0) current?.media?.dropPrefetch();
    // The command names the playing page: it changed only while there is something to play.
    if (current?.media) this.changed();
    // Who has the item changed: loading on the next page (or waiting for one after a page had
    // it), idle while no page has ever had it.
    if (current) this.report();
  }

  private mediaChanged(item: number, playsAs: boolean): void {
    if (this.current?.item !== item) return;
    const failure = this.current.media?.failure;
    if (failure && this.current.page?.report.state !== 'failed') this.log?.('warn', `video: item ${item} failed: ${failure.message}`);
    // A playlist found by its Content-Type changes how the page plays it: the pages are told.
    // The rest (the server's address, a failed fetch, each segment of a live stream's) is the
    // report's alone.
    if (playsAs) this.changed();
    this.report();
  }

  private report(): void {
    if (this.current) this.onReport(this.build(this.current));
  }

  private build(current: Current): PlayerReport {
    const { media } = current;
    const counts = {
      bytes: media?.bytes ?? 0,
      requests: media?.requests ?? 0,
      ...(current.startupTime !== undefined && { startupTime: current.startupTime }),
      ...(media?.serverAddress !== undefined && { serverAddress: media.serverAddress }),
    };
    const failure = current.invalid ?? media?.failure;
    const page = current.page?.report;
    if (failure || !page) {
      return {
        ...idleReport(current.item, media),
        // Not yet on any page: idle (spec-wise still loading; the core knows no player has it).
        state: failure ? 'failed' : current.taken || this.playerPage() ? 'loading' : 'idle',
        position: page?.position ?? current.start.seconds ?? 0,
        duration: page ? (page.duration ?? Infinity) : 0,
        stalls: page?.stalls ?? 0,
        framesDropped: page?.framesDropped ?? 0,
        watched: page?.watched ?? 0,
        ...counts,
        ...(failure && { error: failure }),
      };
    }
    // The proxy knows why a fetch failed better than the element's PlayerError does.
    const error = page.state === 'failed' ? (media?.lastError ?? page.error) : page.error;
    return {
      item: current.item,
      state: page.state,
      position: page.position,
      duration: page.duration ?? Infinity,
      rate: page.state === 'playing' ? page.rate : 0,
      readyToPlay: page.readyToPlay,
      bufferEmpty: page.bufferEmpty,
      bufferFull: page.bufferFull,
      likelyToKeepUp: page.likelyToKeepUp,
      loaded: page.loaded,
      seekable: page.seekable,
      stalls: page.stalls,
      framesDropped: page.framesDropped,
      watched: page.watched,
      ...counts,
      ...(error && { error }),
    };
  }

  private changed(newItem = false): void {
    for (const listener of this.listeners) listener(newItem);
  }
}

function idleReport(item: number, media: MediaItem | undefined): PlayerReport {
  return {
    item,
    state: 'idle',
    position: 0,
    duration: 0,
    rate: 0,
    readyToPlay: false,
    bufferEmpty: true,
    bufferFull: false,
    likelyToKeepUp: false,
    loaded: [],
    seekable: [],
    bytes: media?.bytes ?? 0,
    requests: media?.requests ?? 0,
    stalls: 0,
    framesDropped: 0,
    watched: 0,
  };
}

/** Checks a page's report field by field; returns why it is refused. */
export function parsePageReport(value: unknown): PageReport | string {
  if (typeof value !== 'object' || value === null) return 'a report is a JSON object';
  const r = value as Record<string, unknown>;
  const count = (name: string): number | string => {
    const v = r[name];
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : `${name} is not a count`;
  };
  const seconds = (name: string): number | string => {
    const v = r[name];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : `${name} is not seconds`;
  };
  const flag = (name: string): boolean | string => (typeof r[name] === 'boolean' ? (r[name] as boolean) : `${name} is not true or false`);
  const ranges = (name: string): TimeRange[] | string => {
    const v = r[name];
    if (!Array.isArray(v) || v.length > MAX_REPORT_RANGES) return `${name} is not a list of at most ${MAX_REPORT_RANGES} ranges`;
    const out: TimeRange[] = [];
    for (const range of v) {
      if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) return `${name} holds a range that is not [start, duration]`;
      out.push({ start: range[0], duration: range[1] });
    }
    return out;
  };
  const fields = {
    item: count('item'),
    position: seconds('position'),
    duration: r.duration === null ? null : seconds('duration'),
    watched: seconds('watched'),
    stalls: count('stalls'),
    framesDropped: count('framesDropped'),
    readyToPlay: flag('readyToPlay'),
    bufferEmpty: flag('bufferEmpty'),
    bufferFull: flag('bufferFull'),
    likelyToKeepUp: flag('likelyToKeepUp'),
    frameShown: flag('frameShown'),
    loaded: ranges('loaded'),
    seekable: ranges('seekable'),
  };
  for (const [name, v] of Object.entries(fields)) {
    if (typeof v === 'string') return v;
    if (name === 'item' && v === null) return 'item is missing';
  }
  if (!STATES.includes(r.state as PlayerState)) return `state is not one of ${STATES.join(', ')}`;
  if (typeof r.rate !== 'number' || !Number.isFinite(r.rate)) return 'rate is not a number';
  let error: PlayerError | undefined;
  if (r.error !== undefined && r.error !== null) {
    const e = r.error as Record<string, unknown>;
    if (typeof e !== 'object' || typeof e.code !== 'number' || !Number.isFinite(e.code) || typeof e.domain !== 'string' || typeof e.message !== 'string') {
      return 'error is not { code, domain, message }';
    }
    error = { code: e.code, domain: e.domain.slice(0, 100), message: e.message.slice(0, 500) };
  }
  return {
    ...(fields as Omit<PageReport, 'state' | 'rate' | 'error'>),
    state: r.state as PlayerState,
    rate: r.rate,
    ...(error && { error }),
  };
}
