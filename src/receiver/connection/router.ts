// Routing on (protocol, method, path): the table of endpoints, the 404/405/501 answers, the
// shapes handlers see: a Request in, an Answer out (a Response now, or LATER and a Response
// through `request.respond` when it is ready), and the one place a handler's thrown
// RequestError becomes its refusal (refusalOf).

import type { ConnectionState } from '../../connection-state';
import { RequestError } from '../../errors';
import { STATUS, type HeadersInit, type Protocol, type RequestHead, type SecureChannel } from '../../http';
import { readMakerHeader } from '../../dialect';
import type { ReverseConnection } from './reverse';

/** A request as handlers see it: the parsed head, its path and query, and the whole body. */
export interface Request {
  readonly head: RequestHead;
  readonly protocol: Protocol;
  readonly method: string;
  /** The path of the target without query: `/server-info`; `*` for `OPTIONS *`. */
  readonly path: string;
  /** Query parameters in order; a parameter without `=` has the value ''. */
  readonly query: ReadonlyMap<string, string>;
  readonly body: Uint8Array;
  /** The sender's session, from `X-Vendor-Session-ID` in any dialect (spec 1.7). */
  readonly sessionId: string | undefined;
  /** What the route's `admit` let in on the head (Route.admit), released after the handler returns. */
  readonly admitted?: Admitted;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
  /** State kept for the life of the connection (pairing steps, encryption). */
  readonly state: ConnectionState;
  /**
   * Arrival order of the request's head among all the receiver's requests (1, 2, ...). Requests
   * on different connections finish in any order (a big body takes longer); a handler that must
   * honour the order senders asked in compares this (spec 4.1: the photo shown is the last
   * asked for).
   */
  readonly order: number;
  /**
   * Answers a request whose handler returned LATER (once; requests behind it on the connection
   * wait for it, in order). Ignored after the connection has closed.
   */
  respond(response: Response): void;
}

export interface Response {
  readonly status: number;
  /**
   * Why a request is refused, in words a person can act on (`photo is 17.8 MB; this receiver
   * takes up to 8 MB`). The connection logs it once with the request line and, for an error
   * status without a body of its own, sends it as a one-line text body.
   */
  readonly reason?: string;
  /** The status line's reason phrase, when not the status's usual one (RequestError.phrase). */
  readonly phrase?: string;
  readonly headers?: HeadersInit;
  readonly body?: Uint8Array;
  /** Close the connection once this response is written. */
  readonly close?: boolean;
  /**
   * The same object answers many requests (a cached reply, reply-cache.ts) and never changes:
   * a connection may keep its serialized bytes and send them again while the Date is the same.
   */
  readonly reusable?: boolean;
  /**
   * Encrypt the connection from the next byte on (spec 5.4): this response still goes out in
   * the clear, everything after it in both directions through the channel.
   */
  readonly secure?: SecureChannel;
  /**
   * With `secure`: the sender may go on in the clear instead, and is then served in the clear
   * (the first bytes after this response say which).
   */
  readonly plaintextMayFollow?: boolean;
  /**
   * With status 101: the connection turns around (spec 1.6, PTTH). The 101 goes out with only
   * its Upgrade and Connection headers, then the receiver sends requests on the connection,
   * which this callback receives.
   */
  readonly reverse?: (connection: ReverseConnection) => void;
  /**
   * The connection turns into this stream (spec 4.4: POST /stream, then packets): no answer is
   * written (real receivers send none; the connection is no longer HTTP), and every byte after
   * the request, those already read included, goes to the stream.
   */
  readonly stream?: StreamTakeover;
}

/**
 * What takes a connection over after POST /stream (DESIGN 6 `stream` mode), sans-I/O like the
 * connection: bytes and time in, deadlines out. It sends nothing on the connection.
 */
export interface StreamTakeover {
  receive(bytes: Uint8Array, now: number): void;
  /** The sender closed the connection (or it failed). */
  transportClosed(now: number): void;
  pollTimeout(): number | undefined;
  handleTimeout(now: number): void;
  /** The connection closes for another reason (the receiver stopping): end quietly. */
  end(reason: string): void;
  /** False while it holds as much unread input as it may (flow control). */
  readonly wantsRead: boolean;
  readonly heldBytes: number;
  /** Set by the connection: something happened outside receive/handleTimeout (a UDP answer). */
  onWake: () => void;
  /** Set by the connection: the stream ended by itself (an error, a timeout, POST /stop); close. */
  onEnd: (reason: string) => void;
}

/** Returned by a handler that answers later through `request.respond`. */
export const LATER: unique symbol = Symbol('answer later');

export type Answer = Response | typeof LATER;

type Handler = (request: Request) => Answer;

/** A refusal: the status, and the reason the connection logs and sends (see Response.reason). */
export function refuse(status: number, reason: string, headers?: HeadersInit): Response {
  return headers ? { status, reason, headers } : { status, reason };
}

/**
 * The one place a thrown refusal becomes an answer: a RequestError (or a feature's subclass) is
 * its status and reason (the connection logs the reason and sends it as the body). Anything else
 * is thrown on: the connection logs it as a fault and answers 500.
 */
export function refusalOf(error: unknown): Response {
  if (!(error instanceof RequestError)) throw error;
  const refusal = refuse(error.status, error.message);
  return error.phrase === undefined ? refusal : { ...refusal, phrase: error.phrase };
}

/** `handler`, with the RequestErrors it throws answered by refusalOf. */
function answeringRefusals(handler: Handler): Handler {
  return (request) => {
    try {
      return handler(request);
    } catch (error) {
      return refusalOf(error);
    }
  };
}

/** What Route.admit let in: told once when the request is over. */
export interface Admitted {
  release(): void;
  /**
   * The body is taken as it arrives, by this, instead of whole: the handler then gets an empty
   * Request.body once the last piece has been written.
   */
  readonly body?: BodyStream;
}

/**
 * A request body taken piece by piece as it arrives (a photo drawn while it comes, so it is never
 * held whole). While it is full the connection reads no more of its socket, and the body's
 * progress deadline (limits.minBodyBytesPerSecond) stands still: the receiver, not the sender,
 * holds the body back.
 */
export interface BodyStream {
  /** The next piece of the body: a view valid during the call only. */
  write(piece: Uint8Array): void;
  /** It holds as much as it may: no more pieces until onDrained. */
  readonly full: boolean;
  /** Set by the connection: called when it may be no longer full. */
  onDrained: () => void;
}

/** What a route's admit knows of a request besides its head. */
export type Arrival = Pick<Request, 'order' | 'sessionId' | 'remoteAddress' | 'remotePort'>;

export interface Route {
  /** `HTTP`, `RTSP`, or both when omitted (spec 4.3: pair-setup is on either). */
  readonly protocol?: Protocol;
  readonly method: string;
  /** The exact path, or `*` for every path (RTSP OPTIONS is asked of `*` or of any URI). */
  readonly path: string;
  readonly handler: Handler;
  /**
   * Largest body this route accepts, or a function of the head when it depends on how the body is
   * taken (a streamed photo may be larger); the receiver's limit when omitted.
   */
  readonly maxBodyBytes?: number | ((head: RequestHead) => number);
  /**
   * Decides on the head, before any of the body is read (and before a 100 Continue), whether the
   * request may come in: a refusal is answered on the head; what it admits reaches the handler as
   * Request.admitted and is released once the handler has returned, or when the body never comes
   * whole (a parse error, a timeout, the connection closing). PUT /photo reserves its picture's
   * bytes in the picture budget here, from the Content-Length, or takes its body as a stream.
   */
  readonly admit?: (head: RequestHead, arrival: Arrival) => Response | Admitted | undefined;
  /**
   * Answering takes long (pair-setup and pair-verify: big-number and curve arithmetic, tens of
   * milliseconds on a desktop, far more on a board): the connection ends its turn after each, so
   * one connection's pipelined pairing steps never hold up the others (fairness).
   */
  readonly costly?: boolean;
  /**
   * A request the receiver recognises and does not serve (audio streaming on a receiver that
   * only answers the audio information request): routed, so it is answered 501 with a reason
   * rather than 404, but not listed by OPTIONS `Public` or `Allow`.
   */
  readonly unserved?: boolean;
  /**
   * Served before the connection is paired even when access control is on (spec 5.2): the
   * pairing endpoints themselves, RTSP OPTIONS and GET /info. Every other route then answers
   * 403 (RTSP 470) until the connection is encrypted by pairing.
   */
  readonly open?: boolean;
}

type RouteMatch =
  | { readonly kind: 'route'; readonly route: Route }
  /** 404 unknown path, 405 known path with another method, 501 a method the receiver never serves. */
  | { readonly kind: 'refuse'; readonly status: typeof STATUS.notFound | typeof STATUS.methodNotAllowed | typeof STATUS.notImplemented; readonly allow: string[] };

/** A route path that matches every path. */
const ANY_PATH = '*';

const PROTOCOLS: readonly Protocol[] = ['HTTP', 'RTSP'];

/** The query of a target without one: shared, never written. */
const NO_QUERY: ReadonlyMap<string, string> = new Map();

/**
 * The routes by protocol: of each exact path, by path and method; of any path (`*`), by method,
 * what a path without an exact route of that method gets (RTSP `OPTIONS *`).
 */
type RouteIndex = Record<Protocol, { readonly exact: Map<string, Map<string, RouteMatch>>; readonly anyPath: Map<string, RouteMatch> }>;

export class Router {
  private readonly routes: Route[] = [];
  /**
   * The answer for every (protocol, method, path) a route serves, built on the first match after
   * a change: the common case is two Map lookups and no allocation per request.
   */
  private index: RouteIndex | undefined;

  /** Adds a route; its handler may refuse by throwing a RequestError (refusalOf). */
  add(route: Route): this {
    this.routes.push({ ...route, handler: answeringRefusals(route.handler) });
    this.index = undefined;
    return this;
  }

  /** Every method served on a protocol, for RTSP OPTIONS `Public` and HTTP `Allow`. */
  methods(protocol: Protocol): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (!route.unserved && (!route.protocol || route.protocol === protocol)) methods.add(route.method);
    return [...methods];
  }

  match(protocol: Protocol, method: string, path: string): RouteMatch {
    const { exact, anyPath } = (this.index ??= this.indexRoutes())[protocol];
    // No exact route of this method on this path: search() would give the first any-path
    // route of the method (HEAD as GET comes after both, so a HEAD route of any path wins).
    return exact.get(path)?.get(method) ?? anyPath.get(method) ?? this.search(protocol, method, path);
  }

  /** protocol -> path -> method, and protocol -> method for any path: found without building a key per request. */
  private indexRoutes(): RouteIndex {
    const index: RouteIndex = { HTTP: { exact: new Map(), anyPath: new Map() }, RTSP: { exact: new Map(), anyPath: new Map() } };
    for (const route of this.routes) {
      for (const protocol of route.protocol ? [route.protocol] : PROTOCOLS) {
        const { exact, anyPath } = index[protocol];
        let byMethod = anyPath;
        if (route.path !== ANY_PATH) {
          byMethod = exact.get(route.path) ?? new Map();
          exact.set(route.path, byMethod);
        }
        // The first route added for a method wins, as in search().
        if (!byMethod.has(route.method)) byMethod.set(route.method, { kind: 'route', route });
      }
    }
    return index;
  }

  /** Everything but an exact route: any-path routes, HEAD as GET, and the refusals. */
  private search(protocol: Protocol, method: string, path: string): RouteMatch {
    const onProtocol = this.routes.filter((route) => !route.protocol || route.protocol === protocol);
    const onPath = onProtocol.filter((route) => route.path === path);
    // RFC 9110 9.3.2: HEAD is answered as GET would be, without the body (the connection
    // drops the body), wherever GET is served.
    const find = (wanted: string) =>
      onPath.find((candidate) => candidate.method === wanted) ??
      onProtocol.find((candidate) => candidate.path === ANY_PATH && candidate.method === wanted);
    const route = find(method) ?? (protocol === 'HTTP' && method === 'HEAD' ? find('GET') : undefined);
    if (route) return { kind: 'route', route };
    const allow = onPath.filter((candidate) => !candidate.unserved).map((candidate) => candidate.method);
    if (protocol === 'HTTP' && allow.includes('GET') && !allow.includes('HEAD')) allow.push('HEAD');
    if (protocol === 'HTTP' && method === 'HEAD' && onProtocol.some((candidate) => candidate.method === 'GET')) {
      return onPath.length === 0 ? { kind: 'refuse', status: STATUS.notFound, allow } : { kind: 'refuse', status: STATUS.methodNotAllowed, allow };
    }
    // A path that exists answers 405 with what it takes, whatever the method (GET /photo and
    // DELETE /photo alike). Elsewhere, RFC 9110 15.6.2 and RFC 2326 11.3.8: a method the
    // server implements for no resource is 501; else the path is unknown, 404.
    if (onPath.length > 0) return { kind: 'refuse', status: STATUS.methodNotAllowed, allow };
    if (!onProtocol.some((candidate) => candidate.method === method)) return { kind: 'refuse', status: STATUS.notImplemented, allow };
    return { kind: 'refuse', status: STATUS.notFound, allow };
  }
}

/** A request-target as routes see it: the path, and the query's parameters. */
export interface SplitTarget {
  readonly path: string;
  readonly query: ReadonlyMap<string, string>;
}

/**
 * Splits a request-target into path and query. Absolute targets (`rtsp://host:7000/123`, which
 * RTSP senders use for SETUP) lose their scheme and authority; an empty RTSP target (some
 * senders send `TEARDOWN  RTSP/1.0`) is `/`.
 */
export function splitTarget(target: string): SplitTarget {
  // The common cases, `/server-info` and RTSP's `*`: no query and no scheme, nothing to take apart.
  if (!target.includes('?') && !target.includes('://')) return { path: target === '' ? '/' : target, query: NO_QUERY };
  let rest = target;
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  const mark = rest.indexOf('?');
  let path = mark < 0 ? rest : rest.slice(0, mark);
  if (path === '') path = '/';
  const query = new Map<string, string>();
  if (mark >= 0) {
    for (const part of rest.slice(mark + 1).split('&')) {
      if (!part) continue;
      const equals = part.indexOf('=');
      const name = decodeComponent(equals < 0 ? part : part.slice(0, equals));
      const value = equals < 0 ? '' : decodeComponent(part.slice(equals + 1));
      if (!query.has(name)) query.set(name, value);
    }
  }
  return { path, query };
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text; // a stray '%' is kept as written rather than failing the request
  }
}

/** The session id from the dialect header of any dialect (spec 1.7: a UUID string). */
export function sessionIdOf(head: RequestHead): string | undefined {
  return readMakerHeader(head.headers, 'Session-ID');
}
