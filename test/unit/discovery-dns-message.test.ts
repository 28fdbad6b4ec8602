// DNS messages read and written (src/discovery/mdns/dns-message.ts): exact bytes with name
// compression, round trips, and every way a malformed message is refused as a value.
// Portable (Node and XS).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toHex } from '../../src/bytes';
import { DNS_TYPES } from '../../src/discovery/mdns-unicast';
import { DNS_CLASS, MessageWriter, nameBytes, readMessage, type DnsRecord } from '../../src/discovery/mdns/dns-message';

function ptr(owner: readonly string[], target: readonly string[], ttl = 4500): DnsRecord {
  return { name: owner, type: DNS_TYPES.PTR, class: DNS_CLASS.IN, cacheFlush: false, ttl, rdata: nameBytes(target), rdataNameAt: 0, rdataName: target };
}

function reasonOf(bytes: number[] | Uint8Array): string {
  const result = readMessage(Uint8Array.from(bytes));
  assert.equal(result.ok, false, 'refused');
  return result.ok ? '' : result.reason;
}

const header = (qd: number, an: number, ns = 0, ar = 0, flags = 0): number[] => [0, 0, flags >> 8, flags & 0xff, 0, qd, 0, an, 0, ns, 0, ar];

test('writes a PTR answer with the target compressed against the owner name, byte for byte', () => {
  const writer = new MessageWriter(512);
  assert.ok(writer.record('answer', ptr(['_x', '_tcp', 'local'], ['A', '_x', '_tcp', 'local'])));
  const bytes = writer.finish(0, 0x8400);
  assert.equal(
    toHex(bytes),
    // header: response, authoritative, one answer
    '000084000000000100000000' +
      // _x._tcp.local, PTR, IN, TTL 4500
      '025f78045f746370056c6f63616c00' + '000c' + '0001' + '00001194' +
      // RDATA: length 4, label "A", pointer to offset 12
      '0004' + '0141' + 'c00c',
  );
});

test('compresses a later name against an earlier one whatever the case of its ASCII letters', () => {
  const writer = new MessageWriter(512);
  writer.question({ name: ['Host', 'local'], type: DNS_TYPES.A, class: DNS_CLASS.IN, unicastResponse: true });
  writer.question({ name: ['HOST', 'LOCAL'], type: DNS_TYPES.AAAA, class: DNS_CLASS.IN, unicastResponse: false });
  const bytes = writer.finish(7, 0);
  assert.equal(toHex(bytes.subarray(12)), '04486f7374056c6f63616c00' + '0001' + '8001' + 'c00c' + '001c' + '0001');
  const read = readMessage(bytes);
  assert.ok(read.ok);
  assert.deepEqual(read.message.questions, [
    { name: ['Host', 'local'], type: DNS_TYPES.A, class: DNS_CLASS.IN, unicastResponse: true },
    { name: ['Host', 'local'], type: DNS_TYPES.AAAA, class: DNS_CLASS.IN, unicastResponse: false },
  ]);
});

test('reads back what it writes: sections, cache-flush bits, TTLs, and names inside PTR and SRV data uncompressed', () => {
  const target = ['Living-Room', 'local'];
  const srvData = new Uint8Array(6 + nameBytes(target).length);
  srvData[5] = 0x58; // port 7000 = 0x1b58
  srvData[4] = 0x1b;
  srvData.set(nameBytes(target), 6);
  const srv: DnsRecord = { name: ['Living Room', '_vendorplay', '_tcp', 'local'], type: DNS_TYPES.SRV, class: DNS_CLASS.IN, cacheFlush: true, ttl: 120, rdata: srvData, rdataNameAt: 6, rdataName: target };
  const a: DnsRecord = { name: target, type: DNS_TYPES.A, class: DNS_CLASS.IN, cacheFlush: true, ttl: 120, rdata: Uint8Array.of(10, 0, 0, 7), rdataNameAt: -1 };
  const writer = new MessageWriter(1440);
  writer.question({ name: ['_vendorplay', '_tcp', 'local'], type: DNS_TYPES.PTR, class: DNS_CLASS.IN, unicastResponse: false });
  writer.record('answer', ptr(['_vendorplay', '_tcp', 'local'], srv.name));
  writer.record('authority', srv);
  writer.record('additional', a, 10, false);
  const bytes = writer.finish(0x1234, 0x8400);
  const read = readMessage(bytes);
  assert.ok(read.ok, read.ok ? '' : read.reason);
  const { message } = read;
  assert.equal(message.id, 0x1234);
  assert.equal(message.flags, 0x8400);
  assert.deepEqual(message.answers[0].rdataName, srv.name);
  assert.deepEqual([...message.answers[0].rdata], [...nameBytes(srv.name)]);
  assert.deepEqual(message.authorities, [srv]);
  assert.deepEqual(message.additionals, [{ ...a, ttl: 10, cacheFlush: false }]);
  // Compression made it shorter than the names written out.
  assert.ok(bytes.length < 12 + 4 + 3 * 24 + 60, `${bytes.length} bytes`);
});

test('takes back a record that does not fit, leaving the message as it was', () => {
  const writer = new MessageWriter(60);
  assert.ok(writer.record('answer', ptr(['_x', '_tcp', 'local'], ['A', '_x', '_tcp', 'local'])));
  const before = toHex(writer.finish(0, 0));
  assert.equal(writer.record('answer', ptr(['_y', '_tcp', 'local'], ['A very long instance name', '_y', '_tcp', 'local'])), false);
  assert.equal(toHex(writer.finish(0, 0)), before);
  // The labels of the record taken back are not compression targets: a later name writes them out.
  assert.ok(writer.record('additional', { name: ['_y', 'b'], type: 1, class: 1, cacheFlush: false, ttl: 1, rdata: new Uint8Array(0), rdataNameAt: -1 }));
  const read = readMessage(writer.finish(0, 0));
  assert.ok(read.ok, read.ok ? '' : read.reason);
  assert.deepEqual(read.message.additionals[0].name, ['_y', 'b']);
});

test('refuses a message shorter than its header, or whose counts need more bytes than it has', () => {
  assert.match(reasonOf([0, 0, 0]), /3 bytes is shorter than its 12-byte header/);
  assert.match(reasonOf(header(0xff, 0)), /counts 255\/0\/0\/0 need at least/);
});

test('refuses more questions and records than the limit, before reading them', () => {
  const bytes = new Uint8Array(9000);
  bytes.set([0, 0, 0, 0, 1, 0x2c]); // 300 questions
  assert.match(reasonOf(bytes), /300 questions and records are over 256/);
});

test('refuses name pointers that lead forward, to themselves, or around a loop', () => {
  // A question whose name is a pointer to itself (offset 12).
  assert.match(reasonOf([...header(1, 0), 0xc0, 12, 0, 1, 0, 1]), /pointer at offset 12 leads forward or to itself/);
  // A pointer forward to offset 20.
  assert.match(reasonOf([...header(1, 0), 0xc0, 20, 0, 1, 0, 1, 0, 0, 0, 0]), /leads forward/);
  // Offset 12: label "a", then a pointer back to 12: a loop.
  assert.match(reasonOf([...header(1, 0), 1, 0x61, 0xc0, 12, 0, 1, 0, 1]), /pointer at offset 14 leads forward or to itself \(12\)/);
});

test('refuses undefined label types, labels and names past the end, and names over 255 bytes', () => {
  assert.match(reasonOf([...header(1, 0), 0x40, 0, 0, 1, 0, 1]), /label type 0x40 at offset 12 is not defined/);
  assert.match(reasonOf([...header(1, 0), 9, 0x61, 0, 0, 0]), /label at offset 12 runs past the message/);
  const long: number[] = [];
  for (let i = 0; i < 5; i++) long.push(63, ...new Array(63).fill(0x61));
  assert.match(reasonOf([...header(1, 0), ...long, 0, 0, 1, 0, 1]), /name at offset 12 is over 255 bytes/);
});

test('refuses record data past the end, and a PTR whose name does not end where its data does', () => {
  assert.match(reasonOf([...header(0, 1), 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 8, 1, 2]), /record data at offset 23 runs past/);
  // PTR data of 4 bytes holding a 3-byte name ("a", root) and a stray byte.
  assert.match(reasonOf([...header(0, 1), 0, 0, 12, 0, 1, 0, 0, 0, 0, 0, 4, 1, 0x61, 0, 9]), /its name ends at 26, not at 27/);
});

test('returns a value, never throws, for 2000 pseudo-random messages', () => {
  let state = 1;
  for (let i = 0; i < 2000; i++) {
    const bytes = new Uint8Array(12 + (i % 60));
    for (let j = 0; j < bytes.length; j++) bytes[j] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
    bytes[4] = 0;
    readMessage(bytes);
  }
});
