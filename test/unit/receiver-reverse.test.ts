// Reverse connections (spec 1.6): the 101 turn-around, requests the receiver sends, responses it
// parses, timeouts and closes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ReverseError, type ReverseConnection, type ReverseRequest, type ReverseResult } from '../../src/receiver/connection/reverse';

/** Sends a reverse request; the box gets its result when the callback comes. */
function send(reverse: ReverseConnection, request: ReverseRequest): { result?: ReverseResult } {
  const box: { result?: ReverseResult } = {};
  reverse.request(request, (result) => (box.result = result));
  return box;
}

function responseOf(box: { result?: ReverseResult }) {
  assert.ok(box.result && !(box.result instanceof ReverseError), `a response, not ${String(box.result)}`);
  return box.result;
}

function errorOf(box: { result?: ReverseResult }): ReverseError {
  assert.ok(box.result instanceof ReverseError, `a ReverseError, not ${String(box.result)}`);
  return box.result;
}
import { ManualClock, MemoryConnection, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SESSION = '1bd6ceeb-fffd-456c-a09c-996053a7a08c';
const REVERSE_REQUEST =
  `POST /reverse HTTP/1.1\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\nX-Vendor-Purpose: slideshow\r\n` +
  `X-Vendor-Session-ID: ${SESSION}\r\nContent-Length: 0\r\n\r\n`;

function setup(limits: Partial<ReceiverLimits> = {}) {
  const clock = new ManualClock();
  const receiver = new Receiver(makeConfig({ name: 'Frame', limits }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(5),
    store: new MemoryStore(),
    log: recordingLogger(),
  });
  return { clock, receiver };
}

async function turnAround(receiver: Receiver, request = REVERSE_REQUEST) {
  const connection = new MemoryConnection();
  receiver.accept(connection);
  connection.send(request);
  return connection;
}

test('POST /reverse is answered 101 with exactly Upgrade and Connection, CRLF line endings', async () => {
  const { receiver } = setup();
  const connection = await turnAround(receiver);
  assert.equal(connection.text, 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\n\r\n');
  const [reverse] = receiver.reverse.find(SESSION, 'slideshow');
  assert.ok(reverse, 'tracked by session and purpose');
  assert.equal(reverse.purpose, 'slideshow');
});

test('the apple dialect names work for purpose and session', async () => {
  const { receiver } = setup();
  await turnAround(receiver, REVERSE_REQUEST.replace(/X-Vendor-/g, 'X-Apple-'));
  assert.equal(receiver.reverse.find(SESSION, 'slideshow').length, 1);
});

test('POST /reverse without the PTTH upgrade is a 400 and the connection stays a normal one', async () => {
  const { receiver } = setup();
  const connection = await turnAround(receiver, 'POST /reverse HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  assert.match(connection.text, /^HTTP\/1\.1 400 /);
  assert.equal(receiver.reverse.size, 0);
});

test('a request on the reverse connection carries Host, Content-Length and the session id; the response resolves it', async () => {
  const { receiver } = setup();
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  connection.chunks.length = 0;
  const answer = send(reverse, { method: 'GET', target: '/slideshows/1/assets/1', headers: { Accept: 'application/x-vendor-binary-plist' } });
  const sent = connection.text;
  assert.match(sent, /^GET \/slideshows\/1\/assets\/1 HTTP\/1\.1\r\n/);
  assert.match(sent, /\r\nHost: 192\.0\.2\.20:50000\r\n/);
  assert.match(sent, /\r\nContent-Length: 0\r\n/);
  assert.match(sent, new RegExp(`\\r\\nX-Vendor-Session-ID: ${SESSION}\\r\\n`));
  // The response arrives in two pieces.
  connection.send('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe');
  connection.send('llo');
  const response = responseOf(answer);
  assert.equal(response.head.status, 200);
  assert.deepEqual(Array.from(response.body), [104, 101, 108, 108, 111]);
});

test('requests are sent one at a time, in order', async () => {
  const { receiver } = setup();
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  connection.chunks.length = 0;
  const first = send(reverse, { method: 'POST', target: '/event', body: new Uint8Array([1]) });
  const second = send(reverse, { method: 'POST', target: '/event', body: new Uint8Array([2]) });
  assert.equal(connection.chunks.length, 1, 'the second waits for the first response');
  connection.send('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
  responseOf(first);
  assert.equal(connection.chunks.length, 2);
  connection.send('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
  assert.equal(responseOf(second).head.status, 200);
});

test('a sender that does not answer in time loses the connection; outstanding requests reject', async () => {
  const { receiver, clock } = setup({ reverseRequestTimeoutMs: 1000 });
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  const answer = send(reverse, { method: 'GET', target: '/slideshows/1/assets/1' });
  const queued = send(reverse, { method: 'GET', target: '/slideshows/1/assets/1' });
  clock.advance(1000);
  assert.match(errorOf(answer).message, /response to GET \/slideshows\/1\/assets\/1 too slow: 0 bytes in 1000 ms/);
  errorOf(queued);
  assert.equal(connection.closed, true);
  assert.equal(receiver.reverse.size, 0);
  assert.equal(receiver.connectionCount, 0, 'the connection slot is freed');
});

test('a response that keeps coming is not cut at the timeout: the deadline moves with each byte at the least rate', async () => {
  const { receiver, clock } = setup({ reverseRequestTimeoutMs: 1000, minReverseBytesPerSecond: 100 });
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  const answer = send(reverse, { method: 'GET', target: '/slideshows/1/assets/1' });
  const head = 'HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n';
  clock.advance(500);
  // 100 bytes so far: they buy 1000 ms at 100 bytes/s after the first 1000 ms, so until 2000.
  connection.send(head + 'a'.repeat(100 - head.length));
  clock.advance(1499);
  assert.equal(connection.closed, false, 'at 1999 ms the 100 bytes still suffice');
  connection.send('b'.repeat(100));
  clock.advance(1000);
  assert.equal(connection.closed, false, 'at 2999 ms, 200 bytes suffice until 3000');
  connection.send('c'.repeat(400 - (100 - head.length) - 100));
  assert.equal(responseOf(answer).body.length, 400, 'whole after about 3 s, three times the timeout');
  // The next request starts its own count: nothing comes, so it ends at the timeout itself.
  const silent = send(reverse, { method: 'GET', target: '/slideshows/1/assets/1' });
  clock.advance(999);
  assert.equal(silent.result, undefined);
  clock.advance(1);
  assert.match(errorOf(silent).message, /too slow: 0 bytes in 1000 ms \(whole within 1000 ms, or at least 100 bytes\/s after that\)/);
  assert.equal(connection.closed, true);
});

test('a response that stalls half way is cut when the bytes so far stop being enough', async () => {
  const { receiver, clock } = setup({ reverseRequestTimeoutMs: 1000, minReverseBytesPerSecond: 100 });
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  const answer = send(reverse, { method: 'GET', target: '/slideshows/1/assets/1' });
  connection.send('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n'.padEnd(250, 'x'));
  clock.advance(3499);
  assert.equal(answer.result, undefined);
  clock.advance(1);
  assert.match(errorOf(answer).message, /too slow: 250 bytes in 3500 ms/);
  assert.equal(connection.closed, true);
});

test('a sender that closes the reverse connection fails its requests and is forgotten; it may reconnect', async () => {
  const { receiver } = setup();
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  const answer = send(reverse, { method: 'POST', target: '/event' });
  connection.close();
  assert.match(errorOf(answer).message, /sender closed the connection/);
  assert.equal(receiver.reverse.find(SESSION).length, 0);
  await turnAround(receiver);
  assert.equal(receiver.reverse.find(SESSION).length, 1);
});

test('a malformed response closes the reverse connection', async () => {
  const { receiver } = setup();
  const connection = await turnAround(receiver);
  const [reverse] = receiver.reverse.find(SESSION);
  const answer = send(reverse, { method: 'POST', target: '/event' });
  connection.send('garbage\r\n\r\n');
  assert.match(errorOf(answer).message, /bad response from sender: 400/);
  assert.equal(connection.closed, true);
});

test('reverse connections of other sessions beyond the limit are refused with 503', async () => {
  const { receiver } = setup({ maxReverseConnections: 1 });
  await turnAround(receiver);
  const second = await turnAround(receiver, REVERSE_REQUEST.replace(SESSION, '3bd6ceeb-fffd-456c-a09c-996053a7a08c'));
  assert.match(second.text, /^HTTP\/1\.1 503 /);
  const other = await turnAround(receiver, REVERSE_REQUEST.replace('slideshow', 'event'));
  assert.match(other.text, /^HTTP\/1\.1 503 /, 'the same session with another purpose does not replace it');
});

test('at the limit, a session\'s newer reverse connection replaces its oldest one of the same purpose', async () => {
  const { receiver } = setup({ maxReverseConnections: 1 });
  const old = await turnAround(receiver);
  const newer = await turnAround(receiver);
  assert.match(newer.text, /^HTTP\/1\.1 101 /);
  assert.equal(old.closed, true);
  assert.equal(receiver.reverse.find(SESSION, 'slideshow').length, 1);
  const stranger = await turnAround(receiver, REVERSE_REQUEST.replace(SESSION, '2bd6ceeb-fffd-456c-a09c-996053a7a08c'));
  assert.match(stranger.text, /^HTTP\/1\.1 503 /, 'another session is not allowed to push anyone out');
});
