// The screen server's one origin check (hosts/node/screen/page-origin.ts, applied in server.ts to
// every route and every upgrade): a request a browser marks as coming from another site, or from
// another server on this machine (another port), is 403 before any route runs, so a site open in
// the same browser cannot hold the page's event streams or reset anything; the page itself, the
// browser the host opens and local tools without those headers are served.

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { pageOriginRefusal } from '../../hosts/node/screen/page-origin';
import { startScreenServer } from '../../hosts/node/screen/server';
import type { Logger } from '../../src/platform';

const PORT = 7080;
const ask = (method: string, url: string, headers: Record<string, string>) => pageOriginRefusal({ method, url, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) }, PORT);

test('the check: this server\'s origins and same-origin or user requests pass; other origins, same-site and cross-site do not', () => {
  for (const origin of [`http://127.0.0.1:${PORT}`, `http://[::1]:${PORT}`, `http://localhost:${PORT}`]) assert.equal(ask('GET', '/events', { Origin: origin, 'Sec-Fetch-Site': 'same-origin' }), undefined, origin);
  assert.equal(ask('GET', '/state', {}), undefined, 'no browser headers: a local tool');
  assert.equal(ask('GET', '/', { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' }), undefined, 'a typed URL, or the browser the host opens');
  assert.equal(ask('GET', '/', { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' }), undefined, 'a link from elsewhere opens the page');
  assert.match(ask('GET', '/events', { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' }) ?? '', /cross-site request/, 'only the page is a link target');
  assert.match(ask('GET', '/events', { Origin: 'https://attacker.example' }) ?? '', /^origin "https:\/\/attacker\.example" is not the screen page's$/);
  assert.match(ask('GET', '/events', { Origin: `http://localhost:${PORT + 1}` }) ?? '', /is not the screen page's/, 'another port on this machine');
  assert.match(ask('GET', '/events', { Origin: 'null' }) ?? '', /is not the screen page's/, 'a sandboxed frame or a file');
  assert.match(ask('GET', '/state', { 'Sec-Fetch-Site': 'same-site' }) ?? '', /^a same-site request \(Sec-Fetch-Site\)/);
  assert.match(ask('POST', '/pairing/reset-tries', { 'Sec-Fetch-Site': 'cross-site' }) ?? '', /cross-site/);
  assert.match(ask('POST', '/', { Origin: 'https://attacker.example', 'Sec-Fetch-Mode': 'navigate' }) ?? '', /origin/, 'a form posted from elsewhere is no navigation to the page');
});

/** A request to the server: status and body. */
function request(port: number, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      // An event stream never ends: its first bytes are enough.
      response.on('data', (chunk: string) => {
        body += chunk;
        if (response.statusCode === 200 && path === '/events') {
          resolve({ status: 200, body });
          response.destroy();
        }
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** An upgrade request on a raw socket: the status line answered. */
function upgrade(port: number, origin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET /mirror HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${origin}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text.split('\r\n')[0]));
    socket.on('error', reject);
  });
}

test('the server: every route and the WebSocket upgrade refuse another origin (403, one warning per interval); the event slots stay the page\'s', async () => {
  const lines: string[] = [];
  const log: Logger = (level, message) => void lines.push(`${level} ${message}`);
  const server = await startScreenServer({ screen: new VirtualScreen('Origins'), port: 0, log, maxClients: 1 });
  const own = `http://127.0.0.1:${server.port}`;
  try {
    for (let i = 0; i < 20; i++) {
      const refused = await request(server.port, 'GET', '/events', { Origin: 'https://attacker.example' });
      assert.deepEqual(refused, { status: 403, body: 'only the screen page itself may use this\n' });
    }
    assert.equal(server.clientCount, 0, 'no slot taken');
    assert.equal((await request(server.port, 'GET', '/state', { 'Sec-Fetch-Site': 'cross-site' })).status, 403);
    assert.equal((await request(server.port, 'POST', '/pairing/reset-tries', { Origin: 'http://localhost:1' })).status, 403);
    assert.equal((await request(server.port, 'GET', '/page.js', { 'Sec-Fetch-Site': 'same-site' })).status, 403);
    assert.equal(await upgrade(server.port, 'https://attacker.example'), 'HTTP/1.1 403 Forbidden');
    assert.deepEqual(lines, [`warn virtual screen: GET /events refused (403): origin "https://attacker.example" is not the screen page's`], 'one line while the interval runs');
    const page = await request(server.port, 'GET', '/events', { Origin: own, 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(page.status, 200, 'the page itself takes the one slot');
    assert.match(page.body, /^retry: 1000\n/);
    assert.equal((await request(server.port, 'GET', '/state', { 'Sec-Fetch-Site': 'same-origin' })).status, 200);
    assert.notEqual((await request(server.port, 'GET', '/', { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' })).status, 403, 'a typed URL');
  } finally {
    await server.close();
  }
});
