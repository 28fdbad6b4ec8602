// One request to the screen server and the ways it is answered: every answer carries the same
// security headers and is never cached unless it says so.

import type http from 'node:http';

/** A request, its response, and its path and query taken apart. */
export interface Exchange {
  readonly request: http.IncomingMessage;
  readonly response: http.ServerResponse;
  readonly path: string;
  readonly query: URLSearchParams;
}

/** Headers on every answer: nothing from elsewhere, no framing by other sites, no sniffing. */
export const COMMON_HEADERS = {
  // media-src blob: is hls.js's Media Source; the media itself comes from /media on this server.
  'Content-Security-Policy': "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; media-src 'self' blob:; worker-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The request taken apart (the path without its query). */
export function exchangeOf(request: http.IncomingMessage, response: http.ServerResponse): Exchange {
  const [path, query = ''] = (request.url ?? '/').split('?');
  return { request, response, path, query: new URLSearchParams(query) };
}

/** Answers with a whole body (none to a HEAD request); `extra` headers win over the defaults. */
export function answer(
  { request, response }: Exchange,
  status: number,
  type: string,
  body: string | Uint8Array,
  extra: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...extra });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Answers with a line of text for a person (a refusal, and why). */
export function answerText(exchange: Exchange, status: number, text: string, extra?: Readonly<Record<string, string>>): void {
  answer(exchange, status, TEXT, text, extra);
}
