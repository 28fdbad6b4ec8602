// How often costly pairing steps may run (src/pairing/step-limiter.ts): a token bucket per
// connection and per address, refusals with a retry delay, one log line per interval.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionState } from '../../src/connection-state';
import { PairingStepLimiter } from '../../src/pairing/step-limiter';
import { makeRng } from '../support/arbitrary';
import { ManualClock, recordingLogger } from '../support/memory-ports';

function limiter(perAddress: number, perConnection: number, perSecond = 1_000_000) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const limits = { pairingStepsPerSecond: perSecond, pairingStepsPerSecondPerAddress: perAddress, pairingStepsPerSecondPerConnection: perConnection };
  return { clock, log, limiter: new PairingStepLimiter(limits, clock, log) };
}

test('a connection gets its second\'s worth of steps, then is told to wait', () => {
  const { limiter: steps } = limiter(10, 2);
  const connection = new ConnectionState();
  assert.deepEqual(steps.admit('10.0.0.1', connection, 'pair-setup M1'), { ok: true });
  assert.deepEqual(steps.admit('10.0.0.1', connection, 'pair-setup M1'), { ok: true });
  assert.deepEqual(steps.admit('10.0.0.1', connection, 'pair-setup M1'), {
    ok: false,
    retryDelaySeconds: 1,
    reason: 'pair-setup M1: more than limits.pairingStepsPerSecondPerConnection (2)',
  });
});

test('the connections of one address share its bucket; another address has its own', () => {
  const { limiter: steps } = limiter(3, 2);
  const first = new ConnectionState();
  const second = new ConnectionState();
  assert.equal(steps.admit('10.0.0.1', first, 'M1').ok, true);
  assert.equal(steps.admit('10.0.0.1', first, 'M1').ok, true);
  assert.equal(steps.admit('10.0.0.1', second, 'M1').ok, true);
  const refused = steps.admit('10.0.0.1', second, 'pair-verify M1');
  assert.equal(refused.ok, false);
  assert.match(!refused.ok ? refused.reason : '', /^pair-verify M1: more than limits\.pairingStepsPerSecondPerAddress \(3\)$/);
  assert.equal(steps.admit('10.0.0.2', new ConnectionState(), 'M1').ok, true);
});

test('a refused step takes no token: the buckets refill at their rate', () => {
  const { clock, limiter: steps } = limiter(100, 2);
  const connection = new ConnectionState();
  steps.admit('a', connection, 'M1');
  steps.admit('a', connection, 'M1');
  for (let i = 0; i < 5; i++) assert.equal(steps.admit('a', connection, 'M1').ok, false);
  clock.advance(499);
  assert.equal(steps.admit('a', connection, 'M1').ok, false);
  clock.advance(1);
  assert.equal(steps.admit('a', connection, 'M1').ok, true, 'half a second refills one of two a second');
  assert.equal(steps.admit('a', connection, 'M1').ok, false);
});

test('the retry delay is the longer wait, in whole seconds, at least one', () => {
  const { clock, limiter: steps } = limiter(1, 1);
  const connection = new ConnectionState();
  steps.admit('a', connection, 'M1');
  clock.advance(900);
  const refused = steps.admit('a', connection, 'M1');
  assert.deepEqual(refused.ok ? undefined : refused.retryDelaySeconds, 1);
  assert.equal(steps.admit('a', new ConnectionState(), 'M1').ok, false, 'the address still waits on a new connection');
});

test('refusals are logged once at once, then once per ten seconds with their count', () => {
  const { clock, log, limiter: steps } = limiter(1, 1);
  const connection = new ConnectionState();
  steps.admit('10.0.0.9', connection, 'M1');
  steps.admit('10.0.0.9', connection, 'M1');
  assert.equal(log.lines.length, 1);
  assert.equal(log.lines[0].level, 'warn');
  assert.match(log.lines[0].message, /^a costly pairing step from 10\.0\.0\.9 refused \(Backoff\): M1: more than limits/);
  clock.advance(100);
  steps.admit('10.0.0.9', connection, 'M1');
  steps.admit('10.0.0.9', connection, 'M1');
  assert.equal(log.lines.length, 1);
  clock.advance(9_900);
  // 10 s after the first line: the tokens are back, so this step passes and nothing is logged.
  assert.equal(steps.admit('10.0.0.9', connection, 'M1').ok, true);
  steps.admit('10.0.0.9', connection, 'M1');
  assert.equal(log.lines.length, 2);
  assert.match(log.lines[1].message, /^3 costly pairing steps refused in the last 10 s, the last from 10\.0\.0\.9 \(Backoff\)/);
});

test('past 1024 remembered addresses, the one that asked longest ago is forgotten to make room (its bucket starts full)', () => {
  const { limiter: steps } = limiter(1, 1);
  assert.equal(steps.admit('addr-0', new ConnectionState(), 'M1').ok, true);
  for (let i = 1; i < 1024; i++) steps.admit(`addr-${i}`, new ConnectionState(), 'M1');
  assert.equal(steps.admit('addr-0', new ConnectionState(), 'M1').ok, false, 'remembered: its bucket is empty, and it asked last');
  steps.admit('addr-1024', new ConnectionState(), 'M1');
  assert.equal(steps.admit('addr-0', new ConnectionState(), 'M1').ok, false, 'still remembered');
  assert.equal(steps.admit('addr-1', new ConnectionState(), 'M1').ok, true, 'addr-1 asked longest ago: forgotten, then a fresh bucket');
});

test('a flood from 64 addresses gets no more than the receiver\'s budget, and a bystander on a 65th is served at every ask', () => {
  const BUDGET = 32;
  const { clock, limiter: steps } = limiter(16, 8, BUDGET);
  const rng = makeRng(64);
  const flooders = Array.from({ length: 64 }, (_, i) => ({ address: `10.0.1.${i}`, connections: Array.from({ length: 4 }, () => new ConnectionState()) }));
  const TICK_MS = 5;
  let tick = 0;
  /**
   * Each flooding address asks again as soon as it is answered, with a round trip's jitter: about
   * every other tick, in an order that changes, on its connections in turn.
   */
  const flood = () => {
    for (let i = flooders.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [flooders[i], flooders[j]] = [flooders[j], flooders[i]];
    }
    for (const flooder of flooders) if (rng.next() < 0.5) steps.admit(flooder.address, flooder.connections[tick % 4], 'pair-verify M1');
    tick++;
    clock.advance(TICK_MS);
  };
  for (let t = 0; t < 3000; t += TICK_MS) flood();
  const servedBefore = steps.served;
  assert.ok(servedBefore <= BUDGET + (3000 / 1000) * BUDGET, `the flood got ${servedBefore} steps in 3 s: more than the budget`);

  // The bystander asks once every 2.5 s (a sender pair-verifies once per connection), at the
  // flood's every phase: a step the flood never gets to is always there for it.
  const bystander = new ConnectionState();
  const answers: string[] = [];
  for (let ask = 0; ask < 6; ask++) {
    const answer = steps.admit('192.0.2.7', bystander, 'pair-verify M1');
    answers.push(answer.ok ? 'served' : answer.reason);
    for (let waited = 0; waited < 2500 + ask * 7; waited += TICK_MS) flood();
  }
  const seconds = (tick * TICK_MS) / 1000;
  const figures = `bystander: ${answers.join('; ')}; ${steps.served} steps served and ${steps.refused} refused in ${seconds} s`;
  assert.deepEqual(answers, Array(6).fill('served'), figures);
  assert.ok(steps.served <= BUDGET + seconds * BUDGET, figures);
  // Not starved: a flooder refused by the receiver's bucket loses its turn, so a flood that asks
  // in step wastes some of the budget; most of it is still served.
  assert.ok(steps.served >= (seconds - 1) * BUDGET * 0.6, `the budget is used, not starved: ${figures}`);
});
