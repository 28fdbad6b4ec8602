// The receiver's timer table (src/receiver/timers.ts): named deadlines, the earliest polled,
// what is due run in a fixed order; the driver that gives them one host timer; and the Receiver
// as a sans-I/O deadline source (a request's handler sets a deadline, the receiver is polled for
// it). Portable: runs on Node and inside XS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Decode, latin1Encode } from '../../src/bytes';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { RECEIVER_TIMERS, TimerDriver, TimerTable } from '../../src/receiver/timers';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const NAMES = ['first', 'second', 'third'] as const;

function table() {
  const ran: string[] = [];
  const timers = new TimerTable(NAMES);
  const note = (what: string) => () => ran.push(what);
  return { timers, ran, note };
}

test('pollTimeout is the earliest deadline armed; undefined with none', () => {
  const { timers, note } = table();
  assert.equal(timers.pollTimeout(), undefined);
  timers.set('second', 500, note('second'));
  timers.set('third', 200, note('third'));
  assert.equal(timers.pollTimeout(), 200);
  assert.equal(timers.cancel('third'), true);
  assert.equal(timers.cancel('third'), false, 'no longer armed');
  assert.equal(timers.pollTimeout(), 500);
});

test('set replaces what a name was armed for; deadline tells when it is due', () => {
  const { timers, ran, note } = table();
  timers.set('first', 100, note('old'));
  timers.set('first', 300, note('new'));
  assert.equal(timers.deadline('first'), 300);
  timers.handleTimeout(299);
  assert.deepEqual(ran, []);
  timers.handleTimeout(300);
  assert.deepEqual(ran, ['new']);
  assert.equal(timers.deadline('first'), undefined, 'a deadline runs once');
});

test('what is due runs earliest first, and equal deadlines in the table order, not the order they were set', () => {
  const { timers, ran, note } = table();
  timers.set('third', 100, note('third'));
  timers.set('second', 100, note('second'));
  timers.set('first', 150, note('first'));
  timers.handleTimeout(200);
  assert.deepEqual(ran, ['second', 'third', 'first']);
});

test('an action may cancel a deadline due at the same time: it does not run', () => {
  const { timers, ran } = table();
  timers.set('first', 100, () => {
    ran.push('first');
    timers.cancel('second');
  });
  timers.set('second', 100, () => ran.push('second'));
  timers.handleTimeout(100);
  assert.deepEqual(ran, ['first']);
});

test('a deadline an action sets runs at the next call even when already due: one that re-arms itself cannot hold a call', () => {
  const { timers } = table();
  let runs = 0;
  const again = () => {
    runs++;
    timers.set('first', 100, again);
  };
  timers.set('first', 100, again);
  timers.handleTimeout(100);
  assert.equal(runs, 1);
  assert.equal(timers.pollTimeout(), 100, 'armed again, for the next call');
  timers.handleTimeout(100);
  assert.equal(runs, 2);
});

test('setting a deadline wakes the driver; cancelling does not need to', () => {
  const { timers, note } = table();
  let wakes = 0;
  timers.onWake = () => wakes++;
  timers.set('first', 100, note('first'));
  timers.cancel('first');
  assert.equal(wakes, 1);
});

test('a name the table does not have is refused', () => {
  const timers = new TimerTable<string>(NAMES);
  assert.throws(() => timers.set('fourth', 1, () => {}), RangeError);
});

test('the receiver names each of its deadlines once', () => {
  assert.equal(new Set(RECEIVER_TIMERS).size, RECEIVER_TIMERS.length);
});

test('the driver keeps one host timer for the earliest deadline and runs what is due when it fires', () => {
  const clock = new ManualClock();
  const { timers, ran, note } = table();
  new TimerDriver(timers, clock);
  assert.equal(clock.pendingTimers, 0, 'nothing armed, no host timer');
  timers.set('first', 1000, note('first'));
  timers.set('second', 400, note('second'));
  assert.equal(clock.pendingTimers, 1, 'the earlier deadline replaced the host timer');
  clock.advance(400);
  assert.deepEqual(ran, ['second']);
  clock.advance(599);
  assert.deepEqual(ran, ['second']);
  clock.advance(1);
  assert.deepEqual(ran, ['second', 'first']);
  assert.equal(clock.pendingTimers, 0);
});

test('the driver arms the next deadline even when an action throws', () => {
  const clock = new ManualClock();
  const { timers, ran, note } = table();
  new TimerDriver(timers, clock);
  timers.set('first', 100, () => {
    throw new Error('planted failure');
  });
  timers.set('second', 200, note('second'));
  assert.throws(() => clock.advance(100), /planted failure/);
  clock.advance(100);
  assert.deepEqual(ran, ['second']);
});

test('a request handler sets a receiver deadline: the receiver is woken, polled for it, and runs it on handleTimeout (POST /pair-pin-start)', () => {
  const clock = new ManualClock();
  const display = new RecordingDisplay(clock);
  const receiver = new Receiver(makeConfig({ name: 'Frame', limits: { pairingTimeoutMs: 30_000 } }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(7),
    store: new MemoryStore(),
    log: recordingLogger(),
    display,
  });
  let wakes = 0;
  receiver.onWake = () => wakes++;
  assert.equal(receiver.pollTimeout(), undefined);
  clock.advance(1000);
  const connection = receiver.open({ remoteAddress: '192.0.2.20', remotePort: 50000, localAddress: '192.0.2.1', localPort: 7000 }, 1000)!;
  connection.receive(latin1Encode('POST /pair-pin-start HTTP/1.1\r\nContent-Length: 0\r\n\r\n'), 1000);
  assert.match(latin1Decode(connection.pollTransmit()!), /^HTTP\/1\.1 200 OK\r\n/);
  assert.equal(wakes, 1, 'the handler set a deadline: woken');
  assert.equal(receiver.pollTimeout(), 31_000, 'limits.pairingTimeoutMs after the request');
  assert.deepEqual(display.kinds, ['pin']);
  receiver.handleTimeout(30_999);
  assert.deepEqual(display.kinds, ['pin']);
  receiver.handleTimeout(31_000);
  assert.deepEqual(display.kinds, ['pin', 'hidePin']);
  assert.equal(receiver.pollTimeout(), undefined);
});
