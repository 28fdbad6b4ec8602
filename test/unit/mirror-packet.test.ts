// Mirroring stream packets (spec 2.14): the header's exact bytes, and the incremental reader:
// the same packets however the bytes are split, the payload limit, unknown types read past,
// and at most one packet held.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, toHex } from '../../src/bytes';
import { PACKET_HEADER_BYTES, PACKET_TYPE, PacketReader, readPacketHeader, writePacket, writePacketHeader, type PacketEvent } from '../../src/mirror/packet';

test('the header is 128 bytes: payload size, type, 6 or 0x1e, then the NTP timestamp, little-endian', () => {
  const header = writePacketHeader({ payloadSize: 0x01020304, payloadType: 1, option: 6, ntpSeconds: 0x0a0b0c0d, ntpFraction: 0x11223344 });
  assert.equal(header.length, PACKET_HEADER_BYTES);
  assert.equal(toHex(header.subarray(0, 16)), '04030201' + '0100' + '0600' + '44332211' + '0d0c0b0a');
  assert.ok(header.subarray(16).every((byte) => byte === 0), 'the rest is zero');
  assert.deepEqual(readPacketHeader(header), { payloadSize: 0x01020304, payloadType: 1, option: 6, ntpSeconds: 0x0a0b0c0d, ntpFraction: 0x11223344 });
  const heartbeat = writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0));
  assert.equal(toHex(heartbeat.subarray(0, 8)), '00000000' + '0200' + '1e00', 'spec 2.14: 0x1e for a heartbeat');
  assert.equal(toHex(writePacket(PACKET_TYPE.video, Uint8Array.of(9)).subarray(4, 8)), '0000' + '0600');
});

function stream(): { bytes: Uint8Array; payloads: Uint8Array[] } {
  const payloads = [Uint8Array.of(1, 0x64, 0, 0x1f), new Uint8Array(0), new Uint8Array(300).map((_, i) => i & 0xff), Uint8Array.of(7)];
  const bytes = concat(
    writePacket(PACKET_TYPE.codecData, payloads[0]),
    writePacket(PACKET_TYPE.heartbeat, payloads[1]),
    writePacket(PACKET_TYPE.video, payloads[2], 5, 0x80000000),
    writePacket(PACKET_TYPE.video, payloads[3], 6, 0),
  );
  return { bytes, payloads };
}

function readAll(reader: PacketReader, chunks: Uint8Array[]): PacketEvent[] {
  const events: PacketEvent[] = [];
  for (const chunk of chunks) {
    reader.receive(chunk);
    for (let event = reader.next(); event; event = reader.next()) events.push(event);
  }
  return events;
}

function summary(events: PacketEvent[]): string[] {
  return events.map((event) => (event.type === 'packet' ? `${event.header.payloadType}:${event.header.ntpSeconds}:${toHex(event.payload)}` : event.type === 'skipped' ? `skipped ${event.header.payloadType}` : `error ${event.reason}`));
}

test('any split of the bytes gives the same packets: every cut point, and byte by byte', () => {
  const { bytes, payloads } = stream();
  const whole = summary(readAll(new PacketReader({ maxPayloadBytes: 1024 }), [bytes]));
  assert.equal(whole.length, 4);
  assert.equal(whole[2], `0:5:${toHex(payloads[2])}`);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(summary(readAll(new PacketReader({ maxPayloadBytes: 1024 }), [bytes.subarray(0, cut), bytes.subarray(cut)])), whole, `cut at ${cut}`);
  }
  const single = [...bytes].map((byte) => Uint8Array.of(byte));
  assert.deepEqual(summary(readAll(new PacketReader({ maxPayloadBytes: 1024 }), single)), whole);
});

test('the reader holds at most the packet being read: a payload is taken as soon as it is whole', () => {
  const { bytes } = stream();
  const reader = new PacketReader({ maxPayloadBytes: 1024 });
  let most = 0;
  for (let at = 0; at < bytes.length; at += 50) {
    readAll(reader, [bytes.subarray(at, at + 50)]);
    most = Math.max(most, reader.buffered);
  }
  assert.ok(most <= PACKET_HEADER_BYTES + 300, `held ${most} bytes`);
  assert.equal(reader.buffered, 0);
  assert.equal(reader.packets, 4);
});

test('a payload size over the limit is an error before anything is allocated, and the reader stops', () => {
  const reader = new PacketReader({ maxPayloadBytes: 1000 });
  const header = writePacketHeader({ payloadSize: 0xfffffff0, payloadType: 0, option: 6, ntpSeconds: 0, ntpFraction: 0 });
  const events = readAll(reader, [header, new Uint8Array(100)]);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'error');
  assert.match((events[0] as { reason: string }).reason, /announces a 4294967280-byte payload; the limit is 1000 \(limits\.maxMirrorPayloadBytes\)/);
  assert.deepEqual(readAll(reader, [writePacket(2, new Uint8Array(0))]), [], 'nothing more is read');
});

test('a packet of an unknown type is read past without keeping its payload, and the next one is read', () => {
  const reader = new PacketReader({ maxPayloadBytes: 4096 });
  const unknown = writePacket(5, new Uint8Array(3000).fill(0xaa));
  const events = readAll(reader, [unknown.subarray(0, 1000), unknown.subarray(1000), writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0))]);
  assert.deepEqual(summary(events), ['skipped 5', '2:0:']);
  assert.ok(reader.buffered === 0);
});

test('the bytes of a packet cut short are reported (a truncated header or payload)', () => {
  const reader = new PacketReader({ maxPayloadBytes: 4096 });
  readAll(reader, [writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0)).subarray(0, 40)]);
  assert.deepEqual(reader.partial, { headerBytes: 40, payloadBytes: 0, payloadSize: 0 });
  const second = new PacketReader({ maxPayloadBytes: 4096 });
  readAll(second, [writePacket(PACKET_TYPE.video, new Uint8Array(100)).subarray(0, 150)]);
  assert.deepEqual(second.partial, { headerBytes: 128, payloadBytes: 22, payloadSize: 100 });
  const clean = new PacketReader({ maxPayloadBytes: 4096 });
  readAll(clean, [writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0))]);
  assert.equal(clean.partial, undefined);
});
