// The virtual screen's web server: one page that draws what a frame would show, kept up to date
// with Server-Sent Events, on loopback only (127.0.0.1 and ::1). Everything it serves is its own
// (the page built into dist/screen/, hls.js from node_modules): the page works with no network.
//
//   GET /               the page (dist/screen/: page.html, screen.css, page.js; page-assets.ts)
//   GET /events         Server-Sent Events: the whole ScreenSnapshot as JSON on every change
//   GET /state          the ScreenSnapshot now, as JSON
//   GET /photo/N.jpg    picture N while it is the one shown (N counts pictures since start)
//   GET /mirror         WebSocket: screen mirroring's access units to the page (page-decoder.ts),
//                       for pages of this server only (Host and Origin checked)
//
// With a player (a profile that plays video: player.ts):
//   GET /hls.js              hls.js, for HLS where the browser plays none itself
//   GET /media/ITEM/N        the media of the item playing, fetched through media-proxy.ts
//   POST /player/report?client=TOKEN   the playing page's report (JSON, bounded)
// Each event stream's first event carries the page's token as its id (the page that plays is
// named by it in the state's `video` field).

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Logger } from '../../../src/platform';
import type { VirtualScreen } from './display';
import { parseMediaPath } from './media-proxy';
import { hlsLibraryFile, PAGE_FILES, pageFile } from './page-assets';
import type { PageDecoder } from './page-decoder';
import { MAX_PAGE_REPORT_BYTES, type PageState } from './page-protocol';
import type { PagePlayer } from './player';

export interface ScreenServerOptions {
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

export const DEFAULT_MAX_SCREEN_CLIENTS = 8;

/** The loopback addresses served; nothing else is ever bound. */
const LOOPBACK = ['127.0.0.1', '::1'] as const;

/** Host header names a page on this machine uses; others are refused (DNS rebinding). */
const LOCAL_HOSTNAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Headers on every answer: nothing from elsewhere, no framing by other sites, no sniffing. */
const COMMON_HEADERS = {
  // media-src blob: is hls.js's Media Source; the media itself comes from /media on this server.
  'Content-Security-Policy': "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; media-src 'self' blob:; worker-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export async function startScreenServer(options: ScreenServerOptions): Promise<ScreenServer> {
  const { screen, player, log } = options;
  const maxClients = options.maxClients ?? DEFAULT_MAX_SCREEN_CLIENTS;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const clients = new Set<http.ServerResponse>();

  const pageState = (): PageState => ({ ...screen.snapshot(), video: player?.command() ?? null });
  const send = (response: http.ServerResponse, state: PageState) => response.write(`data: ${JSON.stringify(state)}\n\n`);

  // Changes that come together (a picture and the activity it brings) go out as one event.
  let pending = false;
  const changed = () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      const state = pageState();
      for (const client of clients) send(client, state);
    });
  };
  const unsubscribeScreen = screen.subscribe(changed);
  const unsubscribePlayer = player?.subscribe(changed);
  const unsubscribe = () => {
    unsubscribeScreen();
    unsubscribePlayer?.();
  };
  const heartbeat = setInterval(() => {
    for (const client of clients) client.write(': keep-alive\n\n');
  }, heartbeatMs);
  heartbeat.unref();

  // Screen mirroring's stream to the page. The page sends only short reports: a small payload limit.
  const mirror = options.mirror;
  // ws is loaded when the first page opens the stream, not at start: it is a CommonJS package
  // that took about 12 ms of every start to load, for a stream most runs never open.
  let mirrorSockets: Promise<WebSocketServer> | undefined;
  const mirrorServer = (): Promise<WebSocketServer> =>
    (mirrorSockets ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: 4096, perMessageDeflate: false })));
  const upgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, reason: string) =>
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(reason)}\r\nConnection: close\r\n\r\n${reason}`);
    if (!LOCAL_HOSTNAMES.has(hostOf(request))) return void refuse(421, 'the virtual screen answers only pages on this machine\n');
    if ((request.url ?? '/').split('?')[0] !== '/mirror' || !mirror) return void refuse(404, 'not found\n');
    // Any page the browser has open, from any site, may try a WebSocket to loopback (no CORS on
    // WebSockets): only this server's own page may watch the screen.
    if (!isOwnOrigin(request.headers.origin, port)) {
      log('warn', `virtual screen: mirroring stream refused to origin ${JSON.stringify(request.headers.origin ?? '(none)').slice(0, 120)}`);
      return void refuse(403, 'only the virtual screen page may open the mirroring stream\n');
    }
    // Until ws takes it, the socket has no 'data' listener and not flowing: what the page sends
    // meanwhile waits in the socket's buffer.
    // Whatever fails here fails this page's stream only (a rejection left unhandled would stop
    // the receiver).
    mirrorServer()
      .then(
        (sockets) => {
          if (!socket.destroyed) sockets.handleUpgrade(request, socket, head, (page) => mirror.attach(page));
        },
        (error: Error) => {
          log('error', `virtual screen: the mirroring stream cannot be opened (ws did not load: ${error.message})`);
          refuse(500, 'the mirroring stream is not available (see the receiver log)\n');
        },
      )
      .catch((error: unknown) => {
        log('error', `virtual screen: opening the mirroring stream failed: ${error instanceof Error ? error.message : String(error)}`);
        socket.destroy();
      });
  };

  const handle = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    const answer = (status: number, type: string, body: string | Buffer | Uint8Array, extra: Record<string, string> = {}) => {
      response.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...extra });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (!LOCAL_HOSTNAMES.has(hostOf(request))) {
      answer(421, 'text/plain; charset=utf-8', 'the virtual screen answers only pages on this machine (Host 127.0.0.1, [::1] or localhost)\n');
      return;
    }
    const [path, query = ''] = (request.url ?? '/').split('?');
    if (path.startsWith('/player/') || path.startsWith('/media/')) {
      // Only this page's own requests: another site open in the same browser gets nothing.
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin') {
        answer(403, 'text/plain; charset=utf-8', 'only the screen page itself may use this\n');
        return;
      }
    }
    if (player && path === '/player/report') {
      if (request.method !== 'POST') {
        answer(405, 'text/plain; charset=utf-8', 'POST only\n', { Allow: 'POST' });
        return;
      }
      receiveReport(player, new URLSearchParams(query).get('client') ?? '', request, answer);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      answer(405, 'text/plain; charset=utf-8', 'GET only\n', { Allow: 'GET, HEAD' });
      return;
    }
    if (Object.hasOwn(PAGE_FILES, path)) {
      const { file, type } = PAGE_FILES[path];
      let asset;
      try {
        asset = pageFile(file, type);
      } catch (error) {
        log('error', `virtual screen: ${(error as Error).message}`);
        answer(500, 'text/plain; charset=utf-8', 'the screen page is not built (see the receiver log)\n');
        return;
      }
      answer(200, asset.type, asset.body);
      return;
    }
    if (player && path === '/hls.js') {
      const { type, body } = hlsLibraryFile();
      answer(200, type, body, { 'Cache-Control': 'private, max-age=3600' });
      return;
    }
    const media = parseMediaPath(path);
    if (player && media) {
      const item = player.media(media.item);
      // GET only: a HEAD would cost the media server a request the page does not need.
      if (request.method !== 'GET') answer(405, 'text/plain; charset=utf-8', 'GET only\n', { Allow: 'GET' });
      else if (!item) answer(404, 'text/plain; charset=utf-8', 'not the item playing now\n');
      else item.serve(media.number, request, response, COMMON_HEADERS);
      return;
    }
    if (path === '/state') {
      answer(200, 'application/json; charset=utf-8', JSON.stringify(pageState()));
      return;
    }
    const photo = /^\/photo\/(\d{1,15})\.jpg$/.exec(path);
    if (photo) {
      const jpeg = screen.photoBytes(Number(photo[1]));
      if (!jpeg) answer(404, 'text/plain; charset=utf-8', 'that picture is no longer shown\n');
      // A URL names one picture for good: the page may keep it.
      else answer(200, 'image/jpeg', jpeg, { 'Cache-Control': 'private, max-age=3600, immutable' });
      return;
    }
    if (path === '/events') {
      if (clients.size >= maxClients) {
        log('warn', `virtual screen: event stream refused: ${maxClients} pages connected`);
        answer(503, 'text/plain; charset=utf-8', `at most ${maxClients} pages at once\n`, { 'Retry-After': '5' });
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
      clients.add(response);
      player?.attach(token);
      response.write(`id: ${token}\n`);
      send(response, pageState());
      response.on('close', () => {
        clients.delete(response);
        player?.detach(token);
      });
      return;
    }
    if (path === '/mirror') {
      answer(426, 'text/plain; charset=utf-8', 'a WebSocket stream: the page opens it\n', { Upgrade: 'websocket', Connection: 'Upgrade' });
      return;
    }
    if (path === '/favicon.ico') {
      response.writeHead(204, COMMON_HEADERS).end();
      return;
    }
    answer(404, 'text/plain; charset=utf-8', 'not found\n');
  };

  const servers: http.Server[] = [];
  const urls: string[] = [];
  let port = options.port;
  try {
    for (const address of LOOPBACK) {
      const server = http.createServer(handle);
      server.on('upgrade', upgrade);
      // Pages connect for minutes; these bound everything else.
      server.headersTimeout = 10_000;
      server.requestTimeout = 30_000;
      server.maxConnections = maxClients + 16;
      try {
        await listen(server, port, address);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // No IPv6 loopback on this machine: serve IPv4 only.
        if (address === '::1' && (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT')) {
          log('debug', `virtual screen: not on [::1] (${code})`);
          continue;
        }
        throw error;
      }
      port = (server.address() as AddressInfo).port;
      servers.push(server);
      urls.push(`http://${address.includes(':') ? `[${address}]` : address}:${port}/`);
    }
  } catch (error) {
    clearInterval(heartbeat);
    unsubscribe();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    throw error;
  }

  return {
    port,
    urls,
    get clientCount() {
      return clients.size;
    },
    close: async () => {
      clearInterval(heartbeat);
      unsubscribe();
      mirror?.close();
      // Upgraded sockets are not the HTTP server's any more: closeAllConnections does not end them.
      const sockets = await mirrorSockets?.catch(() => undefined);
      for (const page of sockets?.clients ?? []) page.terminate();
      sockets?.close();
      for (const client of clients) client.end();
      clients.clear();
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

/** The Host header's name without its port, lower case (`[::1]` keeps its brackets). */
function hostOf(request: http.IncomingMessage): string {
  return (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
}

/** Whether `origin` is a page of this server: http, a loopback name, this port. */
function isOwnOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && LOCAL_HOSTNAMES.has(url.hostname) && url.port === String(port);
}

/** Reads a page's report (bounded) and hands it to the player: 204, or why not. */
function receiveReport(
  player: PagePlayer,
  token: string,
  request: http.IncomingMessage,
  answer: (status: number, type: string, body: string) => void,
): void {
  // JSON only: a form or a plain-text POST from elsewhere is not a report.
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    request.resume();
    answer(415, 'text/plain; charset=utf-8', 'a report is application/json\n');
    return;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  let refused = false;
  request.on('data', (chunk: Buffer) => {
    if (refused) return;
    length += chunk.length;
    if (length > MAX_PAGE_REPORT_BYTES) {
      refused = true;
      answer(413, 'text/plain; charset=utf-8', `a report is at most ${MAX_PAGE_REPORT_BYTES} bytes\n`);
      return;
    }
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (refused) return;
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      answer(400, 'text/plain; charset=utf-8', 'the report is not JSON\n');
      return;
    }
    const refusal = player.pageReport(token, body);
    if (refusal === undefined) answer(204, 'text/plain; charset=utf-8', '');
    else answer(409, 'text/plain; charset=utf-8', `${refusal}\n`);
  });
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
