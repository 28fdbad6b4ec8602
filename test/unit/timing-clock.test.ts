// Clock synchronisation, whatever the packet format: offset and delay (RFC 5905 8), the client's
// 3-second schedule, clock recovery converging on a known offset under network jitter, and the
// drift estimate of a sender whose clock runs fast.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClockRecovery, NTP_FORMAT, TimingClient, ntpServerReply, offsetAndDelay } from '../../src/timing';
import { makeRng } from '../support/arbitrary';

test('offset and delay follow RFC 5905 8', () => {
  // The server's clock is 100 ms ahead; 10 ms each way; the server holds it 1 ms.
  assert.deepEqual(offsetAndDelay(0, 110, 111, 21), { offset: 100, delay: 20 });
  // Asymmetric: 30 ms out, 10 ms back: the offset is off by half the difference.
  assert.deepEqual(offsetAndDelay(0, 130, 130, 40), { offset: 110, delay: 40 });
});

test('the client asks at once and then every 3000 ms, without drifting when a timer fires late', () => {
  const client = new TimingClient(NTP_FORMAT, 10_000);
  assert.equal(client.pollTimeout(), 10_000);
  client.handleTimeout(10_000);
  const first = client.pollTransmit();
  assert.ok(first);
  assert.equal(client.pollTransmit(), undefined);
  assert.equal(client.pollTimeout(), 13_000);
  client.handleTimeout(12_999);
  assert.equal(client.pollTransmit(), undefined, 'not yet');
  client.handleTimeout(13_040);
  assert.ok(client.pollTransmit());
  assert.equal(client.pollTimeout(), 16_000, 'the schedule keeps its 3 s steps');
  assert.equal(client.requestsSent, 2);
});

test('with the sender clock offset by a known amount and jittery paths, the recovered offset is within 5 ms', () => {
  const OFFSET = 123_456.789;
  const rng = makeRng(7);
  const client = new TimingClient(NTP_FORMAT, 0);
  const recovery = new ClockRecovery(client.filter);
  let now = 0;
  const errors: number[] = [];
  for (let exchange = 0; exchange < 20; exchange++) {
    client.handleTimeout(now);
    const request = client.pollTransmit()!;
    // Each way: 1 ms plus up to 40 ms of queueing, independently (asymmetric).
    const out = 1 + rng.next() * 40;
    const back = 1 + rng.next() * 40;
    const serverReceive = now + out + OFFSET;
    const reply = ntpServerReply(request, serverReceive, serverReceive + 0.2);
    const sample = client.receive(reply, now + out + 0.2 + back);
    assert.equal(typeof sample, 'object');
    errors.push(Math.abs(recovery.offset! - OFFSET));
    now = client.pollTimeout();
  }
  const last = errors[errors.length - 1];
  assert.ok(last < 5, `recovered offset off by ${last.toFixed(3)} ms`);
  // Mapping: a frame stamped at sender time S shows at local S - offset.
  assert.ok(Math.abs(recovery.toLocal(OFFSET + 50_000, now) - 50_000) < 5);
});

test('before any NTP answer, the first timestamp is taken as now; the NTP offset replaces the guess', () => {
  const client = new TimingClient(NTP_FORMAT, 0);
  const recovery = new ClockRecovery(client.filter);
  assert.equal(recovery.toLocal(9000, 100), 100, 'the first frame is due now');
  assert.equal(recovery.toLocal(9040, 140), 140, 'the next 40 ms later');
  client.handleTimeout(200);
  const request = client.pollTransmit()!;
  client.receive(ntpServerReply(request, 10_000, 10_000), 200);
  assert.equal(recovery.toLocal(10_040, 240), 240);
  assert.equal(recovery.synchronised, true);
});

/** One exchange with a sender whose clock reads `senderClock(t)` at our time t, delays each way given. */
function exchange(client: TimingClient, now: number, senderClock: (t: number) => number, out: number, back: number): void {
  client.handleTimeout(now);
  const request = client.pollTransmit()!;
  const serverReceive = senderClock(now + out);
  const serverTransmit = senderClock(now + out + 0.1);
  const sample = client.receive(ntpServerReply(request, serverReceive, serverTransmit), now + out + 0.1 + back);
  if (typeof sample === 'string') assert.fail(sample);
}

test('a sender clock 40 ppm fast: the drift is estimated and the offset predicted within 1 ms, two minutes on', () => {
  const DRIFT = 40e-6;
  const senderClock = (t: number) => 5_000_000 + t * (1 + DRIFT);
  const rng = makeRng(11);
  const client = new TimingClient(NTP_FORMAT, 0);
  const recovery = new ClockRecovery(client.filter);
  let now = 0;
  for (let i = 0; i < 40; i++) {
    // 0.5 ms each way plus queueing: most exchanges a few ms, some up to 30 ms, asymmetric.
    exchange(client, now, senderClock, 0.5 + rng.next() ** 3 * 30, 0.5 + rng.next() ** 3 * 30);
    now = client.pollTimeout();
  }
  const drift = client.filter.drift;
  assert.ok(drift !== undefined && Math.abs(drift - DRIFT) < 10e-6, `drift ${drift === undefined ? 'not estimated' : (drift * 1e6).toFixed(1) + ' ppm'}`);
  // Two minutes after the last exchange, a timestamp maps to the local time it was stamped at.
  const later = now + 120_000;
  const error = recovery.toLocal(senderClock(later), later) - later;
  assert.ok(Math.abs(error) < 1, `off by ${error.toFixed(3)} ms`);
  // Without the drift, the best sample alone would be off by 40 ppm of those 2 minutes (4.8 ms) and more.
  const bestOnly = senderClock(later) - client.filter.best()!.offset - later;
  assert.ok(Math.abs(bestOnly) > 4, `best sample alone off by ${bestOnly.toFixed(3)} ms`);
});

test('no drift is claimed from a short span or from samples that scatter beyond any real clock', () => {
  const client = new TimingClient(NTP_FORMAT, 0);
  let now = 0;
  for (let i = 0; i < 5; i++) {
    exchange(client, now, (t) => t + 1000, 1, 1);
    now = client.pollTimeout();
  }
  assert.equal(client.filter.drift, undefined, '12 s of samples is too short a span');
  const wild = new TimingClient(NTP_FORMAT, 0);
  now = 0;
  for (let i = 0; i < 12; i++) {
    // Offsets jumping by 50 ms between exchanges: 16,000 ppm, no clock drifts like that.
    exchange(wild, now, (t) => t + 1000 + (i % 2) * 50, 1, 1);
    now = wild.pollTimeout();
  }
  assert.equal(wild.filter.drift, undefined);
  assert.ok(wild.filter.offsetAt(now) !== undefined, 'the best sample still gives an offset');
});
