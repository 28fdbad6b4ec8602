// The receiver's connection as a sans-I/O state machine (DESIGN 6): bytes and time in, exact
// bytes, deadlines and events out, with no driver, socket or timer; and flow control under a
// flood of pipelined requests while a handler is at work. Portable: runs on Node and inside XS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Decode, latin1Encode } from '../../src/bytes';
import type { ReceiverConnection } from '../../src/receiver/connection/connection';
import { LATER, type Request } from '../../src/receiver/connection/router';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryConnection, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { testReceiver } from '../support/test-receiver';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const ADDRESSES = { remoteAddress: '192.0.2.20', remotePort: 50000, localAddress: '192.0.2.1', localPort: 7000 };
const DATE = 'Sat, 21 Nov 2026 12:00:00 GMT';

const setup = testReceiver;

/** Everything the connection has to send now, as Latin-1 text. */
function drain(connection: ReceiverConnection): string {
  let text = '';
  for (let bytes = connection.pollTransmit(); bytes; bytes = connection.pollTransmit()) text += latin1Decode(bytes);
  return text;
}

function feed(connection: ReceiverConnection, text: string, now: number): void {
  connection.receive(latin1Encode(text), now);
}

test('bytes in, exact bytes out: a 404 names its reason in a one-line body', () => {
  const { receiver } = setup();
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'GET /nowhere HTTP/1.1\r\nHost: frame\r\n\r\n', 5);
  assert.equal(
    drain(connection),
    'HTTP/1.1 404 Not Found\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Date: ${DATE}\r\n` +
      'Server: VendorTunes/220.68\r\n' +
      'Content-Length: 30\r\n' +
      '\r\n' +
      'no such path on this receiver\n',
  );
  assert.equal(connection.pollEvent(), undefined, 'the connection stays open');
});

test('deadlines come from one table: idle after an answer, the head deadline from its first byte, 408 when it passes', () => {
  const { receiver } = setup({ idleTimeoutMs: 60_000, headerTimeoutMs: 10_000 });
  const connection = receiver.open(ADDRESSES, 1000)!;
  assert.equal(connection.pollTimeout(), 61_000, 'idle from the accept');
  feed(connection, 'OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n', 2000);
  assert.match(drain(connection), /^RTSP\/1\.0 200 OK\r\n/);
  assert.equal(connection.pollTimeout(), 62_000, 'idle from the last bytes');
  feed(connection, 'GET /server-info HTTP/1.1\r\nHo', 3000);
  assert.equal(connection.pollTimeout(), 13_000, 'a head must be whole within headerTimeoutMs of its first byte');
  feed(connection, 'st: frame', 4000);
  assert.equal(connection.pollTimeout(), 13_000, 'more bytes of the same head do not move it');
  connection.handleTimeout(12_999);
  assert.equal(drain(connection), '', 'not yet');
  connection.handleTimeout(13_000);
  assert.match(drain(connection), /^HTTP\/1\.1 408 Request Timeout\r\n[^]*Connection: close\r\n/);
  assert.deepEqual(connection.pollEvent(), { type: 'close', reason: 'request head not complete within 10000 ms' });
  assert.equal(connection.pollTimeout(), undefined);
});

test('an idle connection is closed at its deadline with nothing sent', () => {
  const { receiver } = setup({ idleTimeoutMs: 5000 });
  const connection = receiver.open(ADDRESSES, 0)!;
  connection.handleTimeout(5000);
  assert.equal(drain(connection), '');
  assert.deepEqual(connection.pollEvent(), { type: 'close', reason: 'idle for 5000 ms' });
  assert.equal(receiver.connectionCount, 0);
});

test('a handler may answer later: no deadline while it works, pipelined requests wait and are answered in order', () => {
  const { receiver } = setup({ idleTimeoutMs: 5000 });
  let held: Request | undefined;
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/slow', handler: (request) => ((held = request), LATER) });
  const connection = receiver.open(ADDRESSES, 0)!;
  let woken = 0;
  connection.onWake = () => woken++;
  feed(connection, 'POST /slow HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET /nowhere HTTP/1.1\r\n\r\n', 100);
  assert.equal(drain(connection), '', 'nothing until the slow one answers');
  assert.equal(connection.pollTimeout(), undefined, 'the sender waits for us: no idle deadline');
  assert.ok(held);
  held.respond({ status: 204 });
  assert.equal(woken, 1, 'the driver is told there is something to send');
  const text = drain(connection);
  assert.match(text, /^HTTP\/1\.1 204 No Content\r\n[^]*\r\n\r\nHTTP\/1\.1 404 Not Found\r\n/);
  held.respond({ status: 500 });
  assert.equal(drain(connection), '', 'a second answer to the same request is ignored');
});

test('a flood of pipelined requests while a handler works stays under maxHeldBytes: the connection stops reading', () => {
  const maxHeldBytes = 16 * 1024;
  const { receiver, clock } = setup({ maxHeldBytes });
  let held: Request | undefined;
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/slow', handler: (request) => ((held = request), LATER) });
  // Through the portable driver and an in-memory transport, as a host runs it.
  const transport = new MemoryConnection();
  const connection = receiver.accept(transport)!;
  transport.send('POST /slow HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  const request = latin1Encode('GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n');
  const piece = new Uint8Array(request.length * 32);
  for (let i = 0; i < 32; i++) piece.set(request, i * request.length);
  // The sender floods 4 MB; a transport delivers only while not paused (as Node's socket.pause()
  // and ECMA-419's pull reads do). The rest waits in the transport.
  let offered = 0;
  let delivered = 0;
  let most = 0;
  while (offered < 4 * 1024 * 1024) {
    offered += piece.length;
    if (transport.paused) continue;
    transport.send(piece);
    delivered += piece.length;
    most = Math.max(most, connection.heldBytes);
  }
  assert.equal(transport.paused, true, 'the transport was asked to stop reading');
  assert.ok(most <= maxHeldBytes + piece.length, `held at most ${most} bytes (limit ${maxHeldBytes} + one read of ${piece.length})`);
  assert.ok(delivered < 2 * maxHeldBytes, `only ${delivered} of ${offered} bytes were read`);
  assert.equal(transport.chunks.length, 0, 'nothing answered while the first request waits');
  // The handler answers: the waiting requests are answered and reading resumes.
  held!.respond({ status: 200 });
  // Answered a few per turn (maxRequestsPerTurn): each turn is a timer due at once.
  clock.advance(0);
  assert.equal(transport.paused, false, 'reading resumes once the held requests are answered');
  assert.equal(connection.heldBytes, 0);
  const answers = latin1Decode(transport.written).match(/^HTTP\/1\.1 200 OK\r\n/gm) ?? [];
  assert.equal(answers.length, 1 + delivered / request.length);
});

test('a peer that sends past the limit anyway (ignoring flow control) is disconnected with a log line', () => {
  const maxHeldBytes = 4096;
  const { receiver, log } = setup({ maxHeldBytes });
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/slow', handler: () => LATER });
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'POST /slow HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 1);
  const flood = latin1Encode('GET /server-info HTTP/1.1\r\n\r\n'.repeat(4096));
  connection.receive(flood, 2);
  assert.equal(connection.wantsRead, false);
  assert.equal(connection.pollEvent()?.type, 'close');
  assert.ok(log.lines.some((line) => line.level === 'warn' && /while its requests waited \(limits\.maxHeldBytes 4096\): closing/.test(line.message)));
  assert.equal(receiver.connectionCount, 0);
});

test('a closed connection wipes its secure channel (spec 5.4: the session keys go with it)', () => {
  const { receiver } = setup();
  let disposed = 0;
  const channel = { open: (bytes: Uint8Array) => [bytes], seal: (bytes: Uint8Array) => bytes, dispose: () => disposed++ };
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 1);
  drain(connection);
  assert.equal(disposed, 0);
  connection.transportClosed(undefined, 2);
  assert.equal(disposed, 1);
});

test('a body must keep up the minimum rate after its grace: a trickle gets 408 and a close', () => {
  const { receiver } = setup({ bodyGraceMs: 10_000, minBodyBytesPerSecond: 100, idleTimeoutMs: 600_000 });
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'POST /stop HTTP/1.1\r\nContent-Length: 4000\r\n\r\n', 0);
  assert.equal(connection.pollTimeout(), 10_000, 'the grace, with nothing of the body yet');
  // 500 bytes buy 5 s at 100 bytes/s.
  feed(connection, 'x'.repeat(500), 9_000);
  assert.equal(connection.pollTimeout(), 15_000);
  // One byte every 10 s does not keep it alive (each byte buys 10 ms).
  feed(connection, 'x', 14_000);
  assert.equal(connection.pollTimeout(), 15_010);
  connection.handleTimeout(15_010);
  const text = drain(connection);
  assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.match(text, /\r\nConnection: close\r\n/);
  assert.match(text, /request body arrived slower than 100 bytes\/s/);
  assert.equal(connection.pollEvent()?.type, 'close');
});

test('fairness: a connection answers maxRequestsPerTurn pipelined requests, then yields until called back', () => {
  const { receiver } = setup({ maxRequestsPerTurn: 3 });
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n'.repeat(7), 100);
  assert.equal(drain(connection).match(/RTSP\/1\.0 200 OK/g)?.length, 3);
  assert.equal(connection.pollTimeout(), 100, 'its next turn is due at once: the driver comes back after the others');
  connection.handleTimeout(100);
  assert.equal(drain(connection).match(/RTSP\/1\.0 200 OK/g)?.length, 3);
  connection.handleTimeout(100);
  assert.equal(drain(connection).match(/RTSP\/1\.0 200 OK/g)?.length, 1);
  assert.equal(connection.pollTimeout(), 100 + 120_000, 'then only the idle deadline');
});

test('Expect: 100-continue gets 100 Continue before the body; a refused one gets its final status and a close', () => {
  const { receiver } = setup();
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'POST /stop HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n', 1);
  assert.equal(drain(connection), 'HTTP/1.1 100 Continue\r\n\r\n');
  feed(connection, '{}', 2);
  assert.match(drain(connection), /^HTTP\/1\.1 200 OK\r\n/);
  feed(connection, 'PUT /nowhere HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n', 3);
  const refused = drain(connection);
  assert.match(refused, /^HTTP\/1\.1 501 Not Implemented\r\n/);
  assert.doesNotMatch(refused, /100 Continue/);
  assert.match(refused, /\r\nConnection: close\r\n/, 'the body it holds back is not there to skip');
  assert.equal(connection.pollEvent()?.type, 'close');
});

test('Expect: 100-continue with a Content-Length over the route\'s limit gets the 413 and a close, never a 100 first', () => {
  const { receiver } = setup({ maxBodyBytes: 64 });
  receiver.router.add({ protocol: 'HTTP', method: 'PUT', path: '/small', maxBodyBytes: 4, handler: () => ({ status: 200 }) });
  receiver.router.add({ protocol: 'HTTP', method: 'PUT', path: '/any', handler: () => ({ status: 200 }) });
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'PUT /small HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n', 1);
  const refused = drain(connection);
  assert.match(refused, /^HTTP\/1\.1 413 Content Too Large\r\n/);
  assert.doesNotMatch(refused, /100 Continue/);
  assert.match(refused, /\r\nConnection: close\r\n[^]*\r\n\r\nbody exceeds the limit of 4 bytes \(Content-Length 5\)\n$/);
  assert.equal(connection.pollEvent()?.type, 'close');
  // The receiver-wide limit, for a route that names none.
  const other = receiver.open({ ...ADDRESSES, remotePort: 50001 }, 2)!;
  feed(other, 'PUT /any HTTP/1.1\r\nContent-Length: 65\r\nExpect: 100-continue\r\n\r\n', 3);
  assert.match(drain(other), /^HTTP\/1\.1 413 Content Too Large\r\n/);
  // Within the limit, and of unknown length (chunked), the sender is told to go on.
  const within = receiver.open({ ...ADDRESSES, remotePort: 50002 }, 4)!;
  feed(within, 'PUT /small HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n', 5);
  assert.equal(drain(within), 'HTTP/1.1 100 Continue\r\n\r\n');
  const chunked = receiver.open({ ...ADDRESSES, remotePort: 50003 }, 6)!;
  feed(chunked, 'PUT /small HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n', 7);
  assert.equal(drain(chunked), 'HTTP/1.1 100 Continue\r\n\r\n');
});

test('Expect: 100-continue refused on its head (403 unpaired, 405 wrong method) gets the refusal alone', () => {
  const { receiver } = setup();
  const connection = receiver.open(ADDRESSES, 0)!;
  feed(connection, 'GET /stop HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n', 1);
  const wrongMethod = drain(connection);
  assert.match(wrongMethod, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  assert.doesNotMatch(wrongMethod, /100 Continue/);
  const config = makeConfig({ name: 'Test Frame', deviceId: '58:55:CA:1A:E2:88', password: 'secret' });
  const locked = new Receiver(config, { crypto: portableCryptoKernels, clock: new ManualClock(), random: seededRandom(3), store: new MemoryStore(), log: recordingLogger() });
  const unpaired = locked.open(ADDRESSES, 0)!;
  feed(unpaired, 'POST /stop HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n', 1);
  const forbidden = drain(unpaired);
  assert.match(forbidden, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.doesNotMatch(forbidden, /100 Continue/);
});

test('an idle paired (encrypted) connection makes room after the plain idle ones: anyone can pair transiently', () => {
  const { receiver } = setup({ maxConnections: 2 });
  const channel = { open: (bytes: Uint8Array) => [bytes], seal: (bytes: Uint8Array) => bytes, dispose: () => {} };
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const paired = receiver.open(ADDRESSES, 0)!;
  feed(paired, 'POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 1);
  drain(paired);
  assert.equal(paired.occupation, 'encrypted-idle');
  const plain = receiver.open({ ...ADDRESSES, remotePort: 50001 }, 2)!;
  assert.ok(receiver.open({ ...ADDRESSES, remotePort: 50002 }, 3));
  assert.equal(plain.pollEvent()?.type, 'close', 'the plain idle one made room first, though newer');
  assert.equal(paired.pollEvent(), undefined, 'the paired connection stays');
  // With only the paired one to make room, it does (it was refused before: a transient pair-setup
  // with the public code made a connection nobody could evict).
  const alone = setup({ maxConnections: 1 }).receiver;
  alone.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const onlyOne = alone.open(ADDRESSES, 0)!;
  feed(onlyOne, 'POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n', 1);
  drain(onlyOne);
  assert.ok(alone.open({ ...ADDRESSES, remoteAddress: '192.0.2.21' }, 2));
  assert.equal(onlyOne.pollEvent()?.type, 'close');
});

test('a cached reply is written once per second: the same bytes while the Date holds, new ones after', () => {
  const { receiver, clock } = setup();
  const connection = receiver.open(ADDRESSES, 0)!;
  const get = () => {
    feed(connection, 'GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n', clock.now());
    const bytes = connection.pollTransmit()!;
    assert.equal(connection.pollTransmit(), undefined);
    return bytes;
  };
  const first = get();
  const second = get();
  assert.equal(second, first, 'the kept bytes themselves');
  assert.match(latin1Decode(first), new RegExp(`\\r\\nDate: ${DATE}\\r\\n`));
  clock.advance(1000);
  const third = get();
  assert.notEqual(third, first);
  assert.match(latin1Decode(third), /\r\nDate: Sat, 21 Nov 2026 12:00:01 GMT\r\n/);
  assert.equal(latin1Decode(third).replace(/Date: [^\r]*/, ''), latin1Decode(first).replace(/Date: [^\r]*/, ''), 'only the Date differs');
  // HTTP/1.0 without keep-alive closes: other bytes (Connection: close), built for it.
  feed(connection, 'GET /server-info HTTP/1.0\r\n\r\n', clock.now());
  assert.match(latin1Decode(connection.pollTransmit()!), /^HTTP\/1\.0 200 OK\r\n/);
});

test('RTSP cached replies are kept too: each answer carries its own CSeq, byte for byte as written afresh', () => {
  // `kept` answers from kept bytes after its first answer; every answer of `fresh` is its first
  // for that request (a new receiver each time), so written afresh.
  const { receiver: kept } = setup();
  const connection = kept.open(ADDRESSES, 0)!;
  const afresh = (request: string) => {
    const { receiver } = setup();
    const other = receiver.open(ADDRESSES, 0)!;
    feed(other, request, 0);
    return drain(other);
  };
  const requests = [
    'OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n',
    'OPTIONS * RTSP/1.0\r\nCSeq: 2\r\n\r\n',
    'OPTIONS * RTSP/1.0\r\nCSeq: 1234567\r\n\r\n',
    // Some senders send no CSeq: the answer has none.
    'OPTIONS * RTSP/1.0\r\n\r\n',
    'GET /info RTSP/1.0\r\nCSeq: 3\r\n\r\n',
    'GET /info RTSP/1.0\r\nCSeq: 44\r\n\r\n',
    'GET /info RTSP/1.0\r\n\r\n',
    // The same reply over HTTP: no CSeq, kept apart from the RTSP bytes.
    'GET /info HTTP/1.1\r\nCSeq: 5\r\n\r\n',
    'GET /info RTSP/1.0\r\nCSeq: 6\r\n\r\n',
  ];
  for (const request of requests) {
    feed(connection, request, 0);
    const answer = drain(connection);
    assert.equal(answer, afresh(request), request.split('\r\n').join(' | '));
  }
  feed(connection, 'OPTIONS * RTSP/1.0\r\nCSeq: 9\r\n\r\n', 0);
  assert.match(drain(connection), /^RTSP\/1\.0 200 OK\r\n(?:[^\r]*\r\n)*CSeq: 9\r\n/);
});
