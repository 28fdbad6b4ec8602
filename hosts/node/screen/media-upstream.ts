// One fetch of a media URL for the screen page's media proxy (media-proxy.ts): every hop (the URL,
// then each redirect) checked where it goes before it connects (media-destinations.ts), each
// answer that is not an error counted by the item, and the last hop's answer, or why there is
// none, handed to whoever takes it. The proxy starts one when the page asks for a URL; for URL 0
// it may start one as soon as the item is loaded (MediaItem.prefetch), and the page's first
// request takes it: the media server's first bytes then wait for the page, instead of the page
// waiting for a connection to the media server after it asked.
//
// An answer nobody has taken yet is not read: Node reads its socket up to the stream's buffer and
// stops, and TCP holds the media server back (no bytes are counted that nobody read). The
// socket's idle timeout still runs, and a fetch that fails after its answer came is no longer
// worth taking (`usable`).

import http from 'node:http';
import https from 'node:https';
import type { ReceiverLimits } from '../../../src/receiver';
import type { Logger } from '../../../src/platform';
import { pinnedLookup, type CheckedAddress, type MediaDestinations } from './media-destinations';

/** The proxy's limits (src/receiver/limits.ts, `--limit`): playlist size, URLs per item, redirects, server timeout. */
export type MediaLimits = Pick<ReceiverLimits, 'mediaPlaylistBytes' | 'mediaItemUrls' | 'mediaRedirects' | 'mediaServerTimeoutMs'>;

/** How an item fetches: its limits, where it may connect, where the detail of a failure is logged. */
export interface MediaFetching {
  readonly limits: MediaLimits;
  readonly destinations: MediaDestinations;
  readonly log: Logger;
}

/** How a fetch ended: the answer to relay (and the URL it came from), or why there is none. */
export type UpstreamResult =
  | { readonly answer: http.IncomingMessage; readonly target: URL }
  | { readonly outcome: 'refused' | 'failed'; readonly detail: string };

/** What a fetch needs of its item. */
export interface UpstreamItem {
  readonly fetching: MediaFetching;
  /** The item was replaced or stopped: nothing more is fetched for it. */
  readonly closed: boolean;
  /** Requests in flight, ended all at once when the item closes. */
  readonly active: Set<http.ClientRequest>;
  /** A hop's answer that is not an error (spec 2.10 sc-count, s-ip). */
  counted(answer: http.IncomingMessage): void;
}

/** What the taker of a fetch hears. */
export interface UpstreamTaker {
  result(result: UpstreamResult): void;
  /** The connection failed after the answer came (a reset, the idle timeout). */
  lateError(detail: string): void;
}

export class UpstreamFetch {
  private request: http.ClientRequest | undefined;
  private result: UpstreamResult | undefined;
  private taker: UpstreamTaker | undefined;
  private destroyed = false;
  private brokenAfterAnswer = false;

  constructor(
    private readonly url: URL,
    /** The request's headers: `range` and `if-range` as the page sent them. */
    readonly headers: Readonly<Record<string, string>>,
    private readonly item: UpstreamItem,
  ) {
    this.fetchFrom(url, 0);
  }

  /** Whether the fetch still has, or will have, something to hand over. */
  get usable(): boolean {
    return !this.destroyed && !this.brokenAfterAnswer;
  }

  /** Whether this fetch asks the media server what `headers` ask (then it serves that request). */
  asks(headers: Readonly<Record<string, string>>): boolean {
    const names = Object.keys(headers);
    return names.length === Object.keys(this.headers).length && names.every((name) => this.headers[name] === headers[name]);
  }

  /** `taker` hears the result once it is in (at once when it is). One taker only. */
  take(taker: UpstreamTaker): void {
    this.taker = taker;
    if (this.result) taker.result(this.result);
  }

  /** Ends the fetch and any answer it holds (the page went away, the item closed, nobody took it). */
  destroy(): void {
    this.destroyed = true;
    this.request?.destroy();
    if (this.result && 'answer' in this.result) this.result.answer.destroy();
  }

  private settle(result: UpstreamResult): void {
    if (this.destroyed) {
      if ('answer' in result) result.answer.destroy();
      return;
    }
    this.result = result;
    this.taker?.result(result);
  }

  /** Whether anything is still wanted of this fetch. */
  private wanted(): boolean {
    return !this.destroyed && !this.item.closed;
  }

  // Each hop (the URL, then each redirect) is checked where it goes before it connects.
  private fetchFrom(target: URL, redirects: number): void {
    this.item.fetching.destinations.resolve(target).then(
      (destination) => {
        if (!this.wanted()) return;
        if ('refused' in destination) this.settle({ outcome: 'refused', detail: `${target.href}: ${destination.refused}` });
        else this.connect(target, destination.addresses, redirects);
      },
      (error: NodeJS.ErrnoException) => {
        if (this.wanted()) this.settle({ outcome: 'failed', detail: `${target.href}: cannot resolve ${target.hostname}: ${error.code ?? error.message}` });
      },
    );
  }

  private connect(target: URL, addresses: readonly CheckedAddress[], redirects: number): void {
    const { limits } = this.item.fetching;
    const where = addresses.map(({ address }) => address).join(' ');
    const client = target.protocol === 'https:' ? https : http;
    let upstream: http.ClientRequest;
    try {
      upstream = client.request(target, { method: 'GET', headers: this.headers, timeout: limits.mediaServerTimeoutMs, lookup: pinnedLookup(addresses) });
    } catch (error) {
      this.settle({ outcome: 'failed', detail: `${target.href}: ${(error as Error).message}` });
      return;
    }
    this.request = upstream;
    this.item.active.add(upstream);
    upstream.on('close', () => this.item.active.delete(upstream));
    upstream.on('timeout', () => upstream.destroy(new Error(`no answer in ${limits.mediaServerTimeoutMs / 1000} s`)));
    let answered = false;
    upstream.on('error', (error) => {
      if (!this.wanted()) return;
      const detail = `${target.href} (${where}): ${(error as NodeJS.ErrnoException).code ?? error.message}`;
      if (!answered) this.settle({ outcome: 'failed', detail });
      else if (this.result && 'answer' in this.result) {
        this.brokenAfterAnswer = true;
        this.taker?.lateError(detail);
      }
    });
    upstream.on('response', (answer) => {
      answered = true;
      const status = answer.statusCode ?? 502;
      const said = `${target.href} (${answer.socket.remoteAddress ?? where}) answered ${status}${answer.statusMessage ? ` ${answer.statusMessage}` : ''}`;
      if (status >= 400) {
        // Not counted (requests, bytes, s-ip): an error answer must read to the sender as a
        // closed port does, in the access log as in the error log.
        answer.resume();
        this.settle({ outcome: 'failed', detail: said });
        return;
      }
      this.item.counted(answer);
      const location = answer.headers.location;
      if (status >= 300 && status < 400 && location && status !== 304) {
        answer.resume();
        const { mediaRedirects } = limits;
        if (redirects >= mediaRedirects) {
          this.settle({ outcome: 'failed', detail: `${said}: more than ${mediaRedirects} redirects from ${this.url.href}` });
          return;
        }
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          this.settle({ outcome: 'failed', detail: `${said}: a redirect to a bad URL` });
          return;
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          this.settle({ outcome: 'failed', detail: `${said}: a redirect to ${next.protocol}` });
          return;
        }
        this.fetchFrom(next, redirects + 1);
        return;
      }
      this.settle({ answer, target });
    });
    upstream.end();
  }
}
