// The virtual screen's web server: one page that draws what a frame would show, kept up to date
// with Server-Sent Events, on loopback only (127.0.0.1 and ::1). Everything it serves is its own
// (the page built into dist/screen/, hls.js from node_modules): the page works with no network.
// What it answers is a table (routes.ts); the live updates are event-streams.ts, screen
// mirroring's WebSocket mirror-upgrade.ts, and the addresses loopback.ts.

import http from 'node:http';
import type { Logger } from '../../../src/platform';
import type { VirtualScreen } from './display';
import { PageEventStreams } from './event-streams';
import { listenOnLoopback } from './loopback';
import { MirrorUpgrades } from './mirror-upgrade';
import type { PageDecoder } from './page-decoder';
import type { PagePlayer } from './player';
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

export async function startScreenServer(options: ScreenServerOptions): Promise<ScreenServer> {
  const { screen, player, log } = options;
  const maxClients = options.maxClients ?? DEFAULT_MAX_SCREEN_CLIENTS;
  const streams = new PageEventStreams({ screen, player, log, maxClients, heartbeatMs: options.heartbeatMs ?? 15_000 });
  const mirror = new MirrorUpgrades(options.mirror, log);
  const routes = screenRoutes({ screen, player, streams, log });
  const create = (): http.Server => {
    const server = http.createServer((request, response) => dispatch(routes, request, response));
    server.on('upgrade', mirror.upgrade);
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
