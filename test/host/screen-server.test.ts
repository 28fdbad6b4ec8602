// The screen server (hosts/node/screen/server.ts) on a real loopback socket: it bounds its live
// update clients (maxClients, then 503) and answers only pages on this machine (a Host that is not
// loopback is 421), so a web page elsewhere cannot read or drive the screen.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { startScreenServer } from '../../hosts/node/screen/server';

/** A raw GET with the given Host header (fetch does not let a caller set Host). */
function rawGet(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, headers: { Host: host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
  });
}

test('the screen server bounds its live clients and answers only pages on this machine', async () => {
  const screen = new VirtualScreen('Bounds');
  const server = await startScreenServer({ screen, port: 0, log: () => {}, maxClients: 2 });
  const controllers: AbortController[] = [];
  try {
    assert.ok(server.urls.every((url) => /^http:\/\/(127\.0\.0\.1|\[::1\]):\d+\/$/.test(url)), server.urls.join(' '));
    const open = async () => {
      const controller = new AbortController();
      controllers.push(controller);
      return fetch(`http://127.0.0.1:${server.port}/events`, { signal: controller.signal });
    };
    assert.equal((await open()).status, 200);
    assert.equal((await open()).status, 200);
    const third = await open();
    assert.equal(third.status, 503);
    assert.equal(server.clientCount, 2);
    assert.equal(await rawGet(server.port, '/state', `127.0.0.1:${server.port}`), 200);
    assert.equal(await rawGet(server.port, '/state', `localhost:${server.port}`), 200);
    assert.equal(await rawGet(server.port, '/state', `attacker.example:${server.port}`), 421);
    const post = await fetch(`http://127.0.0.1:${server.port}/state`, { method: 'POST' });
    assert.equal(post.status, 405);
  } finally {
    for (const controller of controllers) controller.abort();
    await server.close();
  }
});
