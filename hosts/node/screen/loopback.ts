// Where the screen server is reachable: the loopback addresses only, one port on both, and only
// for names a page on this machine uses (a page elsewhere that rebinds its own name to 127.0.0.1
// sends its own name as Host, and is refused).

import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../../src/platform';

/** The loopback addresses served; nothing else is ever bound. */
const LOOPBACK = ['127.0.0.1', '::1'] as const;

/** Host header names a page on this machine uses; others are refused (DNS rebinding). */
const LOCAL_HOSTNAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether the request's Host names this machine (its port aside). */
export function isLocalHost(request: http.IncomingMessage): boolean {
  // The Host header's name without its port, lower case (`[::1]` keeps its brackets).
  return LOCAL_HOSTNAMES.has((request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase());
}

/** Whether `origin` is a page of this server: http, a loopback name, this port. */
export function isOwnOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && LOCAL_HOSTNAMES.has(url.hostname) && url.port === String(port);
}

interface LoopbackServers {
  readonly servers: http.Server[];
  readonly port: number;
  /** `http://127.0.0.1:PORT/` and, where ::1 exists, `http://[::1]:PORT/`. */
  readonly urls: string[];
}

/**
 * One server from `create` on each loopback address, on `port` (0: a free one, then the same on
 * both). A machine without IPv6 loopback is served on IPv4 only; any other failure closes what
 * listens already and throws.
 */
export async function listenOnLoopback(create: () => http.Server, port: number, log: Logger): Promise<LoopbackServers> {
  const servers: http.Server[] = [];
  const urls: string[] = [];
  try {
    for (const address of LOOPBACK) {
      const server = create();
      try {
        await listen(server, port, address);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
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
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    throw error;
  }
  return { servers, port, urls };
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
