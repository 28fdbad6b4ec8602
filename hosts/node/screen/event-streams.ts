// The pages' live updates (GET /events): Server-Sent Events, the whole PageState as JSON on every
// change of the screen, the player or the pages open, at most `maxClients` streams at once, a
// keep-alive comment every `heartbeatMs` (a closed tab is noticed by it). Each stream's first
// event carries the page's token as its id: the player names the page that plays by it (player.ts).

import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { Logger } from '../../../src/platform';
import type { VirtualScreen } from './display';
import { answerText, COMMON_HEADERS, type Exchange } from './exchange';
import type { PageState } from './page-protocol';
import type { PagePlayer } from './player';

interface PageEventStreamsOptions {
  readonly screen: VirtualScreen;
  readonly player: PagePlayer | undefined;
  readonly log: Logger;
  readonly maxClients: number;
  readonly heartbeatMs: number;
}

export class PageEventStreams {
  private readonly clients = new Set<http.ServerResponse>();
  /**
   * A state goes out at the end of this turn: changes made together (a picture and its activity,
   * a video's rate and the status line) make one event, and none waits behind the I/O of the next
   * turn. A new video goes out at once (PagePlayer.subscribe): the page fetches it as it hears,
   * and the rest of the turn (the answer to POST /play, log lines) can wait for it.
   */
  private pending = false;
  /** A change the pages have not been sent yet. */
  private unsent = false;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: (() => void)[];

  constructor(private readonly options: PageEventStreamsOptions) {
    this.unsubscribe = [options.screen.subscribe(() => this.changed(false)), ...(options.player ? [options.player.subscribe((newItem) => this.changed(newItem))] : [])];
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) client.write(': keep-alive\n\n');
    }, options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Event streams open now. */
  get count(): number {
    return this.clients.size;
  }

  /** What a page is sent: the screen, and the video to play. */
  pageState(): PageState {
    const { screen, player } = this.options;
    return { ...screen.snapshot(), video: player?.command() ?? null, videoPage: player?.playerPage() ?? null };
  }

  /** GET /events: a new stream, or 503 when `maxClients` are open. */
  open(exchange: Exchange): void {
    const { request, response } = exchange;
    const { maxClients, log, player } = this.options;
    if (this.clients.size >= maxClients) {
      log('warn', `virtual screen: event stream refused: ${maxClients} pages connected`);
      answerText(exchange, 503, `at most ${maxClients} pages at once\n`, { 'Retry-After': '5' });
      return;
    }
    response.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    response.socket?.setNoDelay(true);
    // Reconnect soon after the receiver restarts; then the whole state comes at once.
    response.write('retry: 1000\n\n');
    // The page's name for this stream, as the event id of the first state (EventSource keeps
    // it as every later event's lastEventId): the video command says which page plays by it,
    // and the playing page signs its reports with it.
    const token = randomBytes(12).toString('base64url');
    player?.attach(token);
    const state = this.pageState();
    // The page that played next before this one (videoPage) does not any more.
    for (const client of this.clients) send(client, state);
    this.clients.add(response);
    response.write(`id: ${token}\n`);
    send(response, state);
    response.on('close', () => {
      this.clients.delete(response);
      player?.detach(token);
      // The page that plays next may be another now.
      this.changed(false);
    });
  }

  /** Stops the updates and ends every stream. */
  close(): void {
    clearInterval(this.heartbeat);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private changed(now: boolean): void {
    // No page open: nothing to build (a page that opens gets the whole state then).
    if (this.clients.size === 0) return;
    this.unsent = true;
    if (now) {
      this.sendUnsent(true);
      return;
    }
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      this.sendUnsent();
    });
  }

  private sendUnsent(now = false): void {
    if (!this.unsent) return;
    this.unsent = false;
    const state = this.pageState();
    for (const client of this.clients) {
      send(client, state);
      // Node corks a response's socket at every write until the next tick: without this, a new
      // video would leave after the rest of this turn (the answer to POST /play, log lines, the
      // prefetch's checks), the ms the page then waits to start its fetch.
      if (now) client.uncork();
    }
  }
}

function send(response: http.ServerResponse, state: PageState): void {
  response.write(`data: ${JSON.stringify(state)}\n\n`);
}
