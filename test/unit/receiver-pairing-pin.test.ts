// The PIN a person reads off the receiver (src/receiver/pairing/pairing-pin.ts): a fixed PIN shown
// as it is; a random one drawn when first needed, kept until spent or its time is up, and logged.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PairingPin } from '../../src/receiver/pairing/pairing-pin';
import { RECEIVER_TIMERS, TimerTable } from '../../src/receiver/timers';
import { ManualClock, recordingLogger, seededRandom } from '../support/memory-ports';

const TIMEOUT_MS = 30_000;

function pinWith(pin: string) {
  const clock = new ManualClock();
  const timers = new TimerTable(RECEIVER_TIMERS);
  const log = recordingLogger();
  const shown: string[] = [];
  const display = { showPin: (value: string) => shown.push(value), hidePin: () => shown.push('hidden') };
  const pairingPin = new PairingPin({ config: { pin, limits: { pairingTimeoutMs: TIMEOUT_MS } }, clock, timers, log, random: seededRandom(4), display });
  const passTime = (ms: number) => {
    clock.advance(ms);
    timers.handleTimeout(clock.now());
  };
  return { pairingPin, shown, log, passTime };
}

test('a fixed PIN is shown as configured, and not logged by the core (the display says it)', () => {
  const { pairingPin, shown, log } = pinWith('4711');
  assert.equal(pairingPin.random, false);
  pairingPin.start('10.0.0.2:5000');
  assert.deepEqual(shown, ['4711']);
  assert.equal(log.lines.length, 0);
});

test('a random PIN: drawn at the first need, the same until spent, then another; each shown and logged for its sender', () => {
  const { pairingPin, shown, log } = pinWith('random');
  assert.equal(pairingPin.random, true);
  pairingPin.start('10.0.0.2:5000');
  const first = shown[0];
  assert.equal(pairingPin.forAttempt('10.0.0.2:5000'), first, 'the attempt takes the PIN /pair-pin-start showed');
  assert.equal(pairingPin.forAttempt('10.0.0.2:5000'), first, 'a retried M1 too');
  assert.deepEqual(
    log.lines.map((line) => `${line.level} ${line.message}`),
    [`info pairing PIN for 10.0.0.2:5000: ${first}`, `info pairing PIN for 10.0.0.2:5000: ${first}`, `info pairing PIN for 10.0.0.2:5000: ${first}`],
  );
  pairingPin.spent();
  const second = pairingPin.forAttempt('10.0.0.3:5001');
  assert.notEqual(second, first);
  assert.equal(shown[shown.length - 1], second);
});

test('a random PIN leaves the screen and is forgotten when its time is up; an abandoned pair-setup leaves it up, an ended one takes it down', () => {
  const { pairingPin, shown, passTime } = pinWith('random');
  const first = pairingPin.forAttempt('a');
  pairingPin.ended('abandoned');
  assert.equal(shown[shown.length - 1], first, 'still up');
  passTime(TIMEOUT_MS);
  assert.equal(shown[shown.length - 1], 'hidden');
  const next = pairingPin.forAttempt('b');
  assert.notEqual(next, first, 'its time was up: a new one');
  pairingPin.ended('failed');
  assert.equal(shown[shown.length - 1], 'hidden');
});
