// The contract between the virtual screen's server side (server.ts, display.ts, player.ts,
// page-decoder.ts) and its page (page/): the paths the page asks for, the state it is sent, the
// report its video layer sends back, and the mirroring stream's binary messages. Both sides import
// these tables, so neither keeps a copy. Neither Node nor the DOM here: the root tsconfig.json and
// page/tsconfig.json both type-check this file.

import type { PlayerError, PlayerReport, ShownMedia, StartPosition } from '../../../src/platform';
import type { Transition } from '../../../src/receiver';

// How the page's status line reads a state: the words both hosts' status lines share (pure
// ECMAScript and a table, so the page's bundle takes it whole).
export { statusWords } from '../../../src/receiver/media/status-words';

/** Paths of the screen server that the page's own code asks for. */
export const PAGE_PATHS = {
  /** Server-Sent Events: a PageState on every change. */
  events: '/events',
  /** WebSocket: screen mirroring's access units (PAGE_MESSAGE). */
  mirror: '/mirror',
  /** POST, JSON: the playing page's PageVideoReport, `?client=TOKEN`. */
  playerReport: '/player/report',
  /** hls.js (its UMD build, which defines the global `Hls`), for HLS where the browser plays none itself. */
  hlsLibrary: '/hls.js',
  /** POST: a person at the screen resets the receiver's count of wrong PINs (204; 503 where nothing is wired). */
  resetPairingTries: '/pairing/reset-tries',
  /**
   * GET, `?client=TOKEN&n=N`: the <video> element of the page that plays next, pointed here while
   * nothing plays; the request waits for the next video, which is sent on it (player.ts).
   */
  videoStandby: '/video/standby',
} as const;

/** The query parameter of a standby request that numbers it (each page counts its own from 1). */
export const STANDBY_NUMBER_PARAMETER = 'n';

/** The query parameter that names the page (its event stream's token): of a player report and of a standby request. */
export const PAGE_CLIENT_PARAMETER = 'client';

// --- The state (GET /events, GET /state) ---------------------------------------------------------

/** The screen as the page draws it (display.ts VirtualScreen.snapshot). */
export interface ScreenSnapshot {
  readonly name: string;
  /** spec 2.1 activity: `idle`, `receivingVideo`... */
  readonly activity: string;
  /** What the media session shows (a photo, a video... under one activity), else null. */
  readonly media: ShownMedia | null;
  /** Slideshow state (spec 3) while a slideshow runs, else null. */
  readonly slideshow: string | null;
  /** The pairing PIN while it is shown, else null. */
  readonly pin: string | null;
  /** The picture on the screen, or null when the screen is clear. */
  readonly photo: ScreenPhoto | null;
  /** What realtime audio plays, as its sender describes it, or null: nothing plays. */
  readonly nowPlaying: ScreenNowPlaying | null;
  /** How a person reaches the receiver, for the idle screen; null until it listens. */
  readonly connection: ScreenConnection | null;
}

/** How senders reach the receiver and what pairing asks of them (display.ts, from the host's listeners and configuration). */
export interface ScreenConnection {
  /** Addresses senders reach it at (the machine's own, else loopback), as a sender tool takes them. */
  readonly addresses: readonly string[];
  /** The HTTP and RTSP port. */
  readonly port: number;
  /** What a sender must give before anything else: a PIN this screen shows, the receiver's password, or nothing. */
  readonly pairing: 'pin' | 'password' | 'none';
}

/** What plays (display.ts from the Display port's NowPlaying); each text null until the sender says it. */
export interface ScreenNowPlaying {
  /** Counts every change since start: the page knows a new state from it. */
  readonly version: number;
  readonly title: string | null;
  readonly artist: string | null;
  readonly album: string | null;
  /** Where the page loads the cover art (its version is in it: a URL names one picture), or null: none. */
  readonly artworkUrl: string | null;
  /**
   * Seconds played when this state was made, and the track's length, or null: the sender said
   * neither. The page runs the bar on from `elapsed` at one second a second, up to `duration`.
   */
  readonly progress: { readonly elapsed: number; readonly duration: number } | null;
}

export interface ScreenPhoto {
  /** Counts every picture shown since start: the page knows a new one from it. */
  readonly version: number;
  /** Where the page loads the JPEG: the version is in it, so a URL names one picture. */
  readonly url: string;
  /** The animation (page/screen.css `t-<name>`). */
  readonly transition: Transition;
  readonly bytes: number;
}

/** What the pages are told to play (player.ts PagePlayer.command). */
export interface VideoCommand {
  readonly item: number;
  /** Where the page fetches it: `/media/ITEM/0` on the screen server. */
  readonly src: string;
  /** `hls` when the URL is an HLS playlist (by its path, or its Content-Type once fetched). */
  readonly kind: 'file' | 'hls';
  /** The token of the page that plays it (given to each page on its event stream), or null: no page. */
  readonly player: string | null;
  /** Where a page that (re)loads the item starts it: the asked start, then the last seek or handover. */
  readonly start: StartPosition;
  /** The rate asked for: 0 pauses. */
  readonly rate: number;
  /** The last seek asked for; `version` grows with each, so the page applies each once. */
  readonly seek: { readonly version: number; readonly seconds: number } | null;
  /**
   * The standby request of the playing page (its number) the item was sent on: that page's
   * element has it already, and keeps asking that path for it. Null: the page loads `src`.
   */
  readonly standby: number | null;
}

/**
 * What a page gets on every change: the screen, the video to play (null: none), and the page that
 * plays the next one (null: none open, or no player), which keeps a standby request open while
 * nothing plays. Each event stream's first event carries the page's token as its id (EventSource
 * keeps it as every later event's lastEventId): VideoCommand.player and videoPage name pages by it.
 */
export type PageState = ScreenSnapshot & { readonly video: VideoCommand | null; readonly videoPage: string | null };

// --- The video layer's report (POST /player/report) ----------------------------------------------

/** A span of media time on the wire: [start, duration], seconds (a JSON pair, not an object). */
export type WireTimeRange = readonly [start: number, duration: number];

/**
 * What the playing page says about its <video> element (JSON): the Player port's report less what
 * the host knows itself (bytes, requests and the server, from the media proxy; startup time, from
 * when a frame was first shown). player.ts parsePageReport checks it field by field.
 */
export type PageVideoReport = Omit<PlayerReport, 'duration' | 'loaded' | 'seekable' | 'bytes' | 'requests' | 'startupTime' | 'serverAddress' | 'error'> & {
  /** null: a live stream (Infinity does not travel in JSON). */
  readonly duration: number | null;
  readonly loaded: readonly WireTimeRange[];
  readonly seekable: readonly WireTimeRange[];
  /** A frame of the item has been drawn. */
  readonly frameShown: boolean;
  readonly error?: PlayerError;
};

/** Largest report body a page may send. */
export const MAX_PAGE_REPORT_BYTES = 16 * 1024;
/** Most time ranges a report lists (the page sends the first ones; more are refused). */
export const MAX_REPORT_RANGES = 64;

// --- Screen mirroring (GET /mirror, WebSocket) ---------------------------------------------------
//
// Messages to the page are binary, a 10-byte header and a payload:
//
//   byte 0      kind: PAGE_MESSAGE below
//   byte 1      flags: KEY_FRAME_FLAG (access units)
//   bytes 2-9   time, float64 little-endian: the host's monotonic clock in ms;
//               `clock`: the time it was sent; `accessUnit`: its presentation time
//   payload     `configure`: the RFC 6381 codec string, UTF-8; `accessUnit`: the Annex B bytes
//
// Messages from the page are JSON text (MirrorPageReport), for the receiver's log.

/** Message kinds to the page. */
export const PAGE_MESSAGE = {
  /** The host's clock now: the page maps presentation times onto its own performance.now(). */
  clock: 0,
  /** A new stream configuration: the codec string. The page's decoder starts again at a key frame. */
  configure: 1,
  accessUnit: 2,
  /** The stream ended: drop what is queued, clear the picture. */
  reset: 3,
} as const;

/** Where the header's fields are (the layout above). */
export const PAGE_MESSAGE_HEADER = { kind: 0, flags: 1, time: 2 } as const;
export const PAGE_MESSAGE_HEADER_BYTES = 10;
/** Flags bit: the access unit is a key frame. */
export const KEY_FRAME_FLAG = 0x01;

/** WebSocket close code a page gets when a newer page takes mirroring over (4000-4999: private use). */
export const REPLACED_BY_NEWER_PAGE = 4001;

/**
 * What the page tells the receiver's log: `error` when its decoder fails, `behind` when it cannot
 * decode as fast as the stream comes (either way it starts again at the next key frame by itself).
 */
export const MIRROR_REPORT_KINDS = ['error', 'behind'] as const;

export interface MirrorPageReport {
  readonly kind: (typeof MIRROR_REPORT_KINDS)[number];
  readonly message: string;
}
