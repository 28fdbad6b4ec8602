// The timing packets of audio sessions: 32 bytes, 0x80 then 0xD2 (request) or 0xD3 (answer),
// sequence 7, origin / receive / transmit NTP timestamps; the client's checks on answers, and a
// sender's clock recovered through them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { ClockRecovery, RAOP_TIMING_BYTES, RAOP_TIMING_FORMAT, TimingClient, isRaopTimingRequest, raopTimingReply, raopTimingRequest, readTimestamp } from '../../src/timing';

test('a request is 0x80 0xD2, sequence 7, zero origin and receive, the transmit timestamp last', () => {
  const request = raopTimingRequest(2_500.5);
  assert.equal(request.length, RAOP_TIMING_BYTES);
  assert.equal(toHex(request.subarray(0, 8)), '80d2000700000000');
  assert.ok(request.subarray(8, 24).every((byte) => byte === 0));
  assert.ok(Math.abs(readTimestamp(request, 24) - 2_500.5) < 1e-6);
  assert.equal(isRaopTimingRequest(request), true);
});

test('an answer is 0x80 0xD3 with the request transmit as origin, byte for byte', () => {
  const request = raopTimingRequest(77.123);
  const reply = raopTimingReply(request, 1_000, 1_000.25);
  assert.equal(toHex(reply.subarray(0, 8)), '80d3000700000000');
  assert.equal(toHex(reply.subarray(8, 16)), toHex(request.subarray(24, 32)));
  assert.equal(readTimestamp(reply, 16), 1_000);
  assert.ok(Math.abs(readTimestamp(reply, 24) - 1_000.25) < 1e-6);
  assert.equal(isRaopTimingRequest(reply), false);
});

test('the client refuses what is not an answer to its outstanding request', () => {
  const client = new TimingClient(RAOP_TIMING_FORMAT, 0);
  client.handleTimeout(0);
  const request = client.pollTransmit()!;
  assert.equal(request[1], 0xd2);
  assert.match(client.receive(new Uint8Array(48), 1) as string, /48-byte datagram, not a timing packet/);
  assert.match(client.receive(raopTimingRequest(5), 1) as string, /type 0x52, not an answer/);
  assert.match(client.receive(raopTimingReply(raopTimingRequest(999), 10, 10), 1) as string, /another request/);
  const sample = client.receive(raopTimingReply(request, 110, 111), 4);
  if (typeof sample === 'string') assert.fail(sample);
  assert.ok(Math.abs(sample.offset - 108.5) < 1e-6 && Math.abs(sample.delay - 3) < 1e-6, JSON.stringify(sample));
  assert.match(client.receive(raopTimingReply(request, 110, 111), 5) as string, /RAOP timing answer with no request outstanding/);
});

test('a sender clock 12.345 s ahead is recovered within 1 ms through RAOP timing', () => {
  const client = new TimingClient(RAOP_TIMING_FORMAT, 1_000);
  const recovery = new ClockRecovery(client.filter);
  let now = 1_000;
  for (let i = 0; i < 6; i++) {
    client.handleTimeout(now);
    const request = client.pollTransmit()!;
    // 2 ms out, 1 + i ms back: the asymmetry is half the difference, the least-delay sample wins.
    const reply = raopTimingReply(request, now + 2 + 12_345, now + 2.05 + 12_345);
    client.receive(reply, now + 2.05 + 1 + i);
    now = client.pollTimeout();
  }
  assert.ok(Math.abs(recovery.toLocal(now + 12_345, now) - now) < 1);
});
