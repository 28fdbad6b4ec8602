// Answers to queries sent straight to the receiver's address (src/discovery/mdns-unicast.ts):
// legacy unicast (RFC 6762 6.7) and queries from port 5353, byte for byte. Portable (Node and XS).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utf8Decode, utf8Encode } from '../../src/bytes';
import { DiscoveryError } from '../../src/discovery/error';
import { answerQuery, DNS_TYPES, readQuery, type Zone } from '../../src/discovery/mdns-unicast';
import { txtBytes } from '../../src/discovery/txt-bytes';

const MEDIA_TXT = txtBytes([['deviceid', '58:55:CA:1A:E2:88'], ['features', '0x40000000,0x10040']]);
const AUDIO_TXT = txtBytes([['txtvers', '1'], ['am', 'VendorDesktop1,1']]);
const ZONE: Zone = {
  ipv4: Uint8Array.of(10, 0, 0, 7),
  services: [
    { instance: 'Living Room', type: '_vendorplay._tcp', port: 7000, txt: MEDIA_TXT, host: 'Living-Room' },
    { instance: '5855CA1AE288@Living Room', type: '_raop._tcp', port: 7000, txt: AUDIO_TXT, host: 'Living-Room' },
  ],
};
const LEGACY = { port: 49152 };
const MDNS = { port: 5353 };

function name(dotted: string[]): number[] {
  return [...dotted.flatMap((label) => [utf8Encode(label).length, ...utf8Encode(label)]), 0];
}

/** A query: header with `id`, then each question as [labels, type, class]. */
function query(id: number, questions: [string[], number, number?][], extra: number[] = [], arcount = 0): Uint8Array {
  const bytes = [id >> 8, id & 0xff, 0, 0, 0, questions.length, 0, 0, 0, 0, 0, arcount];
  for (const [labels, type, qclass = 1] of questions) bytes.push(...name(labels), type >> 8, type & 0xff, qclass >> 8, qclass & 0xff);
  return Uint8Array.from([...bytes, ...extra]);
}

interface Rr {
  name: string;
  type: number;
  class: number;
  ttl: number;
  rdata: Uint8Array;
}

/** Reads a reply (our replies use no compression) into its header and sections. */
function readReply(bytes: Uint8Array): { id: number; flags: number; questions: string[]; answers: Rr[]; additionals: Rr[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12;
  const readName = (): string => {
    const labels: string[] = [];
    while (bytes[offset] !== 0) {
      assert.ok(bytes[offset] < 64, 'no compression pointers');
      labels.push(utf8Decode(bytes.subarray(offset + 1, offset + 1 + bytes[offset])));
      offset += 1 + bytes[offset];
    }
    offset++;
    return labels.join('.');
  };
  const questions: string[] = [];
  for (let i = 0; i < view.getUint16(4); i++) {
    questions.push(`${readName()} ${view.getUint16(offset)} ${view.getUint16(offset + 2)}`);
    offset += 4;
  }
  const records = (count: number): Rr[] => {
    const out: Rr[] = [];
    for (let i = 0; i < count; i++) {
      const owner = readName();
      const length = view.getUint16(offset + 8);
      out.push({ name: owner, type: view.getUint16(offset), class: view.getUint16(offset + 2), ttl: view.getUint32(offset + 4), rdata: bytes.slice(offset + 10, offset + 10 + length) });
      offset += 10 + length;
    }
    return out;
  };
  const answers = records(view.getUint16(6));
  assert.equal(view.getUint16(8), 0, 'no authority records');
  const additionals = records(view.getUint16(10));
  assert.equal(offset, bytes.length, 'nothing after the last record');
  return { id: view.getUint16(0), flags: view.getUint16(2), questions, answers, additionals };
}

const summary = (records: Rr[]): string[] => records.map((record) => `${record.name} ${record.type} ${record.class.toString(16)} ${record.ttl}`);

test('answers a legacy PTR query with its ID, its question, TTLs of 10 s and no cache-flush bit (RFC 6762 6.7)', () => {
  const reply = readReply(answerQuery(query(0x1234, [[['_raop', '_tcp', 'local'], DNS_TYPES.PTR]]), ZONE, LEGACY)!);
  assert.equal(reply.id, 0x1234);
  assert.equal(reply.flags, 0x8400, 'response, authoritative, not truncated');
  assert.deepEqual(reply.questions, ['_raop._tcp.local 12 1']);
  assert.deepEqual(summary(reply.answers), ['_raop._tcp.local 12 1 10']);
  assert.deepEqual(reply.answers[0].rdata, Uint8Array.from(name(['5855CA1AE288@Living Room', '_raop', '_tcp', 'local'])));
  assert.deepEqual(summary(reply.additionals), [
    '5855CA1AE288@Living Room._raop._tcp.local 33 1 10',
    '5855CA1AE288@Living Room._raop._tcp.local 16 1 10',
    'Living-Room.local 1 1 10',
  ]);
  assert.deepEqual(reply.additionals[0].rdata, Uint8Array.from([0, 0, 0, 0, 0x1b, 0x58, ...name(['Living-Room', 'local'])]));
  assert.deepEqual(reply.additionals[1].rdata, AUDIO_TXT);
  assert.deepEqual(reply.additionals[2].rdata, Uint8Array.of(10, 0, 0, 7));
});

test('answers a query from port 5353 as multicast DNS does: ID 0, no questions, cache-flush on unique records', () => {
  const reply = readReply(answerQuery(query(0x4321, [[['Living Room', '_vendorplay', '_tcp', 'local'], DNS_TYPES.ANY, 0x8001]]), ZONE, MDNS)!);
  assert.equal(reply.id, 0);
  assert.deepEqual(reply.questions, []);
  assert.deepEqual(summary(reply.answers), ['Living Room._vendorplay._tcp.local 33 8001 120', 'Living Room._vendorplay._tcp.local 16 8001 4500']);
  assert.deepEqual(reply.answers[1].rdata, MEDIA_TXT);
  assert.deepEqual(summary(reply.additionals), ['Living-Room.local 1 8001 120']);
});

test('answers both services on one host: A for the host name, and the service enumeration (RFC 6763 9)', () => {
  const host = readReply(answerQuery(query(7, [[['LIVING-ROOM', 'LOCAL'], DNS_TYPES.A]]), ZONE, LEGACY)!);
  assert.deepEqual(summary(host.answers), ['Living-Room.local 1 1 10'], 'one A record though two services point there');
  const types = readReply(answerQuery(query(8, [[['_services', '_dns-sd', '_udp', 'local'], DNS_TYPES.PTR]]), ZONE, LEGACY)!);
  assert.deepEqual(types.answers.map((record) => utf8Decode(record.rdata.subarray(1, 1 + record.rdata[0]))), ['_vendorplay', '_raop']);
});

test('says nothing about names that are not ours, other types, responses or other opcodes', () => {
  assert.equal(answerQuery(query(1, [[['_ipp', '_tcp', 'local'], DNS_TYPES.PTR]]), ZONE, LEGACY), undefined);
  assert.equal(answerQuery(query(1, [[['Living-Room', 'local'], DNS_TYPES.AAAA]]), ZONE, LEGACY), undefined);
  const response = query(1, [[['_raop', '_tcp', 'local'], DNS_TYPES.PTR]]);
  response[2] = 0x84;
  assert.equal(answerQuery(response, ZONE, LEGACY), undefined);
  const update = query(1, [[['_raop', '_tcp', 'local'], DNS_TYPES.PTR]]);
  update[2] = 0x28; // opcode 5 (UPDATE)
  assert.equal(answerQuery(update, ZONE, LEGACY), undefined);
  assert.equal(answerQuery(query(1, [[['_raop', '_tcp', 'local'], DNS_TYPES.PTR, 3]]), ZONE, LEGACY), undefined, 'class CH');
});

test('follows compression pointers in questions and refuses loops and cut messages with the offset', () => {
  // Second question `_vendorplay` + pointer to `_tcp.local` inside the first.
  const first = name(['_raop', '_tcp', 'local']);
  const bytes = [0, 9, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, ...first, 0, 12, 0, 1, 11, ...utf8Encode('_vendorplay'), 0xc0, 12 + 6, 0, 12, 0, 1];
  const parsed = readQuery(Uint8Array.from(bytes));
  assert.deepEqual(parsed.questions.map((question) => question.name.join('.')), ['_raop._tcp.local', '_vendorplay._tcp.local']);
  assert.equal(readReply(answerQuery(Uint8Array.from(bytes), ZONE, LEGACY)!).answers.length, 2);
  const loop = Uint8Array.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 12, 0, 1]);
  assert.throws(() => answerQuery(loop, ZONE, LEGACY), (error: unknown) => error instanceof DiscoveryError && /loops/.test(error.message));
  assert.throws(() => readQuery(Uint8Array.of(0, 1, 0)), /shorter than its 12-byte header/);
  assert.throws(() => readQuery(query(1, [[['_raop', '_tcp', 'local'], DNS_TYPES.PTR]]).subarray(0, 20)), /runs past/);
});

test('keeps a legacy reply within 512 bytes: additionals left out first, TC when an answer must go (RFC 6762 18.5)', () => {
  const bigTxt = txtBytes([['a', 'x'.repeat(250)], ['b', 'y'.repeat(250)]]);
  const zone: Zone = { ...ZONE, services: [{ ...ZONE.services[0], txt: bigTxt }] };
  const ptr = readReply(answerQuery(query(2, [[['_vendorplay', '_tcp', 'local'], DNS_TYPES.PTR]]), zone, LEGACY)!);
  assert.equal(ptr.flags & 0x0200, 0, 'not truncated: the PTR answer fits');
  assert.deepEqual(ptr.additionals.map((record) => record.type), [DNS_TYPES.SRV, DNS_TYPES.A], 'the TXT additional did not fit and is left out');
  const txt = answerQuery(query(3, [[['Living Room', '_vendorplay', '_tcp', 'local'], DNS_TYPES.TXT]]), zone, LEGACY)!;
  assert.ok(txt.length <= 512);
  assert.equal(readReply(txt).flags & 0x0200, 0x0200, 'TC: the TXT answer itself does not fit');
  // An EDNS0 OPT record offering 1232 bytes lets it through (RFC 6891 6.1.2).
  const opt = [0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0];
  const withOpt = readReply(answerQuery(query(4, [[['Living Room', '_vendorplay', '_tcp', 'local'], DNS_TYPES.TXT]], opt, 1), zone, LEGACY)!);
  assert.equal(withOpt.flags & 0x0200, 0);
  assert.deepEqual(withOpt.answers[0].rdata, bigTxt);
});
