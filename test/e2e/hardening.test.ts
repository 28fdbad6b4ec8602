// Admission and fairness on real sockets: idle and trickling connections do not lock a
// sender out, eight addresses filling the receiver with refused-body trickles or slowloris heads
// do not lock a ninth out, a peer that never reads is closed after the write deadline, and one
// connection's pipelined pairing steps do not stall the others.
//
// On a loaded machine: what the receiver did, and in which order, is read from its log (one
// ordered stream), not from how long a request took; the times are reported, not asserted.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, afterEach, before, beforeEach, describe, test, type TestContext } from 'node:test';
import { pairSetupM1 } from '../support/pairing-client';
import { RawClient, ReceiverProcess, until } from './receiver-process';

/** Opens a connection from `localAddress` (any 127.x address reaches the receiver on loopback). */
function connectFrom(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
    socket.on('error', () => {});
  });
}

/** One GET /server-info on a new connection from 127.0.0.1, checked 200: its local port (the log names it) and how long it took. */
async function served(port: number): Promise<{ port: number; ms: number }> {
  const started = performance.now();
  const client = await RawClient.connect(port);
  try {
    client.send('GET /server-info HTTP/1.1\r\nHost: frame\r\nConnection: close\r\n\r\n');
    assert.equal((await client.response()).head.status, 200);
    return { port: client.localPort, ms: performance.now() - started };
  } finally {
    client.close();
  }
}

/** The receiver's log up to the answer to the request from 127.0.0.1:`port` (waits for it). */
async function logUntilAnswered(receiver: ReceiverProcess, port: number): Promise<string[]> {
  const answered = new RegExp(`^\\S+ debug 127\\.0\\.0\\.1:${port} HTTP GET /server-info -> 200$`);
  await receiver.waitForLog(answered);
  const lines = receiver.stderr.split('\n');
  return lines.slice(0, lines.findIndex((line) => answered.test(line)) + 1);
}

const times = (list: { ms: number }[]): string => list.map(({ ms }) => ms.toFixed(1)).join(', ');

describe('admission: idle and trickling connections', () => {
  let receiver: ReceiverProcess;
  const sockets: net.Socket[] = [];
  let trickle: NodeJS.Timeout | undefined;
  before(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'debug', args: ['--no-screen', '--limit', 'maxConnectionsPerAddress=200'] });
  });
  after(async () => {
    clearInterval(trickle);
    for (const socket of sockets) socket.destroy();
    await receiver.stop();
  });

  test('100 idle and 100 trickling connections are held while a normal client is served', async (t) => {
    for (let i = 0; i < 100; i++) sockets.push(await connectFrom(receiver.port, '127.0.0.2'));
    const tricklers: net.Socket[] = [];
    for (let i = 0; i < 100; i++) {
      const socket = await connectFrom(receiver.port, '127.0.0.3');
      socket.write('POST /stop HTTP/1.1\r\nHost: frame\r\nContent-Length: 1000\r\n\r\n');
      tricklers.push(socket);
      sockets.push(socket);
    }
    trickle = setInterval(() => {
      for (const socket of tricklers) if (!socket.destroyed) socket.write('x');
    }, 1000);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await served(receiver.port));
    t.diagnostic(`served in ${times(answers)} ms`);
    // The receiver took the 200 before the normal client (connections are accepted in order): by
    // its first answer it had refused or closed any of them it was going to, and said so.
    const before = await logUntilAnswered(receiver, answers[0].port);
    assert.deepEqual(before.filter((line) => / refused|makes room|127\.0\.0\.[23]:\d+ closing/.test(line)), [], 'none of the 200 refused or closed');
    const open = sockets.filter((socket) => !socket.destroyed && !socket.readableEnded).length;
    assert.equal(open, 200, 'all 200 are held open');
  });
});

describe('admission: a full house of idle connections from the same address', () => {
  let receiver: ReceiverProcess;
  const sockets: net.Socket[] = [];
  before(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'debug', args: ['--no-screen'] });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await receiver.stop();
  });

  test('the connection idle longest makes room: a sender is never locked out by idle sockets', async () => {
    // The default limit per address is 32; 40 idle connections from the sender's own address.
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) {
      sockets.push(await connectFrom(receiver.port, '127.0.0.1'));
      ports.push(sockets[i].localPort!);
    }
    // Each connection that makes room says so in its own debug line (the info line about them is one per 10 s).
    const madeRoom = () => [...receiver.stderr.matchAll(/127\.0\.0\.1:(\d+) closing: idle: makes room for 127\.0\.0\.1:\d+ \(limits\.maxConnectionsPerAddress\)/g)].map((match) => Number(match[1]));
    // The 40th connection made the 8th room: the receiver has taken all 40.
    await until(() => `${madeRoom().length} made room:\n${receiver.stderr}`, () => madeRoom().length >= 8);
    assert.deepEqual(madeRoom(), ports.slice(0, 8), 'the 8 oldest made room for newer ones');
    const closed = () => sockets.filter((socket) => socket.readableEnded || socket.destroyed);
    await until(() => `${closed().length} closed`, () => closed().length >= 8);
    assert.deepEqual(closed(), sockets.slice(0, 8));
    await served(receiver.port);
    assert.equal(madeRoom().length, 9, 'the client made room for itself');
  });
});

/** The eight attacking addresses (any 127.x address is another sender on loopback); the bystander sends from 127.0.0.1. */
const ATTACKERS = Array.from({ length: 8 }, (_, i) => `127.0.0.${11 + i}`);

/**
 * Opens 32 connections from each attacker (the default per-address share; 256 fill the receiver),
 * each sent `opening` in one write, and waits for each one's first answer: the receiver has then
 * read all of that write (loopback delivers it whole), so it knows what each connection is doing.
 */
async function fillFromEightAddresses(port: number, opening: string, sockets: net.Socket[]): Promise<void> {
  for (const address of ATTACKERS) {
    for (let i = 0; i < 32; i++) {
      const socket = await connectFrom(port, address);
      const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.write(opening);
      await answered;
      sockets.push(socket);
    }
  }
}

/** The receiver's lines saying a connection made room for the bystander's (the debug line of the one closed). */
const roomFor = (receiver: ReceiverProcess, port: number): string[] =>
  receiver.stderr.split('\n').filter((line) => line.includes(` closing: `) && line.includes(`makes room for 127.0.0.1:${port} (limits.maxConnections)`));

describe('admission: eight addresses fill the receiver, a ninth is served', () => {
  let receiver: ReceiverProcess | undefined;
  const sockets: net.Socket[] = [];
  let trickle: NodeJS.Timeout | undefined;
  // A receiver per test. Long deadlines keep the house full for the test's length on a loaded
  // machine: what is tested here is who makes room (the deadlines have their own tests below).
  beforeEach(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'debug', args: ['--no-screen', '--limit', 'headerTimeoutMs=600000', '--limit', 'bodyGraceMs=600000'] });
  });
  afterEach(async () => {
    clearInterval(trickle);
    for (const socket of sockets.splice(0)) socket.destroy();
    await receiver?.stop();
  });

  /** Fills the receiver from the eight attackers with `opening`, trickles `byte` on each every second, and has a bystander served. */
  async function bystanderAmong(t: TestContext, opening: string, byte: string): Promise<string> {
    const running = receiver!;
    await fillFromEightAddresses(running.port, opening, sockets);
    trickle = setInterval(() => {
      for (const socket of sockets) if (!socket.destroyed) socket.write(byte);
    }, 1000);
    const answer = await served(running.port);
    t.diagnostic(`bystander served in ${answer.ms.toFixed(1)} ms`);
    await logUntilAnswered(running, answer.port);
    const made = roomFor(running, answer.port);
    assert.equal(made.length, 1, `one attacking connection made room:\n${made.join('\n')}`);
    return made[0];
  }

  test('256 refused-body trickles from 8 addresses: a bystander from a ninth gets 200, not 503', async (t) => {
    // The probe: refused on the head (413: /server-info takes no body), the body trickled.
    const made = await bystanderAmong(t, 'GET /server-info HTTP/1.1\r\nHost: frame\r\nContent-Length: 65536\r\n\r\n', 'x');
    assert.match(made, /^\S+ debug 127\.0\.0\.1[1-8]:\d+ closing: skipping the body of a refused request: makes room/);
  });

  test('256 slowloris heads from 8 addresses: a bystander from a ninth gets 200, not 503', async (t) => {
    // A whole request first: its answer shows the receiver has read the partial head after it.
    const made = await bystanderAmong(t, 'GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\nGET /server-info HTTP/1.1\r\nHost: frame\r\n', 'X');
    assert.match(made, /^\S+ debug 127\.0\.0\.1[1-8]:\d+ closing: a request head still arriving: makes room/);
  });
});

describe('deadlines: a refused body, a peer that never reads', () => {
  let receiver: ReceiverProcess;
  before(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--no-screen', '--limit', 'writeTimeoutMs=2000'] });
  });
  after(async () => {
    await receiver.stop();
  });

  test('a refused body trickled a byte per 100 s is closed by the body-rate deadline', async () => {
    const trickler = await connectFrom(receiver.port, '127.0.0.20');
    trickler.resume(); // reads its 413, and sees the end
    try {
      trickler.write('GET /server-info HTTP/1.1\r\nHost: frame\r\nContent-Length: 65536\r\n\r\n');
      const line = await receiver.waitForLog(new RegExp(`^\\S+ warn  127\\.0\\.0\\.20:${trickler.localPort} closed: the body of a refused request arrived slower than 1024 bytes/s`), 30_000);
      assert.match(line, /\(limits\.minBodyBytesPerSecond; 0 bytes in \d+ ms\)/);
      await until(() => 'the receiver closed the trickle', () => trickler.readableEnded || trickler.destroyed, 10_000);
    } finally {
      trickler.destroy();
    }
  });

  test('a peer that pipelines GET /server-info and never reads: its unsent answers stay bounded and it is closed after writeTimeoutMs', async (t) => {
    const reader = await connectFrom(receiver.port, '127.0.0.21');
    reader.pause(); // never reads (until the end, to count what the kernel held for it)
    const request = 'GET /server-info HTTP/1.1\r\nHost: frame\r\n\r\n';
    const block = Buffer.from(request.repeat(Math.floor((62 * 1024) / request.length)));
    let requests = 0;
    try {
      // 62 KB at a time until TCP holds the writes back on our side: the receiver stopped reading.
      // (62 KB of answers alone fit the kernel's loopback buffers, about 4 MB here, unnoticed.)
      while (reader.writableLength < 1024 * 1024 && requests < 400_000) {
        reader.write(block);
        requests += block.length / request.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const line = await receiver.waitForLog(new RegExp(`^\\S+ warn  127\\.0\\.0\\.21:${reader.localPort} closed: its peer took none of (\\d+) bytes of answers (?:here and the host.s full buffer )?for 2000 ms \\(limits\\.writeTimeoutMs\\)`), 30_000);
      const unsent = Number(/took none of (\d+) bytes/.exec(line)![1]);
      assert.ok(unsent > 0 && unsent <= 64 * 1024 + 4096, `the receiver held ${unsent} bytes of unsent answers (limits.maxUnsentAnswerBytes 65536 and one answer)`);
      // What it had answered, now read from the kernel's buffers: far fewer than it was sent.
      let text = '';
      reader.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      reader.resume();
      await until(() => 'the receiver ended the connection', () => reader.readableEnded || reader.destroyed, 15_000);
      const answered = text.split('HTTP/1.1 200 OK\r\n').length - 1;
      t.diagnostic(`${answered} of ${requests} pipelined requests answered (${text.length} bytes), ${unsent} bytes unsent when closed`);
      assert.ok(answered < requests / 2, `${answered} of ${requests} answered`);
    } finally {
      reader.destroy();
    }
  });
});

describe('fairness: pipelined pairing steps', () => {
  let receiver: ReceiverProcess;
  before(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'debug', args: ['--no-screen'] });
  });
  after(async () => {
    await receiver.stop();
  });

  // Two guards work here: the connection yields its turn after each costly step (Route.costly),
  // and M1s past pairingStepsPerSecondPerConnection get Backoff without an SRP key.
  test('1,000 pipelined pair-setup M1s on one connection do not hold up another client', async (t) => {
    const m1 = pairSetupM1();
    const head = Buffer.from(`POST /pair-setup HTTP/1.1\r\nHost: frame\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: ${m1.length}\r\n\r\n`);
    const one = Buffer.concat([head, Buffer.from(m1)]);
    const flood = await connectFrom(receiver.port, '127.0.0.4');
    const floodAnswer = new RegExp(`^\\S+ debug 127\\.0\\.0\\.4:${flood.localPort} HTTP POST /pair-setup -> 200$`);
    let answered = 0;
    flood.on('data', (chunk: Buffer) => (answered += chunk.toString('latin1').split('HTTP/1.1 200 OK').length - 1));
    try {
      flood.write(Buffer.concat(Array.from({ length: 1000 }, () => one)));
      await until(() => 'no M1 of the flood answered', () => answered > 0, 30_000);
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await served(receiver.port));
      t.diagnostic(`served in ${times(answers)} ms while ${answered} M1s were answered`);
      // The receiver answered the client while the flood still had M1s to answer: it was not
      // queued behind them.
      const before = await logUntilAnswered(receiver, answers[0].port);
      const floodBefore = before.filter((line) => floodAnswer.test(line)).length;
      assert.ok(floodBefore < 1000, `the client was answered after all ${floodBefore} M1s of the flood`);
      t.diagnostic(`the client's first answer came after ${floodBefore} of the flood's 1,000`);
    } finally {
      flood.destroy();
    }
  });
});
