// Answers to queries sent straight to the receiver's address (src/discovery/mdns-unicast.ts):
// legacy unicast (RFC 6762 6.7) and queries from port 5353, byte for byte. Portable (Node and XS).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utf8Decode, utf8Encode } from '../../src/bytes';
import { DiscoveryError } from '../../src/discovery/error';
import { answerQuery, DNS_TYPES, isOnLink, readQuery, type LinkAddress, type Zone } from '../../src/discovery/mdns-unicast';
import { txtBytes } from '../../src/discovery/txt-bytes';
import { RECEIVER_NAME_MAX } from '../../src/discovery/dnssd-names';
import type { DialectName } from '../../src/dialect';
import { desktopZone } from '../support/unicast-zone';

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
  /** The name in a PTR's or SRV's data, compression pointers followed. */
  target?: string;
}

/**
 * Reads a reply into its header and sections: this test's own decoder (not the one in src),
 * following compression pointers (RFC 1035 4.1.4), which must point backwards, at a label;
 * `pointers` counts the names that end in one.
 */
function readReply(bytes: Uint8Array): { id: number; flags: number; questions: string[]; answers: Rr[]; additionals: Rr[]; pointers: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pointers = 0;
  const nameAt = (start: number): { name: string; end: number } => {
    const labels: string[] = [];
    let at = start;
    let end = -1;
    while (bytes[at] !== 0) {
      if (bytes[at] >= 0xc0) {
        const target = ((bytes[at] & 0x3f) << 8) | bytes[at + 1];
        assert.ok(target < at, `pointer at ${at} to ${target} points backwards`);
        if (end < 0) {
          pointers++;
          end = at + 2;
        }
        at = target;
        continue;
      }
      assert.ok(bytes[at] < 64, `label length ${bytes[at]} at ${at}`);
      labels.push(utf8Decode(bytes.subarray(at + 1, at + 1 + bytes[at])));
      at += 1 + bytes[at];
    }
    return { name: labels.join('.'), end: end < 0 ? at + 1 : end };
  };
  let offset = 12;
  const readName = (): string => {
    const { name, end } = nameAt(offset);
    offset = end;
    return name;
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
      const type = view.getUint16(offset);
      const length = view.getUint16(offset + 8);
      const start = offset + 10;
      const record: Rr = { name: owner, type, class: view.getUint16(offset + 2), ttl: view.getUint32(offset + 4), rdata: bytes.slice(start, start + length) };
      if (type === DNS_TYPES.PTR || type === DNS_TYPES.SRV) {
        const target = nameAt(type === DNS_TYPES.PTR ? start : start + 6);
        assert.equal(target.end, start + length, 'the name ends where the data does');
        record.target = target.name;
      }
      out.push(record);
      offset = start + length;
    }
    return out;
  };
  const answers = records(view.getUint16(6));
  assert.equal(view.getUint16(8), 0, 'no authority records');
  const additionals = records(view.getUint16(10));
  assert.equal(offset, bytes.length, 'nothing after the last record');
  return { id: view.getUint16(0), flags: view.getUint16(2), questions, answers, additionals, pointers };
}

const summary = (records: Rr[]): string[] => records.map((record) => `${record.name} ${record.type} ${record.class.toString(16)} ${record.ttl}`);

test('answers a legacy PTR query with its ID, its question, TTLs of 10 s and no cache-flush bit (RFC 6762 6.7)', () => {
  const reply = readReply(answerQuery(query(0x1234, [[['_raop', '_tcp', 'local'], DNS_TYPES.PTR]]), ZONE, LEGACY)!);
  assert.equal(reply.id, 0x1234);
  assert.equal(reply.flags, 0x8400, 'response, authoritative, not truncated');
  assert.deepEqual(reply.questions, ['_raop._tcp.local 12 1']);
  assert.deepEqual(summary(reply.answers), ['_raop._tcp.local 12 1 10']);
  assert.equal(reply.answers[0].target, '5855CA1AE288@Living Room._raop._tcp.local');
  assert.deepEqual(summary(reply.additionals), [
    '5855CA1AE288@Living Room._raop._tcp.local 16 1 10',
    '5855CA1AE288@Living Room._raop._tcp.local 33 1 10',
    'Living-Room.local 1 1 10',
  ]);
  assert.deepEqual(reply.additionals[0].rdata, AUDIO_TXT);
  assert.deepEqual(reply.additionals[1].rdata.subarray(0, 6), Uint8Array.of(0, 0, 0, 0, 0x1b, 0x58));
  assert.equal(reply.additionals[1].target, 'Living-Room.local');
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
  // RFC 6762 16: names compare case-insensitively, so the answer's name points at the question's.
  assert.deepEqual(summary(host.answers), ['LIVING-ROOM.LOCAL 1 1 10'], 'one A record though two services point there');
  const types = readReply(answerQuery(query(8, [[['_services', '_dns-sd', '_udp', 'local'], DNS_TYPES.PTR]]), ZONE, LEGACY)!);
  assert.deepEqual(types.answers.map((record) => record.target), ['_vendorplay._tcp.local', '_raop._tcp.local']);
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

test('a legacy reply is 512 bytes at most unless its TXT would be left out: then up to 1440, as mDNSResponder answers; TC when an answer must go', () => {
  const bigTxt = txtBytes([['a', 'x'.repeat(250)], ['b', 'y'.repeat(250)]]);
  const zone: Zone = { ...ZONE, services: [{ ...ZONE.services[0], txt: bigTxt }] };
  const ptrBytes = answerQuery(query(2, [[['_vendorplay', '_tcp', 'local'], DNS_TYPES.PTR]]), zone, LEGACY)!;
  const ptr = readReply(ptrBytes);
  assert.equal(ptr.flags & 0x0200, 0, 'not truncated');
  assert.deepEqual(ptr.additionals.map((record) => record.type), [DNS_TYPES.TXT, DNS_TYPES.SRV, DNS_TYPES.A], 'the TXT, SRV and address all there');
  assert.ok(ptrBytes.length > 512 && ptrBytes.length <= 1440, `${ptrBytes.length} bytes`);
  const txt = answerQuery(query(3, [[['Living Room', '_vendorplay', '_tcp', 'local'], DNS_TYPES.TXT]]), zone, LEGACY)!;
  assert.deepEqual(readReply(txt).answers[0].rdata, bigTxt, 'a TXT question gets the whole TXT');
  // A TXT over even 1440 bytes: the answer cannot go whole, TC says so.
  const hugeTxt = txtBytes([1, 2, 3, 4, 5, 6].map((n) => [`k${n}`, 'z'.repeat(250)]));
  const huge = answerQuery(query(4, [[['Living Room', '_vendorplay', '_tcp', 'local'], DNS_TYPES.TXT]]), { ...ZONE, services: [{ ...ZONE.services[0], txt: hugeTxt }] }, LEGACY)!;
  assert.ok(huge.length <= 1440);
  assert.equal(readReply(huge).flags & 0x0200, 0x0200, 'TC: the TXT answer itself does not fit');
  // An EDNS0 OPT record offering 4096 bytes lets it through whole (RFC 6891 6.1.2).
  const opt = [0, 0, 41, 0x10, 0x00, 0, 0, 0, 0, 0, 0];
  const withOpt = readReply(answerQuery(query(5, [[['Living Room', '_vendorplay', '_tcp', 'local'], DNS_TYPES.TXT]], opt, 1), { ...ZONE, services: [{ ...ZONE.services[0], txt: hugeTxt }] }, LEGACY)!);
  assert.equal(withOpt.flags & 0x0200, 0);
  assert.deepEqual(withOpt.answers[0].rdata, hugeTxt);
});

test("pyatv's scan query (five questions, QU, id 0x35FF, from an ephemeral port) gets the _airplay TXT with the features", () => {
  const zone = desktopZone('apple');
  const types: [string, string][] = [['_device-info', '_tcp'], ['_sleep-proxy', '_udp'], ['_airplay', '_tcp'], ['_companion-link', '_tcp'], ['_sleep-proxy', '_udp']];
  const reply = answerQuery(query(0x35ff, types.map(([service, protocol]) => [[service, protocol, 'local'], DNS_TYPES.PTR, 0x8001])), zone, LEGACY)!;
  const read = readReply(reply);
  assert.equal(read.id, 0x35ff);
  assert.equal(read.questions.length, 5, 'the questions echoed (RFC 6762 6.7)');
  const txt = read.additionals.find((record) => record.type === DNS_TYPES.TXT);
  assert.ok(txt, `the TXT is there (${reply.length} bytes)`);
  assert.deepEqual(txt.rdata, zone.services[0].txt);
  assert.ok(reply.length > 512 && reply.length <= 1440, `${reply.length} bytes`);
});

test('a legacy query whose echoed questions alone exceed even 1440 bytes gets no reply (found by fuzzing)', () => {
  // RFC 6762 6.7: a legacy reply repeats the questions. Long names that are not ours (different
  // names: the same one repeated would be compressed to a pointer), then one about ours.
  const long = (a: string, b: string, c: string): string[] => [a.repeat(63), b.repeat(63), c.repeat(63), 'local'];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const questions: [string[], number][] = [];
  for (let i = 0; i < 8; i++) questions.push([long(letters[i * 3], letters[i * 3 + 1], letters[(i * 3 + 2) % 26]), DNS_TYPES.A]);
  questions.push([['_vendorplay', '_tcp', 'local'], DNS_TYPES.PTR]);
  const message = query(6, questions);
  assert.ok(message.length > 1440);
  assert.equal(answerQuery(message, ZONE, LEGACY), undefined, 'no reply rather than one over 1440 bytes');
  // With room to spare (its OPT record says 4096), the same query is answered within that size.
  const opt = [0, 0, 41, 4096 >> 8, 4096 & 0xff, 0, 0, 0, 0, 0, 0];
  const answer = answerQuery(query(6, questions, opt, 1), ZONE, LEGACY)!;
  assert.ok(answer.length <= 4096, `${answer.length} bytes`);
  assert.equal(readReply(answer).answers[0].type, DNS_TYPES.PTR);
  // From port 5353 no questions are echoed: answered as usual.
  assert.ok(answerQuery(message, ZONE, MDNS));
});

/**
 * The reply a legacy PTR query for `_<service>._tcp.local` must get, laid out by hand (RFC 1035
 * 4.1): the question first, where the service type's name is written once; every later name
 * is its new labels and a pointer (0xC0 | offset) to the earliest place its tail was written.
 * `records` names the additionals after the TXT: the SRV and the A record where they fit.
 */
function expectedPtrReply(id: number, service: string, zone: Zone, records: ('SRV' | 'A')[]): Uint8Array {
  const { instance, host, txt, port } = zone.services[0];
  const out: number[] = [];
  const u16 = (value: number): void => void out.push(value >> 8, value & 0xff);
  const u32 = (value: number): void => void out.push(value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff);
  const label = (text: string): void => void out.push(utf8Encode(text).length, ...utf8Encode(text));
  const pointer = (offset: number): void => void out.push(0xc0 | (offset >> 8), offset & 0xff);
  u16(id);
  u16(0x8400); // QR, AA; no TC
  u16(1); // the question, repeated (RFC 6762 6.7)
  u16(1); // PTR
  u16(0);
  u16(1 + records.length); // TXT, then SRV and A where they fit
  const serviceAt = out.length;
  label(service);
  label('_tcp');
  const localAt = out.length;
  label('local');
  out.push(0);
  u16(DNS_TYPES.PTR);
  u16(1);
  // PTR: its name is the question's; its data the instance label and the question's name again.
  pointer(serviceAt);
  u16(DNS_TYPES.PTR);
  u16(1); // IN, no cache-flush bit in a legacy reply
  u32(10); // RFC 6762 6.7: at most 10 s
  u16(1 + utf8Encode(instance).length + 2);
  const instanceAt = out.length;
  label(instance);
  pointer(serviceAt);
  // TXT: named by the instance name in the PTR's data.
  pointer(instanceAt);
  u16(DNS_TYPES.TXT);
  u16(1);
  u32(10);
  u16(txt.length);
  out.push(...txt);
  let hostAt = -1;
  if (records.includes('SRV')) {
    pointer(instanceAt);
    u16(DNS_TYPES.SRV);
    u16(1);
    u32(10);
    u16(6 + 1 + utf8Encode(host).length + 2);
    u16(0); // priority
    u16(0); // weight
    u16(port);
    hostAt = out.length;
    label(host);
    pointer(localAt);
  }
  if (records.includes('A')) {
    if (hostAt >= 0) pointer(hostAt);
    else {
      label(host);
      pointer(localAt);
    }
    u16(DNS_TYPES.A);
    u16(1);
    u32(10);
    u16(4);
    out.push(...zone.ipv4);
  }
  return Uint8Array.from(out);
}

const SERVICE_LABEL = { vendor: '_vendorplay', apple: '_airplay' } as const;

test('a legacy PTR query for the media service gets PTR, TXT, SRV and A of the desktop receiver in 500 bytes, names compressed (RFC 1035 4.1.4)', () => {
  // The sizes: header 12, question 28 (25 for _airplay), PTR 23, TXT 392 (its 380 bytes of
  // data), SRV 29, A 16. Uncompressed the same records took 563 bytes, and the TXT was left out.
  for (const [dialect, size] of [['vendor', 500], ['apple', 497]] as const) {
    const zone = desktopZone(dialect);
    assert.equal(zone.services[0].txt.length, 380, 'the TXT record the desktop receiver publishes');
    const reply = answerQuery(query(0x2121, [[[SERVICE_LABEL[dialect], '_tcp', 'local'], DNS_TYPES.PTR]]), zone, LEGACY)!;
    assert.equal(reply.length, size, dialect);
    assert.deepEqual(reply, expectedPtrReply(0x2121, SERVICE_LABEL[dialect], zone, ['SRV', 'A']), dialect);
    const read = readReply(reply);
    assert.deepEqual([...read.answers, ...read.additionals].map((record) => record.type), [DNS_TYPES.PTR, DNS_TYPES.TXT, DNS_TYPES.SRV, DNS_TYPES.A]);
    assert.equal(read.additionals[1].target, 'Receiver.local');
    assert.deepEqual(read.additionals[0].rdata, zone.services[0].txt);
  }
});

test('when 512 bytes are short the TXT is kept before the SRV, the SRV before the address, and TC stays clear (RFC 2181 9)', () => {
  // Instance and host label add up: PTR, TXT and SRV fit while the two are at most 44 bytes
  // together for _vendorplay, 47 for _airplay (the question is 3 bytes shorter).
  const cases: [DialectName, string, ('SRV' | 'A')[], number][] = [
    // The longest names that keep PTR, TXT and SRV (host label = name, spaces as hyphens).
    ['vendor', 'Living Room Frame 1234', ['SRV'], 512],
    ['apple', 'Living Room Frame 12345', ['SRV'], 511],
    // One byte more: the SRV does not fit, the A record (its host name written whole: no
    // pointer into the SRV that was taken back) does.
    ['vendor', 'Living Room Frame 12345', ['A'], 510],
    ['apple', 'Living Room Frame 123456', ['A'], 509],
    // The longest name allowed (50 bytes of UTF-8; host label `receiver`): PTR and TXT.
    ['vendor', 'é'.repeat(RECEIVER_NAME_MAX / 2), [], 497],
    ['apple', 'é'.repeat(RECEIVER_NAME_MAX / 2), [], 494],
  ];
  for (const [dialect, name, records, size] of cases) {
    const zone = desktopZone(dialect, name);
    const reply = answerQuery(query(7, [[[SERVICE_LABEL[dialect], '_tcp', 'local'], DNS_TYPES.PTR]]), zone, LEGACY)!;
    assert.equal(reply.length, size, `${dialect} ${name}`);
    assert.deepEqual(reply, expectedPtrReply(7, SERVICE_LABEL[dialect], zone, records), `${dialect} ${name}`);
    assert.equal(readReply(reply).flags & 0x0200, 0, 'TC clear: the PTR answer is whole');
  }
});

test('a query from port 5353 (QU) gets every record, compressed, without the question', () => {
  const zone = desktopZone('apple');
  const reply = answerQuery(query(0, [[['_airplay', '_tcp', 'local'], DNS_TYPES.PTR, 0x8001]]), zone, MDNS)!;
  const read = readReply(reply);
  assert.deepEqual(read.questions, []);
  assert.deepEqual(summary([...read.answers, ...read.additionals]), [
    '_airplay._tcp.local 12 1 4500',
    'Receiver._airplay._tcp.local 16 8001 4500',
    'Receiver._airplay._tcp.local 33 8001 120',
    'Receiver.local 1 8001 120',
  ]);
  assert.equal(read.pointers, 5, 'the names of TXT, SRV and A, and the names in the PTR and SRV data');
  // Header 12, PTR 42 (its name written whole), TXT 392, SRV 29, A 16.
  assert.equal(reply.length, 491);
});

const LINKS: LinkAddress[] = [
  { address: '192.168.1.20', netmask: '255.255.255.0' },
  { address: '10.4.0.9', netmask: '255.255.240.0' },
];

test('a unicast query is answered only from on-link sources: a subnet of an interface or loopback (RFC 6762 5.5, 11)', () => {
  for (const source of ['192.168.1.1', '192.168.1.255', '10.4.15.200', '127.0.0.1', '127.9.9.9', '::ffff:192.168.1.7', '::FFFF:10.4.0.1']) assert.equal(isOnLink(source, LINKS), true, source);
  for (const source of ['192.168.2.1', '10.4.16.1', '8.8.8.8', '0.0.0.0', '::1', 'fe80::1', '2001:db8::1', '::ffff:8.8.8.8', '192.168.1', '192.168.1.256', 'example', '']) assert.equal(isOnLink(source, LINKS), false, source);
  assert.equal(isOnLink('192.168.1.1', []), false, 'no interfaces: only loopback');
});
