// The video session (spec 3, 4.2, 6): one video at a time, driven through the Player port and
// told everything by the player's reports. It numbers each load (`item`), drops reports about
// older items, turns the player's states into the four the protocol reports, extrapolates the
// position between reports, fails loads that never get ready, ends at forwardEndTime and
// reverseEndTime, and keeps the playback access and error logs (spec 2.10).
//
//   (none) --play--> loading --ready--> playing <--rate--> paused
//                       ^                  |                  |
//                       +-- rebuffering ---+                  |
//   any --stop, ended, failed, end time, unloaded, another's video, its connection closed-->
//       (none), reported stopped
//
// Decisions the spec leaves open ("not shown"), and what this receiver does:
// - A failed load (bad or unreachable URL, a format the player cannot play, no player taking the
//   item within limits.videoLoadTimeoutMs of POST /play, no readiness within that time of a
//   player taking it) reports `stopped`, as real receivers do (Kodi and Apple TVs go from
//   loading to stopped; the sender learns why from /getProperty?playbackErrorLog), adds an
//   error-log entry, and writes one log line.
// - Played to the end: `stopped`, and the player unloads it (real receivers leave the video).
// - The connection that carried POST /play is the video's: when it closes, the video stops as
//   for POST /stop (`stopped` to its sender, activity idle). Apple TVs do this (a client that
//   started a video and goes away stops it: node-airplay issue 5), and senders rely on it:
//   pyatv's stop() of play_url is that close, and npm airplay-protocol keeps its one keep-alive
//   socket open for the whole video. Only that connection counts: another connection of the same
//   sender (a one-shot GET /playback-info) or its reverse event connection closing leaves the
//   video playing. Apple TVs also close that connection after about a minute of silence, which
//   stops the video (ConnectSDK-iOS issue 106, airplay-protocol issue 5: senders added polling);
//   this receiver does not close it for idleness while the video is loaded
//   (ConnectionState.hold), so a sender that only waits for the end keeps its video.
// - The playback access and error logs (spec 2.10) answer each sender with its own entries only
//   (they name the URLs it played, which another sender has no business seeing): a sender is
//   its session id (X-Vendor-Session-ID, or the one pyatv puts in the /play body) when it names
//   one, else its address (clients written for early receivers, such as npm airplay-protocol,
//   name no session on any connection), the same identity POST /stop and the events use. The
//   logs keep limits.videoLogEntries entries each over all senders (bounded memory): a sender
//   that plays many videos pushes out the oldest entries, another's among them.
// - A new POST /play of the same sender replaces its video without a `stopped` (npm
//   airplay-protocol ends its session on `stopped`, even one meant for the video it replaces);
//   another sender's video ends the first sender's with `stopped` to it.
// - The load timeout runs from POST /play. With no player attached (the Node host with no screen
//   page open) nothing fetches the item: after limits.videoLoadTimeoutMs it fails, so the sender
//   hears `stopped` instead of waiting on `loading` for ever (pyatv's play_url polls until
//   /playback-info loses its duration), the activity goes back to idle, and a screen opened
//   later does not play a video its sender gave up on. Once a player takes the item (it has
//   fetched some of it, or reports more than `loading`) the timeout starts again from there: a
//   screen opened late still gets the whole time to load over a slow network. A player that
//   cannot reach the server reports `failed` itself (its connection timeouts are its own).

import type { Logger, Player, PlayerError, PlayerReport, RandomSource, StartPosition, TimeSource } from '../../platform';
import type { Deadlines } from '../timers';
import { uuidFromBytes } from '../../uuid';
import type { ReceiverLimits } from '../limits';

/** The states a video reports (spec 3, 6). */
type VideoState = 'loading' | 'playing' | 'paused' | 'stopped';

/** spec 2.9: what GET /playback-info answers about the loaded video: the player's report of it. */
export type PlaybackInfo = Pick<PlayerReport, 'duration' | 'position' | 'rate' | 'readyToPlay' | 'bufferEmpty' | 'bufferFull' | 'likelyToKeepUp' | 'loaded' | 'seekable'>;

/** spec 2.10: one playback access log entry, from what the player did with one item. */
export interface AccessLogEvent {
  readonly bytes: number;
  /** Seconds of media downloaded (the loaded ranges). */
  readonly durationDownloaded: number;
  readonly durationWatched: number;
  readonly framesDropped: number;
  /** Bits per second the download achieved; -1 while nothing was fetched (AVFoundation: negative if unknown). */
  readonly observedBitrate: number;
  /** Downloads late for their deadline: the port reports no deadlines, a late one shows as a stall. */
  readonly overdue: number;
  readonly stalls: number;
  /** Where playback started, seconds from the item's start. */
  readonly startTime: number;
  /** Seconds from load to the first frame; -1 while unknown. */
  readonly startupTime: number;
  /** The item's playback session id (cs-guid). */
  readonly guid: string;
  /** When the item was loaded, ms since the epoch. */
  readonly date: number;
  readonly serverAddress: string | undefined;
  readonly serverAddressChanges: number;
  readonly requests: number;
  readonly uri: string;
}

/** One playback error log entry (spec 4.2: shape not shown; AVPlayerItemErrorLogEvent's fields). */
export interface ErrorLogEvent {
  readonly date: number;
  readonly uri: string;
  readonly serverAddress: string | undefined;
  readonly guid: string;
  readonly status: number;
  readonly domain: string;
  readonly comment: string;
}

/**
 * The error a load that never gets ready is logged with: what AVFoundation reports for a request
 * that timed out (NSURLErrorTimedOut), so senders that read the error log understand it.
 */
const LOAD_TIMEOUT_ERROR: PlayerError = { code: -1001, domain: 'NSURLErrorDomain', message: 'the video was not ready to play in time' };

/**
 * The error a load no player ever took is logged with: a timeout as well to the sender (it
 * waited for nothing), and words that say which side was missing.
 */
const NO_PLAYER_ERROR: PlayerError = { code: -1001, domain: 'NSURLErrorDomain', message: 'no player took the video in time (is a screen open?)' };

/** A failed report without an error of its own. */
const UNKNOWN_PLAYER_ERROR: PlayerError = { code: -1, domain: 'VendorPlayReceiver', message: 'the player could not play the video' };

/**
 * Who sent a request: its session (X-Vendor-Session-ID, spec 1.7; pyatv's sits in the /play
 * body) and the address it came from.
 */
export interface VideoSender {
  readonly sessionId: string | undefined;
  readonly address: string;
}

/** Whether an entry of `owner`'s is `asker`'s: the same session, or with none named, the same address. */
function sameSender(owner: VideoSender, asker: VideoSender): boolean {
  return asker.sessionId !== undefined ? owner.sessionId === asker.sessionId : owner.address === asker.address;
}

/**
 * The connection that carried a POST /play (its ConnectionState): the video lives as long as it
 * (see the header). `name` says which it is in log lines.
 */
export interface VideoCarrier {
  readonly name: string;
  /**
   * Keeps the connection open for the video; `onEnd` runs if it closes (or the sender's session
   * on it ends) first, with the words that finish "the connection ...". Returns the release.
   */
  hold(onEnd: (ending: string) => void): () => void;
}

/** A log entry and the sender whose video it is about. */
interface Logged<T> {
  readonly sender: VideoSender;
  readonly event: T;
}

interface VideoSessionContext {
  readonly clock: TimeSource;
  /**
   * The receiver's timer table: the load and end-time deadlines (videoLoad, videoEnd), armed
   * only for the item loaded (an item that ends or is replaced disarms them).
   */
  readonly timers: Deadlines;
  readonly log: Logger;
  readonly player: Player;
  readonly random: RandomSource;
  readonly limits: Pick<ReceiverLimits, 'videoLoadTimeoutMs' | 'videoLogEntries'>;
  /**
   * Told each state an item reports, in order, never the same twice in a row for one item: the
   * route module turns these into video events (spec 6) and the media session's activity.
   */
  onState(owner: string | undefined, state: VideoState): void;
}

/** One POST /play: the URL, whose it is, and what the player has said about it. */
interface Item {
  readonly number: number;
  readonly url: string;
  /** The sender session whose video it is (events go there). */
  readonly owner: string | undefined;
  /** Who sent the POST /play (whose log entries the item's are). */
  readonly sender: VideoSender;
  readonly guid: string;
  readonly loadedAt: number;
  readonly loadedWall: number;
  readonly start: StartPosition;
  state: VideoState;
  report: PlayerReport | undefined;
  /** clock.now() when `report` arrived: the position is extrapolated from there. */
  reportAt: number;
  /** A player has the item: it fetched some of it, or reported more than waiting to load. */
  taken: boolean;
  /** The player said it was ready (readyToPlay, playing or paused) at least once. */
  ready: boolean;
  /** Lets the connection that carried the POST /play go (it no longer ends the item). */
  release: (() => void) | undefined;
  serverAddress: string | undefined;
  serverAddressChanges: number;
  /** clock.now() when the byte count last grew (observed bitrate). */
  bytesGrewAt: number | undefined;
  /** Position of the first report that played. */
  playStart: number | undefined;
  /** A seek asked and not reported yet: the position until the player reports. */
  seekTarget: number | undefined;
  /** spec 4.2 setProperty: where forward (rate > 0) and reverse (rate < 0) playback end. */
  forwardEnd: number | undefined;
  reverseEnd: number | undefined;
  /** The last error logged for the item (a recovered error repeated in every report is logged once). */
  lastError: string | undefined;
}

function shortUrl(url: string): string {
  return url.length > 160 ? `${url.slice(0, 160)}...` : url;
}

function errorKey(error: PlayerError): string {
  return `${error.domain} ${error.code} ${error.message}`;
}

function pushBounded<T>(list: T[], entry: T, max: number): void {
  list.push(entry);
  if (list.length > max) list.splice(0, list.length - max);
}

export class VideoSession {
  private current: Item | undefined;
  private items = 0;
  /** Access-log entries of items that have ended (those a player took), oldest first. */
  private readonly accessArchive: Logged<AccessLogEvent>[] = [];
  private readonly errors: Logged<ErrorLogEvent>[] = [];

  constructor(private readonly context: VideoSessionContext) {
    context.player.onReport = (report) => this.handleReport(report);
  }

  /** A video is loaded (in any state but stopped). */
  get loaded(): boolean {
    return this.current !== undefined;
  }

  /** The reported state: `stopped` when nothing is loaded. */
  get state(): VideoState {
    return this.current?.state ?? 'stopped';
  }

  /** The sender session whose video is loaded. */
  get owner(): string | undefined {
    return this.current?.owner;
  }

  /** The URL loaded. */
  get url(): string | undefined {
    return this.current?.url;
  }

  /** The number of the item loaded last (Player.load's `item`). */
  get item(): number {
    return this.items;
  }

  /**
   * spec 4.2 POST /play: loads `url` for `sender`, replacing what is loaded. Reports `loading`.
   * The item ends when `carrier` (the request's connection) closes.
   */
  play(sender: VideoSender, url: string, start: StartPosition, startPaused: boolean, carrier?: VideoCarrier): void {
    const { clock, log, player, random } = this.context;
    const owner = sender.sessionId;
    const previous = this.current;
    const item: Item = {
      number: ++this.items,
      url,
      owner,
      sender,
      // Upper case, as AVFoundation writes playback session ids (NSUUID.UUIDString).
      guid: uuidFromBytes(random(16)).toUpperCase(),
      loadedAt: clock.now(),
      loadedWall: clock.wallTime(),
      start,
      state: 'loading',
      report: undefined,
      reportAt: 0,
      taken: false,
      ready: false,
      release: undefined,
      serverAddress: undefined,
      serverAddressChanges: 0,
      bytesGrewAt: undefined,
      playStart: undefined,
      seekTarget: undefined,
      forwardEnd: undefined,
      reverseEnd: undefined,
      lastError: undefined,
    };
    this.current = item;
    if (previous) {
      this.retire(previous);
      log('info', `video ${previous.number} replaced by video ${item.number}${previous.owner !== owner ? ` of session ${owner ?? '(none)'}` : ''}`);
      // Another sender's video took over: the first sender's has ended.
      if (previous.owner !== owner) this.context.onState(previous.owner, 'stopped');
    }
    const where = start.seconds !== undefined ? `${start.seconds} s` : `${Number(((start.fraction ?? 0) * 100).toFixed(2))}%`;
    log('info', `video ${item.number}: ${shortUrl(url)} from ${where}${startPaused ? ', paused' : ''} for session ${owner ?? '(none)'}`);
    this.context.onState(owner, 'loading');
    // From POST /play: a load no player takes fails too (see the header).
    this.armLoadTimer(item);
    // The video lives as long as the connection that asked for it (see the header).
    if (carrier) item.release = carrier.hold((ending) => this.end(item, `the connection that carried its POST /play (${carrier.name}) ${ending}`));
    // A connection closed already ended it there: nothing to load.
    if (this.current !== item) return;
    // load() replaces whatever the player had loaded. A player may report from inside it (a
    // URL it refuses at once fails there): `loading` went out first, and the item may be over.
    player.load(item.number, url, start);
    if (startPaused && this.current === item) player.setRate(0);
  }

  /** spec 4.2 POST /rate: 0 pauses, 1 plays; the state follows the player's report. */
  setRate(rate: number): boolean {
    if (!this.current) return false;
    this.context.player.setRate(rate);
    return true;
  }

  /**
   * spec 4.2 POST /scrub: moves to `seconds`, within the duration once it is known. Returns the
   * position asked of the player, or undefined when nothing is loaded.
   */
  seek(seconds: number): number | undefined {
    const item = this.current;
    if (!item) return undefined;
    const duration = item.report?.duration ?? 0;
    const target = duration > 0 && Number.isFinite(duration) ? Math.min(seconds, duration) : seconds;
    item.seekTarget = target;
    this.context.player.seek(target);
    return target;
  }

  /**
   * spec 4.2 setProperty forwardEndTime (`forward`) or reverseEndTime: where playback at a
   * positive (negative) rate ends; undefined clears it. Returns false when nothing is loaded.
   */
  setEndTime(direction: 'forward' | 'reverse', seconds: number | undefined): boolean {
    const item = this.current;
    if (!item) return false;
    if (direction === 'forward') item.forwardEnd = seconds;
    else item.reverseEnd = seconds;
    this.context.log('debug', `video ${item.number}: ${direction} end time ${seconds === undefined ? 'cleared' : `${seconds} s`}`);
    this.watchEndTimes(item);
    return true;
  }

  /**
   * POST /stop, or the receiver stopping: unloads the video and reports `stopped`. With a
   * session id, only that session's video. Returns whether a video was stopped.
   */
  stop(reason: string, sessionId?: string): boolean {
    const item = this.current;
    if (!item) return false;
    if (sessionId !== undefined && item.owner !== undefined && sessionId !== item.owner) {
      this.context.log('debug', `video ${item.number} not stopped (${reason}): it is session ${item.owner}'s, not ${sessionId}'s`);
      return false;
    }
    this.end(item, reason);
    return true;
  }

  /** spec 2.9: the loaded video's playback information at `now`; undefined when nothing is loaded. */
  info(now: number): PlaybackInfo | undefined {
    const item = this.current;
    if (!item) return undefined;
    const report = item.report;
    if (!report) {
      // Loading, no player has said anything: nothing is known but where it will start.
      return { duration: 0, position: item.seekTarget ?? item.start.seconds ?? 0, rate: 0, readyToPlay: false, bufferEmpty: true, bufferFull: false, likelyToKeepUp: false, loaded: [], seekable: [] };
    }
    return {
      duration: finiteDuration(report.duration),
      position: this.position(item, now),
      rate: report.rate,
      readyToPlay: report.readyToPlay,
      bufferEmpty: report.bufferEmpty,
      bufferFull: report.bufferFull,
      likelyToKeepUp: report.likelyToKeepUp,
      loaded: report.loaded,
      seekable: report.seekable,
    };
  }

  /**
   * spec 2.10: `asker`'s access log: its ended items' entries, then its loaded item's, at most
   * limits.videoLogEntries.
   */
  accessLog(asker: VideoSender): AccessLogEvent[] {
    const entries = this.accessArchive.filter((entry) => sameSender(entry.sender, asker)).map((entry) => entry.event);
    const item = this.current;
    if (item?.taken && sameSender(item.sender, asker)) entries.push(accessEvent(item));
    return entries.slice(Math.max(0, entries.length - this.context.limits.videoLogEntries));
  }

  /** `asker`'s playback error log, oldest first. */
  errorLog(asker: VideoSender): ErrorLogEvent[] {
    return this.errors.filter((entry) => sameSender(entry.sender, asker)).map((entry) => entry.event);
  }

  /** The position at `now`: the last report's, moved on at its rate for the time since it came. */
  private position(item: Item, now: number): number {
    if (item.seekTarget !== undefined) return item.seekTarget;
    const report = item.report;
    if (!report) return item.start.seconds ?? 0;
    let position = report.position;
    if (report.state === 'playing' && report.rate !== 0) position += (report.rate * (now - item.reportAt)) / 1000;
    const duration = finiteDuration(report.duration);
    if (position < 0) position = 0;
    if (duration > 0 && position > duration) position = duration;
    return position;
  }

  private handleReport(report: PlayerReport): void {
    const item = this.current;
    // A report about an item replaced or stopped since: the player has not caught up yet.
    if (!item || report.item !== item.number) return;
    const now = this.context.clock.now();
    this.note(item, report, now);
    if (report.state === 'failed') {
      this.fail(item, report.error ?? UNKNOWN_PLAYER_ERROR);
      return;
    }
    if (report.error) this.logError(item, report.error);
    if (report.state === 'idle') {
      // Before a player has taken the item, idle means it has not started yet; after, the
      // player dropped it (its screen went away): the video has ended.
      if (item.taken) this.end(item, 'the player unloaded it');
      return;
    }
    if (report.state === 'ended') {
      this.end(item, 'played to the end');
      return;
    }
    // A player that reports loading and has fetched nothing is waiting for its screen (the Node
    // host with no page open): the item is taken once it fetches.
    const takenNow = !item.taken && (report.state !== 'loading' || report.readyToPlay || report.bytes > 0 || report.requests > 0);
    if (takenNow) item.taken = true;
    if (report.state === 'playing' || report.state === 'paused') item.playStart ??= report.position;
    this.moveTo(item, report.state);
    if (report.readyToPlay || report.state === 'playing' || report.state === 'paused') this.becameReady(item);
    // A player has it now: its load gets the whole time from here.
    else if (takenNow) this.armLoadTimer(item);
    this.watchEndTimes(item);
  }

  /** Takes the facts of a report: position, server address, bytes. */
  private note(item: Item, report: PlayerReport, now: number): void {
    const previous = item.report;
    item.report = report;
    item.reportAt = now;
    item.seekTarget = undefined;
    if (report.serverAddress !== undefined && report.serverAddress !== item.serverAddress) {
      if (item.serverAddress !== undefined) item.serverAddressChanges++;
      item.serverAddress = report.serverAddress;
    }
    if (report.bytes > (previous?.bytes ?? 0)) item.bytesGrewAt = now;
  }

  private moveTo(item: Item, state: VideoState): void {
    if (item.state === state) return;
    item.state = state;
    this.context.log('debug', `video ${item.number}: ${state}`);
    this.context.onState(item.owner, state);
  }

  /**
   * (Re)starts the item's load deadline: limits.videoLoadTimeoutMs from now, the item must be
   * taken by a player (when it is not yet) or ready (when it is), or it fails.
   */
  private armLoadTimer(item: Item): void {
    const { clock, limits, timers } = this.context;
    timers.cancel('videoLoad');
    if (item.ready) return;
    timers.set('videoLoad', clock.now() + limits.videoLoadTimeoutMs, () => {
      if (this.current !== item || item.ready) return;
      const error = item.taken ? LOAD_TIMEOUT_ERROR : NO_PLAYER_ERROR;
      this.fail(item, { ...error, message: `${error.message} (${limits.videoLoadTimeoutMs} ms, limits.videoLoadTimeoutMs)` });
    });
  }

  private becameReady(item: Item): void {
    if (item.ready) return;
    item.ready = true;
    this.context.timers.cancel('videoLoad');
  }

  /**
   * Ends the item when its position passes the end time of the direction it plays in, and arms
   * a timer for the moment it will (reports come a few times a second; the timer is exact).
   */
  private watchEndTimes(item: Item): void {
    const { clock, timers } = this.context;
    timers.cancel('videoEnd');
    const report = item.report;
    if (!report || report.state !== 'playing' || report.rate === 0) return;
    const end = report.rate > 0 ? item.forwardEnd : item.reverseEnd;
    if (end === undefined) return;
    const now = clock.now();
    const position = this.position(item, now);
    const untilEnd = (end - position) / report.rate;
    if (untilEnd <= 0) {
      this.end(item, `reached its ${report.rate > 0 ? 'forward' : 'reverse'} end time ${end} s`);
      return;
    }
    timers.set('videoEnd', now + Math.ceil(untilEnd * 1000), () => {
      if (this.current === item) this.watchEndTimes(item);
    });
  }

  /** The item cannot play: an error-log entry, a log line, and it ends. */
  private fail(item: Item, error: PlayerError): void {
    this.logError(item, error);
    this.context.log('warn', `video ${item.number} failed: ${shortUrl(item.url)}: ${error.domain} ${error.code}: ${error.message}`);
    this.end(item, 'it failed');
  }

  private logError(item: Item, error: PlayerError): void {
    const key = errorKey(error);
    if (item.lastError === key) return;
    item.lastError = key;
    const event: ErrorLogEvent = { date: this.context.clock.wallTime(), uri: item.url, serverAddress: item.serverAddress, guid: item.guid, status: error.code, domain: error.domain, comment: error.message };
    pushBounded(this.errors, { sender: item.sender, event }, this.context.limits.videoLogEntries);
  }

  /** The item is over: the player unloads it, its log entry is kept, its sender hears `stopped`. */
  private end(item: Item, reason: string): void {
    if (this.current !== item) return;
    this.current = undefined;
    this.retire(item);
    this.context.player.stop();
    this.context.log('info', `video ${item.number} stopped: ${reason}`);
    item.state = 'stopped';
    this.context.onState(item.owner, 'stopped');
  }

  /**
   * Disarms the item's deadlines (only the item loaded has any: this runs as it stops being
   * that), lets its connection go, and keeps its access-log entry (when a player took it).
   */
  private retire(item: Item): void {
    this.context.timers.cancel('videoLoad');
    this.context.timers.cancel('videoEnd');
    item.release?.();
    item.release = undefined;
    if (item.taken) pushBounded(this.accessArchive, { sender: item.sender, event: accessEvent(item) }, this.context.limits.videoLogEntries);
  }
}

/** A live stream's duration is Infinity, and an unknown one 0: both are written 0 (spec 2.9 wants a real). */
function finiteDuration(duration: number): number {
  return Number.isFinite(duration) && duration > 0 ? duration : 0;
}

function accessEvent(item: Item): AccessLogEvent {
  const report = item.report;
  const bytes = report?.bytes ?? 0;
  let downloaded = 0;
  for (const range of report?.loaded ?? []) downloaded += range.duration;
  const fetchSeconds = item.bytesGrewAt === undefined ? 0 : (item.bytesGrewAt - item.loadedAt) / 1000;
  return {
    bytes,
    durationDownloaded: downloaded,
    durationWatched: report?.watched ?? 0,
    framesDropped: report?.framesDropped ?? 0,
    observedBitrate: bytes > 0 && fetchSeconds > 0 ? (bytes * 8) / fetchSeconds : -1,
    overdue: 0,
    stalls: report?.stalls ?? 0,
    startTime: item.playStart ?? item.start.seconds ?? 0,
    startupTime: report?.startupTime ?? -1,
    guid: item.guid,
    date: item.loadedWall,
    serverAddress: item.serverAddress,
    serverAddressChanges: item.serverAddressChanges,
    requests: report?.requests ?? 0,
    uri: item.url,
  };
}
