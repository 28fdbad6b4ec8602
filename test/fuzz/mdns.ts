// Fuzz campaign of our multicast DNS responder (src/discovery/mdns/): DNS messages (queries, probes,
// known answers, responses that claim our names), valid and mutated, read by the codec and fed to
// an announced responder from 5353 and from a legacy port. Reading never throws (a malformed
// message is a value), nothing escapes the responder, and every datagram it sends reads back and
// fits its size limit. Portable: ECMAScript only.

import { DNS_TYPES } from '../../src/discovery/mdns-unicast';
import { DNS_CLASS, DNS_OTHER_TYPES, MessageWriter, nameBytes, readMessage, type DnsRecord } from '../../src/discovery/mdns/dns-message';
import { MDNS_LIMITS } from '../../src/discovery/mdns/mdns-limits';
import { MdnsResponder } from '../../src/discovery/mdns/mdns-responder';
import type { Rng } from '../support/arbitrary';
import { FuzzFailure, type Campaign } from './engine';
import { mutate, tokens } from './mutate';

const NAMES: readonly (readonly string[])[] = [
  ['_vendorplay', '_tcp', 'local'],
  ['_raop', '_tcp', 'local'],
  ['Living Room', '_vendorplay', '_tcp', 'local'],
  ['5855CA1AE288@Living Room', '_raop', '_tcp', 'local'],
  ['Living-Room', 'local'],
  ['LIVING-ROOM', 'LOCAL'],
  ['_services', '_dns-sd', '_udp', 'local'],
  ['other', 'local'],
];
const TYPES = [DNS_TYPES.A, DNS_TYPES.PTR, DNS_TYPES.TXT, DNS_TYPES.AAAA, DNS_TYPES.SRV, DNS_TYPES.ANY];

function record(rng: Rng): DnsRecord {
  const name = rng.pick(NAMES);
  const type = rng.pick(TYPES.slice(0, 5));
  const ttl = rng.pick([0, 1, 120, 4500]);
  if (type === DNS_TYPES.PTR) {
    const target = rng.pick(NAMES);
    return { name, type, class: DNS_CLASS.IN, cacheFlush: false, ttl, rdata: nameBytes(target), rdataNameAt: 0, rdataName: target };
  }
  if (type === DNS_TYPES.SRV) {
    const target = rng.pick(NAMES);
    return { name, type, class: DNS_CLASS.IN, cacheFlush: true, ttl, rdata: Uint8Array.from([0, 0, 0, 0, 0x1b, 0x58, ...nameBytes(target)]), rdataNameAt: 6, rdataName: target };
  }
  const rdata = type === DNS_TYPES.A ? Uint8Array.of(10, 0, 0, rng.int(0, 255)) : type === DNS_TYPES.AAAA ? new Uint8Array(16).fill(rng.int(0, 255)) : Uint8Array.of(3, 0x61, 0x3d, rng.int(0x30, 0x39));
  return { name, type, class: DNS_CLASS.IN, cacheFlush: rng.next() < 0.5, ttl, rdata, rdataNameAt: -1 };
}

/** A query (questions, maybe known answers, authorities as a probe has, an OPT) or a response. */
function dnsMessage(rng: Rng): Uint8Array {
  const writer = new MessageWriter(1440);
  const isResponse = rng.next() < 0.3;
  if (!isResponse) {
    for (let i = rng.int(1, 4); i > 0; i--) writer.question({ name: rng.pick(NAMES), type: rng.pick(TYPES), class: rng.pick([DNS_CLASS.IN, DNS_CLASS.ANY, 3]), unicastResponse: rng.next() < 0.3 });
  }
  for (let i = rng.int(0, 3); i > 0; i--) writer.record('answer', record(rng));
  if (!isResponse && rng.next() < 0.3) for (let i = rng.int(1, 2); i > 0; i--) writer.record('authority', record(rng));
  if (rng.next() < 0.3) writer.record('additional', { name: [], type: DNS_OTHER_TYPES.OPT, class: rng.pick([512, 1232, 4096, 0x7fff]), cacheFlush: rng.next() < 0.1, ttl: 0, rdata: new Uint8Array(0), rdataNameAt: -1 });
  return writer.finish(rng.int(0, 0xffff), isResponse ? 0x8400 : rng.pick([0, 0x0200]));
}

const DNS_TOKENS = tokens('\xc0\x0c', '\xc0\x00', '\xc0\xff', '\x3f', '\x40', '\x80', '\x00\x29\x10\x00', '\xff\xff', '\x00\x00\x00\x00', '\x01\x00');

interface Input {
  readonly bytes: Uint8Array;
  readonly port: number;
}

/** A responder past probing and announcing, with both services published. */
function announcedResponder(): { responder: MdnsResponder; now: number } {
  const responder = new MdnsResponder({ name: 'Living Room', addresses: { ipv4: ['10.0.0.7'], ipv6: ['fe80::1'] }, random: (n) => new Uint8Array(n) });
  responder.publish({ name: 'Living Room', type: '_vendorplay._tcp', port: 7000, txt: [['features', '0x40000000,0x10040'], ['deviceid', '58:55:CA:1A:E2:88']] }, 0);
  responder.publish({ name: '5855CA1AE288@Living Room', type: '_raop._tcp', port: 7000, txt: [['txtvers', '1']] }, 0);
  let now = 0;
  for (let next = responder.pollTimeout(); next !== undefined; next = responder.pollTimeout()) responder.handleTimeout((now = next));
  while (responder.pollTransmit());
  while (responder.pollEvent());
  return { responder, now };
}

export const mdnsResponder: Campaign<Input> = {
  name: 'mdns-responder',
  // Nothing may be thrown: a malformed message is a value and the responder an event.
  expected: () => false,
  generate(rng) {
    const valid = dnsMessage(rng);
    const bytes = rng.next() < 0.2 ? valid : mutate(rng, valid, { tokens: DNS_TOKENS, corpus: [dnsMessage(rng)] });
    return { bytes, port: rng.next() < 0.7 ? 5353 : 49152 };
  },
  check({ bytes, port }) {
    const read = readMessage(bytes);
    const { responder, now } = announcedResponder();
    responder.receive(bytes, '10.0.0.9', port, now + 10_000);
    // Whatever the message started (a delayed answer, probing again after a conflict) runs out.
    for (let steps = 0, next = responder.pollTimeout(); next !== undefined && steps < 50; steps++, next = responder.pollTimeout()) responder.handleTimeout(Math.max(next, now + 10_000));
    const offered = read.ok ? read.message.additionals.find((record) => record.type === DNS_OTHER_TYPES.OPT) : undefined;
    for (let datagram = responder.pollTransmit(); datagram; datagram = responder.pollTransmit()) {
      const back = readMessage(datagram.bytes);
      if (!back.ok) throw new FuzzFailure(`we sent a message we cannot read: ${back.reason}`);
      const legacy = datagram.port !== 5353;
      const limit = legacy ? Math.max(MDNS_LIMITS.legacyBytesForTxt, offered ? offered.class | (offered.cacheFlush ? 0x8000 : 0) : 0) : MDNS_LIMITS.packetBytesMax;
      if (datagram.bytes.length > Math.min(limit, MDNS_LIMITS.receiveBytesMax)) throw new FuzzFailure(`a ${legacy ? 'legacy' : 'multicast'} datagram of ${datagram.bytes.length} bytes (limit ${limit})`);
      if (legacy && back.message.answers.some((answer) => answer.ttl > MDNS_LIMITS.legacyTtlMax)) throw new FuzzFailure('a legacy answer with a TTL over 10 s');
    }
    while (responder.pollEvent());
  },
};
