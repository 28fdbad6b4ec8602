// Answers to multicast DNS queries sent straight to the receiver's address (RFC 6762 5.5, 6.7):
// a query's bytes and the receiver's records in, the reply's bytes out. No sockets, no clocks.
//
// Why the core answers these itself: senders that "scan this host" send a DNS query to
// <address>:5353 from an ephemeral port (legacy unicast, RFC 6762 6.7) or from 5353. A host's
// multicast responder may never see them (on Linux a unicast datagram goes to one of the
// sockets sharing port 5353, not to all), so a host hands them here from a socket bound to the
// interface address. What is answered is what the multicast responder publishes: the PTR of
// each service type, SRV and TXT of each instance, A of the host name, and the DNS-SD
// service enumeration PTR (RFC 6763 9).

import { utf8Decode, utf8Encode, writeU16BE, writeU32BE } from '../bytes';
import { hostLabels, instanceLabels, sameName, serviceLabels } from './dnssd-names';
import { DiscoveryError } from './error';

/** DNS record types (RFC 1035 3.2.2, RFC 2782, RFC 3596, RFC 6762 6.1), one row each. */
export const DNS_TYPES = { A: 1, PTR: 12, TXT: 16, AAAA: 28, SRV: 33, ANY: 255 } as const;
/** RFC 1035 3.2.4: the Internet class. */
export const DNS_CLASS_IN = 1;
/** RFC 6762 5.4: the top bit of a question's class asks for a unicast reply (QU). */
export const QU_BIT = 0x8000;
/** RFC 6762 10.2: the top bit of an answer's class flushes caches of a unique record. */
export const CACHE_FLUSH_BIT = 0x8000;
/** The multicast DNS port (RFC 6762 3); a query from any other port is a legacy one (6.7). */
export const MDNS_PORT = 5353;

/** RFC 6762 10: host-bound records (SRV, A) live 120 s, others 75 minutes. */
const HOST_TTL = 120;
const SHARED_TTL = 4500;
/** RFC 6762 6.7: legacy resolvers take no part in cache coherency, so TTLs of at most 10 s. */
const LEGACY_TTL_MAX = 10;
/** RFC 1035 4.2.1: a legacy resolver takes 512 bytes unless its EDNS0 OPT record says more. */
const LEGACY_SIZE = 512;
/**
 * A legacy reply whose TXT record does not fit in LEGACY_SIZE may take this much: an Ethernet
 * MTU's payload, as Apple's mDNSResponder answers (NormalMaxDNSMessageData). Senders that scan a
 * host ask several service types in one query (pyatv: five questions, echoed in the reply), and
 * a reply without the TXT tells them no features (pyatv then finds no AirPlay 2 and no video).
 */
const LEGACY_SIZE_FOR_TXT = 1440;
/** RFC 6762 17: a multicast DNS message may be up to 9000 bytes. */
const MDNS_SIZE_MAX = 9000;
/** RFC 6891 6.1.2: the OPT pseudo-record carries the sender's UDP payload size in its class. */
const OPT_TYPE = 41;
/** RFC 1035 4.1.1 header flags. */
const QR = 0x8000;
const AA = 0x0400;
const TC = 0x0200;
const OPCODE_MASK = 0x7800;
const RCODE_MASK = 0x000f;
/** RFC 6763 9: the name whose PTR records list the service types. */
const SERVICES_ENUMERATION = ['_services', '_dns-sd', '_udp', 'local'];
/** RFC 1035 4.1.4: a compression pointer's top two bits; a bound on pointers followed. */
const POINTER = 0xc0;
const POINTER_HOPS_MAX = 32;
/** RFC 1035 4.1.4: a pointer carries a 14-bit offset, so only names that start below can be pointed at. */
const POINTER_OFFSET_MAX = 0x3fff;
/** Label offsets kept as compression targets; a reply has a few dozen, later ones stay uncompressed. */
const LABEL_TARGETS_MAX = 128;

/** One published service as the answers carry it. */
export interface ZoneService {
  /** The instance label as published, e.g. `5855CA1AE288@Living Room`. */
  readonly instance: string;
  /** `_vendorplay._tcp` */
  readonly type: string;
  readonly port: number;
  /** The TXT RDATA (RFC 6763 6), as `txtBytes` makes it. */
  readonly txt: Uint8Array;
  /** The host label its SRV record points at (`Living-Room` for `Living-Room.local`). */
  readonly host: string;
}

/** What the receiver publishes, seen from one interface. */
export interface Zone {
  readonly services: readonly ZoneService[];
  /** The IPv4 address of the interface the query came in on (4 bytes), for A records. */
  readonly ipv4: Uint8Array;
}

export interface QueryOrigin {
  /** The UDP source port of the query: anything but 5353 makes it a legacy query (6.7). */
  readonly port: number;
}

export interface Question {
  readonly name: string[];
  readonly type: number;
  /** The class without the QU bit. */
  readonly class: number;
  readonly unicastResponse: boolean;
}

/** A query read from the wire: the header fields that matter here and the questions. */
export interface Query {
  readonly id: number;
  readonly flags: number;
  readonly questions: Question[];
  /** The UDP payload size the querier takes (EDNS0 OPT in the additional section), if it says. */
  readonly udpPayloadSize: number | undefined;
}

interface ResourceRecord {
  /** The owner name, uncompressed (RFC 1035 3.1). */
  readonly name: Uint8Array;
  readonly type: number;
  readonly unique: boolean;
  readonly ttl: number;
  /** The data with any name in it uncompressed; the writer compresses that name. */
  readonly rdata: Uint8Array;
  /** Where the name in `rdata` starts (PTR 0, SRV 6), -1 for data without one (TXT, A). */
  readonly rdataNameAt: number;
}

/** An IPv4 address of one of the receiver's interfaces and its netmask, as dotted quads. */
export interface LinkAddress {
  readonly address: string;
  readonly netmask: string;
}

/**
 * Whether a query that came by unicast from `source` may be answered (RFC 6762 5.5: "responders
 * SHOULD check that the source address in the query packet matches the local subnet for that
 * link ... and silently ignore the packet if not"; 11): it is loopback (127/8) or on the subnet
 * of one of `links`. A query from elsewhere crossed a router, and answering it makes the receiver
 * a reflector for anyone who can reach it (a query of about 60 bytes draws up to 1440). An
 * IPv4-mapped IPv6 source (`::ffff:192.0.2.7`) is read as its IPv4 address; any other IPv6
 * source, or text that is no address, is not on link.
 */
export function isOnLink(source: string, links: readonly LinkAddress[]): boolean {
  const from = ipv4Number(source.toLowerCase().startsWith('::ffff:') ? source.slice(7) : source);
  if (from === undefined) return false;
  if (from >>> 24 === 127) return true;
  for (const link of links) {
    const address = ipv4Number(link.address);
    const mask = ipv4Number(link.netmask);
    if (address !== undefined && mask !== undefined && ((from ^ address) & mask) >>> 0 === 0) return true;
  }
  return false;
}

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or undefined when it is not one. */
function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/**
 * Reads a DNS message's header, questions and any OPT record (RFC 1035 4.1, RFC 6891). Throws a
 * DiscoveryError naming the offset for a message that is cut short or whose names loop.
 */
export function readQuery(message: Uint8Array): Query {
  if (message.length < 12) throw new DiscoveryError(`dns: message of ${message.length} bytes is shorter than its 12-byte header`);
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const id = view.getUint16(0);
  const flags = view.getUint16(2);
  const qdcount = view.getUint16(4);
  const ancount = view.getUint16(6);
  const nscount = view.getUint16(8);
  const arcount = view.getUint16(10);
  let offset = 12;
  const questions: Question[] = [];
  for (let i = 0; i < qdcount; i++) {
    const name = readName(message, offset);
    offset = name.end;
    need(message, offset, 4, 'question');
    const qclass = view.getUint16(offset + 2);
    questions.push({ name: name.labels, type: view.getUint16(offset), class: qclass & ~QU_BIT, unicastResponse: (qclass & QU_BIT) !== 0 });
    offset += 4;
  }
  let udpPayloadSize: number | undefined;
  // Known answers and authorities are stepped over; the OPT record, if any, is an additional.
  for (let i = 0; i < ancount + nscount + arcount; i++) {
    const name = readName(message, offset);
    offset = name.end;
    need(message, offset, 10, 'record');
    const type = view.getUint16(offset);
    const rdlength = view.getUint16(offset + 8);
    if (type === OPT_TYPE && i >= ancount + nscount) udpPayloadSize = view.getUint16(offset + 2);
    offset += 10 + rdlength;
    need(message, offset, 0, 'record data');
  }
  return { id, flags, questions, udpPayloadSize };
}

function need(message: Uint8Array, offset: number, length: number, what: string): void {
  if (offset + length > message.length) throw new DiscoveryError(`dns: ${what} at offset ${offset} runs past the ${message.length}-byte message`);
}

/** RFC 1035 4.1.2 and 4.1.4: a name as labels, following compression pointers (bounded). */
function readName(message: Uint8Array, start: number): { labels: string[]; end: number } {
  const labels: string[] = [];
  let offset = start;
  let end = -1;
  for (let hops = 0; ; ) {
    need(message, offset, 1, 'name');
    const length = message[offset];
    if ((length & POINTER) === POINTER) {
      need(message, offset, 2, 'name pointer');
      if (end < 0) end = offset + 2;
      if (++hops > POINTER_HOPS_MAX) throw new DiscoveryError(`dns: name at offset ${start} loops through compression pointers`);
      offset = ((length & ~POINTER) << 8) | message[offset + 1];
      continue;
    }
    if (length & POINTER) throw new DiscoveryError(`dns: label type 0x${length.toString(16)} at offset ${offset} is not defined`);
    if (length === 0) return { labels, end: end < 0 ? offset + 1 : end };
    need(message, offset + 1, length, 'label');
    // Not fatal: a label that is not UTF-8 matches none of ours, and that is all that matters.
    labels.push(utf8Decode(message.subarray(offset + 1, offset + 1 + length), false));
    offset += 1 + length;
  }
}

/**
 * The reply to a query that came to the receiver's own address, or undefined when there is
 * nothing to say (a response, another opcode, a question about names that are not ours).
 *
 * A legacy query (source port not 5353, RFC 6762 6.7) gets its ID and questions echoed, no
 * cache-flush bits and TTLs of at most 10 s, in at most 512 bytes (or the size its OPT record
 * gives) unless a TXT record would be left out: then in up to 1440 (LEGACY_SIZE_FOR_TXT), as
 * Apple's responder answers scanning senders. Names are compressed; additionals that do not fit
 * are left out (TXT kept before SRV, SRV before the address), and the TC bit tells when an
 * answer had to go (RFC 6762 18.5). With
 * the desktop receiver's 380-byte TXT record a PTR query gets PTR, TXT, SRV and A while the
 * instance and host labels add up to at most 28 bytes (31 for `_airplay`, whose question is 3
 * bytes shorter than `_vendorplay`'s), PTR, TXT and SRV up to 44 (47), and PTR and TXT beyond.
 * A query from port 5353 gets a multicast DNS response (ID 0, no questions: RFC 6762 6, 18.1)
 * up to 9000 bytes. A legacy query whose questions,
 * repeated, would already exceed 1440 bytes gets no reply: one over the size is one the querier
 * may not take (RFC 1035 4.2.1). Throws a DiscoveryError for a message that cannot be read.
 */
export function answerQuery(message: Uint8Array, zone: Zone, origin: QueryOrigin): Uint8Array | undefined {
  const query = readQuery(message);
  // RFC 6762 18.2, 18.3, 18.11: only standard queries without an error code are answered.
  if (query.flags & QR || (query.flags & OPCODE_MASK) !== 0 || (query.flags & RCODE_MASK) !== 0) return undefined;
  const legacy = origin.port !== MDNS_PORT;
  const answers: ResourceRecord[] = [];
  const additionals: ResourceRecord[] = [];
  for (const question of query.questions) {
    if (question.class !== DNS_CLASS_IN && question.class !== DNS_TYPES.ANY) continue;
    answerQuestion(question, zone, answers, additionals);
  }
  if (answers.length === 0) return undefined;
  const extra = additionals.filter((record) => !answers.some((answer) => sameRecord(answer, record))).sort(byAdditionalOrder);
  const sizeMax = legacy ? Math.min(MDNS_SIZE_MAX, Math.max(LEGACY_SIZE, query.udpPayloadSize ?? 0)) : MDNS_SIZE_MAX;
  const reply = (size: number) =>
    writeResponse({
      id: legacy ? query.id : 0,
      questions: legacy ? query.questions : [],
      answers: dedupe(answers),
      additionals: dedupe(extra),
      legacy,
      sizeMax: size,
    });
  const written = reply(sizeMax);
  if (legacy && sizeMax < LEGACY_SIZE_FOR_TXT && (!written || written.dropped.some((record) => record.type === DNS_TYPES.TXT))) {
    return reply(LEGACY_SIZE_FOR_TXT)?.bytes ?? written?.bytes;
  }
  return written?.bytes;
}

function answerQuestion(question: Question, zone: Zone, answers: ResourceRecord[], additionals: ResourceRecord[]): void {
  const { name, type } = question;
  const any = type === DNS_TYPES.ANY;
  if (sameName(name, SERVICES_ENUMERATION) && (type === DNS_TYPES.PTR || any)) {
    for (const service of zone.services) answers.push(ptr(SERVICES_ENUMERATION, serviceLabels(service.type)));
    return;
  }
  for (const service of zone.services) {
    const instance = instanceLabels(service.instance, service.type);
    if (sameName(name, serviceLabels(service.type)) && (type === DNS_TYPES.PTR || any)) {
      // RFC 6763 12.1: a PTR answer carries the instance's TXT, SRV and address as additionals.
      answers.push(ptr(serviceLabels(service.type), instance));
      additionals.push(txt(service), srv(service), a(service.host, zone.ipv4));
    } else if (sameName(name, instance)) {
      if (type === DNS_TYPES.SRV || any) {
        answers.push(srv(service));
        additionals.push(a(service.host, zone.ipv4));
      }
      if (type === DNS_TYPES.TXT || any) answers.push(txt(service));
    } else if (sameName(name, hostLabels(service.host)) && (type === DNS_TYPES.A || any)) {
      answers.push(a(service.host, zone.ipv4));
    }
  }
}

function ptr(owner: readonly string[], target: readonly string[]): ResourceRecord {
  // RFC 6762 18.14: the name in a PTR's data is compressed like any other.
  return { name: nameBytes(owner), type: DNS_TYPES.PTR, unique: false, ttl: SHARED_TTL, rdata: nameBytes(target), rdataNameAt: 0 };
}

function srv(service: ZoneService): ResourceRecord {
  const target = nameBytes(hostLabels(service.host));
  const rdata = new Uint8Array(6 + target.length);
  // RFC 2782: priority 0, weight 0, port, target. RFC 6762 18.14 lists SRV among the types whose
  // target is compressed in multicast DNS messages; avahi compresses it in legacy replies too,
  // and python zeroconf reads it (test/oracle). It saves 5 bytes of a 512-byte reply.
  writeU16BE(rdata, 4, service.port);
  rdata.set(target, 6);
  return { name: nameBytes(instanceLabels(service.instance, service.type)), type: DNS_TYPES.SRV, unique: true, ttl: HOST_TTL, rdata, rdataNameAt: 6 };
}

function txt(service: ZoneService): ResourceRecord {
  return { name: nameBytes(instanceLabels(service.instance, service.type)), type: DNS_TYPES.TXT, unique: true, ttl: SHARED_TTL, rdata: service.txt, rdataNameAt: -1 };
}

function a(host: string, ipv4: Uint8Array): ResourceRecord {
  return { name: nameBytes(hostLabels(host)), type: DNS_TYPES.A, unique: true, ttl: HOST_TTL, rdata: ipv4, rdataNameAt: -1 };
}

function sameRecord(x: ResourceRecord, y: ResourceRecord): boolean {
  return x.type === y.type && sameWireName(x.name, y.name) && sameBytes(x.rdata, y.rdata);
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** Two uncompressed names, compared as RFC 6762 16 says (ASCII letters case-insensitive). */
function sameWireName(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (asciiLower(x[i]) !== asciiLower(y[i])) return false;
  return true;
}

function asciiLower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

function dedupe(records: ResourceRecord[]): ResourceRecord[] {
  return records.filter((record, index) => records.findIndex((other) => sameRecord(other, record)) === index);
}

/**
 * What a querier needs most comes first when a legacy reply has room for only some additionals:
 * the TXT (a sender reads the receiver's features and keys there: without it pyatv falls back to
 * legacy pairing), then the SRV (its port), then the address, which the querier already has
 * (it sent the query to it). avahi, asked the same, answered PTR, TXT, SRV and AAAA in 508 bytes.
 */
const ADDITIONAL_ORDER: readonly number[] = [DNS_TYPES.TXT, DNS_TYPES.SRV, DNS_TYPES.A];

function byAdditionalOrder(x: ResourceRecord, y: ResourceRecord): number {
  return ADDITIONAL_ORDER.indexOf(x.type) - ADDITIONAL_ORDER.indexOf(y.type);
}

/** RFC 1035 3.1: labels, each length-prefixed, then a zero byte (the uncompressed form). */
function nameBytes(labels: readonly string[]): Uint8Array {
  const parts = labels.map((label) => utf8Encode(label));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + 1 + part.length, 1));
  let offset = 0;
  for (const part of parts) {
    if (part.length === 0 || part.length > 63) throw new DiscoveryError(`dns: label of ${part.length} bytes cannot be written (1 to 63)`);
    out[offset] = part.length;
    out.set(part, offset + 1);
    offset += 1 + part.length;
  }
  return out;
}

/**
 * Writes one DNS message into a buffer of at most the size the querier takes, compressing names
 * (RFC 1035 4.1.4, RFC 6762 18.14): a name, or its tail from any label on, that was written
 * before becomes a two-byte pointer to it, matched as RFC 6762 16 compares names (ASCII letters
 * case-insensitive). A record that does not fit is taken back whole (its bytes and the names it
 * offered for compression), so the caller decides what to leave out. Allocates the buffer and a
 * small table of label offsets, nothing per name or per byte.
 */
class MessageWriter {
  readonly bytes: Uint8Array;
  offset = 12;
  /** Where labels already written start: the targets a later name may point at. */
  private readonly labels = new Uint16Array(LABEL_TARGETS_MAX);
  private labelCount = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
  }

  /** A question (RFC 1035 4.1.2); false, and nothing written, when it does not fit. */
  question(name: Uint8Array, type: number, qclass: number): boolean {
    const offset = this.offset;
    const labelCount = this.labelCount;
    if (!this.name(name, 0) || !this.room(4)) return this.undo(offset, labelCount);
    writeU16BE(this.bytes, this.offset, type);
    writeU16BE(this.bytes, this.offset + 2, qclass);
    this.offset += 4;
    return true;
  }

  /** A resource record (RFC 1035 4.1.3); false, and nothing written, when it does not fit. */
  record(record: ResourceRecord, legacy: boolean): boolean {
    const offset = this.offset;
    const labelCount = this.labelCount;
    if (!this.name(record.name, 0) || !this.room(10)) return this.undo(offset, labelCount);
    const { bytes } = this;
    writeU16BE(bytes, this.offset, record.type);
    // RFC 6762 6.7: no cache-flush bit in legacy replies; 10.2: set on unique records otherwise.
    writeU16BE(bytes, this.offset + 2, DNS_CLASS_IN | (record.unique && !legacy ? CACHE_FLUSH_BIT : 0));
    writeU32BE(bytes, this.offset + 4, legacy ? Math.min(record.ttl, LEGACY_TTL_MAX) : record.ttl);
    const rdlengthAt = this.offset + 8;
    this.offset += 10;
    const rdataStart = this.offset;
    const { rdata, rdataNameAt } = record;
    const fixed = rdataNameAt < 0 ? rdata.length : rdataNameAt;
    if (!this.room(fixed)) return this.undo(offset, labelCount);
    for (let i = 0; i < fixed; i++) bytes[this.offset + i] = rdata[i];
    this.offset += fixed;
    if (rdataNameAt >= 0 && !this.name(rdata, rdataNameAt)) return this.undo(offset, labelCount);
    writeU16BE(bytes, rdlengthAt, this.offset - rdataStart);
    return true;
  }

  /** The header (RFC 1035 4.1.1), last, when the counts are known; the message as a view. */
  finish(id: number, flags: number, questions: number, answers: number, additionals: number): Uint8Array {
    const { bytes } = this;
    writeU16BE(bytes, 0, id);
    writeU16BE(bytes, 2, flags);
    writeU16BE(bytes, 4, questions);
    writeU16BE(bytes, 6, answers);
    writeU16BE(bytes, 8, 0);
    writeU16BE(bytes, 10, additionals);
    return bytes.subarray(0, this.offset);
  }

  private room(length: number): boolean {
    return this.offset + length <= this.bytes.length;
  }

  private undo(offset: number, labelCount: number): false {
    this.offset = offset;
    this.labelCount = labelCount;
    return false;
  }

  /**
   * The uncompressed name in `wire` from `start`, written with its longest tail already in the
   * message replaced by a pointer. Only labels of earlier names are pointed at: those of this
   * name are offered to the names after it once the whole name is written.
   */
  private name(wire: Uint8Array, start: number): boolean {
    const earlier = this.labelCount;
    for (let at = start; wire[at] !== 0; at += 1 + wire[at]) {
      const target = this.find(wire, at, earlier);
      if (target >= 0) {
        if (!this.room(2)) return false;
        this.bytes[this.offset] = POINTER | (target >> 8);
        this.bytes[this.offset + 1] = target & 0xff;
        this.offset += 2;
        return true;
      }
      const length = 1 + wire[at];
      if (!this.room(length)) return false;
      // RFC 1035 4.1.4: a pointer holds 14 bits of offset; labels beyond cannot be targets.
      if (this.offset <= POINTER_OFFSET_MAX && this.labelCount < LABEL_TARGETS_MAX) this.labels[this.labelCount++] = this.offset;
      for (let i = 0; i < length; i++) this.bytes[this.offset + i] = wire[at + i];
      this.offset += length;
    }
    if (!this.room(1)) return false;
    this.bytes[this.offset++] = 0;
    return true;
  }

  /** The offset of a name in the message equal to `wire` from `at`, or -1. */
  private find(wire: Uint8Array, at: number, count: number): number {
    for (let i = 0; i < count; i++) if (this.sameNameAt(this.labels[i], wire, at)) return this.labels[i];
    return -1;
  }

  /** Whether the name at `offset` of the message (pointers followed) equals `wire` from `at`. */
  private sameNameAt(offset: number, wire: Uint8Array, at: number): boolean {
    const { bytes } = this;
    for (let hops = 0; ; ) {
      const length = bytes[offset];
      if ((length & POINTER) === POINTER) {
        // Our own pointers only lead back to complete names; the bound is for safety alone.
        if (++hops > POINTER_HOPS_MAX) return false;
        offset = ((length & ~POINTER) << 8) | bytes[offset + 1];
        continue;
      }
      if (length !== wire[at]) return false;
      if (length === 0) return true;
      for (let i = 1; i <= length; i++) if (asciiLower(bytes[offset + i]) !== asciiLower(wire[at + i])) return false;
      offset += 1 + length;
      at += 1 + length;
    }
  }
}

/**
 * The reply in at most `sizeMax` bytes. The questions must all fit (a legacy reply repeats them,
 * RFC 6762 6.7), else there is no reply. The answers follow in order; one that does not fit ends
 * the answers and sets TC, which in a legacy reply means what it means in unicast DNS (RFC 6762
 * 18.5): the message lacks records the question asked for. Additionals that do not fit are left
 * out and the next ones tried, without TC (RFC 2181 9: TC is for the answer, not for extra
 * information).
 */
function writeResponse(response: {
  id: number;
  questions: readonly Question[];
  answers: readonly ResourceRecord[];
  additionals: readonly ResourceRecord[];
  legacy: boolean;
  sizeMax: number;
}): { readonly bytes: Uint8Array; readonly dropped: readonly ResourceRecord[] } | undefined {
  const questions = response.questions.map((question) => nameBytes(question.name));
  // The buffer is the smaller of the size allowed and the size with no compression at all.
  let uncompressed = 12;
  for (const name of questions) uncompressed += name.length + 4;
  for (const record of [...response.answers, ...response.additionals]) uncompressed += record.name.length + 10 + record.rdata.length;
  const writer = new MessageWriter(Math.min(response.sizeMax, uncompressed));
  for (let i = 0; i < questions.length; i++) {
    if (!writer.question(questions[i], response.questions[i].type, response.questions[i].class)) return undefined;
  }
  let truncated = false;
  let answers = 0;
  const dropped: ResourceRecord[] = [];
  for (const record of response.answers) {
    if (truncated || !writer.record(record, response.legacy)) {
      truncated = true;
      dropped.push(record);
      continue;
    }
    answers++;
  }
  let additionals = 0;
  for (const record of response.additionals) {
    if (!truncated && writer.record(record, response.legacy)) additionals++;
    else dropped.push(record);
  }
  return { bytes: writer.finish(response.id, QR | AA | (truncated ? TC : 0), questions.length, answers, additionals), dropped };
}
