// The one check of where a request to the screen server comes from, for every route and every
// upgrade: a browser says which page asks (Origin; Sec-Fetch-Site, Fetch Metadata), and a page of
// another site, or of another server on this machine (another port: "same-site"), is refused.
// Without it any site open in the browser could hold the page's event streams (8 at most, so the
// screen's own page got 503), read nothing but still drive what has a side effect, and a local
// web app on another port the same. Requests without those headers (curl, a local tool) pass:
// what a process on this machine sends it could forge anyway; the Host check (loopback.ts)
// keeps pages elsewhere out.

import type http from 'node:http';
import { isOwnOrigin } from './loopback';

/** Fetch Metadata values that name a page of this very server, or a person (a typed URL, a bookmark, the host opening a browser). */
const OWN_OR_USER_SITES = new Set(['same-origin', 'none']);

/**
 * Why `request` may not be served, or undefined when it may: an Origin that is not this server's
 * (`http://127.0.0.1:PORT`, `http://[::1]:PORT`, `http://localhost:PORT`), or a Sec-Fetch-Site
 * other than same-origin and none. A link from elsewhere may still open the page itself (a
 * top-level navigation to `/`, which hands the other site nothing).
 */
export function pageOriginRefusal(request: Pick<http.IncomingMessage, 'headers' | 'method' | 'url'>, port: number): string | undefined {
  const { origin } = request.headers;
  const site = header(request.headers['sec-fetch-site']);
  const navigation = header(request.headers['sec-fetch-mode']) === 'navigate' && (request.method === 'GET' || request.method === 'HEAD') && (request.url ?? '/').split('?')[0] === '/';
  if (origin !== undefined && !isOwnOrigin(origin, port) && !navigation) return `origin ${JSON.stringify(origin).slice(0, 120)} is not the screen page's`;
  if (site !== undefined && !OWN_OR_USER_SITES.has(site) && !navigation) return `a ${site} request (Sec-Fetch-Site), not the screen page's`;
  return undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
