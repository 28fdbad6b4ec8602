// Admission that no cheap client can fill (src/receiver/connection/admission.ts): refused bodies
// keep the body rate, heads in progress, idle encrypted and silent reverse connections make room
// for a new address, and a peer that reads none of its answers stops being served. A Receiver on
// in-memory ports and a manual clock; the e2e suite (hardening.test.ts) does the same on sockets.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageParser } from '../../src/http';
import type { ReceiverLimits } from '../../src/receiver/config';
import type { ReceiverConnection } from '../../src/receiver/connection/connection';
import { LATER } from '../../src/receiver/connection/router';
import { MemoryConnection } from '../support/memory-ports';
import { testReceiver } from '../support/test-receiver';

/** A connection from `address` (each test address is another sender on the network). */
function from(address: string, port = 50000): MemoryConnection {
  const connection = new MemoryConnection();
  connection.remoteAddress = address;
  connection.remotePort = port;
  return connection;
}

/** The statuses of every response the receiver wrote on `connection`. */
function statuses(connection: MemoryConnection): number[] {
  const parser = new MessageParser('response');
  parser.receive(connection.written);
  const found: number[] = [];
  for (let event = parser.next(); event; event = parser.next()) if (event.type === 'head') found.push(event.head.status);
  return found;
}

function setup(limits: Partial<ReceiverLimits> = {}) {
  const { clock, log, receiver } = testReceiver(limits);
  const accept = (connection: MemoryConnection): ReceiverConnection | undefined => receiver.accept(connection);
  return { clock, log, receiver, accept };
}

/** The eight attacking addresses, and the ninth a bystander sends from. */
const ATTACKERS = Array.from({ length: 8 }, (_, i) => `192.0.2.${101 + i}`);
const BYSTANDER = '192.0.2.200';

const SERVER_INFO = 'GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n';

// ---------------------------------------------------------------------------------------------
// A refused request's body

test('a refused body trickled one byte per 100 s is closed by the body-rate deadline, not kept by the idle timer', () => {
  const { clock, log, accept } = setup();
  const trickler = from(ATTACKERS[0]);
  accept(trickler);
  // Refused on its head (404), its body (within maxBodyBytes) is read past.
  trickler.send('GET /nowhere HTTP/1.1\r\nHost: frame\r\nContent-Length: 65536\r\n\r\n');
  assert.deepEqual(statuses(trickler), [404]);
  // limits.bodyGraceMs (10 s) and then 1024 bytes/s: a byte per 100 s is far too slow.
  clock.advance(9_999);
  assert.equal(trickler.closed, false);
  clock.advance(1);
  assert.equal(trickler.closed, true, 'closed at the body deadline, 10 s after its head');
  assert.deepEqual(statuses(trickler), [404], 'no second answer: the refusal was the answer');
  assert.ok(log.lines.some((line) => line.level === 'warn' && /the body of a refused request arrived slower than 1024 bytes\/s/.test(line.message)));
});

test('the over-limit body a 413 drops keeps the rate too: GET /server-info with Content-Length 65536, a byte now and then', () => {
  const { clock, accept } = setup();
  const trickler = from(ATTACKERS[0]);
  accept(trickler);
  trickler.send('GET /server-info HTTP/1.1\r\nHost: frame\r\nContent-Length: 65536\r\n\r\n');
  assert.deepEqual(statuses(trickler), [413]);
  assert.equal(trickler.closed, false, 'the 413 keeps the connection while its body is dropped');
  clock.advance(9_999);
  trickler.send('x');
  assert.equal(trickler.closed, false);
  clock.advance(1);
  assert.equal(trickler.closed, true);
});

test('once a dropped body is over, the connection is idle again: no body deadline left behind', () => {
  const { clock, accept } = setup();
  const sender = from(ATTACKERS[0]);
  accept(sender);
  sender.send('GET /server-info HTTP/1.1\r\nContent-Length: 3000\r\n\r\n' + 'x'.repeat(3000));
  clock.advance(60_000);
  assert.equal(sender.closed, false);
  sender.send(SERVER_INFO);
  assert.deepEqual(statuses(sender), [413, 200]);
});

test('a refused body that keeps the rate is read past and the connection serves the next request', () => {
  const { clock, accept } = setup();
  const sender = from(ATTACKERS[0]);
  accept(sender);
  sender.send('GET /nowhere HTTP/1.1\r\nContent-Length: 4000\r\n\r\n');
  clock.advance(5_000);
  sender.send('x'.repeat(2000));
  clock.advance(6_000);
  sender.send('x'.repeat(2000) + SERVER_INFO);
  assert.equal(sender.closed, false);
  assert.deepEqual(statuses(sender), [404, 200]);
});

test('a refused body larger than limits.maxBodyBytes is not read: the connection closes after the answer', () => {
  const { accept } = setup();
  const sender = from(ATTACKERS[0]);
  accept(sender);
  sender.send('GET /nowhere HTTP/1.1\r\nContent-Length: 2000000000\r\n\r\n');
  assert.deepEqual(statuses(sender), [404]);
  assert.equal(sender.closed, true);
});

// ---------------------------------------------------------------------------------------------
// A full house from eight addresses

/** Fills the receiver (maxConnections 256, 32 per address) from the eight attackers, each connection prepared by `prepare`. */
function fillFromAttackers(accept: (connection: MemoryConnection) => ReceiverConnection | undefined, prepare: (connection: MemoryConnection) => void): MemoryConnection[] {
  const held: MemoryConnection[] = [];
  for (const address of ATTACKERS) {
    for (let i = 0; i < 32; i++) {
      const connection = from(address, 40000 + i);
      assert.ok(accept(connection), `${address} #${i} taken`);
      prepare(connection);
      held.push(connection);
    }
  }
  return held;
}

test('a full house of slowloris heads from 8 addresses still admits a 9th address, and it is served', () => {
  const { receiver, accept, log } = setup();
  const heads = fillFromAttackers(accept, (connection) => connection.send('GET /server-info HTTP/1.1\r\nHo'));
  assert.equal(receiver.connectionCount, 256);
  const bystander = from(BYSTANDER);
  assert.ok(accept(bystander), 'the ninth address is taken, not answered 503');
  bystander.send(SERVER_INFO);
  assert.deepEqual(statuses(bystander), [200]);
  assert.equal(heads.filter((connection) => connection.closed).length, 1, 'one head made room');
  assert.ok(log.lines.some((line) => /closed, a request head still arriving: makes room for 192\.0\.2\.200:50000 \(limits\.maxConnections\)/.test(line.message)));
});

test('an idle connection makes room before a head in progress of the same address', () => {
  const { accept } = setup({ maxConnections: 2 });
  const idle = from(ATTACKERS[0], 1);
  const head = from(ATTACKERS[0], 2);
  accept(head);
  head.send('GET /server-info HTTP/1.1\r\nHo');
  accept(idle);
  assert.ok(accept(from(BYSTANDER)));
  assert.equal(idle.closed, true);
  assert.equal(head.closed, false);
});

test('32 idle encrypted connections from each of 8 addresses admit a 9th address', () => {
  const { receiver, accept } = setup();
  const channel = { open: (bytes: Uint8Array) => [bytes], seal: (bytes: Uint8Array) => bytes, dispose: () => {} };
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const paired = fillFromAttackers(accept, (connection) => connection.send('POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n'));
  assert.ok(accept(from(BYSTANDER)), 'the ninth address is taken');
  assert.equal(paired.filter((connection) => connection.closed).length, 1);
});

test('an idle encrypted connection is closed after idleTimeoutMs, as a plain one is', () => {
  const { receiver, clock, accept } = setup({ idleTimeoutMs: 30_000 });
  const channel = { open: (bytes: Uint8Array) => [bytes], seal: (bytes: Uint8Array) => bytes, dispose: () => {} };
  receiver.router.add({ protocol: 'HTTP', method: 'POST', path: '/secure-me', handler: () => ({ status: 200, secure: channel }) });
  const paired = from(ATTACKERS[0]);
  const connection = accept(paired)!;
  paired.send('POST /secure-me HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  assert.equal(connection.mode, 'encrypted');
  clock.advance(29_999);
  assert.equal(paired.closed, false);
  clock.advance(1);
  assert.equal(paired.closed, true);
});

test('with the receiver full, the victim comes from the address holding the most connections', () => {
  const { accept } = setup({ maxConnections: 4 });
  const few = from('192.0.2.50', 1);
  accept(few); // idle longest of all
  const many = [1, 2, 3].map((port) => from(ATTACKERS[0], port));
  for (const connection of many) {
    accept(connection);
    connection.send('GET /server-info HTTP/1.1\r\nHo');
  }
  assert.ok(accept(from(BYSTANDER)));
  assert.equal(few.closed, false, 'the address with one connection keeps it');
  assert.equal(many.filter((connection) => connection.closed).length, 1);
});

test('a handler at work is never evicted: with only such connections a newcomer gets 503', () => {
  const { receiver, accept } = setup({ maxConnections: 2 });
  receiver.router.add({ protocol: 'HTTP', method: 'GET', path: '/slow', handler: () => LATER });
  const busy = [from(ATTACKERS[0], 1), from(ATTACKERS[1], 2)];
  for (const connection of busy) {
    accept(connection);
    connection.send('GET /slow HTTP/1.1\r\n\r\n');
  }
  const newcomer = from(BYSTANDER);
  assert.equal(accept(newcomer), undefined);
  assert.match(newcomer.text, /^HTTP\/1\.1 503 /);
});

test('an accepted body makes room only for another address: at its own share an address keeps its uploads', () => {
  const { accept } = setup({ maxConnections: 3, maxConnectionsPerAddress: 2 });
  const uploads = [from(ATTACKERS[0], 1), from(ATTACKERS[0], 2)];
  for (const connection of uploads) {
    accept(connection);
    connection.send('POST /stop HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc');
  }
  assert.equal(accept(from(ATTACKERS[0], 3)), undefined, 'its own third is refused');
  accept(from(ATTACKERS[1], 1));
  assert.ok(accept(from(BYSTANDER)), 'a newcomer from another address, the receiver full, is taken');
  assert.equal(uploads.filter((connection) => connection.closed).length, 1, 'an upload of the address holding the most made room');
});

// ---------------------------------------------------------------------------------------------
// Reverse connections

const reverseRequest = (session: number, purpose = 'event') =>
  `POST /reverse HTTP/1.1\r\nUpgrade: PTTH/1.0\r\nConnection: Upgrade\r\nX-Vendor-Purpose: ${purpose}\r\n` +
  `X-Vendor-Session-ID: 00000000-0000-4000-8000-${String(session).padStart(12, '0')}\r\nContent-Length: 0\r\n\r\n`;

test('reverse connections of one address beyond maxReverseConnectionsPerAddress: its silent one quiet longest makes room', () => {
  const { clock, receiver, accept } = setup({ maxReverseConnectionsPerAddress: 2 });
  const reverse = [1, 2, 3].map((session) => {
    const connection = from(ATTACKERS[0], 40000 + session);
    accept(connection);
    connection.send(reverseRequest(session));
    clock.advance(10);
    return connection;
  });
  assert.deepEqual(reverse.map((connection) => statuses(connection)), [[101], [101], [101]]);
  assert.deepEqual(reverse.map((connection) => connection.closed), [true, false, false]);
  assert.equal(receiver.reverse.fromAddress(ATTACKERS[0]).length, 2);
});

test('eight silent reverse connections from eight addresses: a ninth address still gets its event connection', () => {
  const { receiver, accept, log } = setup();
  const silent = ATTACKERS.map((address, i) => {
    const connection = from(address);
    accept(connection);
    connection.send(reverseRequest(i + 1));
    return connection;
  });
  assert.equal(receiver.reverse.size, 8);
  const bystander = from(BYSTANDER);
  accept(bystander);
  bystander.send(reverseRequest(99));
  assert.deepEqual(statuses(bystander), [101]);
  assert.equal(silent.filter((connection) => connection.closed).length, 1);
  assert.ok(log.lines.some((line) => /reverse connection closed to make room for 192\.0\.2\.200:50000/.test(line.message)));
  // An address that already holds as many as the others does not push them out: it is refused.
  const greedy = from(ATTACKERS[1], 50001);
  accept(greedy);
  greedy.send(reverseRequest(98));
  assert.deepEqual(statuses(greedy), [503]);
});

test('a flood of refused POST /reverse is one warning per 10 s with a count, not a line each', () => {
  const { clock, receiver, accept, log } = setup();
  for (const [i, address] of ATTACKERS.entries()) {
    const connection = from(address);
    accept(connection);
    connection.send(reverseRequest(i + 1));
  }
  assert.equal(receiver.reverse.size, 8);
  const refusedLines = () => log.lines.filter((line) => line.level === 'warn' && /POST \/reverse refused/.test(line.message)).map((line) => line.message);
  // Every address holds one: each newcomer from them is refused (no address holds more than another).
  for (let i = 0; i < 50; i++) {
    const greedy = from(ATTACKERS[i % 8], 51000 + i);
    accept(greedy);
    greedy.send(reverseRequest(200 + i));
    assert.deepEqual(statuses(greedy), [503]);
  }
  assert.equal(refusedLines().length, 1, 'the first refusal at once, the rest counted');
  clock.advance(10_000);
  const late = from(ATTACKERS[0], 52000);
  accept(late);
  late.send(reverseRequest(300));
  assert.equal(refusedLines().length, 2);
  assert.match(refusedLines()[1], /^50 POST \/reverse refused in the last 10 s, the last from 192\.0\.2\.101:52000: 8 reverse connections open$/);
});

test('a silent reverse connection whose address has no other connection is closed after reverseIdleTimeoutMs; one whose sender is still there stays', () => {
  const { clock, accept } = setup({ reverseIdleTimeoutMs: 60_000, idleTimeoutMs: 600_000 });
  const orphan = from(ATTACKERS[0]);
  accept(orphan);
  orphan.send(reverseRequest(1));
  const events = from(ATTACKERS[1], 1);
  accept(events);
  events.send(reverseRequest(2));
  const control = from(ATTACKERS[1], 2);
  accept(control);
  clock.advance(59_999);
  assert.equal(orphan.closed, false);
  clock.advance(1);
  assert.equal(orphan.closed, true, 'its sender has gone: closed');
  clock.advance(120_000);
  assert.equal(events.closed, false, 'its sender still has its control connection');
  control.close();
  clock.advance(60_000);
  assert.equal(events.closed, true);
});

// ---------------------------------------------------------------------------------------------
// A peer that reads nothing

/** A connection whose peer takes the first `takes` bytes and then reads nothing more: the host's buffer stays full. */
class NeverReading extends MemoryConnection {
  taken = 0;
  constructor(private readonly takes: number) {
    super();
  }
  override write(bytes: Uint8Array): boolean {
    super.write(bytes);
    this.taken += bytes.length;
    return this.taken < this.takes;
  }
}

test('a peer that never reads stops being parsed once its unsent answers pass the bound, and is closed after the write deadline', () => {
  const { clock, log, accept } = setup({ maxUnsentAnswerBytes: 16 * 1024, writeTimeoutMs: 30_000 });
  const peer = new NeverReading(16 * 1024);
  const connection = accept(peer)!;
  // 62 KB of pipelined GET /server-info (about 1,500 requests), never read.
  const requests = SERVER_INFO.repeat(Math.floor((62 * 1024) / SERVER_INFO.length));
  peer.send(requests);
  for (let i = 0; i < 50; i++) clock.advance(0); // the turns the receiver gives it
  const answered = statuses(peer).length;
  const answerBytes = peer.taken / answered;
  // What the host holds (its buffer's high-water mark and the one write past it) and the
  // connection's own queue (maxUnsentAnswerBytes and the one answer past it).
  assert.ok(peer.taken <= 16 * 1024 + answerBytes, `the host was handed ${peer.taken} bytes`);
  assert.ok(connection.unsent > 0 && connection.unsent <= 16 * 1024 + answerBytes, `unsent answers stay bounded (${connection.unsent} bytes)`);
  assert.ok(answered < 30, `${answered} answers reached the host, not ${Math.floor(requests.length / SERVER_INFO.length)}`);
  assert.equal(peer.paused, true, 'its socket is no longer read');
  assert.equal(connection.wantsRead, false);
  clock.advance(29_999);
  assert.equal(peer.closed, false);
  clock.advance(1);
  assert.equal(peer.closed, true, 'closed at the write deadline');
  assert.ok(log.lines.some((line) => line.level === 'warn' && /its peer took none of \d+ bytes of answers (here and the host.s full buffer )?for 30000 ms \(limits\.writeTimeoutMs\)/.test(line.message)));
});

test('a peer that reads nothing after its last answer filled the host\'s buffer is closed at the write deadline, though no answer waits in the connection', () => {
  const { clock, log, accept } = setup({ writeTimeoutMs: 30_000, idleTimeoutMs: 120_000 });
  // One answer's size, from a peer that reads.
  const probe = from('192.0.2.50');
  accept(probe);
  probe.send(SERVER_INFO);
  const answerBytes = probe.written.length;
  // Five pipelined requests; the host's buffer (the kernel's, on Node) takes all five answers
  // and is full with the last: nothing is left in the connection's own queue.
  const peer = new NeverReading(5 * answerBytes - 1);
  const connection = accept(peer)!;
  peer.send(SERVER_INFO.repeat(5));
  for (let i = 0; i < 10; i++) clock.advance(0); // the turns the receiver gives it
  assert.deepEqual(statuses(peer), [200, 200, 200, 200, 200]);
  assert.equal(connection.unsent, 0, 'every answer went to the host');
  assert.equal(connection.occupation, 'unread-answers', 'a connection whose peer takes nothing may make room first');
  clock.advance(29_999);
  assert.equal(peer.closed, false);
  clock.advance(1);
  assert.equal(peer.closed, true, 'closed at the write deadline, not at the idle one 90 s later');
  assert.ok(log.lines.some((line) => line.level === 'warn' && /its peer took none of 0 bytes of answers here and the host's full buffer for 30000 ms \(limits\.writeTimeoutMs\)/.test(line.message)));
});

test('a peer whose host buffer drains is not closed by the write deadline', () => {
  const { clock, accept } = setup({ writeTimeoutMs: 30_000, idleTimeoutMs: 120_000 });
  const peer = new NeverReading(10);
  const connection = accept(peer)!;
  peer.send(SERVER_INFO);
  assert.equal(connection.occupation, 'unread-answers');
  clock.advance(20_000);
  // The peer reads: the host drains.
  peer.taken = -Infinity;
  peer.onDrain();
  assert.equal(connection.occupation, 'idle');
  clock.advance(20_000);
  assert.equal(peer.closed, false, 'the write deadline was lifted with the drain');
  clock.advance(80_000);
  assert.equal(peer.closed, true, 'the idle deadline still runs');
});

test('a peer that reads slowly but steadily is served to the end', () => {
  const { clock, accept } = setup({ maxUnsentAnswerBytes: 8 * 1024 });
  const peer = new NeverReading(4 * 1024);
  accept(peer);
  const count = 200;
  peer.send(SERVER_INFO.repeat(count));
  for (let round = 0; round < 1000 && statuses(peer).length < count; round++) {
    clock.advance(1_000);
    // The peer reads what it has: the host's buffer drains.
    peer.taken = 0;
    peer.onDrain();
    clock.advance(0);
  }
  assert.equal(statuses(peer).length, count);
  assert.equal(peer.closed, false);
});
