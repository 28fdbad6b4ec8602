// The screen page's media path: the page never fetches a sender's URL itself, it fetches
// `/media/ITEM/N` on the screen server, and this forwards each request to the URL it stands for
// and counts what really came back (spec 2.10 bytes, sc-count, s-ip). N 0 is the URL POST /play
// named; an HLS playlist's URIs (segments, variant playlists, keys, init sections) are resolved
// against the playlist's URL, numbered, and written back into the playlist as `/media/ITEM/N`,
// so a stream's every fetch comes through here too. Only URLs of the item loaded now are ever
// fetched: a number not handed out, or one of an older item, is 404. Not an open proxy.
//
// Byte ranges for media servers without them (Python's `http.server`, many small servers): such
// a server answers the page's Range request with 200 and the whole file. Chromium then takes
// the file for a stream it cannot seek (its seekable range is [0, 0]), and a sender's POST
// /scrub restarts the video from 0. A person who scrubs expects the picture at the place asked,
// as with any other server, so the proxy serves the range itself: it answers 206 with the bytes
// asked, read from the whole file the server sends, the bytes before the range read and
// dropped, and says Accept-Ranges on such a server's answers so the page knows it may ask.
// Not from what it fetched before: that would hold the movie in memory, with no bound (DESIGN
// principle 4); reading the start of the file again costs only time, a few seconds on a home
// network even near the end of a film. A server that does not say the file's length
// (Content-Length) cannot be answered by range (Content-Range needs it): its answer goes through
// as it is, the page cannot seek in it, and the position the receiver reports is where the page
// really is (its report), not the one asked.
//
// Where it fetches from: a sender's URL must not turn the receiver inward. Every fetch (URL 0,
// each redirect, each URL a playlist names) first resolves its host and checks the addresses
// (media-destinations.ts: loopback, link-local, multicast, the receiver's own addresses are
// refused; private LAN ranges allowed unless blocked; `--media-allow` adds ranges), then connects
// to the address checked. What the sender hears of a fetch (the item's PlayerError, its
// playbackErrorLog) is FETCH_ERRORS: refused or failed, the same words whatever went wrong, with
// no status line, redirect target or query of what the server said: a sender must not read
// internal answers through it, nor tell a closed port from one that answered (a port scanner):
// an error answer is not counted either (requests, bytes, s-ip of the access log). The detail
// goes to the receiver's own log. The page gets 403 or 502 alike.

import http from 'node:http';
import { DEFAULT_LIMITS } from '../../../src/receiver';
import type { PlayerError } from '../../../src/platform';
import { MediaDestinations } from './media-destinations';
import { UpstreamFetch, type MediaFetching, type MediaLimits, type UpstreamItem } from './media-upstream';

/**
 * All a sender hears of a fetch that did not work (see the header): the destination is not
 * allowed, or the fetch failed for any reason at all (no answer, an error status, too many
 * redirects, a playlist too large), with the status the page gets for each.
 */
export const FETCH_ERRORS = {
  refused: { status: 403, error: { code: -1, domain: 'VendorPlayReceiver', message: 'refused: the receiver does not fetch media from that address' } },
  failed: { status: 502, error: { code: -1, domain: 'VendorPlayReceiver', message: 'failed: the media could not be fetched' } },
} as const satisfies Record<string, { status: number; error: PlayerError }>;

type FetchOutcome = keyof typeof FETCH_ERRORS;

/** HLS playlist types (RFC 8216 4), and the path endings that name one when the type does not. */
/** The HLS playlist type (RFC 8216 4): what a rewritten playlist is served as. */
const HLS_TYPE = 'application/vnd.apple.mpegurl';
const PLAYLIST_TYPES = new Set([HLS_TYPE, 'application/x-mpegurl', 'audio/mpegurl', 'audio/x-mpegurl']);

/** Where the screen server serves the media: mediaPath() under it. */
export const MEDIA_PATH_PREFIX = '/media/';

/** The screen server's path of URL `number` of `item`. */
function mediaPath(item: number, number: number): string {
  return `${MEDIA_PATH_PREFIX}${item}/${number}`;
}

/** The item and URL number of a mediaPath(), or undefined for any other path. */
export function parseMediaPath(path: string): { readonly item: number; readonly number: number } | undefined {
  const match = /^\/media\/(\d{1,15})\/(\d{1,15})$/.exec(path);
  return match ? { item: Number(match[1]), number: Number(match[2]) } : undefined;
}
const PLAYLIST_PATH = /\.m3u8?$/i;
/** Types a server sends when it does not know; then the path decides. */
const VAGUE_TYPES = new Set(['', 'text/plain', 'application/octet-stream', 'binary/octet-stream']);

/** Headers of the media server's answer that the page gets as they are. */
const FORWARDED_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

/**
 * The one byte range of a Range header (RFC 9110 14.1.2) in a representation of `length` bytes,
 * `unsatisfiable` when it starts past the end (416), or undefined: no header, several ranges or
 * one not understood (RFC 9110 14.2: a server may then answer the whole, 200).
 */
function byteRange(header: string | undefined, length: number): { readonly start: number; readonly end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    // A suffix: the last N bytes.
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? length - 1 : Math.min(Number(match[2]), length - 1);
  if (start >= length) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/** The request headers of a fetch: the page's Range and If-Range go to the media server. */
function upstreamHeaders(page: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = { 'User-Agent': 'vendorplay-receiver', Accept: '*/*' };
  for (const name of ['range', 'if-range']) {
    const value = page[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** What a media element asks of a file first (Chromium, Firefox and Safari alike): all of it, as a range. */
const FIRST_RANGE = 'bytes=0-';

/** Whether `url` names an HLS playlist by its path (before anything is fetched). */
export function looksLikePlaylist(url: string): boolean {
  try {
    return PLAYLIST_PATH.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/** The URL a sender gave, checked: http or https only. Returns the reason when it is not usable. */
export function checkMediaUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `not a URL: ${JSON.stringify(text.slice(0, 200))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs play (got ${url.protocol})`;
  return url;
}

/** One item's URLs and what fetching them cost. */
export class MediaItem {
  bytes = 0;
  requests = 0;
  /** The address the first answer came from (spec 2.10 s-ip). */
  serverAddress: string | undefined;
  /** Set when URL 0 turned out to be an HLS playlist by its Content-Type. */
  playlistSeen = false;
  /** Why URL 0 could not be fetched; the item cannot play. */
  failure: PlayerError | undefined;
  /** The last fetch that failed (a segment), for the report's error. */
  lastError: PlayerError | undefined;
  private readonly urls = new Map<number, string>();
  private readonly numbers = new Map<string, number>();
  private next = 0;
  private readonly active = new Set<http.ClientRequest>();
  private closed = false;
  /** URL 0 fetched ahead of the page (prefetch()), until the page's first request of it. */
  private prefetched: UpstreamFetch | undefined;
  /** What this item's fetches (media-upstream.ts) see of it. */
  private readonly upstreamItem: UpstreamItem;

  /** The path the page fetches the item's own URL at (URL 0, as `new URL` wrote it). */
  readonly src: string;

  /**
   * `changed` is called when a fact the report carries changes (not for every byte);
   * `playsAs` true when the change is how the page plays the item (a playlist found by its
   * Content-Type), which the pages are told.
   */
  private readonly limits: MediaLimits;

  constructor(
    readonly item: number,
    url: URL,
    private readonly changed: (playsAs: boolean) => void,
    private readonly fetching: MediaFetching = { limits: DEFAULT_LIMITS, destinations: new MediaDestinations(), log: () => {} },
  ) {
    this.limits = fetching.limits;
    this.src = this.pathOf(url.href);
    const isClosed = () => this.closed;
    this.upstreamItem = {
      fetching,
      active: this.active,
      get closed() {
        return isClosed();
      },
      counted: (answer) => {
        this.requests++;
        if (this.serverAddress === undefined && answer.socket.remoteAddress) {
          this.serverAddress = answer.socket.remoteAddress;
          this.changed(false);
        }
      },
    };
  }

  /** The path the page fetches for `url` (numbered on first sight). */
  pathOf(url: string): string {
    return mediaPath(this.item, this.number(url));
  }

  urlOf(number: number): string | undefined {
    return this.urls.get(number);
  }

  /** Ends every fetch in flight: the item was replaced or stopped. */
  close(): void {
    this.closed = true;
    this.dropPrefetch();
    for (const request of this.active) request.destroy();
    this.active.clear();
  }

  private number(url: string): number {
    const known = this.numbers.get(url);
    if (known !== undefined) return known;
    const number = this.next++;
    this.urls.set(number, url);
    this.numbers.set(url, number);
    // A live stream names new segments forever: the oldest numbers go (URL 0 stays).
    const oldest = number - this.limits.mediaItemUrls;
    if (oldest > 0) {
      const gone = this.urls.get(oldest);
      this.urls.delete(oldest);
      if (gone !== undefined) this.numbers.delete(gone);
    }
    return number;
  }

  /**
   * Answers the page's request for URL `number` from the media server. `extraHeaders` go on every
   * answer (the screen server's security headers).
   */
  serve(number: number, request: http.IncomingMessage, response: http.ServerResponse, extraHeaders: Record<string, string>): void {
    const url = this.urls.get(number);
    /** The fetch did not work: the sender hears `outcome` alone, the receiver's log `detail`. */
    const fail = (outcome: FetchOutcome, detail: string) => {
      const { status, error } = FETCH_ERRORS[outcome];
      this.fetching.log(outcome === 'refused' ? 'warn' : 'info', `video: item ${this.item}: fetch ${outcome}: ${detail}`);
      this.noteError(number, error);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const body = `${error.message}\n`;
      response.writeHead(status, { ...extraHeaders, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
      response.end(body);
    };
    if (url === undefined || this.closed) {
      response.writeHead(404, { ...extraHeaders, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end('not a URL of the item playing now\n');
      return;
    }
    const headers = upstreamHeaders(request.headers);
    const upstream = this.takePrefetch(number, headers) ?? new UpstreamFetch(new URL(url), headers, this.upstreamItem);
    // The page went away (a new item, a seek that cancels a range): so does the fetch.
    response.on('close', () => upstream.destroy());
    upstream.take({
      result: (result) => {
        if (this.closed || response.destroyed) {
          upstream.destroy();
          return;
        }
        if ('outcome' in result) {
          fail(result.outcome, result.detail);
          return;
        }
        const { answer, target } = result;
        const type = (answer.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        const playlist = PLAYLIST_TYPES.has(type) || (VAGUE_TYPES.has(type) && PLAYLIST_PATH.test(target.pathname));
        if (playlist) this.relayPlaylist(number, target, answer, response, extraHeaders, fail);
        else this.relayMedia(request.headers.range, answer, response, extraHeaders);
      },
      lateError: (detail) => {
        if (!this.closed && !response.destroyed) fail('failed', detail);
      },
    });
  }

  /**
   * Starts fetching URL 0 as the page's first request of it will ask (from its start: a media
   * element reads a file's header first), while the page is being told what to play: the first
   * bytes then wait for the page (media-upstream.ts). Not a playlist by its path: the page's HLS
   * player asks for those otherwise. The page's first request for URL 0 takes it when it asks the
   * same; otherwise it is dropped (what it fetched is counted, as the media server counts it).
   */
  prefetch(): void {
    const url = this.urls.get(0);
    if (this.closed || this.prefetched || url === undefined || looksLikePlaylist(url)) return;
    this.prefetched = new UpstreamFetch(new URL(url), upstreamHeaders({ range: FIRST_RANGE }), this.upstreamItem);
  }

  /** Ends the prefetch of URL 0 if no page took it (the page that was to play it closed). */
  dropPrefetch(): void {
    this.prefetched?.destroy();
    this.prefetched = undefined;
  }

  /** The prefetch of URL 0 for the page's first request of it, when it asks what that asked. */
  private takePrefetch(number: number, headers: Readonly<Record<string, string>>): UpstreamFetch | undefined {
    const prefetched = this.prefetched;
    if (number !== 0 || !prefetched) return undefined;
    this.prefetched = undefined;
    if (prefetched.usable && prefetched.asks(headers)) return prefetched;
    prefetched.destroy();
    return undefined;
  }

  /**
   * Streams bytes through as they come, counting them. A whole file of known length from a
   * server that ignored the page's Range (200) is cut to the range asked (206; see the header).
   */
  private relayMedia(asked: string | undefined, answer: http.IncomingMessage, response: http.ServerResponse, extraHeaders: Record<string, string>): void {
    const headers: Record<string, string> = { ...extraHeaders, 'Cache-Control': 'no-store' };
    for (const name of FORWARDED_HEADERS) {
      const value = answer.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    let status = answer.statusCode ?? 200;
    /** Bytes of the answer to drop before the range, and to send from there on. */
    let skip = 0;
    let left = Infinity;
    const length = status === 200 && /^\d{1,15}$/.test(headers['content-length'] ?? '') ? Number(headers['content-length']) : undefined;
    if (length !== undefined) {
      // The whole file, its length known: any range of it can be served from here.
      headers['accept-ranges'] = 'bytes';
      const range = byteRange(asked, length);
      if (range === 'unsatisfiable') {
        answer.destroy();
        const body = `the file has ${length} bytes; the range ${asked} starts past its end\n`;
        response.writeHead(416, { ...extraHeaders, 'Content-Range': `bytes */${length}`, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' });
        response.end(body);
        return;
      }
      if (range) {
        status = 206;
        skip = range.start;
        left = range.end - range.start + 1;
        headers['content-range'] = `bytes ${range.start}-${range.end}/${length}`;
        headers['content-length'] = String(left);
      }
    }
    response.writeHead(status, headers);
    let finished = false;
    const finish = (end: () => void) => {
      if (finished) return;
      finished = true;
      end();
    };
    answer.on('data', (chunk: Buffer) => {
      // Every byte fetched counts (spec 2.10 bytes), those dropped before a range too.
      this.bytes += chunk.length;
      if (finished) return;
      let part = chunk;
      if (skip > 0) {
        const dropped = Math.min(skip, part.length);
        skip -= dropped;
        part = part.subarray(dropped);
      }
      if (part.length > left) part = part.subarray(0, left);
      left -= part.length;
      // Backpressure: the page reads at its pace, the media server waits for it.
      if (part.length > 0 && !response.write(part)) {
        answer.pause();
        response.once('drain', () => answer.resume());
      }
      if (left === 0) {
        // The range is sent: the rest of the file is not fetched.
        answer.destroy();
        finish(() => response.end());
      }
    });
    answer.on('end', () => finish(() => response.end()));
    answer.on('error', () => finish(() => response.destroy()));
    // Destroyed before its end (the page went away, the item stopped): the page's answer goes too.
    answer.on('close', () => finish(() => (answer.complete ? response.end() : response.destroy())));
  }

  /** Reads a playlist whole (bounded), numbers its URIs and sends it rewritten. */
  private relayPlaylist(
    number: number,
    base: URL,
    answer: http.IncomingMessage,
    response: http.ServerResponse,
    extraHeaders: Record<string, string>,
    fail: (outcome: FetchOutcome, detail: string) => void,
  ): void {
    if (number === 0 && !this.playlistSeen) {
      this.playlistSeen = true;
      this.changed(true);
    }
    const chunks: Buffer[] = [];
    let length = 0;
    answer.on('data', (chunk: Buffer) => {
      this.bytes += chunk.length;
      length += chunk.length;
      if (length > this.limits.mediaPlaylistBytes) {
        answer.destroy();
        fail('failed', `playlist ${base.href} is larger than ${this.limits.mediaPlaylistBytes} bytes`);
        return;
      }
      chunks.push(chunk);
    });
    answer.on('end', () => {
      if (response.headersSent || response.destroyed) return;
      const text = this.rewritePlaylist(Buffer.concat(chunks).toString('utf8'), base);
      response.writeHead(200, {
        ...extraHeaders,
        'Content-Type': HLS_TYPE,
        'Content-Length': Buffer.byteLength(text),
        'Cache-Control': 'no-store',
      });
      response.end(text);
    });
    answer.on('error', () => response.destroy());
  }

  /** RFC 8216 4.1: URI lines, and URI="..." attributes of tags, become this item's paths. */
  rewritePlaylist(text: string, base: URL): string {
    const local = (uri: string): string => {
      let url: URL;
      try {
        url = new URL(uri, base);
      } catch {
        return uri;
      }
      // data: and skd: (keys) and the like are not fetched through here; left as they are.
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return uri;
      return this.pathOf(url.href);
    };
    return text
      .split(/\r?\n/)
      .map((line) => {
        const trimmed = line.trim();
        if (trimmed === '') return line;
        if (!trimmed.startsWith('#')) return local(trimmed);
        return line.replace(/URI="([^"]*)"/g, (_, uri: string) => `URI="${local(uri)}"`);
      })
      .join('\n');
  }

  private noteError(number: number, error: PlayerError): void {
    this.lastError = error;
    if (number === 0 && this.failure === undefined) this.failure = error;
    this.changed(false);
  }
}
