// The RTP packets of realtime audio, byte for byte as pyatv 0.14.5 writes them (packets.py,
// stream_client.py): audio headers, sync packets, retransmit requests and resent packets; and the
// readers' refusals (a kind and a reason, never a throw).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import {
  AUDIO_HEADER_BYTES,
  PAYLOAD_TYPE,
  isRefusal,
  readAudioPacket,
  readControlPacket,
  readResentPacket,
  readRetransmitRequest,
  readSyncPacket,
  writeAudioPacket,
  writeResentPacket,
  writeRetransmitRequest,
  writeSyncPacket,
  type AudioPacket,
  type PacketRefusal,
} from '../../src/audio/rtp-packets';

/** pyatv's AudioPacketHeader.encode(0x80, 0xE0, seq 0x1234, rtptime 0x89abcdef, ssrc 0x00c0ffee). */
const PYATV_FIRST_AUDIO = '80e0' + '1234' + '89abcdef' + '00c0ffee';

function audio(value: AudioPacket | PacketRefusal): AudioPacket {
  assert.ok(!isRefusal(value), `refused: ${isRefusal(value) ? value.reason : ''}`);
  return value;
}

test('an audio packet reads pyatv\'s header: marker on the first, sequence, timestamp, SSRC, the payload as a view', () => {
  const bytes = fromHex(PYATV_FIRST_AUDIO + '0102fffe');
  const packet = audio(readAudioPacket(bytes));
  assert.equal(packet.marker, true);
  assert.equal(packet.payloadType, PAYLOAD_TYPE.audio);
  assert.equal(packet.sequence, 0x1234);
  assert.equal(packet.timestamp, 0x89abcdef);
  assert.equal(packet.ssrc, 0x00c0ffee);
  assert.equal(toHex(packet.payload), '0102fffe');
  assert.equal(packet.payload.buffer, bytes.buffer, 'a view, not a copy');
  assert.equal(toHex(packet.header), PYATV_FIRST_AUDIO);
  const later = audio(readAudioPacket(fromHex('8060' + '1235' + '89abcf4f' + '00c0ffee')));
  assert.equal(later.marker, false);
  assert.equal(later.payload.length, 0);
});

test('the audio writer writes pyatv\'s bytes', () => {
  const packet = writeAudioPacket({ marker: true, sequence: 0x1234, timestamp: 0x89abcdef, ssrc: 0xc0ffee }, Uint8Array.of(1, 2));
  assert.equal(toHex(packet), PYATV_FIRST_AUDIO + '0102');
  assert.equal(toHex(writeAudioPacket({ marker: false, sequence: 0x10000, timestamp: 2 ** 32, ssrc: 1 }, new Uint8Array(0))), '8060' + '0000' + '00000000' + '00000001', 'fields wrap');
});

test('audio refusals: truncated, oversized, wrong version, wrong type', () => {
  const short = readAudioPacket(fromHex('80600001'));
  assert.ok(isRefusal(short) && short.refused === 'truncated', 'under 12 bytes');
  const big = readAudioPacket(new Uint8Array(100).fill(0x80), 50);
  assert.ok(isRefusal(big) && big.refused === 'oversized');
  const v1 = readAudioPacket(fromHex('40600001' + '00000000' + '00000000'));
  assert.ok(isRefusal(v1) && v1.refused === 'version');
  assert.match(v1.reason, /version 1, not 2/);
  const sync = readAudioPacket(fromHex('80d40007' + '00000000' + '00000000'));
  assert.ok(isRefusal(sync) && sync.refused === 'type');
  assert.match(sync.reason, /0x54/);
});

/**
 * pyatv's sync packet: SyncPacket.encode(0x90, 0xD4, 7, rtptime - latency, sec, frac, rtptime)
 * with head_ts 88200 frames at 44100 Hz: ts2ntp = ((88200 << 16) / 44100) << 16 = 2 s exactly.
 */
test('a sync packet reads pyatv\'s first one: extension bit, the time heard, its NTP time, the time sent', () => {
  const latency = 22050 + 44100;
  const rtptime = 1_000_000;
  const bytes = fromHex('90d40007' + (rtptime - latency).toString(16).padStart(8, '0') + '00000002' + '00000000' + rtptime.toString(16).padStart(8, '0'));
  const sync = readSyncPacket(bytes);
  assert.ok(!isRefusal(sync));
  assert.deepEqual(sync, { first: true, presentedRtpTime: rtptime - latency, senderTimeMs: 2000, currentRtpTime: rtptime });
  assert.equal(toHex(writeSyncPacket(sync)), toHex(bytes));
  const next = readSyncPacket(writeSyncPacket({ ...sync, first: false, senderTimeMs: 3000.5 }));
  assert.ok(!isRefusal(next));
  assert.equal(next.first, false);
  assert.ok(Math.abs(next.senderTimeMs - 3000.5) < 1e-6);
  assert.equal(toHex(writeSyncPacket({ ...sync, first: false }).subarray(0, 4)), '80d40007');
});

test('sync refusals: a short or long packet, another type', () => {
  const good = writeSyncPacket({ first: false, presentedRtpTime: 1, senderTimeMs: 0, currentRtpTime: 2 });
  const short = readSyncPacket(good.subarray(0, 19));
  assert.ok(isRefusal(short) && short.refused === 'truncated');
  const long = readSyncPacket(new Uint8Array([...good, 0]));
  assert.ok(isRefusal(long) && long.refused === 'oversized');
  const wrong = Uint8Array.from(good);
  wrong[1] = 0xd5;
  const typed = readSyncPacket(wrong);
  assert.ok(isRefusal(typed) && typed.refused === 'type');
});

test('a retransmit request is 0x80 0xD5 0x0001, first lost, count; pyatv reads the last two', () => {
  const request = writeRetransmitRequest({ firstSequence: 0xfffe, count: 3 });
  assert.equal(toHex(request), '80d50001' + 'fffe' + '0003');
  assert.deepEqual(readRetransmitRequest(request), { firstSequence: 0xfffe, count: 3 });
  const short = readRetransmitRequest(request.subarray(0, 6));
  assert.ok(isRefusal(short) && short.refused === 'truncated');
});

test('a resent packet is pyatv\'s b"\\x80\\xD6" + packet[2:4] + packet, read back as the original', () => {
  const original = writeAudioPacket({ marker: false, sequence: 0xabcd, timestamp: 352, ssrc: 9 }, Uint8Array.of(5, 6, 7, 8));
  const resent = writeResentPacket(original);
  assert.equal(toHex(resent), '80d6abcd' + toHex(original));
  const packet = audio(readResentPacket(resent));
  assert.equal(packet.sequence, 0xabcd);
  assert.equal(packet.timestamp, 352);
  assert.equal(toHex(packet.payload), '05060708');
  const inner = Uint8Array.from(resent);
  inner[4] = 0x40;
  const bad = readResentPacket(inner);
  assert.ok(isRefusal(bad) && bad.refused === 'version');
  assert.match(bad.reason, /^resent packet: /);
  const short = readResentPacket(resent.subarray(0, 4 + AUDIO_HEADER_BYTES - 1));
  assert.ok(isRefusal(short) && short.refused === 'truncated');
});

test('the control port reads each of its packets by type and refuses others', () => {
  const sync = readControlPacket(writeSyncPacket({ first: true, presentedRtpTime: 5, senderTimeMs: 1, currentRtpTime: 6 }));
  assert.ok(!isRefusal(sync) && sync.type === 'sync');
  const resent = readControlPacket(writeResentPacket(writeAudioPacket({ marker: false, sequence: 1, timestamp: 2, ssrc: 3 }, new Uint8Array(4))));
  assert.ok(!isRefusal(resent) && resent.type === 'resent' && resent.packet.sequence === 1);
  const request = readControlPacket(writeRetransmitRequest({ firstSequence: 4, count: 1 }));
  assert.ok(!isRefusal(request) && request.type === 'retransmitRequest');
  const timing = readControlPacket(new Uint8Array(32).fill(0).map((_, i) => (i === 0 ? 0x80 : i === 1 ? 0xd2 : 0)));
  assert.ok(isRefusal(timing) && timing.refused === 'type');
  const empty = readControlPacket(new Uint8Array(1));
  assert.ok(isRefusal(empty) && empty.refused === 'truncated');
});
