// The screen server's routes, one row per path: what it answers, to which methods, and whether
// only the page itself may ask. dispatch() checks what every request must pass (a Host on this
// machine: 421; the page's own origin where a route asks for it: 403; the route's methods: 405)
// before the row's handler runs.
//
//   GET /               the page (dist/screen/: page.html, screen.css, page.js; page-assets.ts)
//   GET /events         Server-Sent Events: the whole PageState as JSON on every change
//   GET /state          the PageState now, as JSON
//   GET /photo/N.jpg    picture N while it is the one shown (N counts pictures since start)
//   GET /artwork/N      cover art N of what audio plays, while it is the one shown (JPEG or PNG)
//   GET /mirror         WebSocket (mirror-upgrade.ts); a plain GET is told to upgrade (426)
//   POST /pairing/reset-tries   the page's own: resets the count of wrong PINs (204)
//
// With a player (a profile that plays video: player.ts):
//   GET /hls.js                          hls.js, for HLS where the browser plays none itself
//   GET /media/ITEM/N                    the media of the item playing, through media-proxy.ts
//   GET /video/standby?client=TOKEN&n=N  the element of the page that plays next, waiting for the
//                                        next video, which is sent on it (player.ts)
//   POST /player/report?client=TOKEN     the playing page's report (JSON, bounded)

import type http from 'node:http';
import type { Logger } from '../../../src/platform';
import { nodeBodyArrays } from '../io/body-arrays';
import { ARTWORK_PATH_PREFIX, parseArtworkPath, parsePhotoPath, PHOTO_PATH_PREFIX, type VirtualScreen } from './display';
import type { PageEventStreams } from './event-streams';
import { answer, answerText, COMMON_HEADERS, exchangeOf, JSON_TYPE, type Exchange } from './exchange';
import { isLocalHost } from './loopback';
import { MEDIA_PATH_PREFIX, parseMediaPath } from './media-proxy';
import { hlsLibraryFile, PAGE_FILES, pageFile } from './page-assets';
import { MAX_PAGE_REPORT_BYTES, PAGE_PATHS, PAGE_CLIENT_PARAMETER, STANDBY_NUMBER_PARAMETER } from './page-protocol';
import type { PagePlayer } from './player';

type Method = 'GET' | 'HEAD' | 'POST';
/** What reads: HEAD answers as GET would, without the body. */
const READ: readonly Method[] = ['GET', 'HEAD'];

export type Route = ({ readonly path: string } | { readonly prefix: string }) & {
  /** Methods answered; any other is 405, with these in Allow. */
  readonly methods: readonly Method[];
  /** Only the page's own requests (Sec-Fetch-Site same-origin where the browser sends it): another site open in the same browser gets 403. */
  readonly ownPageOnly?: boolean;
  readonly handle: (exchange: Exchange) => void;
};

interface RouteContext {
  readonly screen: VirtualScreen;
  readonly player: PagePlayer | undefined;
  readonly streams: PageEventStreams;
  readonly log: Logger;
}

/** The routes of a screen server: the page's, and the player's when there is one. */
export function screenRoutes(context: RouteContext): Route[] {
  const { screen, player, streams, log } = context;
  return [
    ...Object.entries(PAGE_FILES).map(([path, { file, type }]): Route => ({ path, methods: READ, handle: (exchange) => servePageFile(exchange, file, type, log) })),
    { path: PAGE_PATHS.events, methods: READ, handle: (exchange) => streams.open(exchange) },
    { path: '/state', methods: READ, handle: (exchange) => answer(exchange, 200, JSON_TYPE, JSON.stringify(streams.pageState())) },
    { prefix: PHOTO_PATH_PREFIX, methods: READ, handle: (exchange) => servePhoto(exchange, screen) },
    { prefix: ARTWORK_PATH_PREFIX, methods: READ, handle: (exchange) => serveArtwork(exchange, screen) },
    {
      path: PAGE_PATHS.mirror,
      methods: READ,
      handle: (exchange) => answerText(exchange, 426, 'a WebSocket stream: the page opens it\n', { Upgrade: 'websocket', Connection: 'Upgrade' }),
    },
    { path: PAGE_PATHS.resetPairingTries, methods: ['POST'], ownPageOnly: true, handle: (exchange) => resetPairingTries(exchange, screen) },
    { path: '/favicon.ico', methods: READ, handle: ({ response }) => response.writeHead(204, COMMON_HEADERS).end() },
    ...(player ? playerRoutes(player) : []),
  ];
}

function playerRoutes(player: PagePlayer): Route[] {
  return [
    { path: PAGE_PATHS.hlsLibrary, methods: READ, handle: serveHlsLibrary },
    // GET only: a HEAD would cost the media server a request the page does not need.
    { prefix: MEDIA_PATH_PREFIX, methods: ['GET'], ownPageOnly: true, handle: (exchange) => serveMedia(exchange, player) },
    { path: PAGE_PATHS.videoStandby, methods: ['GET'], ownPageOnly: true, handle: (exchange) => holdStandby(exchange, player) },
    { path: PAGE_PATHS.playerReport, methods: ['POST'], ownPageOnly: true, handle: (exchange) => receiveReport(exchange, player) },
  ];
}

/** Answers `request` by the first route whose path matches, after the checks every request passes. */
export function dispatch(routes: readonly Route[], request: http.IncomingMessage, response: http.ServerResponse): void {
  const exchange = exchangeOf(request, response);
  if (!isLocalHost(request)) return answerText(exchange, 421, 'the virtual screen answers only pages on this machine (Host 127.0.0.1, [::1] or localhost)\n');
  const route = routes.find((candidate) => ('path' in candidate ? exchange.path === candidate.path : exchange.path.startsWith(candidate.prefix)));
  if (!route) return answerText(exchange, 404, 'not found\n');
  const site = request.headers['sec-fetch-site'];
  if (route.ownPageOnly && site !== undefined && site !== 'same-origin') return answerText(exchange, 403, 'only the screen page itself may use this\n');
  if (!route.methods.includes(request.method as Method)) {
    return answerText(exchange, 405, `${route.methods.filter((method) => method !== 'HEAD').join(', ')} only\n`, { Allow: route.methods.join(', ') });
  }
  route.handle(exchange);
}

function servePageFile(exchange: Exchange, file: string, type: string, log: Logger): void {
  let found;
  try {
    found = pageFile(file, type);
  } catch (error) {
    log('error', `virtual screen: ${(error as Error).message}`);
    answerText(exchange, 500, 'the screen page is not built (see the receiver log)\n');
    return;
  }
  answer(exchange, 200, found.type, found.body);
}

/** A person at the screen resets the count of wrong PINs (a lock-out of pairing with a fixed PIN). */
function resetPairingTries(exchange: Exchange, screen: VirtualScreen): void {
  exchange.request.resume();
  if (screen.resetPairingTries()) answerText(exchange, 204, '');
  else answerText(exchange, 503, 'no receiver is wired to this screen\n');
}

function serveHlsLibrary(exchange: Exchange): void {
  const { type, body } = hlsLibraryFile();
  answer(exchange, 200, type, body, { 'Cache-Control': 'private, max-age=3600' });
}

function servePhoto(exchange: Exchange, screen: VirtualScreen): void {
  const version = parsePhotoPath(exchange.path);
  if (version === undefined) return answerText(exchange, 404, 'not found\n');
  const jpeg = screen.photoBytes(version);
  if (!jpeg) return answerText(exchange, 404, 'that picture is no longer shown\n');
  // The socket may write it after the screen has moved on and the receiver let go of it: held
  // until the response is done (finished or cut off), so its memory is not given back under it.
  exchange.response.once('close', nodeBodyArrays.hold(jpeg));
  // A URL names one picture for good: the page may keep it.
  answer(exchange, 200, 'image/jpeg', jpeg, { 'Cache-Control': 'private, max-age=3600, immutable' });
}

function serveArtwork(exchange: Exchange, screen: VirtualScreen): void {
  const version = parseArtworkPath(exchange.path);
  if (version === undefined) return answerText(exchange, 404, 'not found\n');
  const artwork = screen.artwork(version);
  if (!artwork) return answerText(exchange, 404, 'that cover art is no longer shown\n');
  // image/jpeg or image/png only (display.ts keeps no other), and nosniff (COMMON_HEADERS) holds the browser to it.
  answer(exchange, 200, artwork.mime, artwork.bytes, { 'Cache-Control': 'private, max-age=3600, immutable' });
}

function serveMedia(exchange: Exchange, player: PagePlayer): void {
  const media = parseMediaPath(exchange.path);
  if (!media) return answerText(exchange, 404, 'not found\n');
  const item = player.media(media.item);
  if (!item) return answerText(exchange, 404, 'not the item playing now\n');
  item.serve(media.number, exchange.request, exchange.response, COMMON_HEADERS);
}

function holdStandby(exchange: Exchange, player: PagePlayer): void {
  const number = Number(exchange.query.get(STANDBY_NUMBER_PARAMETER));
  if (!Number.isSafeInteger(number) || number < 1) return answerText(exchange, 400, `${STANDBY_NUMBER_PARAMETER} is not a count from 1\n`);
  player.standby(exchange.query.get(PAGE_CLIENT_PARAMETER) ?? '', number, exchange);
}

/** Reads a page's report (bounded) and hands it to the player: 204, or why not. */
function receiveReport(exchange: Exchange, player: PagePlayer): void {
  const { request } = exchange;
  // JSON only: a form or a plain-text POST from elsewhere is not a report.
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    request.resume();
    return answerText(exchange, 415, 'a report is application/json\n');
  }
  const token = exchange.query.get(PAGE_CLIENT_PARAMETER) ?? '';
  const chunks: Buffer[] = [];
  let length = 0;
  let refused = false;
  request.on('data', (chunk: Buffer) => {
    if (refused) return;
    length += chunk.length;
    if (length > MAX_PAGE_REPORT_BYTES) {
      refused = true;
      answerText(exchange, 413, `a report is at most ${MAX_PAGE_REPORT_BYTES} bytes\n`);
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
      return answerText(exchange, 400, 'the report is not JSON\n');
    }
    const refusal = player.pageReport(token, body);
    if (refusal === undefined) answerText(exchange, 204, '');
    else answerText(exchange, 409, `${refusal}\n`);
  });
}
