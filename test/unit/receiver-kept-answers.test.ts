// Kept answers (src/receiver/connection/kept-answers.ts): a reusable reply answered from the bytes
// kept for it must be, byte for byte, the answer written afresh: each request's CSeq in its place
// (the same CSeq again, another, none), the Date of its second, its keep-alive.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Decode } from '../../src/bytes';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryConnection, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

function makeReceiver(clock: ManualClock): Receiver {
  return new Receiver(makeConfig({ name: 'Den', deviceId: '58:55:ca:1a:e2:88', profile: 'desktop' }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(5),
    store: new MemoryStore(),
    log: recordingLogger(),
  });
}

/** What a receiver that has answered nothing yet (nothing kept) writes to `request`. */
function fresh(clock: ManualClock, request: string): Uint8Array {
  const connection = new MemoryConnection();
  makeReceiver(clock).accept(connection);
  connection.send(request);
  assert.equal(connection.chunks.length, 1);
  return connection.chunks[0];
}

const options = (cseq: string | undefined) => `OPTIONS * RTSP/1.0\r\n${cseq === undefined ? '' : `CSeq: ${cseq}\r\n`}\r\n`;
const info = (cseq: string | undefined) => `GET /info RTSP/1.0\r\n${cseq === undefined ? '' : `CSeq: ${cseq}\r\n`}\r\n`;

test('RTSP answers from kept bytes are the answers written afresh, whatever the CSeq and the second', () => {
  const clock = new ManualClock();
  const receiver = makeReceiver(clock);
  const connection = new MemoryConnection();
  receiver.accept(connection);
  const asked: [string, Uint8Array][] = [];
  const ask = (request: string) => {
    const before = connection.chunks.length;
    connection.send(request);
    assert.equal(connection.chunks.length, before + 1, 'one write per answer');
    asked.push([request, connection.chunks[before]]);
    return connection.chunks[before];
  };
  for (const request of [options, info]) {
    const first = ask(request('7'));
    // The same CSeq again: the same bytes, not a new array.
    assert.equal(ask(request('7')), first);
    for (const cseq of ['12345', '8', '7', undefined, '0', 'x\u00e9y', '7']) ask(request(cseq));
    // A longer line, then a shorter one: the rest of the answer moves with it.
    ask(request('4294967295'));
    ask(request('1'));
  }
  // A new second: a new Date, kept anew.
  clock.advance(1000);
  ask(options('9'));
  ask(options('9'));
  ask(options('10'));
  assert.equal(connection.closed, false);
  // Each answer is what a receiver with nothing kept writes at that time (the same second).
  const expected = new Map<Uint8Array, Uint8Array>();
  const secondClock = new ManualClock();
  for (const [request, answer] of asked.slice(0, -3)) expected.set(answer, fresh(secondClock, request));
  secondClock.advance(1000);
  for (const [request, answer] of asked.slice(-3)) expected.set(answer, fresh(secondClock, request));
  for (const [request, answer] of asked) {
    assert.equal(latin1Decode(answer), latin1Decode(expected.get(answer)!), request);
  }
});

test('a kept RTSP answer is not given to a request that closes the connection', () => {
  const clock = new ManualClock();
  const connection = new MemoryConnection();
  makeReceiver(clock).accept(connection);
  connection.send(options('7'));
  connection.send(options('7'));
  connection.send('OPTIONS * RTSP/1.0\r\nCSeq: 7\r\nConnection: close\r\n\r\n');
  assert.equal(connection.chunks.length, 3);
  assert.deepEqual(connection.chunks[2], fresh(clock, 'OPTIONS * RTSP/1.0\r\nCSeq: 7\r\nConnection: close\r\n\r\n'));
  assert.equal(connection.closed, true);
});
