// Mirroring's timing packets (spec 4.5, RFC 5905): the exact request and answer formats, and the
// checks the client makes on NTP answers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { NTP_FORMAT, NTP_PACKET_BYTES, TimingClient, ntpRequest, ntpServerReply, readTimestamp } from '../../src/timing';

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

test('answers are checked: mode, stratum, origin; one answer per request', () => {
  const client = new TimingClient(NTP_FORMAT, 0);
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
