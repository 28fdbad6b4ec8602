// A session's event channel on its own: plain and encrypted (keys derived here with
// @noble/hashes, not the receiver's HKDF), what the sender writes unasked dropped and counted, a
// frame that does not open closing it, and one close however it ends.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { utf8Encode } from '../../src/bytes';
import { ControlChannel, createEventChannel } from '../../src/pairing/channel';
import { EventChannel } from '../../src/receiver/session/event-channel';
import { recordingLogger } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);

function channel(encrypted: boolean, maxInputBytes = 1000) {
  const log = recordingLogger();
  const closed: string[] = [];
  const events = new EventChannel('192.0.2.20:40001', encrypted ? createEventChannel(KEY, portableCryptoKernels) : undefined, { log, maxInputBytes, onClosed: (_, reason) => closed.push(reason) });
  return { events, log, closed };
}

test('a plain channel drops what the sender writes, counts it, and closes past the limit', () => {
  const { events, closed, log } = channel(false);
  events.receive(new Uint8Array(600), 0);
  assert.equal(events.bytesIgnored, 600);
  assert.equal(events.pollEvent(), undefined);
  events.receive(new Uint8Array(401), 0);
  assert.deepEqual(events.pollEvent(), { type: 'close', reason: 'the sender wrote 1001 bytes on it unasked (limits.maxEventChannelInputBytes 1000)' });
  assert.equal(closed.length, 1);
  assert.equal(events.wantsRead, false);
  events.transportClosed(undefined, 0);
  assert.equal(closed.length, 1, 'told once');
  assert.ok(log.lines.some((line) => line.level === 'warn' && line.message.includes('event channel closed')));
});

test('an encrypted channel opens frames the sender sealed with Events-Read (derived independently), as pyatv does', () => {
  const { events } = channel(true);
  const senderWrites = hkdf(sha512, KEY, utf8Encode('Events-Salt'), utf8Encode('Events-Read-Encryption-Key'), 32);
  const senderReads = hkdf(sha512, KEY, utf8Encode('Events-Salt'), utf8Encode('Events-Write-Encryption-Key'), 32);
  const sender = new ControlChannel(senderReads, senderWrites);
  const sealed = sender.seal(utf8Encode('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n'));
  // In two pieces, as TCP may deliver them.
  events.receive(sealed.subarray(0, 10), 0);
  events.receive(sealed.subarray(10), 0);
  assert.equal(events.bytesIgnored, 28, 'the 28 bytes of plaintext were opened and counted');
  assert.equal(events.open, true);
});

test('bytes that are not frames of the channel close it with the reason', () => {
  const { events, closed } = channel(true);
  events.receive(new Uint8Array([0x05, 0x00, 1, 2, 3, 4, 5, ...new Uint8Array(16)]), 0);
  assert.equal(events.open, false);
  assert.match(closed[0], /its encryption failed/);
  assert.equal(events.pollEvent()?.type, 'close');
});

test('the session ending closes it once; a transport failure is said as such', () => {
  const { events, closed } = channel(false);
  events.close('its session ended (TEARDOWN)');
  events.close('again');
  assert.deepEqual(closed, ['its session ended (TEARDOWN)']);
  const other = channel(false);
  other.events.transportClosed('ECONNRESET', 0);
  assert.deepEqual(other.closed, ['it failed (ECONNRESET)']);
  assert.equal(other.events.pollEvent(), undefined, 'nothing to close: the transport is gone');
});
