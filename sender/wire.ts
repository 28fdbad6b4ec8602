// The sender's connections to a receiver: a control connection that sends requests and reads
// responses in order, and reverse connections (spec 1.6: POST /reverse, Upgrade PTTH/1.0) on
// which the receiver sends requests (POST /event, GET /slideshows/1/assets/1) that the sender
// answers. The wire is the project's own: src/http's parser and writer. Where the sender has
// paired with the receiver, every connection pair-verifies first (Endpoint.verify) and goes on
// encrypted (spec 5.4); a request refused because the connection is not paired says to pair first.

import net from 'node:net';
import { HEADER, MessageAssembler, PTTH, STATUS, writeRequest, writeResponse, type HeadersInit, type Protocol, type RequestHead, type ResponseHead, type SecureChannel } from '../src/http';
import { decodePlist, isPlistDict, type PlistDict } from '../src/plist';
import { CONTROL_PORT } from '../src/discovery/services';

/** A problem a person can act on (connection refused, unexpected status...). */
export class SendError extends Error {
  override name = 'SendError';
}

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /**
   * Pair-verifies a new connection to this endpoint before its first request (the sender has
   * paired with the receiver: pairing.ts); without it, connections stay plain.
   */
  readonly verify?: (socket: net.Socket) => Promise<VerifiedConnection>;
}

/** What pair-verify leaves a connection with (spec 5.4). */
export interface VerifiedConnection {
  /** The sender's side of the encrypted channel. */
  readonly channel: SecureChannel;
  /** Pair-verify's shared secret: a session's event channel is keyed from it too. */
  readonly encryptionKey: Uint8Array;
}

export interface Message<H> {
  readonly head: H;
  readonly body: Uint8Array;
}

/** `HOST:PORT`, `[v6]:PORT`, or `HOST` (then `defaultPort`: CONTROL_PORT, spec 1.4's usual port, unless said). */
export function parseEndpoint(text: string, defaultPort = CONTROL_PORT): Endpoint {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(text);
  const match = bracketed ?? plain;
  if (!match) throw new SendError(`"${text}" is not HOST:PORT (for IPv6: [ADDRESS]:PORT)`);
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SendError(`"${text}": port ${match[2]} is not 1 to 65535`);
  return { host: match[1], port };
}

export function describeEndpoint({ host, port }: Endpoint): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A TCP connection to `endpoint`, or a SendError a person can act on. */
export function connect(endpoint: Endpoint, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: endpoint.host, port: endpoint.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new SendError(`cannot connect to ${describeEndpoint(endpoint)}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why = error.code === 'ECONNREFUSED' ? 'connection refused (is the receiver running, on this port?)' : error.message;
      reject(new SendError(`cannot connect to ${describeEndpoint(endpoint)}: ${why}`));
    });
  });
}

/** A connection to `endpoint`, pair-verified when the endpoint says how. */
async function openConnection(endpoint: Endpoint, timeoutMs: number): Promise<{ socket: net.Socket; verified: VerifiedConnection | undefined }> {
  const socket = await connect(endpoint, timeoutMs);
  try {
    return { socket, verified: await endpoint.verify?.(socket) };
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/**
 * One request on a connection nothing else reads yet (pair-verify's steps, before the connection
 * is handed on): its response, or a SendError. The receiver sends nothing unasked, so no byte
 * past the response is lost when the listener goes.
 */
export function plainExchange(socket: net.Socket, endpoint: Endpoint, method: string, target: string, headers: [string, string][], body: Uint8Array, timeoutMs = 15_000): Promise<Message<ResponseHead>> {
  const what = `${method} ${target}`;
  const responses = new MessageAssembler('response', { maxBodyBytes: 64 * 1024 });
  responses.expectResponseTo(method);
  return new Promise((resolve, reject) => {
    const done = (error: Error | undefined, message?: Message<ResponseHead>) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      if (error) reject(error);
      else resolve(message!);
    };
    const onData = (data: Buffer) => {
      responses.receive(new Uint8Array(data));
      for (let event = responses.next(); event; event = responses.next()) {
        if (event.type === 'message') return done(undefined, { head: event.head, body: event.body });
        if (event.type === 'error') return done(new SendError(`${what}: unparseable response: ${event.error.status} ${event.error.reason}`));
      }
    };
    const onClose = () => done(new SendError(`${what}: the receiver closed the connection`));
    const onError = (error: Error) => done(new SendError(`${what}: connection failed: ${error.message}`));
    const timer = setTimeout(() => done(new SendError(`${what}: no response from ${describeEndpoint(endpoint)} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
    socket.write(writeRequest({ method, target, protocol: 'HTTP', version: '1.1', headers, body }));
  });
}

/**
 * What the sender says to a refusal of an unpaired connection (403, RTSP 470: the receiver wants
 * a PIN or password first), else undefined.
 */
export function pairFirst(endpoint: Endpoint, status: number): string | undefined {
  if (endpoint.verify || (status !== STATUS.forbidden && status !== STATUS.connectionAuthorizationRequired)) return undefined;
  return `pair first: vendorplay-send pair ${describeEndpoint(endpoint)}`;
}

/** Headers every request of this sender carries (session id, user agent), in the sender's dialect. */
export type CommonHeaders = () => [string, string][];

/**
 * The control connection: one request at a time, each resolved with its response. Requests made
 * while one is outstanding wait their turn (a session's feedback beside the video's requests).
 */
export class ControlConnection {
  private readonly responses = new MessageAssembler('response', { maxBodyBytes: 16 * 1024 * 1024 });
  private waiting: { resolve: (message: Message<ResponseHead>) => void; reject: (error: Error) => void; what: string } | undefined;
  private ended: string | undefined;
  /** The last request's turn: the next one starts when it has settled. */
  private turn: Promise<unknown> = Promise.resolve();
  /** RTSP requests carry a CSeq, counted on this connection. */
  private cseq = 1;
  /** Called once if the receiver closes the connection. */
  onClose: (reason: string) => void = () => {};

  private constructor(
    private readonly socket: net.Socket,
    readonly endpoint: Endpoint,
    private readonly common: CommonHeaders,
    private readonly timeoutMs: number,
    /** Set when the connection is pair-verified and encrypted. */
    readonly verified: VerifiedConnection | undefined,
  ) {
    if (verified) this.responses.encrypt(verified.channel);
    socket.on('data', (data: Buffer) => {
      try {
        this.responses.receive(new Uint8Array(data));
      } catch (error) {
        // A frame that does not open: nothing more on this connection can be trusted.
        this.end(`encrypted frame rejected: ${(error as Error).message}`);
        this.close();
        return;
      }
      this.pump();
    });
    socket.on('error', (error) => this.end(`connection failed: ${error.message}`));
    socket.on('close', () => this.end('the receiver closed the connection'));
  }

  static async open(endpoint: Endpoint, common: CommonHeaders, timeoutMs = 15_000): Promise<ControlConnection> {
    const { socket, verified } = await openConnection(endpoint, timeoutMs);
    return new ControlConnection(socket, endpoint, common, timeoutMs, verified);
  }

  /**
   * Sends a request (HTTP/1.1, or RTSP/1.0 with a CSeq) once the ones before it are answered;
   * resolves with the response (any status), rejects when the connection fails.
   */
  request(method: string, target: string, headers: HeadersInit = [], body?: Uint8Array, protocol: Protocol = 'HTTP'): Promise<Message<ResponseHead>> {
    const send = () => this.send(method, target, headers, body, protocol);
    const result = this.turn.then(send, send);
    this.turn = result.catch(() => undefined);
    return result;
  }

  private send(method: string, target: string, headers: HeadersInit, body: Uint8Array | undefined, protocol: Protocol): Promise<Message<ResponseHead>> {
    const what = `${method} ${target}`;
    if (this.ended) return Promise.reject(new SendError(`${what}: ${this.ended}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new SendError(`${what}: no response from ${describeEndpoint(this.endpoint)} within ${this.timeoutMs} ms`));
        this.close();
      }, this.timeoutMs);
      this.waiting = {
        what,
        resolve: (message) => {
          clearTimeout(timer);
          const advice = pairFirst(this.endpoint, message.head.status);
          if (advice) reject(new SendError(`${what}: the receiver answered ${message.head.status} ${message.head.reason}; ${advice}`));
          else resolve(message);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.responses.expectResponseTo(method);
      const all: [string, string | number][] = [...(protocol === 'RTSP' ? [[HEADER.cseq, this.cseq++] as [string, number]] : []), ...this.common(), ...toPairs(headers)];
      const version = protocol === 'RTSP' ? '1.0' : '1.1';
      this.socket.write(this.responses.seal(writeRequest({ method, target, protocol, version, headers: all, body: body ?? (method === 'GET' ? undefined : new Uint8Array(0)) })));
    });
  }

  /** This end's address (the audio command names it in an ANNOUNCE's SDP). */
  get localAddress(): string {
    return this.socket.localAddress ?? '0.0.0.0';
  }

  close(): void {
    this.socket.destroy();
  }

  private pump(): void {
    for (let event = this.responses.next(); event; event = this.responses.next()) {
      if (event.type === 'message') {
        const waiting = this.waiting;
        this.waiting = undefined;
        waiting?.resolve({ head: event.head, body: event.body });
      } else if (event.type === 'error') {
        this.end(`unparseable response: ${event.error.status} ${event.error.reason}`);
        this.close();
        return;
      }
    }
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = reason;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(new SendError(`${waiting.what}: ${reason}`));
    this.onClose(reason);
  }
}

export interface ReverseAnswer {
  readonly status: number;
  readonly headers?: HeadersInit;
  readonly body?: Uint8Array;
}

export interface ReverseOptions {
  readonly endpoint: Endpoint;
  readonly common: CommonHeaders;
  /** X-Vendor-Purpose header name in the sender's dialect, and its value. */
  readonly purposeHeader: string;
  readonly purpose: string;
  /** Answers one request from the receiver. */
  readonly serve: (request: Message<RequestHead>) => ReverseAnswer | Promise<ReverseAnswer>;
  readonly timeoutMs?: number;
}

/**
 * A reverse connection, sender side: POST /reverse, a 101, then the receiver's requests are read
 * and answered one at a time, in order.
 */
export class ReverseChannel {
  private readonly requests = new MessageAssembler('request', { maxBodyBytes: 1024 * 1024 });
  private queue: Promise<void> = Promise.resolve();
  private closedReason: string | undefined;
  /** Called once when the connection ends, with why. */
  onClose: (reason: string) => void = () => {};

  private constructor(
    private readonly socket: net.Socket,
    private readonly options: ReverseOptions,
    /** The encrypted channel when the connection is pair-verified: the turned-around traffic keeps it. */
    private readonly channel: SecureChannel | undefined,
  ) {}

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  static async open(options: ReverseOptions): Promise<ReverseChannel> {
    const timeoutMs = options.timeoutMs ?? 15_000;
    const { socket, verified } = await openConnection(options.endpoint, timeoutMs);
    const channel = new ReverseChannel(socket, options, verified?.channel);
    await channel.turnAround(timeoutMs);
    return channel;
  }

  close(): void {
    this.finish('the sender closed it');
    this.socket.destroy();
  }

  private turnAround(timeoutMs: number): Promise<void> {
    const { socket, options } = this;
    const responses = new MessageAssembler('response');
    if (this.channel) responses.encrypt(this.channel);
    responses.expectResponseTo('POST');
    return new Promise((resolve, reject) => {
      const fail = (reason: string) => {
        clearTimeout(timer);
        socket.removeAllListeners('data');
        socket.destroy();
        reject(new SendError(`POST /reverse (${options.purpose}) to ${describeEndpoint(options.endpoint)}: ${reason}`));
      };
      const timer = setTimeout(() => fail(`no 101 within ${timeoutMs} ms`), timeoutMs);
      let status: number | undefined;
      socket.on('data', (data: Buffer) => {
        if (status === 101) return;
        try {
          responses.receive(new Uint8Array(data));
        } catch (error) {
          return fail(`encrypted frame rejected: ${(error as Error).message}`);
        }
        for (let event = responses.next(); event; event = responses.next()) {
          if (event.type === 'head') {
            status = event.head.status;
            if (status !== 101) {
              const advice = pairFirst(options.endpoint, status);
              return fail(`answered ${status} ${event.head.reason}${advice ? `; ${advice}` : ', not 101 Switching Protocols'}`);
            }
          } else if (event.type === 'error') {
            return fail(`unparseable answer: ${event.error.status} ${event.error.reason}`);
          } else if (event.type === 'message' && status === 101) {
            clearTimeout(timer);
            socket.removeAllListeners('data');
            socket.removeAllListeners('error');
            socket.removeAllListeners('close');
            // From here on the receiver sends requests; bytes after the 101 already are one.
            // Plaintext already when the connection is encrypted: the channel opened it.
            const rest = responses.takeRemaining();
            if (this.channel) this.requests.encrypt(this.channel);
            socket.on('data', (more: Buffer) => this.receive(new Uint8Array(more)));
            socket.on('error', (error) => this.finish(`connection failed: ${error.message}`));
            socket.on('close', () => this.finish('the receiver closed it'));
            if (rest.length > 0) this.receive(rest, true);
            resolve();
            return;
          }
        }
      });
      socket.once('error', (error) => fail(error.message));
      socket.once('close', () => fail('the receiver closed the connection'));
      const headers: [string, string | number][] = [
        [HEADER.upgrade, PTTH],
        [HEADER.connection, 'Upgrade'],
        [options.purposeHeader, options.purpose],
        ...options.common(),
      ];
      socket.write(responses.seal(writeRequest({ method: 'POST', target: '/reverse', protocol: 'HTTP', version: '1.1', headers, body: new Uint8Array(0) })));
    });
  }

  /** Bytes from the receiver (`plaintext`: already opened by the channel, those read with the 101). */
  private receive(bytes: Uint8Array, plaintext = false): void {
    if (this.closed) return;
    try {
      if (plaintext) this.requests.receivePlaintext(bytes);
      else this.requests.receive(bytes);
    } catch (error) {
      this.finish(`encrypted frame rejected: ${(error as Error).message}`);
      this.socket.destroy();
      return;
    }
    for (let event = this.requests.next(); event; event = this.requests.next()) {
      if (event.type === 'message') {
        const request = { head: event.head, body: event.body };
        // Answer in order, one at a time, however long serving one takes.
        this.queue = this.queue.then(() => this.answer(request));
      } else if (event.type === 'error') {
        this.finish(`unparseable request from the receiver: ${event.error.status} ${event.error.reason}`);
        this.socket.destroy();
        return;
      }
    }
  }

  private async answer(request: Message<RequestHead>): Promise<void> {
    let answer: ReverseAnswer;
    try {
      answer = await this.options.serve(request);
    } catch (error) {
      answer = { status: 500 };
      process.stderr.write(`vendorplay-send: serving ${request.head.method} ${request.head.target} failed: ${(error as Error).message}\n`);
    }
    if (this.closed) return;
    this.socket.write(this.requests.seal(writeResponse({ protocol: 'HTTP', version: '1.1', status: answer.status, headers: answer.headers, body: answer.body ?? new Uint8Array(0) })));
  }

  private finish(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.onClose(reason);
  }
}

function toPairs(headers: HeadersInit): [string, string | number][] {
  if (Symbol.iterator in Object(headers)) return [...(headers as Iterable<readonly [string, string | number]>)].map(([name, value]) => [name, value]);
  return Object.entries(headers as Record<string, string | number>);
}

/**
 * How a long-running command ends: `done` settles once, by `finish()` or `finish(error)`. A
 * rejection nobody awaits yet (a connection lost before the command waits on `done`) is no
 * unhandled rejection: the command has already said why it stops.
 */
export function completion(): { readonly done: Promise<void>; finish(error?: Error): void } {
  let finish: (error?: Error) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  done.catch(() => {});
  return { done, finish: (error) => finish(error) };
}

/**
 * Serves the receiver's requests on an event connection (spec 6): each POST /event's plist
 * dictionary to `onEvent`, an unreadable one said in a line, anything else 404.
 */
export function eventServer(say: (line: string) => void, onEvent: (event: PlistDict) => void): (request: Message<RequestHead>) => ReverseAnswer {
  return (request) => {
    if (request.head.method !== 'POST' || request.head.target !== '/event') return { status: 404 };
    try {
      const event = decodePlist(request.body);
      if (isPlistDict(event)) onEvent(event);
    } catch (error) {
      say(`event: unreadable (${(error as Error).message})`);
    }
    return { status: 200 };
  };
}
