// Who pays for wrong setup codes, through a Receiver on in-memory ports: a guesser's failures are
// counted against its address and its identity, in a window that decays, never against other
// senders; a public code (3939 for transient pairing on an open receiver) is not counted at all;
// a random PIN (the default where a PIN is required) is drawn per attempt, shown, spent by every
// proof, and never locked out. SRP with the 3072-bit group is slow on XS: a wrong proof here is
// sent without the client's SRP (a valid A, a wrong proof), and the limits keep the keys few.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRIES_KEY } from '../../src/pairing/pair-setup';
import { SRP_GROUP_3072 } from '../../src/pairing/srp';
import { encodeTlv8 } from '../../src/pairing/tlv8';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { bigIntToBytes } from '../../src/pairing/_util';
import { makeConfig, type ReceiverConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { pairSetupM1, replyItems, srpClientStep, state } from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const DEVICE_ID = '58:55:CA:1A:E2:88';
const DECAY_MS = 60_000;
const clientRandom = seededRandom(31);

function setup(overrides: Partial<Omit<ReceiverConfig, 'limits'>> = {}, limits: Partial<ReceiverLimits> = {}) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const store = new MemoryStore();
  const display = new RecordingDisplay(clock);
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: DEVICE_ID, ...overrides, limits: { pairingFailuresBeforeBackoff: 2, pairingFailureDecayMs: DECAY_MS, ...limits } }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(8),
    store,
    log,
    display,
  });
  new TimerDriver(receiver, clock);
  return { receiver, clock, log, store, display };
}

/** The reply's Error item, or undefined; checks it is a 200 with State `expected`. */
function errorIn(response: { head: { status: number }; body: Uint8Array }, expected: number): number | undefined {
  assert.equal(response.head.status, 200);
  const items = replyItems(response.body);
  assert.deepEqual(items.get(TLV.State), new Uint8Array([expected]));
  return items.get(TLV.Error)?.[0];
}

/** An M3 with a valid public key and a proof no PIN makes: the receiver's SRP runs and fails. */
const WRONG_M3 = encodeTlv8([state(3), [TLV.PublicKey, bigIntToBytes(2n, SRP_GROUP_3072.length)], [TLV.Proof, new Uint8Array(64).fill(7)]]);

/** One wrong guess: M1, then a wrong proof (Authentication). */
function guess(sender: MemorySender, options: { transient?: boolean; headers?: [string, string][] } = {}): void {
  const m1 = sender.request('POST', '/pair-setup', { body: pairSetupM1({ transient: options.transient }), contentType: 'application/pairing+tlv8', headers: options.headers });
  assert.equal(errorIn(m1, 2), undefined, 'the guess gets its M2');
  assert.equal(errorIn(sender.pairing('/pair-setup', WRONG_M3), 4), TLV_ERROR.Authentication);
}

test('a guesser\'s wrong PINs make its own address wait, not another sender\'s, and the wait decays', () => {
  const { receiver, clock } = setup({ pin: '1234' });
  const guesser = new MemorySender(receiver, 40001, '10.0.0.66');
  guess(guesser);
  guess(guesser);
  const refused = replyItems(guesser.pairing('/pair-setup', pairSetupM1()).body);
  assert.equal(refused.get(TLV.Error)?.[0], TLV_ERROR.Backoff, 'the guesser waits');
  assert.deepEqual(refused.get(TLV.RetryDelay), Uint8Array.of(1));
  // Another sender, on another address, is not slowed: it pairs with the PIN at once.
  const sender = new MemorySender(receiver, 40002, '10.0.0.2');
  const m2 = sender.pairing('/pair-setup', pairSetupM1());
  assert.equal(errorIn(m2, 2), undefined);
  assert.equal(errorIn(sender.pairing('/pair-setup', srpClientStep(m2.body, '1234', clientRandom).m3), 4), undefined);
  // The guesser's count leaks away: past its wait and a decay interval it may try again.
  clock.advance(DECAY_MS);
  assert.equal(errorIn(guesser.pairing('/pair-setup', pairSetupM1()), 2), undefined);
});

test('a sender identity (DACP-ID) that guesses waits on any address it moves to', () => {
  const { receiver } = setup({ pin: '1234' });
  const identity: [string, string][] = [['DACP-ID', '14E25ABCDEF01234']];
  guess(new MemorySender(receiver, 40001, '10.0.0.66'), { headers: identity });
  guess(new MemorySender(receiver, 40002, '10.0.0.67'), { headers: identity });
  const moved = new MemorySender(receiver, 40003, '10.0.0.68');
  const m1 = moved.request('POST', '/pair-setup', { body: pairSetupM1(), contentType: 'application/pairing+tlv8', headers: identity });
  assert.equal(errorIn(m1, 2), TLV_ERROR.Backoff);
  assert.equal(errorIn(new MemorySender(receiver, 40004, '10.0.0.68').pairing('/pair-setup', pairSetupM1()), 2), undefined, 'another sender on that address does not wait');
});

test('on an open receiver a wrong proof of transient pairing (the public 3939) is not counted: nobody waits, nothing is stored', () => {
  const { receiver, store } = setup({}, { pairingFailuresBeforeBackoff: 1, pairingMaxFailures: 1 });
  const sender = new MemorySender(receiver, 40001, '10.0.0.66');
  for (let i = 0; i < 3; i++) guess(sender, { transient: true });
  assert.equal(receiver.pairing.setup.failedAttempts, 0);
  assert.equal(store.get(TRIES_KEY), undefined);
  // Neither transient nor normal pairing waits or is locked out.
  const m2 = sender.pairing('/pair-setup', pairSetupM1({ transient: true }));
  assert.equal(errorIn(sender.pairing('/pair-setup', srpClientStep(m2.body, '3939', clientRandom).m3), 4), undefined);
  assert.equal(errorIn(new MemorySender(receiver, 40002, '10.0.0.66').pairing('/pair-setup', pairSetupM1()), 2), undefined);
});

test('with a PIN required and none given, each attempt gets a random PIN, shown and logged; a wrong proof spends it; it is never locked out', () => {
  const { receiver, log, display, store, clock } = setup({ pinRequired: true }, { pairingMaxFailures: 1 });
  assert.equal(receiver.config.pin, 'random');
  const shown = () => display.calls.flatMap((call) => (call.kind === 'pin' ? [call.pin] : []));
  // A sender asks for the PIN, then starts: its attempt takes the PIN it was shown.
  const sender = new MemorySender(receiver, 40001, '10.0.0.2');
  assert.equal(sender.request('POST', '/pair-pin-start').head.status, 200);
  const first = shown()[0];
  assert.match(first, /^\d{4}$/);
  assert.ok(log.lines.some((line) => line.level === 'info' && line.message === `pairing PIN for 10.0.0.2:40001: ${first}`), 'the PIN is in the log');
  assert.notEqual(first, '3939');
  // A guesser's attempt (its M1 on another connection) waits behind; the first sender's wrong
  // proof spends the PIN.
  guess(sender);
  const guesser = new MemorySender(receiver, 40002, '10.0.0.66');
  guess(guesser);
  const pins = shown();
  assert.notEqual(pins[pins.length - 1], first, 'the next attempt got another PIN');
  // Past pairingMaxFailures wrong proofs: no lock-out, nothing stored (a random PIN cannot be guessed in time).
  assert.equal(store.get(TRIES_KEY), undefined);
  clock.advance(1);
  const m2 = sender.pairing('/pair-setup', pairSetupM1());
  assert.equal(errorIn(m2, 2), undefined);
  const pin = shown()[shown().length - 1];
  assert.equal(errorIn(sender.pairing('/pair-setup', srpClientStep(m2.body, pin, clientRandom).m3), 4), undefined, 'pairs with the PIN shown');
});
