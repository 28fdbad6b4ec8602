// The virtual screen page's video layer: plays what the receiver's `video` command names
// (VideoCommand, page-protocol.ts), in a <video> element above the pictures, and reports what the
// element does to POST /player/report: on every change (from its first frame while a new item
// starts: STARTUP_QUIET_MS), and four times a second while playing.
// While nothing plays, the element of the page that plays next waits on a standby request
// (/video/standby): the receiver sends the next video's file on it (player.ts says why), and the
// command names it, so the element keeps it instead of asking anew.
// The media comes from /media/ITEM/N on this server (the receiver fetches it and counts it); HLS
// plays natively where the browser can, else with hls.js on Media Source Extensions (loaded from
// /hls.js only then). `?hls=library` in the page's URL uses hls.js even where the browser plays
// HLS itself.
//
// Only the page the command names plays (the one opened last); the others say where it plays.
// For tests and people alike, <body> says what the layer does:
//   class has-video          a video is loaded
//   data-video-item          the item loaded (absent when none)
//   data-video-frame-at      wall-clock ms (performance.timeOrigin based) of the item's first frame
//   data-video-hls           `native` or `library` while an HLS item plays
//   class video-paused       the receiver has the item paused (rate 0): "Paused" and the position show

import type Hls from 'hls.js';
import type { ErrorData } from 'hls.js';
import {
  MAX_REPORT_RANGES,
  PAGE_PATHS,
  PAGE_CLIENT_PARAMETER,
  STANDBY_NUMBER_PARAMETER,
  type PageVideoReport,
  type VideoCommand,
  type WireTimeRange,
} from '../page-protocol';
import { clockText } from './clock';
import { byId, bySelector, setHidden, setText } from './dom';
import { describeError } from '../../../../src/errors';

/** Rates the element takes (Chromium refuses others: negative ones among them). */
const MIN_RATE = 0.0625;
const MAX_RATE = 16;
/** While playing, a report at least this often (the receiver extrapolates between them). */
const PLAYING_REPORT_MS = 250;
/**
 * While a new item starts to play, its reports wait until the element has its first frame (or
 * data to play: audio has no frame), at most this long: each report is a request to the receiver,
 * which is relaying the very media the element waits for on one thread, and a request beside the
 * media's in the browser. The report of the first frame says all the held ones would have. A
 * failure, and an item the receiver keeps paused, report at once.
 */
const STARTUP_QUIET_MS = 1000;
/** A step in currentTime bigger than this is a jump, not time watched. */
const MAX_WATCH_STEP = 1.5;
/** After the receiver let a standby request go (another page plays next, it went away), the next one is asked this much later. */
const STANDBY_RETRY_MS = 1000;
/** Element events after which the receiver hears what the element does now. */
const REPORTED_EVENTS = ['loadstart', 'pause', 'ended', 'seeking', 'durationchange', 'ratechange', 'progress', 'canplay', 'canplaythrough'] as const;

type PlayerError = NonNullable<PageVideoReport['error']>;
type HlsLibrary = typeof Hls;

/** The item loaded in the element and what is known of it. */
interface LoadedItem {
  readonly item: number;
  /** Played with hls.js (not the browser's own HLS or a plain file). */
  readonly library: boolean;
  /** The last seek of the command applied (a seek made before the load is in `start`). */
  seekVersion: number;
  start: VideoCommand['start'];
  rate: number;
  hls: Hls | null;
  frameShown: boolean;
  playedOnce: boolean;
  waiting: boolean;
  stalls: number;
  watched: number;
  lastTime: number | null;
  error: PlayerError | null;
  /** The playing report interval. */
  timer: number | undefined;
  /** Until when (performance.now()) reports wait for the first frame, and the report held till then. */
  readonly quietUntil: number;
  held: number | undefined;
  /** A report is in flight; `again`: another is due when it ends. */
  sending: boolean;
  again: boolean;
}

const body = document.body;
const video = byId('video', HTMLVideoElement);
const note = byId('video-note', HTMLElement);
const pausedBox = byId('video-paused', HTMLElement);
const pausedPosition = bySelector('#video-paused .position', HTMLElement);
/** Element events after which a paused item's position may read otherwise. */
const POSITION_EVENTS = ['timeupdate', 'seeked', 'durationchange', 'loadedmetadata', 'emptied'] as const;
const forceLibrary = new URLSearchParams(location.search).get('hls') === 'library';

/** This page's token on the event stream now (a new one after each reconnection). */
let client: string | null = null;
let loaded: LoadedItem | null = null;
let hlsLibrary: Promise<HlsLibrary> | null = null;
/** This page plays the next video (PageState.videoPage). */
let playsNext = false;
/** The standby request the element waits on while nothing plays (which token, its number), or null. */
let standby: { readonly client: string; readonly number: number } | null = null;
let standbyCount = 0;
let standbyRetry: number | undefined;

/** Follows the element's events (call once, before the first command). */
export function startVideo(): void {
  document.addEventListener('click', () => {
    if (!video.muted) return;
    video.muted = false;
    showNote('');
  });
  // Where the item starts: a fraction needs the duration, known from here.
  video.addEventListener('loadedmetadata', () => {
    if (!loaded) return;
    startAt(loaded);
    report();
  });
  video.addEventListener('playing', () => {
    if (!loaded) return;
    loaded.playedOnce = true;
    loaded.waiting = false;
    clearInterval(loaded.timer);
    loaded.timer = setInterval(report, PLAYING_REPORT_MS);
    report();
  });
  video.addEventListener('waiting', () => {
    if (!loaded) return;
    loaded.waiting = true;
    // A stall: playback had started and stopped for want of data (not a seek's wait).
    if (loaded.playedOnce && !video.seeking) loaded.stalls++;
    report();
  });
  video.addEventListener('timeupdate', () => {
    if (!loaded) return;
    const step = video.currentTime - (loaded.lastTime ?? video.currentTime);
    if (!video.seeking && step > 0 && step < MAX_WATCH_STEP) loaded.watched += step;
    loaded.lastTime = video.currentTime;
  });
  video.addEventListener('seeked', () => {
    if (!loaded) return;
    loaded.lastTime = video.currentTime;
    report();
  });
  video.addEventListener('error', () => {
    if (!loaded && standby) {
      // The receiver let the standby request go: another is asked for soon, if still wanted.
      leaveStandby();
      standbyRetry = setTimeout(() => {
        standbyRetry = undefined;
        keepStandby();
      }, STANDBY_RETRY_MS);
      return;
    }
    if (!loaded || loaded.library || !video.error) return;
    fail(loaded, { code: video.error.code, domain: 'media', message: video.error.message || mediaErrorName(video.error.code) });
  });
  for (const name of POSITION_EVENTS) video.addEventListener(name, showPaused);
  for (const name of REPORTED_EVENTS) {
    video.addEventListener(name, () => {
      if (!loaded) return;
      if (name === 'pause' || name === 'ended') clearInterval(loaded.timer);
      report();
    });
  }
}

/**
 * The receiver's latest command, this page's token on the event stream (which the command names),
 * and the token of the page that plays the next video.
 */
export function followVideoCommand(command: VideoCommand | null, token: string, videoPage: string | null): void {
  client = token;
  playsNext = videoPage === token;
  apply(command);
  keepStandby();
}

/**
 * While nothing plays on the page that plays next, its element waits on a standby request. The
 * element preloads whole (page.html preload="auto"): a file that comes on it is read on while the
 * element waits for the command to play, not held after its metadata.
 */
function keepStandby(): void {
  if (loaded) return;
  const token = playsNext ? client : null;
  if (standby && standby.client !== token) leaveStandby();
  if (token === null || standby || standbyRetry !== undefined) return;
  standby = { client: token, number: ++standbyCount };
  video.src = `${PAGE_PATHS.videoStandby}?${PAGE_CLIENT_PARAMETER}=${encodeURIComponent(token)}&${STANDBY_NUMBER_PARAMETER}=${standby.number}`;
}

/** The element stops waiting on its standby request. */
function leaveStandby(): void {
  standby = null;
  video.removeAttribute('src');
  video.load();
}

function nativeHls(): boolean {
  return !forceLibrary && video.canPlayType('application/vnd.apple.mpegurl') !== '';
}

function apply(command: VideoCommand | null): void {
  if (!command || command.player !== client) {
    if (loaded) unload();
    showNote(command ? 'Video plays in another open screen page' : '');
    return;
  }
  const library = command.kind === 'hls' && !nativeHls();
  let item = loaded;
  if (!item || item.item !== command.item || item.library !== library) item = load(command, library);
  else if (command.seek && command.seek.version > item.seekVersion) {
    item.seekVersion = command.seek.version;
    // Before the metadata the element keeps it as where to start; the start asked at load
    // (a fraction, say) must not undo it then.
    item.start = { seconds: command.seek.seconds };
    video.currentTime = command.seek.seconds;
  }
  applyRate(item, command.rate);
}

/** Loads the command's item in the element (what was loaded goes); the item is `loaded` from now on. */
function load(command: VideoCommand, library: boolean): LoadedItem {
  unload();
  // The receiver sent this item on the element's standby request: the element has it already.
  const onStandby = !library && standby !== null && standby.client === client && command.standby === standby.number;
  // Else a new source replaces the standby request (the receiver lets it go).
  standby = null;
  clearTimeout(standbyRetry);
  standbyRetry = undefined;
  const item: LoadedItem = {
    item: command.item,
    library,
    // A seek made before this load is in the start already.
    seekVersion: command.seek ? command.seek.version : 0,
    start: command.start,
    rate: command.rate,
    hls: null,
    frameShown: false,
    playedOnce: false,
    waiting: false,
    stalls: 0,
    watched: 0,
    lastTime: null,
    error: null,
    timer: undefined,
    quietUntil: performance.now() + STARTUP_QUIET_MS,
    held: undefined,
    sending: false,
    again: false,
  };
  loaded = item;
  body.classList.add('has-video');
  body.dataset.videoItem = String(command.item);
  delete body.dataset.videoFrameAt;
  showNote('');
  watchFirstFrame(item);
  if (command.kind === 'hls') body.dataset.videoHls = library ? 'library' : 'native';
  else delete body.dataset.videoHls;
  if (library) void loadWithLibrary(item, command.src);
  else if (!onStandby) video.src = command.src;
  // Its metadata may have come before the command did.
  else if (video.readyState >= HTMLMediaElement.HAVE_METADATA) startAt(item);
  return item;
}

/** Moves to where the item starts, once its metadata is in. */
function startAt(item: LoadedItem): void {
  const { seconds, fraction } = item.start;
  // hls.js starts at startPosition itself.
  const target = fraction !== undefined && Number.isFinite(video.duration) ? fraction * video.duration : item.library ? undefined : seconds;
  // The element starts at 0 by itself: a seek there (Start-Position 0, most plays) would only
  // hold the first frame back.
  if (target) video.currentTime = target;
  item.lastTime = video.currentTime;
}

function unload(): void {
  if (!loaded) return;
  clearInterval(loaded.timer);
  clearTimeout(loaded.held);
  loaded.hls?.destroy();
  loaded = null;
  video.pause();
  video.removeAttribute('src');
  video.load();
  body.classList.remove('has-video');
  delete body.dataset.videoItem;
  delete body.dataset.videoFrameAt;
  delete body.dataset.videoHls;
  showPaused();
}

function showNote(text: string): void {
  setText(note, text);
  setHidden(note, text === '');
}

async function loadWithLibrary(item: LoadedItem, src: string): Promise<void> {
  try {
    const Hls = await libraryLoaded();
    if (loaded !== item) return;
    if (!Hls.isSupported()) throw new Error('this browser has neither HLS nor Media Source Extensions');
    // No worker: the page's policy allows none (worker-src 'none').
    const hls = new Hls({ enableWorker: false, startPosition: item.start.seconds ?? -1 });
    item.hls = hls;
    hls.on(Hls.Events.ERROR, (_, data: ErrorData) => {
      if (!data.fatal || loaded !== item) return;
      const status = data.response?.code;
      fail(item, status ? { code: status, domain: 'http', message: `${data.details}: HTTP ${status}` } : { code: -1, domain: 'hls', message: `${data.type}: ${data.details}` });
    });
    hls.attachMedia(video);
    hls.loadSource(src);
  } catch (error) {
    if (loaded === item) fail(item, { code: -1, domain: 'hls', message: describeError(error) });
  }
}

/** hls.js, loaded as a classic script (its UMD build defines the global `Hls`) the first time. */
function libraryLoaded(): Promise<HlsLibrary> {
  hlsLibrary ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = PAGE_PATHS.hlsLibrary;
    script.onload = () => {
      const library = (globalThis as { Hls?: HlsLibrary }).Hls;
      if (library) resolve(library);
      else reject(new Error('hls.js loaded without defining Hls'));
    };
    script.onerror = () => reject(new Error('hls.js could not be loaded'));
    document.head.append(script);
  });
  return hlsLibrary;
}

function watchFirstFrame(item: LoadedItem): void {
  const drawn = () => {
    if (loaded !== item || item.frameShown) return;
    item.frameShown = true;
    body.dataset.videoFrameAt = String(performance.timeOrigin + performance.now());
    report();
  };
  if (typeof video.requestVideoFrameCallback === 'function') video.requestVideoFrameCallback(drawn);
  else video.addEventListener('loadeddata', drawn, { once: true });
}

function fail(item: LoadedItem, error: PlayerError): void {
  item.error = error;
  item.hls?.destroy();
  item.hls = null;
  body.classList.remove('has-video');
  showPaused();
  report();
}

function applyRate(item: LoadedItem, rate: number): void {
  item.rate = rate;
  showPaused();
  if (rate === 0) {
    video.pause();
    return;
  }
  if (rate >= MIN_RATE && rate <= MAX_RATE) {
    video.playbackRate = rate;
    video.defaultPlaybackRate = rate;
  }
  if (video.paused && !video.ended) play();
}

function play(): void {
  video.play().catch((error: unknown) => {
    // A page nobody has clicked may not play sound: play muted, and say how to hear it.
    if (error instanceof DOMException && error.name === 'NotAllowedError' && !video.muted && loaded) {
      video.muted = true;
      showNote('Muted: click the page for sound');
      video.play().catch(() => {});
    }
    // AbortError: the source changed meanwhile; the new one plays by itself.
  });
}

/** "Paused" and `m:ss / m:ss` over the picture while the receiver has the loaded item paused. */
function showPaused(): void {
  const paused = loaded !== null && loaded.rate === 0 && loaded.error === null;
  setHidden(pausedBox, !paused);
  body.classList.toggle('video-paused', paused);
  if (!paused) return;
  const position = clockText(Number.isFinite(video.currentTime) ? video.currentTime : 0);
  setText(pausedPosition, Number.isFinite(video.duration) && video.duration > 0 ? `${position} / ${clockText(video.duration)}` : position);
}

function mediaErrorName(code: number): string {
  return ['', 'fetching aborted', 'network error', 'cannot decode', 'format not supported'][code] || `media error ${code}`;
}

function playerState(item: LoadedItem): PageVideoReport['state'] {
  if (item.error) return 'failed';
  if (video.ended) return 'ended';
  if (video.readyState < HTMLMediaElement.HAVE_METADATA) return 'loading';
  if (video.paused) return 'paused';
  if (item.waiting || video.seeking || video.readyState < HTMLMediaElement.HAVE_FUTURE_DATA) return 'loading';
  return 'playing';
}

function ranges(list: TimeRanges): WireTimeRange[] {
  const out: WireTimeRange[] = [];
  for (let i = 0; i < list.length && i < MAX_REPORT_RANGES; i++) out.push([list.start(i), Math.max(0, list.end(i) - list.start(i))]);
  return out;
}

function snapshot(item: LoadedItem): PageVideoReport {
  const duration = video.duration;
  const buffered = video.buffered;
  let bufferFull = false;
  for (let i = 0; i < buffered.length; i++) {
    if (buffered.start(i) <= video.currentTime && Number.isFinite(duration) && buffered.end(i) >= duration - 0.1) bufferFull = true;
  }
  const quality = typeof video.getVideoPlaybackQuality === 'function' ? video.getVideoPlaybackQuality() : null;
  return {
    item: item.item,
    state: playerState(item),
    position: Number.isFinite(video.currentTime) ? video.currentTime : 0,
    duration: Number.isNaN(duration) ? 0 : Number.isFinite(duration) ? duration : null,
    rate: video.playbackRate,
    readyToPlay: video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA,
    bufferEmpty: video.readyState < HTMLMediaElement.HAVE_FUTURE_DATA,
    bufferFull,
    likelyToKeepUp: video.readyState >= HTMLMediaElement.HAVE_ENOUGH_DATA,
    loaded: ranges(buffered),
    seekable: ranges(video.seekable),
    stalls: item.stalls,
    framesDropped: quality ? quality.droppedVideoFrames : 0,
    watched: item.watched,
    frameShown: item.frameShown,
    ...(item.error && { error: item.error }),
  };
}

/** Whether `item` is starting to play, its reports held (STARTUP_QUIET_MS). */
function starting(item: LoadedItem): boolean {
  if (item.frameShown || item.error !== null || item.rate === 0 || performance.now() >= item.quietUntil) return false;
  // A video is started once its first frame is drawn: the element has data to play a little
  // before (a small file's whole, at once), and its reports would go while the frame is being
  // made. Audio alone (no picture size once the metadata is in) has no frame: data to play it is.
  const pictures = video.readyState < HTMLMediaElement.HAVE_METADATA || video.videoWidth > 0;
  return pictures || video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA;
}

/** Sends the element's state now (held while the item starts); one report in flight at a time, the latest state wins. */
function report(): void {
  const item = loaded;
  if (!item || client === null) return;
  if (starting(item)) {
    item.held ??= setTimeout(() => {
      item.held = undefined;
      if (loaded === item) report();
    }, item.quietUntil - performance.now());
    return;
  }
  clearTimeout(item.held);
  item.held = undefined;
  if (item.sending) {
    item.again = true;
    return;
  }
  item.sending = true;
  item.again = false;
  fetch(`${PAGE_PATHS.playerReport}?${PAGE_CLIENT_PARAMETER}=${encodeURIComponent(client)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(snapshot(item)),
  })
    .catch(() => {
      // The receiver is away: the event stream reconnects, and the whole state comes again.
    })
    .finally(() => {
      item.sending = false;
      if (item.again && loaded === item) report();
    });
}
