// Admission and fairness on real sockets: idle and trickling connections do not lock a
// sender out, and one connection's pipelined pairing steps do not stall the others.
//
// On a loaded machine: what the receiver did, and in which order, is read from its log (one
// ordered stream), not from how long a request took; the times are reported, not asserted.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
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
    assert.deepEqual(before.filter((line) => / refused| closed, idle longest|127\.0\.0\.[23]:\d+ closing/.test(line)), [], 'none of the 200 refused or closed');
    const open = sockets.filter((socket) => !socket.destroyed && !socket.readableEnded).length;
    assert.equal(open, 200, 'all 200 are held open');
  });
});

describe('admission: a full house of idle connections from the same address', () => {
  let receiver: ReceiverProcess;
  const sockets: net.Socket[] = [];
  before(async () => {
    receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--no-screen'] });
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
    const madeRoom = () => [...receiver.stderr.matchAll(/127\.0\.0\.1:(\d+) closed, idle longest: makes room for 127\.0\.0\.1:\d+ \(limits\.maxConnectionsPerAddress\)/g)].map((match) => Number(match[1]));
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
