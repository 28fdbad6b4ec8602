// The virtual screen's web server: one page that draws what a frame would show, kept up to date
// with Server-Sent Events, on loopback only (127.0.0.1 and ::1). Everything it serves is its own
// (the page built into dist/screen/, hls.js from node_modules): the page works with no network.
// What it answers is a table (routes.ts); the live updates are event-streams.ts, screen
// mirroring's WebSocket mirror-upgrade.ts, and the addresses loopback.ts. Every request and every
// upgrade passes one origin check first (page-origin.ts): a page of another site is 403.

import http from 'node:http';
import type { Duplex } from 'node:stream';
import { CountedLog } from '../../../src/counted-log';
import type { Logger } from '../../../src/platform';
import type { VirtualScreen } from './display';
import { PageEventStreams } from './event-streams';
import { COMMON_HEADERS, TEXT } from './exchange';
import { listenOnLoopback } from './loopback';
import { MirrorUpgrades } from './mirror-upgrade';
import type { PageDecoder } from './page-decoder';
import type { PagePlayer } from './player';
import { pageOriginRefusal } from './page-origin';
import { dispatch, screenRoutes } from './routes';

interface ScreenServerOptions {
  readonly screen: VirtualScreen;
  /** Plays video in the page; without one the page has no video layer. */
  readonly player?: PagePlayer;
  /** Port on both loopback addresses; 0 picks a free one (the same on both). */
  readonly port: number;
  readonly log: Logger;
  /** Most pages connected for live updates at once; more are answered 503. */
  readonly maxClients?: number;
  /** Interval of the keep-alive comment on event streams (a closed tab is noticed by it). */
  readonly heartbeatMs?: number;
  /** Screen mirroring shown by the page (GET /mirror), where the receiver mirrors. */
  readonly mirror?: PageDecoder;
}

export interface ScreenServer {
  readonly port: number;
  /** `http://127.0.0.1:PORT/` and, where ::1 exists, `http://[::1]:PORT/`. */
  readonly urls: string[];
  /** Event streams open now. */
  readonly clientCount: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_SCREEN_CLIENTS = 8;

/** The body of a 403 to a page of another origin. */
const OTHER_ORIGIN_REFUSED = 'only the screen page itself may use this\n';

export async function startScreenServer(options: ScreenServerOptions): Promise<ScreenServer> {
  const { screen, player, log } = options;
  const maxClients = options.maxClients ?? DEFAULT_MAX_SCREEN_CLIENTS;
  const streams = new PageEventStreams({ screen, player, log, maxClients, heartbeatMs: options.heartbeatMs ?? 15_000 });
  const mirror = new MirrorUpgrades(options.mirror, log);
  const routes = screenRoutes({ screen, player, streams, log });
  /** The port both servers listen on, once they do: the page's origin names it. */
  let ownPort = 0;
  // A hostile page may ask thousands of times a second: one line per interval, with the count.
  const refusals = new CountedLog();
  const refusal = (request: http.IncomingMessage): string | undefined => {
    const reason = pageOriginRefusal(request, ownPort);
    const count = reason ? refusals.note(performance.now()) : 0;
    const what = `${request.method} ${(request.url ?? '/').slice(0, 80)}`;
    if (count > 0) log('warn', `virtual screen: ${count === 1 ? `${what} refused` : `${count} requests refused in ${refusals.intervalMs / 1000} s, the last ${what}`} (403): ${reason}`);
    return reason;
  };
  const create = (): http.Server => {
    const server = http.createServer((request, response) => {
      if (refusal(request)) {
        request.resume();
        response.writeHead(403, { ...COMMON_HEADERS, 'Content-Type': TEXT, 'Cache-Control': 'no-store', Connection: 'close' }).end(OTHER_ORIGIN_REFUSED);
        return;
      }
      dispatch(routes, request, response);
    });
    server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      if (refusal(request)) return void socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: ${TEXT}\r\nContent-Length: ${Buffer.byteLength(OTHER_ORIGIN_REFUSED)}\r\nConnection: close\r\n\r\n${OTHER_ORIGIN_REFUSED}`);
      mirror.upgrade(request, socket, head);
    });
    // Pages connect for minutes; these bound everything else.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    server.maxConnections = maxClients + 16;
    return server;
  };
  let listening;
  try {
    listening = await listenOnLoopback(create, options.port, log);
  } catch (error) {
    streams.close();
    throw error;
  }
  const { servers, port, urls } = listening;
  mirror.port = port;
  ownPort = port;
  return {
    port,
    urls,
    get clientCount() {
      return streams.count;
    },
    close: async () => {
      await mirror.close();
      streams.close();
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
