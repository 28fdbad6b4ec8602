// The multicast DNS responder (src/discovery/mdns/mdns-responder.ts) with a manual clock: probing,
// renaming on conflict, the probe tie-break, announcing, answers (multicast, QU, legacy), known-
// answer suppression, the rate limit, TXT updates and goodbyes, read back through the codec.
// Portable (Node and XS).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DNS_TYPES } from '../../src/discovery/mdns-unicast';
import { DNS_CLASS, MessageWriter, nameBytes, readMessage, type DnsMessage, type DnsQuestion, type DnsRecord } from '../../src/discovery/mdns/dns-message';
import { MDNS_LIMITS } from '../../src/discovery/mdns/mdns-limits';
import { MdnsResponder, numbered, type MdnsDatagram, type MdnsEvent } from '../../src/discovery/mdns/mdns-responder';
import { parseTxtBytes } from '../../src/discovery/txt-bytes';
import type { ServiceRecord } from '../../src/platform';

const MEDIA: ServiceRecord = { name: 'Living Room', type: '_vendorplay._tcp', port: 7000, txt: [['deviceid', '58:55:CA:1A:E2:88'], ['features', '0x40000000,0x10040']] };
const AUDIO: ServiceRecord = { name: '5855CA1AE288@Living Room', type: '_raop._tcp', port: 7000, txt: [['txtvers', '1']] };
const ADDRESSES = { ipv4: ['10.0.0.7'], ipv6: ['fe80::1'] };
const GROUP = '224.0.0.251';
const PEER = '10.0.0.9';
/** Random bytes of zero: every random delay is its minimum. */
const zeros = (n: number): Uint8Array => new Uint8Array(n);

interface Sent {
  readonly at: number;
  readonly address: string;
  readonly port: number;
  readonly message: DnsMessage;
}

class Harness {
  now = 0;
  readonly sent: Sent[] = [];
  readonly events: MdnsEvent[] = [];
  readonly responder: MdnsResponder;

  constructor(addresses: { ipv4: string[]; ipv6: string[] } = ADDRESSES) {
    this.responder = new MdnsResponder({ name: 'Living Room', addresses, random: zeros });
  }

  /** Runs every deadline up to `until`, collecting what goes out. */
  runUntil(until: number): void {
    for (let next = this.responder.pollTimeout(); next !== undefined && next <= until; next = this.responder.pollTimeout()) {
      this.now = Math.max(this.now, next);
      this.responder.handleTimeout(this.now);
      this.drain();
    }
    this.now = until;
  }

  receive(bytes: Uint8Array, address = PEER, port = 5353): void {
    this.responder.receive(bytes, address, port, this.now);
    this.drain();
  }

  drain(): void {
    for (let datagram: MdnsDatagram | undefined; (datagram = this.responder.pollTransmit()); ) {
      const read = readMessage(datagram.bytes);
      assert.ok(read.ok, read.ok ? '' : `we sent a message we cannot read: ${read.reason}`);
      this.sent.push({ at: this.now, address: datagram.address, port: datagram.port, message: read.message });
    }
    for (let event; (event = this.responder.pollEvent()); ) this.events.push(event);
  }

  take(): Sent[] {
    return this.sent.splice(0);
  }

  /** Published and announced (probing and both announcements over): 3.5 s is enough. */
  static announced(...services: ServiceRecord[]): Harness {
    return Harness.announcedOn(ADDRESSES, ...services);
  }

  static announcedOn(addresses: { ipv4: string[]; ipv6: string[] }, ...services: ServiceRecord[]): Harness {
    const harness = new Harness(addresses);
    for (const service of services) harness.responder.publish(service, 0);
    harness.runUntil(5000);
    harness.take();
    harness.events.length = 0;
    return harness;
  }
}

const describeRecord = (record: DnsRecord): string => `${DNS_NAMES[record.type] ?? record.type} ${record.name.join('.')}`;
const DNS_NAMES: Record<number, string> = { 1: 'A', 12: 'PTR', 16: 'TXT', 28: 'AAAA', 33: 'SRV', 47: 'NSEC', 255: 'ANY' };

function query(questions: Partial<DnsQuestion>[], options: { id?: number; known?: DnsRecord[]; authorities?: DnsRecord[] } = {}): Uint8Array {
  const writer = new MessageWriter(1440);
  for (const question of questions) writer.question({ name: [], type: DNS_TYPES.PTR, class: DNS_CLASS.IN, unicastResponse: false, ...question });
  for (const record of options.known ?? []) writer.record('answer', record);
  for (const record of options.authorities ?? []) writer.record('authority', record);
  return writer.finish(options.id ?? 0, 0);
}

function response(records: DnsRecord[]): Uint8Array {
  const writer = new MessageWriter(1440);
  for (const record of records) writer.record('answer', record);
  return writer.finish(0, 0x8400);
}

const aRecord = (name: string[], address: number[], ttl = 120): DnsRecord => ({ name, type: DNS_TYPES.A, class: DNS_CLASS.IN, cacheFlush: true, ttl, rdata: Uint8Array.from(address), rdataNameAt: -1 });
const MEDIA_TYPE = ['_vendorplay', '_tcp', 'local'];
const MEDIA_INSTANCE = ['Living Room', ...MEDIA_TYPE];
const HOST = ['Living-Room', 'local'];

test('probes the host name three times 250 ms apart, the first asking for a unicast reply, then the service name, then announces twice a second apart', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  harness.runUntil(10_000);
  const timeline = harness.take().map((sent) => {
    const { message } = sent;
    const what = message.questions.length > 0 ? `probe ${message.questions[0].name.join('.')}${message.questions[0].unicastResponse ? ' QU' : ''} [${message.authorities.map(describeRecord).join(', ')}]` : `announce [${message.answers.map(describeRecord).join(', ')}]`;
    return `${sent.at} ${sent.address}:${sent.port} ${what}`;
  });
  assert.deepEqual(timeline, [
    '0 224.0.0.251:5353 probe Living-Room.local QU [A Living-Room.local, AAAA Living-Room.local]',
    '250 224.0.0.251:5353 probe Living-Room.local [A Living-Room.local, AAAA Living-Room.local]',
    '500 224.0.0.251:5353 probe Living-Room.local [A Living-Room.local, AAAA Living-Room.local]',
    '750 224.0.0.251:5353 probe Living Room._vendorplay._tcp.local QU [SRV Living Room._vendorplay._tcp.local, TXT Living Room._vendorplay._tcp.local]',
    '750 224.0.0.251:5353 announce [A Living-Room.local, AAAA Living-Room.local]',
    '1000 224.0.0.251:5353 probe Living Room._vendorplay._tcp.local [SRV Living Room._vendorplay._tcp.local, TXT Living Room._vendorplay._tcp.local]',
    '1250 224.0.0.251:5353 probe Living Room._vendorplay._tcp.local [SRV Living Room._vendorplay._tcp.local, TXT Living Room._vendorplay._tcp.local]',
    '1500 224.0.0.251:5353 announce [PTR _vendorplay._tcp.local, SRV Living Room._vendorplay._tcp.local, TXT Living Room._vendorplay._tcp.local, PTR _services._dns-sd._udp.local]',
    '1750 224.0.0.251:5353 announce [A Living-Room.local, AAAA Living-Room.local]',
    '2500 224.0.0.251:5353 announce [PTR _vendorplay._tcp.local, SRV Living Room._vendorplay._tcp.local, TXT Living Room._vendorplay._tcp.local, PTR _services._dns-sd._udp.local]',
  ]);
  assert.deepEqual(harness.events, [
    { kind: 'host-claimed', host: 'Living-Room.local' },
    { kind: 'announced', instance: 'Living Room', type: '_vendorplay._tcp', port: 7000, host: 'Living-Room.local' },
  ]);
  assert.equal(harness.responder.pollTimeout(), undefined);
});

test('announces unique records with the cache-flush bit, the SRV pointing at the host on the service port, the TXT in record order', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  harness.runUntil(1500);
  const announcement = harness.take().at(-1)!.message;
  const [ptr, srv, txt, enumeration] = announcement.answers;
  assert.deepEqual([ptr.cacheFlush, srv.cacheFlush, txt.cacheFlush, enumeration.cacheFlush], [false, true, true, false]);
  assert.deepEqual([ptr.ttl, srv.ttl, txt.ttl, enumeration.ttl], [4500, 120, 4500, 4500]);
  assert.deepEqual(ptr.rdataName, MEDIA_INSTANCE);
  assert.equal((srv.rdata[4] << 8) | srv.rdata[5], 7000);
  assert.deepEqual(srv.rdataName, HOST);
  assert.deepEqual(parseTxtBytes(txt.rdata), MEDIA.txt);
  assert.deepEqual(enumeration.rdataName, MEDIA_TYPE);
});

test('a conflicting answer while probing the host name renames it Living-Room-2 and probes that from the start', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  harness.runUntil(300);
  harness.take();
  harness.receive(response([aRecord(HOST, [10, 0, 0, 99])]));
  assert.deepEqual(harness.events, [{ kind: 'renamed', from: 'Living-Room', to: 'Living-Room-2', type: undefined }]);
  harness.runUntil(10_000);
  const probes = harness.take().filter((sent) => sent.message.questions.length > 0);
  assert.deepEqual(probes.slice(0, 3).map((sent) => sent.message.questions[0].name.join('.')), ['Living-Room-2.local', 'Living-Room-2.local', 'Living-Room-2.local']);
  assert.equal(harness.responder.hostName, 'Living-Room-2');
  assert.ok(harness.events.some((event) => event.kind === 'announced' && event.host === 'Living-Room-2.local'));
});

test('a conflicting SRV while probing the service renames it "Living Room (2)"', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  harness.runUntil(800);
  const theirs: DnsRecord = { name: MEDIA_INSTANCE, type: DNS_TYPES.SRV, class: DNS_CLASS.IN, cacheFlush: true, ttl: 120, rdata: Uint8Array.from([0, 0, 0, 0, 0x1b, 0x58, ...nameBytes(['Other', 'local'])]), rdataNameAt: 6, rdataName: ['Other', 'local'] };
  harness.receive(response([theirs]));
  harness.runUntil(10_000);
  assert.equal(harness.responder.instanceName(MEDIA), 'Living Room (2)');
  assert.ok(harness.events.some((event) => event.kind === 'announced' && event.instance === 'Living Room (2)'));
});

test('numbers a name within one 63-byte label, never cutting a character', () => {
  assert.equal(numbered('Living Room', 2, ' ('), 'Living Room (2)');
  assert.equal(numbered('Host', 12, '-'), 'Host-12');
  const long = 'é'.repeat(31); // 62 bytes
  const renamed = numbered(long, 2, ' (');
  assert.equal(renamed, `${'é'.repeat(29)} (2)`);
});

test('hearing its own probes and announcements back (multicast loopback) is no conflict', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  for (let until = 0; until <= 5000; until += 50) {
    harness.runUntil(until);
    for (const sent of harness.take()) {
      const writer = new MessageWriter(1440);
      for (const question of sent.message.questions) writer.question(question);
      for (const record of sent.message.answers) writer.record('answer', record);
      for (const record of sent.message.authorities) writer.record('authority', record);
      harness.receive(writer.finish(0, sent.message.questions.length > 0 ? 0 : 0x8400), '10.0.0.7');
    }
  }
  assert.deepEqual(harness.events.map((event) => event.kind), ['host-claimed', 'announced']);
});

test('loses a simultaneous probe tie-break to greater records and probes again a second later (RFC 6762 8.2)', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  harness.runUntil(300);
  harness.take();
  // Their A record 10.0.0.200 is greater than our 10.0.0.7: we defer.
  harness.receive(query([{ name: HOST, type: DNS_TYPES.ANY }], { authorities: [aRecord(HOST, [10, 0, 0, 200])] }));
  assert.equal(harness.responder.pollTimeout(), 1300);
  // Lesser records do not move us.
  const other = new Harness();
  other.responder.publish(MEDIA, 0);
  other.runUntil(300);
  other.receive(query([{ name: HOST, type: DNS_TYPES.ANY }], { authorities: [aRecord(HOST, [10, 0, 0, 1])] }));
  assert.equal(other.responder.pollTimeout(), 500);
});

test('answers nothing about a name while it is still probing', () => {
  const harness = new Harness();
  harness.responder.publish(MEDIA, 0);
  harness.runUntil(300);
  harness.take();
  harness.receive(query([{ name: HOST, type: DNS_TYPES.A }]));
  harness.runUntil(400);
  assert.deepEqual(harness.take(), []);
});

test('answers a PTR question by multicast after 20-120 ms, with SRV, TXT and addresses as additionals', () => {
  const harness = Harness.announced(MEDIA);
  harness.receive(query([{ name: MEDIA_TYPE }]));
  assert.deepEqual(harness.take(), [], 'a shared answer waits');
  harness.runUntil(harness.now + 200);
  const [sent] = harness.take();
  assert.equal(sent.at, 5020);
  assert.equal(sent.address, GROUP);
  assert.equal(sent.message.id, 0);
  assert.equal(sent.message.questions.length, 0);
  assert.deepEqual(sent.message.answers.map(describeRecord), ['PTR _vendorplay._tcp.local']);
  assert.deepEqual(sent.message.additionals.map(describeRecord), ['SRV Living Room._vendorplay._tcp.local', 'TXT Living Room._vendorplay._tcp.local', 'A Living-Room.local', 'AAAA Living-Room.local']);
});

test('answers SRV, TXT, A and AAAA questions at once (unique records), and ANY with every record of the name', () => {
  const harness = Harness.announced(MEDIA);
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.SRV }, { name: MEDIA_INSTANCE, type: DNS_TYPES.TXT }]));
  const [srvTxt] = harness.take();
  assert.deepEqual(srvTxt.message.answers.map(describeRecord), ['SRV Living Room._vendorplay._tcp.local', 'TXT Living Room._vendorplay._tcp.local']);
  harness.now += 1000;
  harness.receive(query([{ name: ['LIVING-ROOM', 'LOCAL'], type: DNS_TYPES.ANY }]));
  const [any] = harness.take();
  assert.deepEqual(any.message.answers.map(describeRecord), ['A Living-Room.local', 'AAAA Living-Room.local']);
  assert.deepEqual([...any.message.answers[0].rdata], [10, 0, 0, 7]);
  assert.equal(any.message.answers[1].rdata[0], 0xfe);
});

test('a service\'s announcements carry the host\'s addresses, so announcing a changed TXT keeps them as fresh as the SRV in caches', () => {
  // python-zeroconf refreshes no A record of its own: with the TXT changing every 15 s its SRV
  // stayed fresh while the A, heard when the host name was claimed, expired after 120 s.
  const harness = Harness.announced(MEDIA);
  harness.now = 200_000;
  harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['flags', '0x204']] }, 200_000);
  harness.runUntil(210_000);
  const sent = harness.take();
  assert.equal(sent.length, 2);
  for (const { message } of sent) {
    assert.ok(message.answers.some((record) => record.type === DNS_TYPES.SRV));
    assert.deepEqual(message.additionals.map(describeRecord), ['A Living-Room.local', 'AAAA Living-Room.local']);
    assert.deepEqual(message.additionals.map((record) => record.ttl), [120, 120]);
  }
});

test('an AAAA question to an IPv4-only host is answered with an NSEC denying AAAA and the A as additional (RFC 6762 6.1, 6.2)', () => {
  // What python-zeroconf asks once its expired A is still cached: neither an A question nor an A known answer.
  const harness = Harness.announcedOn({ ipv4: ['10.0.0.7'], ipv6: [] }, MEDIA);
  harness.now = 200_000;
  harness.receive(query([{ name: HOST, type: DNS_TYPES.AAAA, unicastResponse: true }]));
  const [sent] = harness.take();
  assert.ok(sent, 'the question is answered');
  assert.deepEqual(sent.message.answers.map(describeRecord), ['NSEC Living-Room.local']);
  const nsec = sent.message.answers[0];
  assert.ok(nsec.cacheFlush);
  // Next name: the host name itself; window 0, one byte, only A (type 1) present.
  assert.deepEqual([...nsec.rdata], [...nameBytes(HOST), 0, 1, 0x40]);
  assert.deepEqual(sent.message.additionals.map(describeRecord), ['A Living-Room.local']);
  assert.deepEqual([...sent.message.additionals[0].rdata], [10, 0, 0, 7]);
  // A host with both address types has nothing to deny; an A question is answered as before.
  const dual = Harness.announced(MEDIA);
  dual.now = 200_000;
  dual.receive(query([{ name: HOST, type: DNS_TYPES.AAAA }]));
  assert.deepEqual(dual.take()[0].message.answers.map(describeRecord), ['AAAA Living-Room.local']);
  harness.now = 201_000;
  harness.receive(query([{ name: HOST, type: DNS_TYPES.A }]));
  assert.deepEqual(harness.take()[0].message.answers.map(describeRecord), ['A Living-Room.local']);
});

test('an A or AAAA question about a service instance name is answered with an NSEC (SRV and TXT only) and the SRV, TXT and addresses as additionals', () => {
  // What python-zeroconf asks once the SRV it holds expired: the addresses of the instance name
  // (its fallback for the SRV target), and no SRV question.
  const harness = Harness.announcedOn({ ipv4: ['10.0.0.7'], ipv6: [] }, MEDIA);
  harness.now = 200_000;
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.A, unicastResponse: true }, { name: MEDIA_INSTANCE, type: DNS_TYPES.AAAA, unicastResponse: true }]));
  const [sent] = harness.take();
  assert.ok(sent, 'the question is answered');
  assert.deepEqual(sent.message.answers.map(describeRecord), ['NSEC Living Room._vendorplay._tcp.local']);
  // Window 0, five bytes: TXT (16) and SRV (33).
  assert.deepEqual([...sent.message.answers[0].rdata], [...nameBytes(MEDIA_INSTANCE), 0, 5, 0, 0, 0x80, 0, 0x40]);
  assert.deepEqual(sent.message.additionals.map(describeRecord), ['SRV Living Room._vendorplay._tcp.local', 'TXT Living Room._vendorplay._tcp.local', 'A Living-Room.local']);
});

test('lists each service type once under _services._dns-sd._udp.local', () => {
  const harness = Harness.announced(MEDIA, AUDIO);
  harness.receive(query([{ name: ['_services', '_dns-sd', '_udp', 'local'] }]));
  harness.runUntil(harness.now + 200);
  const [sent] = harness.take();
  assert.deepEqual(sent.message.answers.map((record) => record.rdataName!.join('.')), ['_vendorplay._tcp.local', '_raop._tcp.local']);
});

test('leaves out answers the querier already knows with at least half their TTL (RFC 6762 7.1)', () => {
  const harness = Harness.announced(MEDIA);
  const known = (ttl: number): DnsRecord => ({ name: MEDIA_TYPE, type: DNS_TYPES.PTR, class: DNS_CLASS.IN, cacheFlush: false, ttl, rdata: nameBytes(MEDIA_INSTANCE), rdataNameAt: 0, rdataName: MEDIA_INSTANCE });
  harness.receive(query([{ name: MEDIA_TYPE }], { known: [known(2250)] }));
  harness.runUntil(harness.now + 200);
  assert.deepEqual(harness.take(), []);
  harness.receive(query([{ name: MEDIA_TYPE }], { known: [known(2249)] }));
  harness.runUntil(harness.now + 200);
  assert.equal(harness.take().length, 1);
});

test('multicasts a record at most once a second', () => {
  const harness = Harness.announced(MEDIA);
  harness.now = 10_000;
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.SRV }]));
  harness.now = 10_500;
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.SRV }]));
  assert.deepEqual(harness.take().map((sent) => sent.at), [10_000]);
  harness.now = 11_000;
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.SRV }]));
  assert.deepEqual(harness.take().map((sent) => sent.at), [11_000]);
});

test('answers a QU question by unicast to the querier when the record was multicast within a quarter of its TTL, else by multicast', () => {
  const harness = Harness.announced(MEDIA);
  harness.now = 6000;
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.SRV, unicastResponse: true }]));
  const [unicast] = harness.take();
  assert.equal(`${unicast.address}:${unicast.port}`, `${PEER}:5353`);
  assert.deepEqual(unicast.message.answers.map(describeRecord), ['SRV Living Room._vendorplay._tcp.local']);
  // The SRV (TTL 120 s) was last multicast at 2.5 s: 40 s later it goes to the group.
  harness.now = 42_600;
  harness.receive(query([{ name: MEDIA_INSTANCE, type: DNS_TYPES.SRV, unicastResponse: true }]));
  assert.equal(harness.take()[0].address, GROUP);
});

test('answers a legacy query (source port not 5353) by unicast with its ID and question, TTLs of at most 10 s, no cache-flush bits', () => {
  const harness = Harness.announced(MEDIA);
  harness.receive(query([{ name: MEDIA_TYPE }], { id: 0x1234 }), PEER, 49152);
  const [reply] = harness.take();
  assert.equal(`${reply.address}:${reply.port}`, `${PEER}:49152`);
  assert.equal(reply.message.id, 0x1234);
  assert.deepEqual(reply.message.questions.map((question) => question.name.join('.')), ['_vendorplay._tcp.local']);
  const records = [...reply.message.answers, ...reply.message.additionals];
  assert.deepEqual(records.map(describeRecord), ['PTR _vendorplay._tcp.local', 'SRV Living Room._vendorplay._tcp.local', 'TXT Living Room._vendorplay._tcp.local', 'A Living-Room.local', 'AAAA Living-Room.local']);
  assert.ok(records.every((record) => record.ttl <= 10 && !record.cacheFlush));
});

test('announces a changed TXT record twice, a second apart, and answers with it', () => {
  const harness = Harness.announced(MEDIA);
  harness.now = 20_000;
  harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['flags', '0x204']] }, 20_000);
  harness.runUntil(30_000);
  const sent = harness.take();
  assert.deepEqual(sent.map((s) => s.at), [20_000, 21_000]);
  for (const { message } of sent) assert.deepEqual(parseTxtBytes(message.answers.find((record) => record.type === DNS_TYPES.TXT)!.rdata).at(-1), ['flags', '0x204']);
  assert.deepEqual(harness.events, [{ kind: 'reannounced', instance: 'Living Room', type: '_vendorplay._tcp' }]);
  // An update that changes nothing sends nothing.
  harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['flags', '0x204']] }, 30_000);
  harness.runUntil(40_000);
  assert.deepEqual(harness.take(), []);
});

test('a delayed answer carries the TXT as it is when it goes out, not as it was when the question came', () => {
  const harness = Harness.announced(MEDIA, AUDIO);
  harness.now = 20_000;
  harness.receive(query([{ name: MEDIA_TYPE }, { name: ['_raop', '_tcp', 'local'] }]));
  assert.deepEqual(harness.take(), [], 'a shared answer waits');
  // The activity changes while the answer waits (a photo shown), and the audio service goes.
  harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['flags', '0x204']] }, 20_010);
  harness.responder.withdraw(AUDIO, 20_010);
  harness.runUntil(20_010);
  assert.ok(harness.take().length > 0, 'the new TXT announced, the goodbye said');
  harness.runUntil(20_500);
  const [answer, ...more] = harness.take();
  assert.deepEqual(more, [], 'one delayed answer, before the second announcement');
  const records = [...answer.message.answers, ...answer.message.additionals];
  const txts = records.filter((record) => record.type === DNS_TYPES.TXT);
  assert.equal(txts.length, 1, 'one TXT: the current one');
  assert.deepEqual(parseTxtBytes(txts[0].rdata).at(-1), ['flags', '0x204']);
  assert.ok(!records.some((record) => record.name[0] === AUDIO.name), 'nothing of the withdrawn service');
});

test('remembers when the records it holds went out, not every TXT it ever announced (a board runs for months)', () => {
  // The soak's pattern: each photo session and each stop change the activity, so the TXT (gid,
  // flags) changes twice a minute, for as long as the receiver runs.
  const harness = Harness.announced(MEDIA, AUDIO);
  harness.runUntil(60_000);
  const activity = (n: number, after: number): void => {
    harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['gid', `0000000${n}-0000-4000-8000-000000000000`]] }, harness.now);
    harness.runUntil(harness.now + after);
    harness.receive(query([{ name: MEDIA_TYPE }, { name: ['_raop', '_tcp', 'local'] }]));
    harness.runUntil(harness.now + 200);
    harness.take();
  };
  activity(1, 30_000);
  // A and AAAA, then PTR, SRV, TXT and the type's enumeration PTR of each service.
  const held = 2 + 4 + 4;
  assert.equal(harness.responder.recordsRemembered, held);
  for (let n = 2; n <= 50; n++) activity(n, 30_000);
  assert.equal(harness.responder.recordsRemembered, held);
  // Changes faster than the echo window: the replaced TXTs kept for their echoes are capped.
  for (let n = 51; n <= 70; n++) activity(n, 100);
  assert.equal(harness.responder.recordsRemembered, held + MDNS_LIMITS.retiredRecordsMax);
});

test('hearing its own announcement of a TXT it has just replaced is no conflict', () => {
  const harness = Harness.announced(MEDIA);
  harness.now = 20_000;
  harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['flags', '0x204']] }, 20_000);
  harness.runUntil(20_000);
  const [announcement] = harness.take();
  harness.now = 20_050;
  harness.responder.update({ ...MEDIA, txt: [...MEDIA.txt, ['flags', '0x4']] }, 20_050);
  harness.runUntil(20_050);
  harness.take();
  // The first announcement, looped back after the second change.
  harness.receive(response([...announcement.message.answers]), '10.0.0.7');
  harness.runUntil(25_000);
  assert.ok(harness.take().every((sent) => sent.message.questions.length === 0), 'no probe');
  assert.deepEqual(harness.events.map((event) => event.kind), ['reannounced', 'reannounced']);
});

test('says goodbye with TTL 0 on withdraw (the type enumeration too when no other service has that type), and for everything on stop', () => {
  const harness = Harness.announced(MEDIA, AUDIO);
  harness.responder.withdraw(MEDIA, harness.now);
  harness.drain();
  const [bye] = harness.take();
  assert.deepEqual(bye.message.answers.map(describeRecord), ['PTR _vendorplay._tcp.local', 'SRV Living Room._vendorplay._tcp.local', 'TXT Living Room._vendorplay._tcp.local', 'PTR _services._dns-sd._udp.local']);
  assert.ok(bye.message.answers.every((record) => record.ttl === 0));
  assert.deepEqual(harness.events, [{ kind: 'withdrawn', instance: 'Living Room', type: '_vendorplay._tcp' }]);
  harness.responder.stop(harness.now);
  harness.drain();
  const [last] = harness.take();
  assert.deepEqual(last.message.answers.map(describeRecord), ['PTR _raop._tcp.local', 'SRV 5855CA1AE288@Living Room._raop._tcp.local', 'TXT 5855CA1AE288@Living Room._raop._tcp.local', 'PTR _services._dns-sd._udp.local', 'A Living-Room.local', 'AAAA Living-Room.local']);
  assert.ok(last.message.answers.every((record) => record.ttl === 0));
  assert.equal(harness.responder.pollTimeout(), undefined);
});

test('an announced name that meets other data for its SRV probes again', () => {
  const harness = Harness.announced(MEDIA);
  harness.now = 10_000;
  const theirs: DnsRecord = { name: MEDIA_INSTANCE, type: DNS_TYPES.SRV, class: DNS_CLASS.IN, cacheFlush: true, ttl: 120, rdata: Uint8Array.from([0, 0, 0, 0, 0x1f, 0x40, ...nameBytes(['Other', 'local'])]), rdataNameAt: 6, rdataName: ['Other', 'local'] };
  harness.receive(response([theirs]));
  harness.runUntil(10_000);
  const [probe] = harness.take();
  assert.deepEqual(probe.message.questions.map((question) => question.name.join('.')), ['Living Room._vendorplay._tcp.local']);
});

test('a malformed datagram is an event naming the sender and the cause, and nothing is sent', () => {
  const harness = Harness.announced(MEDIA);
  harness.receive(Uint8Array.of(0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1));
  assert.deepEqual(harness.events, [{ kind: 'malformed', address: PEER, port: 5353, reason: 'name pointer at offset 12 leads forward or to itself (12)' }]);
  assert.deepEqual(harness.take(), []);
});

test('refuses a record DNS-SD cannot carry, naming it', () => {
  const responder = new MdnsResponder({ name: 'x', addresses: ADDRESSES, random: zeros });
  assert.throws(() => responder.publish({ ...MEDIA, type: 'vendorplay' }, 0), /service type "vendorplay" is not _name._tcp/);
  assert.throws(() => responder.publish({ ...MEDIA, name: 'x'.repeat(64) }, 0), /is 64 bytes; DNS-SD takes 1 to 63/);
  assert.equal(responder.pollTimeout(), undefined);
});

test('a legacy reply that would leave the TXT out takes up to 1440 bytes, as Apple\'s responder does for scanning senders', () => {
  const long: ServiceRecord = { ...MEDIA, txt: Array.from({ length: 12 }, (_, i): [string, string] => [`key${i}`, 'x'.repeat(30)]) };
  const harness = Harness.announced(long);
  const scan = ['_vendorplay', '_raop', '_companion-link', '_mediaremotetv', '_sleep-proxy'].map((name) => ({ name: [name, '_tcp', 'local'] }));
  harness.receive(query(scan, { id: 7 }), PEER, 49152);
  const [reply] = harness.take();
  const records = [...reply.message.answers, ...reply.message.additionals];
  assert.ok(records.some((record) => record.type === DNS_TYPES.TXT), records.map(describeRecord).join(', '));
  assert.equal(reply.message.questions.length, 5);
  // What fits in 512 bytes stays there.
  harness.receive(query([{ name: HOST, type: DNS_TYPES.A }], { id: 8 }), PEER, 49152);
  assert.ok(harness.take()[0].message.answers.length === 1);
});

test('answers the first 64 questions of a query and ignores the rest', () => {
  const harness = Harness.announced(MEDIA);
  const filler = Array.from({ length: 64 }, (_, i) => ({ name: [`other${i}`, 'local'], type: DNS_TYPES.A }));
  harness.receive(query([...filler, { name: HOST, type: DNS_TYPES.A }]));
  assert.deepEqual(harness.take(), []);
  harness.receive(query([...filler.slice(1), { name: HOST, type: DNS_TYPES.A }]));
  assert.deepEqual(harness.take()[0].message.answers.map(describeRecord), ['A Living-Room.local']);
});
