// GET /mirror as a WebSocket: screen mirroring's stream to the page (page-decoder.ts), opened
// only for this server's own page. Any page a browser has open, from any site, may try a
// WebSocket to loopback (no CORS on WebSockets), so both the Host and the Origin are checked.

import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Logger } from '../../../src/platform';
import { isLocalHost, isOwnOrigin } from './loopback';
import type { PageDecoder } from './page-decoder';
import { PAGE_PATHS } from './page-protocol';
import { describeError } from '../../../src/errors';

/** Largest message a page may send on the stream: it sends only short reports. */
const MAX_PAGE_MESSAGE_BYTES = 4096;

export class MirrorUpgrades {
  /** The servers' port, once they listen: a page's Origin must name it. */
  port = 0;
  // ws is loaded when the first page opens the stream, not at start: it is a CommonJS package
  // that took about 12 ms of every start to load, for a stream most runs never open.
  private sockets: Promise<WebSocketServer> | undefined;

  constructor(
    /** Where the receiver mirrors; without it the stream is not found. */
    private readonly mirror: PageDecoder | undefined,
    private readonly log: Logger,
  ) {}

  /** The HTTP servers' `upgrade` listener. */
  readonly upgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const mirror = this.mirror;
    if (!isLocalHost(request)) return void refuse(socket, 421, 'the virtual screen answers only pages on this machine\n');
    if ((request.url ?? '/').split('?')[0] !== PAGE_PATHS.mirror || !mirror) return void refuse(socket, 404, 'not found\n');
    if (!isOwnOrigin(request.headers.origin, this.port)) {
      this.log('warn', `virtual screen: mirroring stream refused to origin ${JSON.stringify(request.headers.origin ?? '(none)').slice(0, 120)}`);
      return void refuse(socket, 403, 'only the virtual screen page may open the mirroring stream\n');
    }
    // Until ws takes it, the socket has no 'data' listener and not flowing: what the page sends
    // meanwhile waits in the socket's buffer.
    // Whatever fails here fails this page's stream only (a rejection left unhandled would stop
    // the receiver).
    this.server()
      .then(
        (sockets) => {
          if (!socket.destroyed) sockets.handleUpgrade(request, socket, head, (page) => mirror.attach(page));
        },
        (error: Error) => {
          this.log('error', `virtual screen: the mirroring stream cannot be opened (ws did not load: ${error.message})`);
          refuse(socket, 500, 'the mirroring stream is not available (see the receiver log)\n');
        },
      )
      .catch((error: unknown) => {
        this.log('error', `virtual screen: opening the mirroring stream failed: ${describeError(error)}`);
        socket.destroy();
      });
  };

  /** Closes the page's stream and every upgraded socket (the HTTP servers' closeAllConnections does not reach them). */
  async close(): Promise<void> {
    this.mirror?.close();
    const sockets = await this.sockets?.catch(() => undefined);
    for (const page of sockets?.clients ?? []) page.terminate();
    sockets?.close();
  }

  private server(): Promise<WebSocketServer> {
    this.sockets ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_PAGE_MESSAGE_BYTES, perMessageDeflate: false }));
    return this.sockets;
  }
}

/** Answers an upgrade request with plain HTTP (status and reason) and closes. */
function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(reason)}\r\nConnection: close\r\n\r\n${reason}`);
}
