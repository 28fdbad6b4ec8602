// A receiver connection driven byte by byte: responses, keep-alive, pipelining, CSeq, errors,
// timeouts and the connection limit. In-memory ports; the e2e suite does the same on sockets.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageParser, type ResponseHead } from '../../src/http';
import type { ReceiverLimits } from '../../src/receiver/config';
import type { SecureChannel } from '../../src/http';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import type { LogLevel } from '../../src/platform';
import { ManualClock, MemoryConnection, MemoryStore, seededRandom } from '../support/memory-ports';
import { testReceiver } from '../support/test-receiver';
import { LATER } from '../../src/receiver/connection/router';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

function setup(limits: Partial<ReceiverLimits> = {}) {
  const { clock, log, receiver } = testReceiver(limits);
  const open = () => {
    const connection = new MemoryConnection();
    receiver.accept(connection);
    return connection;
  };
  return { clock, log, receiver, open };
}

interface Parsed {
  head: ResponseHead;
  body: Uint8Array;
}

/** Every response in what the receiver wrote. */
function responses(connection: MemoryConnection): Parsed[] {
  const parser = new MessageParser('response');
  parser.receive(connection.written);
  parser.receiveEnd();
  const out: Parsed[] = [];
  let current: Parsed | undefined;
  for (let event = parser.next(); event; event = parser.next()) {
    if (event.type === 'head') current = { head: event.head, body: new Uint8Array(0) };
    else if (event.type === 'body' && current) {
      const joined = new Uint8Array(current.body.length + event.data.length);
      joined.set(current.body);
      joined.set(event.data, current.body.length);
      current.body = joined;
    } else if (event.type === 'end' && current) out.push(current);
    else if (event.type === 'error') throw new Error(`unparseable response: ${event.reason}`);
  }
  return out;
}

test('answers GET /server-info with Date, Server and Content-Length, head and body in one write', async () => {
  const { open } = setup();
  const connection = open();
  connection.send('GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n');
  assert.equal(connection.chunks.length, 1);
  const [response] = responses(connection);
  assert.equal(response.head.status, 200);
  assert.equal(response.head.headers.get('Date'), 'Sat, 21 Nov 2026 12:00:00 GMT');
  assert.equal(response.head.headers.get('Server'), 'VendorTunes/220.68');
  assert.equal(response.head.headers.get('Content-Length'), String(response.body.length));
  assert.equal(response.head.headers.get('Content-Type'), 'text/x-vendor-plist+xml');
  assert.match(connection.text, /\r\nContent-Length: \d+\r\n/);
  assert.equal(connection.closed, false);
});

test('with a logger that keeps info and above, answers build and log no debug line', () => {
  const lines: { level: string; message: string }[] = [];
  const log = Object.assign((level: LogLevel, message: string) => lines.push({ level, message }), { level: 'info' as const });
  const receiver = new Receiver(makeConfig({ name: 'Test Frame', deviceId: '58:55:CA:1A:E2:88' }), { crypto: portableCryptoKernels, clock: new ManualClock(), random: seededRandom(3), store: new MemoryStore(), log });
  const connection = new MemoryConnection();
  receiver.accept(connection);
  connection.send('GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\nGET /nowhere HTTP/1.1\r\n\r\n');
  assert.deepEqual(responses(connection).map((response) => response.head.status), [200, 404]);
  assert.deepEqual(lines.filter((line) => line.level === 'debug'), []);
  // A refusal is still told at info.
  assert.ok(lines.some((line) => line.level === 'info' && line.message.includes('GET /nowhere: 404')));
  // A logger that names no level is given the debug line of every answer.
  const { log: everything, open } = setup();
  open().send('GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n');
  assert.ok(everything.lines.some((line) => line.level === 'debug' && line.message.includes('GET /server-info -> 200')));
});

test('answers pipelined requests fed one byte at a time, in order', async () => {
  const { open } = setup();
  const connection = open();
  const requests = 'GET /server-info HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\nGET /info RTSP/1.0\r\nCSeq: 5\r\n\r\n';
  for (const char of requests) connection.send(char);
  const statuses = responses(connection).map((response) => `${response.head.protocol} ${response.head.status}`);
  assert.deepEqual(statuses, ['HTTP 200', 'HTTP 404', 'RTSP 200']);
});

test('echoes CSeq on RTSP, including CSeq 0, and still answers a request without CSeq', async () => {
  const { open } = setup();
  const connection = open();
  connection.send('OPTIONS * RTSP/1.0\r\nCSeq: 0\r\n\r\nOPTIONS * RTSP/1.0\r\n\r\n');
  const [first, second] = responses(connection);
  assert.equal(first.head.headers.get('CSeq'), '0');
  assert.equal(first.head.headers.get('Public'), 'GET, OPTIONS, SETUP, RECORD, FLUSH, TEARDOWN, GET_PARAMETER, SET_PARAMETER, POST');
  assert.equal(second.head.status, 200);
  assert.equal(second.head.headers.get('CSeq'), undefined);
});

test('accepts bare LF line endings and an empty RTSP request URI', async () => {
  const { open } = setup();
  const connection = open();
  connection.send('GET /server-info HTTP/1.1\n\nTEARDOWN  RTSP/1.0\nCSeq: 9\n\n');
  const [first, second] = responses(connection);
  assert.equal(first.head.status, 200);
  // Read and routed: a TEARDOWN with no session on the connection (RFC 2326 454).
  assert.equal(second.head.status, 454);
  assert.equal(second.head.headers.get('CSeq'), '9');
});

test('answers 405 with Allow for a known path and another method', async () => {
  const { open, receiver } = setup();
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/stop', handler: () => ({ status: 200 }) });
  const connection = open();
  connection.send('POST /server-info HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  const [response] = responses(connection);
  assert.equal(response.head.status, 405);
  assert.equal(response.head.headers.get('Allow'), 'GET, HEAD');
});

test('answers HEAD with the GET head and no body', async () => {
  const { open } = setup();
  const get = open();
  get.send('GET /server-info HTTP/1.1\r\n\r\n');
  const head = open();
  head.send('HEAD /server-info HTTP/1.1\r\n\r\n');
  const getText = get.text;
  const headText = head.text;
  assert.equal(headText.slice(headText.indexOf('\r\n\r\n') + 4), '');
  const length = /Content-Length: (\d+)/.exec(headText)?.[1];
  assert.equal(length, /Content-Length: (\d+)/.exec(getText)?.[1]);
  assert.notEqual(length, '0');
});

test('closes after answering HTTP/1.0 without keep-alive and after Connection: close', async () => {
  const { open } = setup();
  const old = open();
  old.send('GET /server-info HTTP/1.0\r\n\r\n');
  assert.equal(old.closed, true);
  const keep = open();
  keep.send('GET /server-info HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
  assert.equal(keep.closed, false);
  assert.equal(responses(keep)[0].head.headers.get('Connection'), 'keep-alive');
  const closing = open();
  closing.send('GET /server-info HTTP/1.1\r\nConnection: close\r\n\r\n');
  assert.equal(closing.closed, true);
  assert.equal(responses(closing)[0].head.headers.get('Connection'), 'close');
});

test('answers 400 to garbage and request smuggling, then closes, with a log line naming the cause', async () => {
  const { open, log } = setup();
  const garbage = open();
  garbage.send('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n');
  assert.equal(responses(garbage)[0].head.status, 400);
  assert.equal(garbage.closed, true);
  const smuggle = open();
  smuggle.send('POST /server-info HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
  assert.equal(responses(smuggle)[0].head.status, 400);
  assert.equal(smuggle.closed, true);
  assert.ok(log.lines.some((line) => line.level === 'warn' && /bad HTTP request: 400/.test(line.message)));
});

test('answers 431 to an HTTP head over the limit and 505 to another HTTP version', async () => {
  const { open } = setup({ maxHeadBytes: 256 });
  const big = open();
  big.send(`GET /server-info HTTP/1.1\r\nX-Filler: ${'a'.repeat(300)}\r\n\r\n`);
  assert.equal(responses(big)[0].head.status, 431);
  const future = open();
  future.send('GET /server-info HTTP/2.0\r\n\r\n');
  assert.equal(responses(future)[0].head.status, 505);
});

test('answers 413 to a body over the route limit', async () => {
  const { open } = setup();
  const connection = open();
  connection.send('GET /server-info HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789GET /server-info HTTP/1.1\r\n\r\n');
  const statuses = responses(connection).map((response) => response.head.status);
  assert.equal(statuses[0], 413);
});

test('closes a connection idle for idleTimeoutMs', async () => {
  const { open, clock } = setup({ idleTimeoutMs: 5000 });
  const connection = open();
  clock.advance(4999);
  assert.equal(connection.closed, false);
  clock.advance(1);
  assert.equal(connection.closed, true);
});

test('a head still incomplete after headerTimeoutMs gets 408 and is closed, however slowly it trickles', async () => {
  const { open, clock } = setup({ headerTimeoutMs: 1000, idleTimeoutMs: 60000 });
  const connection = open();
  connection.send('GET /server-info HTTP/1.1\r\n');
  for (let i = 0; i < 9; i++) {
    clock.advance(100);
    connection.send('X: y\r\n');
  }
  assert.equal(connection.closed, false);
  clock.advance(100);
  assert.equal(connection.closed, true);
  assert.equal(responses(connection)[0].head.status, 408);
});

test('at maxConnections the connection idle longest makes room; with none that may a new one gets 503 with Retry-After, logged', () => {
  const { receiver, log, clock } = setup({ maxConnections: 2 });
  // A handler at work: its connection never makes room.
  receiver.router.add({ protocol: 'HTTP', method: 'GET', path: '/slow', handler: () => LATER });
  const first = new MemoryConnection();
  const second = new MemoryConnection();
  second.remotePort = 50001;
  assert.ok(receiver.accept(first));
  clock.advance(10);
  assert.ok(receiver.accept(second));
  // Both idle: the third takes the place of the one idle longest.
  const third = new MemoryConnection();
  third.remotePort = 50002;
  assert.ok(receiver.accept(third));
  assert.equal(first.closed, true, 'the oldest idle connection was closed');
  assert.equal(second.closed, false);
  // Now a handler is at work for each: a fourth is refused.
  second.send('GET /slow HTTP/1.1\r\n\r\n');
  third.send('GET /slow HTTP/1.1\r\n\r\n');
  const fourth = new MemoryConnection();
  fourth.remotePort = 50003;
  assert.equal(receiver.accept(fourth), undefined);
  assert.equal(fourth.closed, true);
  assert.match(fourth.text, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  assert.match(fourth.text, /\r\nRetry-After: 2\r\n/);
  assert.match(fourth.text, /\r\nConnection: close\r\n/);
  assert.ok(log.lines.some((line) => line.level === 'warn' && /refused \(503\): 2 connections open, none that may make room \(limits\.maxConnections\)/.test(line.message)));
  second.close();
  assert.equal(receiver.connectionCount, 1);
  assert.ok(receiver.accept(new MemoryConnection()));
});

test('refusals are logged once per interval with a count, not once each', () => {
  const { receiver, log, clock } = setup({ maxConnections: 1 });
  receiver.router.add({ protocol: 'HTTP', method: 'GET', path: '/slow', handler: () => LATER });
  const busy = new MemoryConnection();
  receiver.accept(busy);
  busy.send('GET /slow HTTP/1.1\r\n\r\n');
  for (let i = 0; i < 500; i++) receiver.accept(new MemoryConnection());
  clock.advance(10_000);
  receiver.accept(new MemoryConnection());
  const lines = log.lines.filter((line) => /refused/.test(line.message));
  assert.equal(lines.length, 2, lines.map((line) => line.message).join('\n'));
  assert.match(lines[1].message, /^500 connections refused in the last 10 s/);
});

test('one address may hold maxConnectionsPerAddress; another address is still served', () => {
  const { receiver } = setup({ maxConnectionsPerAddress: 2 });
  const greedy = [0, 1, 2].map((i) => {
    const connection = new MemoryConnection();
    connection.remoteAddress = '192.0.2.66';
    connection.remotePort = 40000 + i;
    return connection;
  });
  for (const connection of greedy.slice(0, 2)) {
    receiver.accept(connection);
    connection.send('POST /stop HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc');
  }
  assert.equal(receiver.accept(greedy[2]), undefined, 'its third is refused: its two are busy');
  assert.match(greedy[2].text, /^HTTP\/1\.1 503 /);
  const other = new MemoryConnection();
  assert.ok(receiver.accept(other), 'another address is served');
  other.send('GET /server-info HTTP/1.1\r\n\r\n');
  assert.equal(responses(other)[0].head.status, 200);
});

test('a handler that throws gets 500 and the connection keeps serving', async () => {
  const { open, receiver, log } = setup();
  receiver.router.add({ protocol: 'HTTP', method: 'GET', path: '/boom', handler: () => { throw new Error('kaput'); } });
  const connection = open();
  connection.send('GET /boom HTTP/1.1\r\n\r\nGET /server-info HTTP/1.1\r\n\r\n');
  assert.deepEqual(responses(connection).map((response) => response.head.status), [500, 200]);
  assert.ok(log.lines.some((line) => line.level === 'error' && /kaput/.test(line.message)));
});

test('keeps the session id of the first request that carries it, in either dialect', async () => {
  const { receiver } = setup();
  const vendor = new MemoryConnection();
  const vendorConnection = receiver.accept(vendor)!;
  vendor.send('GET /server-info HTTP/1.1\r\nX-Vendor-Session-ID: 1bd6ceeb-fffd-456c-a09c-996053a7a08c\r\n\r\n');
  assert.equal(vendorConnection.sessionId, '1bd6ceeb-fffd-456c-a09c-996053a7a08c');
  const apple = new MemoryConnection();
  const appleConnection = receiver.accept(apple)!;
  apple.send('GET /server-info HTTP/1.1\r\nX-Apple-Session-ID: 2bd6ceeb-fffd-456c-a09c-996053a7a08c\r\n\r\n');
  assert.equal(appleConnection.sessionId, '2bd6ceeb-fffd-456c-a09c-996053a7a08c');
});

/** A toy channel for the connection's encrypted mode: each frame is a length byte and bytes XOR 0x5a. */
function xorChannel(): SecureChannel & { failNext: boolean } {
  let pending = new Uint8Array(0);
  const channel = {
    failNext: false,
    open(bytes: Uint8Array): Uint8Array[] {
      if (channel.failNext) throw new Error('tag mismatch');
      const joined = new Uint8Array(pending.length + bytes.length);
      joined.set(pending);
      joined.set(bytes, pending.length);
      const out: Uint8Array[] = [];
      let offset = 0;
      while (offset < joined.length && offset + 1 + joined[offset] <= joined.length) {
        out.push(joined.slice(offset + 1, offset + 1 + joined[offset]).map((byte) => byte ^ 0x5a));
        offset += 1 + joined[offset];
      }
      pending = joined.slice(offset);
      return out;
    },
    seal(plaintext: Uint8Array): Uint8Array {
      const out: number[] = [];
      for (let i = 0; i < plaintext.length; i += 255) {
        const part = plaintext.subarray(i, i + 255);
        out.push(part.length, ...Array.from(part, (byte) => byte ^ 0x5a));
      }
      return new Uint8Array(out);
    },
    dispose() {},
  };
  return channel;
}

function sealText(channel: SecureChannel, text: string): Uint8Array {
  return channel.seal(new Uint8Array(Array.from(text, (char) => char.charCodeAt(0))));
}

test('a response with `secure` goes out in the clear, then both directions use the channel', async () => {
  const { open, receiver } = setup();
  const channel = xorChannel();
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const connection = open();
  // The encrypted request is pipelined right behind the one that switches: it must be decrypted too.
  const clear = 'POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n';
  const sealed = sealText(channel, 'GET /server-info HTTP/1.1\r\n\r\n');
  const both = new Uint8Array(clear.length + sealed.length);
  both.set(Array.from(clear, (char) => char.charCodeAt(0)));
  both.set(sealed, clear.length);
  connection.send(both);
  const first = connection.chunks[0];
  assert.match(String.fromCharCode(...first.subarray(0, 15)), /^HTTP\/1\.1 200 /);
  const decrypted = channel.open(connection.chunks[1]);
  const text = decrypted.map((part) => String.fromCharCode(...part)).join('');
  assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(text, /<key>deviceid<\/key>/);
});

test('a frame that fails authentication closes only that connection', async () => {
  const { open, receiver, log } = setup();
  const channel = xorChannel();
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const victim = open();
  const bystander = open();
  victim.send('POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  channel.failNext = true;
  victim.send(new Uint8Array([3, 1, 2, 3]));
  assert.equal(victim.closed, true);
  assert.ok(log.lines.some((line) => /encrypted frame rejected: tag mismatch/.test(line.message)));
  bystander.send('GET /server-info HTTP/1.1\r\n\r\n');
  assert.equal(responses(bystander)[0].head.status, 200);
});
