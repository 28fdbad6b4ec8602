// Mirroring's time synchronisation (spec 4.5, RFC 5905): the exact request and answer formats,
// the offset and delay math, the client's 3-second schedule, the checks on answers, and clock
// recovery converging on a known offset under network jitter.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { ClockRecovery, NTP_PACKET_BYTES, NtpClient, msToNtp, ntpMs, ntpRequest, ntpServerReply, offsetAndDelay, readTimestamp } from '../../src/mirror/ntp';
import { makeRng } from '../support/arbitrary';

test('the request is version 4 client mode (first byte 0x23), all zero but the transmit timestamp', () => {
  const request = ntpRequest(1500.25);
  assert.equal(request.length, NTP_PACKET_BYTES);
  assert.equal(request[0], 0x23);
  assert.ok(request.subarray(1, 40).every((byte) => byte === 0), 'every field before the transmit timestamp is zero');
  // 1.50025 s: seconds 1, fraction 0.50025 x 2^32.
  assert.equal(toHex(request.subarray(40)), '00000001' + Math.round(0.50025 * 2 ** 32).toString(16).padStart(8, '0'));
  assert.ok(Math.abs(readTimestamp(request, 40) - 1500.25) < 1e-6, 'read back to within 2^-32 s');
});

test('the answer is server mode (0x24), stratum 1, a reference id, the request transmit as origin', () => {
  const request = ntpRequest(42);
  const reply = ntpServerReply(request, 1000, 1000.5, 'VPLY');
  assert.equal(reply[0], 0x24);
  assert.equal(reply[1], 1);
  assert.equal(String.fromCharCode(...reply.subarray(12, 16)), 'VPLY');
  assert.equal(toHex(reply.subarray(24, 32)), toHex(request.subarray(40, 48)), 'origin = the request transmit, byte for byte');
  assert.equal(readTimestamp(reply, 32), 1000);
  assert.ok(Math.abs(readTimestamp(reply, 40) - 1000.5) < 1e-6);
});

test('offset and delay follow RFC 5905 8', () => {
  // The server's clock is 100 ms ahead; 10 ms each way; the server holds it 1 ms.
  assert.deepEqual(offsetAndDelay(0, 110, 111, 21), { offset: 100, delay: 20 });
  // Asymmetric: 30 ms out, 10 ms back: the offset is off by half the difference.
  assert.deepEqual(offsetAndDelay(0, 130, 130, 40), { offset: 110, delay: 40 });
});

test('header timestamps are seconds and 2^-32 fractions: ms both ways', () => {
  assert.equal(ntpMs(3, 2 ** 31), 3500);
  assert.deepEqual(msToNtp(3500), { seconds: 3, fraction: 2 ** 31 });
  assert.deepEqual(msToNtp(1999.99999999999), { seconds: 2, fraction: 0 }, 'a fraction that rounds up carries into the seconds');
});

test('the client asks at once and then every 3000 ms, without drifting when a timer fires late', () => {
  const client = new NtpClient(10_000);
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

test('answers are checked: mode, stratum, origin; one answer per request', () => {
  const client = new NtpClient(0);
  client.handleTimeout(0);
  const request = client.pollTransmit()!;
  assert.match(client.receive(new Uint8Array(20), 5) as string, /not an NTP packet/);
  assert.match(client.receive(ntpRequest(1), 5) as string, /mode 3, not a server answer/);
  const kiss = ntpServerReply(request, 100, 100);
  kiss[1] = 0;
  assert.match(client.receive(kiss, 5) as string, /kiss-o-death/);
  assert.match(client.receive(ntpServerReply(ntpRequest(999), 100, 100), 5) as string, /another request/);
  const sample = client.receive(ntpServerReply(request, 102, 103), 6);
  if (typeof sample === 'string') assert.fail(sample);
  // T1 0, T2 102, T3 103, T4 6 (timestamps carry 2^-32 s of rounding).
  assert.ok(Math.abs(sample.offset - 99.5) < 1e-6 && Math.abs(sample.delay - 5) < 1e-6, JSON.stringify(sample));
  assert.equal(sample.at, 6);
  assert.match(client.receive(ntpServerReply(request, 102, 103), 7) as string, /no request outstanding/);
});

test('with the sender clock offset by a known amount and jittery paths, the recovered offset is within 5 ms', () => {
  const OFFSET = 123_456.789;
  const rng = makeRng(7);
  const client = new NtpClient(0);
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
  const client = new NtpClient(0);
  const recovery = new ClockRecovery(client.filter);
  assert.equal(recovery.toLocal(9000, 100), 100, 'the first frame is due now');
  assert.equal(recovery.toLocal(9040, 140), 140, 'the next 40 ms later');
  client.handleTimeout(200);
  const request = client.pollTransmit()!;
  client.receive(ntpServerReply(request, 10_000, 10_000), 200);
  assert.equal(recovery.toLocal(10_040, 240), 240);
  assert.equal(recovery.synchronised, true);
});
