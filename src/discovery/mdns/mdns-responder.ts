// A multicast DNS responder (RFC 6762) for DNS-SD services (RFC 6763), sans-I/O: datagrams and
// time in, datagrams, events and one deadline out (pollTransmit, pollEvent, pollTimeout,
// handleTimeout), in the shape of the receiver's connection. No sockets, no clocks.
//
// It claims one host name, then each service instance name: three probes 250 ms apart (8.1),
// a conflict renames (`Living-Room-2`, `Living Room (2)`), a lost simultaneous probe waits a
// second (8.2); then two announcements a second apart (8.3). It answers questions about the
// service types, the instances, the host name and the service-type enumeration (RFC 6763 9),
// multicast or unicast as asked (5.4, 6.7 legacy), without the answers the querier already knows
// (7.1), each record multicast at most once a second (6); an address question about a name that
// has no such record gets an NSEC and the records the name does have (6.1, 6.2); a service's
// announcements carry the host's addresses (RFC 6763 12.2); it announces a changed TXT again
// (8.4) and says goodbye with TTL 0 (10.1).

import type { RandomSource, ServiceRecord } from '../../platform';
import { DiscoveryError } from '../error';
import { hostLabel, hostLabels, instanceLabels, LABEL_MAX, parseServiceType, sameName, serviceLabels } from '../dnssd-names';
import { DNS_TYPES } from '../mdns-unicast';
import { txtBytes } from '../txt-bytes';
import { utf8Encode } from '../../bytes';
import { DNS_CLASS, DNS_FLAGS, DNS_OTHER_TYPES, MessageWriter, readMessage, type DnsMessage, type DnsQuestion, type DnsRecord } from './dns-message';
import { MDNS_GROUP, MDNS_LIMITS, MDNS_TIMING } from './mdns-limits';
import { addressNsec, addressRecords, compareRecordSets, sameData, serviceRecords, SERVICES_ENUMERATION, type HostAddresses, type ServiceData, type ServiceRecords } from './mdns-records';

/** A datagram to send: to the group (224.0.0.251:5353) or to one querier. */
export interface MdnsDatagram {
  readonly bytes: Uint8Array;
  readonly address: string;
  readonly port: number;
}

/** What happened, for the owner's log. */
export type MdnsEvent =
  | { readonly kind: 'host-claimed'; readonly host: string }
  | { readonly kind: 'announced'; readonly instance: string; readonly type: string; readonly port: number; readonly host: string }
  | { readonly kind: 'reannounced'; readonly instance: string; readonly type: string }
  | { readonly kind: 'renamed'; readonly from: string; readonly to: string; readonly type?: string }
  | { readonly kind: 'gave-up'; readonly name: string; readonly type?: string }
  | { readonly kind: 'withdrawn'; readonly instance: string; readonly type: string }
  | { readonly kind: 'malformed'; readonly address: string; readonly port: number; readonly reason: string }
  | { readonly kind: 'not-sent'; readonly reason: string };

export interface MdnsResponderOptions {
  /** The receiver's name; the host label is made from it (`Living Room` -> `Living-Room.local`). */
  readonly name: string;
  readonly addresses: HostAddresses;
  readonly random: RandomSource;
}

/** Where a name stands (RFC 6762 8): each state carries what it needs. */
type Phase =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'probing'; readonly sent: number; readonly at: number }
  | { readonly kind: 'announcing'; readonly sent: number; readonly at: number }
  | { readonly kind: 'announced' }
  | { readonly kind: 'failed' };

/** A unique name this responder claims: the host name or a service instance name. */
interface Claim {
  /** The name as asked for; renames number it. */
  readonly base: string;
  current: string;
  renames: number;
  phase: Phase;
}

interface ServiceEntry extends Claim {
  readonly type: string;
  port: number;
  txt: Uint8Array;
  /** The instance name of the first announcement made (said once in the events), if any. */
  announcedAs?: string;
}

const key = (record: Pick<ServiceRecord, 'name' | 'type'>): string => `${record.name}\u0000${record.type}`;

export class MdnsResponder {
  private readonly host: Claim;
  private addresses: HostAddresses;
  /** By the name and type asked for (the instance name may have been numbered since). */
  private readonly services = new Map<string, ServiceEntry>();
  private readonly transmits: MdnsDatagram[] = [];
  private readonly events: MdnsEvent[] = [];
  /** A multicast answer waiting for its delay (RFC 6762 6: shared records spread out). */
  private delayed: { at: number; answers: DnsRecord[]; additionals: DnsRecord[] } | undefined;
  /**
   * When each record this responder holds now (by its key) was last multicast: the rate limit (6),
   * unicast answers to QU questions (5.4) and our own echoes. Only records still held: one
   * replaced (the TXT changes with every activity change, spec 2.1 gid) or withdrawn moves to
   * `retired` (retireReplaced), or every version of the TXT would be kept for as long as it runs.
   */
  private readonly multicastAt = new Map<string, number>();
  /**
   * Records multicast and no longer held, by key, with when they last went out: their echo
   * (multicast loopback) may still be on its way and is no conflict. At most
   * MDNS_LIMITS.retiredRecordsMax, each for MDNS_LIMITS.retiredRecordMs.
   */
  private readonly retired = new Map<string, number>();
  /**
   * Keys made once per record object (a message's answers are looked up for each question).
   * Per responder, not per module: Moddable preloads this module, and XS makes a WeakMap made at
   * preload read-only ("read-only WeakMap instance" on the first set, aborting the app).
   */
  private readonly recordKeys = new WeakMap<DnsRecord, string>();
  /** Times of recent conflicts (RFC 6762 8.1: back off after 15 in 10 s). */
  private conflicts: number[] = [];
  private stopped = false;

  constructor(private readonly options: MdnsResponderOptions) {
    const label = hostLabel(options.name);
    this.host = { base: label, current: label, renames: 0, phase: { kind: 'waiting' } };
    this.addresses = options.addresses;
  }

  /** The host name claimed or being claimed, e.g. `Living-Room` (of `Living-Room.local`). */
  get hostName(): string {
    return this.host.current;
  }

  /** The instance name a service is published under (numbered after a conflict), if published. */
  instanceName(record: Pick<ServiceRecord, 'name' | 'type'>): string | undefined {
    return this.services.get(key(record))?.current;
  }

  /**
   * Starts claiming a service's instance name (after the host name). Throws a DiscoveryError for
   * a record DNS-SD cannot carry (a bad type, an instance name over 63 bytes, a bad TXT record).
   */
  publish(record: ServiceRecord, now: number): void {
    if (this.stopped) throw new DiscoveryError('mdns: the responder is stopped');
    if (this.services.has(key(record))) return this.update(record, now);
    if (!parseServiceType(record.type)) throw new DiscoveryError(`mdns: service type "${record.type}" is not _name._tcp or _name._udp (RFC 6763 7)`);
    const length = utf8Encode(record.name).length;
    if (length === 0 || length > LABEL_MAX) throw new DiscoveryError(`mdns: instance name "${record.name}" is ${length} bytes; DNS-SD takes 1 to ${LABEL_MAX}`);
    const txt = txtBytes(record.txt);
    this.services.set(key(record), { base: record.name, current: record.name, renames: 0, phase: { kind: 'waiting' }, type: record.type, port: record.port, txt });
    if (this.host.phase.kind === 'waiting') this.host.phase = this.firstProbe(now);
    else if (this.answerable(this.host)) this.startServices(now);
  }

  /** A new TXT record (or port) for a published service; announced again once it is claimed. */
  update(record: ServiceRecord, now: number): void {
    const entry = this.services.get(key(record));
    if (!entry) return this.publish(record, now);
    const txt = txtBytes(record.txt);
    if (record.port === entry.port && sameBytes(txt, entry.txt)) return;
    if (record.port !== entry.port && this.answerable(entry)) {
      // RFC 6762 10.1, 8.4: the old SRV goes with a goodbye; the new one is announced below.
      this.send(this.multicast([serviceRecords(this.serviceData(entry), this.host.current).srv], now, 0));
    }
    entry.txt = txt;
    entry.port = record.port;
    this.retireReplaced(now);
    if (this.answerable(entry)) {
      entry.phase = { kind: 'announcing', sent: 0, at: now };
      this.event({ kind: 'reannounced', instance: entry.current, type: entry.type });
    }
  }

  /** Goodbye (TTL 0) for a service that was announced, and it is forgotten. */
  withdraw(record: Pick<ServiceRecord, 'name' | 'type'>, now: number): void {
    const entry = this.services.get(key(record));
    if (!entry) return;
    this.services.delete(key(record));
    this.retireReplaced(now);
    if (!this.answerable(entry)) return;
    this.send(this.multicast(this.goodbyeRecords(entry), now, 0));
    this.event({ kind: 'withdrawn', instance: entry.current, type: entry.type });
  }

  /** The host's addresses changed: announced again (unique records, so caches take the new set). */
  setAddresses(addresses: HostAddresses, now: number): void {
    this.addresses = addresses;
    this.retireReplaced(now);
    if (this.answerable(this.host)) this.host.phase = { kind: 'announcing', sent: 0, at: now };
  }

  /** Goodbye for every announced service and the host's addresses; nothing is sent after. */
  stop(now: number): void {
    if (this.stopped) return;
    const records: DnsRecord[] = [];
    for (const entry of this.services.values()) if (this.answerable(entry)) records.push(...this.goodbyeRecords(entry));
    if (this.answerable(this.host)) records.push(...addressRecords(this.host.current, this.addresses));
    if (records.length > 0) this.send(this.multicast(records, now, 0));
    this.services.clear();
    this.delayed = undefined;
    this.multicastAt.clear();
    this.retired.clear();
    this.stopped = true;
  }

  /** The next datagram to send, if any. */
  pollTransmit(): MdnsDatagram | undefined {
    return this.transmits.shift();
  }

  pollEvent(): MdnsEvent | undefined {
    return this.events.shift();
  }

  /** The next deadline (probe, announcement, delayed answer), if any. */
  pollTimeout(): number | undefined {
    if (this.stopped) return undefined;
    let next = this.delayed?.at;
    for (const claim of [this.host, ...this.services.values()]) {
      const { phase } = claim;
      if ((phase.kind === 'probing' || phase.kind === 'announcing') && (next === undefined || phase.at < next)) next = phase.at;
    }
    return next;
  }

  handleTimeout(now: number): void {
    if (this.stopped) return;
    // A finished probe may make an announcement due at once: run until nothing is due.
    for (let progressed = true; progressed; ) {
      progressed = false;
      for (const claim of [this.host, ...this.services.values()]) {
        const { phase } = claim;
        if ((phase.kind !== 'probing' && phase.kind !== 'announcing') || phase.at > now) continue;
        progressed = true;
        if (phase.kind === 'probing') this.probeStep(claim, phase.sent, now);
        else this.announceStep(claim, phase.sent, now);
      }
    }
    if (this.delayed && this.delayed.at <= now) {
      const held = this.heldRecords();
      const answers = currentVersions(this.delayed.answers, held);
      const additionals = currentVersions(this.delayed.additionals, held);
      this.delayed = undefined;
      if (answers.length > 0) this.send(this.multicast(answers, now, undefined, additionalsFor(answers, additionals)));
    }
  }

  /** A datagram from `address`:`port`. Malformed ones become an event; nothing escapes. */
  receive(bytes: Uint8Array, address: string, port: number, now: number): void {
    if (this.stopped) return;
    const read = readMessage(bytes);
    if (!read.ok) {
      this.event({ kind: 'malformed', address, port, reason: read.reason });
      return;
    }
    const { message } = read;
    // RFC 6762 18.3, 18.11: other opcodes and nonzero response codes are ignored.
    if (message.flags & (DNS_FLAGS.OPCODE_MASK | DNS_FLAGS.RCODE_MASK)) return;
    if (message.flags & DNS_FLAGS.QR) this.checkConflicts(message, now);
    else this.answer(message, address, port, now);
  }

  // --- claiming names (RFC 6762 8, 9) ---

  private probeStep(claim: Claim, sent: number, now: number): void {
    if (sent < MDNS_TIMING.probeCount) {
      // 8.1: the first probe asks for a unicast reply (QU), the others do not.
      const question: DnsQuestion = { name: this.claimName(claim), type: DNS_TYPES.ANY, class: DNS_CLASS.IN, unicastResponse: sent === 0 };
      const writer = new MessageWriter(MDNS_LIMITS.packetBytesMax);
      writer.question(question);
      for (const record of this.proposed(claim)) if (!writer.record('authority', record)) break;
      this.queue({ bytes: writer.finish(0, 0), address: MDNS_GROUP.ipv4, port: MDNS_GROUP.port });
      claim.phase = { kind: 'probing', sent: sent + 1, at: now + MDNS_TIMING.probeIntervalMs };
      return;
    }
    claim.phase = { kind: 'announcing', sent: 0, at: now };
    if (claim === this.host) {
      this.event({ kind: 'host-claimed', host: `${claim.current}.local` });
      this.startServices(now);
      // A new host name changes every SRV target: announced services say so again.
      for (const entry of this.services.values()) if (entry.phase.kind === 'announced') entry.phase = { kind: 'announcing', sent: 0, at: now };
    }
  }

  private announceStep(claim: Claim, sent: number, now: number): void {
    const service = claim === this.host ? undefined : (claim as ServiceEntry);
    // RFC 6763 12.2, RFC 6762 6.2: the host's addresses go with a service's SRV, as Apple's
    // responder announces them. A TXT change announces the SRV again, and a querier that
    // refreshes no address record of its own (python-zeroconf) would otherwise keep the SRV
    // and TXT while the addresses, heard only when the host name was claimed, expire.
    const additionals = service ? addressRecords(this.host.current, this.addresses) : [];
    this.send(this.multicast(service ? this.allRecords(service) : this.proposed(claim), now, undefined, additionals));
    if (service && service.announcedAs !== service.current) {
      service.announcedAs = service.current;
      this.event({ kind: 'announced', instance: service.current, type: service.type, port: service.port, host: `${this.host.current}.local` });
    }
    claim.phase = sent + 1 < MDNS_TIMING.announceCount ? { kind: 'announcing', sent: sent + 1, at: now + MDNS_TIMING.announceIntervalMs } : { kind: 'announced' };
  }

  private startServices(now: number): void {
    for (const entry of this.services.values()) if (entry.phase.kind === 'waiting') entry.phase = this.firstProbe(now);
  }

  private firstProbe(now: number): Phase {
    return { kind: 'probing', sent: 0, at: now + this.randomDelay(0, MDNS_TIMING.probeStartMaxMs) };
  }

  /** A response: any record for a name we claim that is not ours is a conflict (8.1, 9). */
  private checkConflicts(message: DnsMessage, now: number): void {
    const claims = [this.host, ...this.services.values()].map((claim) => ({ claim, name: this.claimName(claim), ours: this.proposed(claim) }));
    for (const record of [...message.answers, ...message.additionals]) {
      if (record.ttl === 0 || this.ownEcho(record, now)) continue;
      for (const { claim, name, ours } of claims) {
        if (!sameName(record.name, name) || ours.some((own) => sameData(own, record))) continue;
        if (claim.phase.kind === 'probing') this.rename(claim, now);
        // 9: for an announced name only the same type with other data conflicts; probe again.
        else if (this.answerable(claim) && ours.some((own) => own.type === record.type)) this.reprobe(claim, now);
      }
    }
  }

  /** 8.2: another host probes the name we probe; the lesser set of records probes again in a second. */
  private tieBreak(message: DnsMessage, now: number): void {
    for (const claim of [this.host, ...this.services.values()]) {
      if (claim.phase.kind !== 'probing') continue;
      const name = this.claimName(claim);
      const theirs = message.authorities.filter((record) => sameName(record.name, name));
      if (theirs.length === 0 || compareRecordSets(this.proposed(claim), theirs) >= 0) continue;
      claim.phase = { kind: 'probing', sent: 0, at: now + MDNS_TIMING.probeDeferMs };
    }
  }

  private reprobe(claim: Claim, now: number): void {
    this.conflicts = this.conflicts.filter((at) => at > now - MDNS_LIMITS.conflictWindowMs);
    this.conflicts.push(now);
    const wait = this.conflicts.length >= MDNS_LIMITS.conflictsBeforeBackoff ? MDNS_LIMITS.conflictBackoffMs : 0;
    claim.phase = { kind: 'probing', sent: 0, at: now + wait + this.randomDelay(0, MDNS_TIMING.probeStartMaxMs) };
  }

  /** 8.1 conflict while probing: the next name (`Name (2)`, `Host-2`), probed from the start. */
  private rename(claim: Claim, now: number): void {
    const from = claim.current;
    const type = claim === this.host ? undefined : (claim as ServiceEntry).type;
    if (claim.renames >= MDNS_LIMITS.renamesMax) {
      claim.phase = { kind: 'failed' };
      this.event({ kind: 'gave-up', name: from, type });
      return;
    }
    claim.renames++;
    claim.current = numbered(claim.base, claim.renames + 1, claim === this.host ? '-' : ' (');
    this.retireReplaced(now);
    this.event({ kind: 'renamed', from, to: claim.current, type });
    this.reprobe(claim, now);
  }

  // --- answering (RFC 6762 5, 6, 7; RFC 6763 9, 12) ---

  private answer(message: DnsMessage, address: string, port: number, now: number): void {
    // 8.2: a query with authority records is a probe; it is answered by multicast, in defence.
    const probe = message.authorities.length > 0;
    if (probe) this.tieBreak(message, now);
    const legacy = port !== MDNS_GROUP.port;
    const multicast: DnsRecord[] = [];
    const unicast: DnsRecord[] = [];
    const additionals: DnsRecord[] = [];
    const zone = this.zone();
    for (const question of message.questions.slice(0, MDNS_LIMITS.questionsAnsweredMax)) {
      if (question.class !== DNS_CLASS.IN && question.class !== DNS_CLASS.ANY) continue;
      const answers: DnsRecord[] = [];
      this.answersTo(question, zone, answers, additionals);
      for (const record of answers) {
        // 7.1: a known answer with at least half our TTL left need not be sent again.
        if (message.answers.some((known) => sameName(known.name, record.name) && sameData(known, record) && known.ttl >= record.ttl / 2)) continue;
        // 5.4: a QU question is answered unicast, unless the record was not multicast within a quarter of its TTL.
        const recently = (this.multicastAt.get(this.keyOf(record)) ?? -Infinity) > now - (record.ttl * 1000) / 4;
        pushOnce(legacy || (question.unicastResponse && recently && !probe) ? unicast : multicast, record);
      }
    }
    if (legacy) {
      if (unicast.length > 0) this.queue(this.legacyReply(message, dedupe(unicast), dedupe(additionals), address, port));
      return;
    }
    if (unicast.length > 0) this.send(this.write(dedupe(unicast), additionalsFor(unicast, additionals), address, port));
    const interval = probe ? MDNS_LIMITS.defenceIntervalMs : MDNS_LIMITS.multicastIntervalMs;
    const due = dedupe(multicast).filter((record) => (this.multicastAt.get(this.keyOf(record)) ?? -Infinity) <= now - interval);
    if (due.length === 0) return;
    // 6: only unique records (a probe's defence, an SRV) go at once; shared ones wait 20-120 ms.
    const truncated = (message.flags & DNS_FLAGS.TC) !== 0;
    if (due.every((record) => record.cacheFlush) && !truncated) {
      this.send(this.multicast(due, now, undefined, additionalsFor(due, additionals)));
      return;
    }
    const delay = truncated ? this.randomDelay(MDNS_TIMING.truncatedQueryMinMs, MDNS_TIMING.truncatedQueryMaxMs) : this.randomDelay(MDNS_TIMING.sharedAnswerMinMs, MDNS_TIMING.sharedAnswerMaxMs);
    this.delayed = {
      at: Math.min(this.delayed?.at ?? Infinity, now + delay),
      answers: dedupe([...(this.delayed?.answers ?? []), ...due]),
      additionals: [...(this.delayed?.additionals ?? []), ...additionalsFor(due, additionals)],
    };
  }

  /** The answers to one question from the names claimed and announced, and their additionals (RFC 6763 12). */
  private answersTo(question: DnsQuestion, zone: Zone, answers: DnsRecord[], additionals: DnsRecord[]): void {
    const { name, type } = question;
    const asks = (recordType: number): boolean => type === recordType || type === DNS_TYPES.ANY;
    if (sameName(name, zone.hostName)) {
      for (const record of zone.host) if (asks(record.type)) pushOnce(answers, record);
      // RFC 6762 6.1, 6.2: an address type the host lacks is denied (NSEC), and the addresses it
      // has go as additionals. python-zeroconf asks only AAAA once its expired A is still cached
      // (an expired record is neither asked for nor a known answer): it takes the A from here.
      const lacking = (type === DNS_TYPES.A || type === DNS_TYPES.AAAA) && !zone.host.some((record) => record.type === type);
      if (lacking && zone.hostNsec) {
        pushOnce(answers, zone.hostNsec);
        for (const record of zone.host) pushOnce(additionals, record);
      }
    }
    const enumeration = asks(DNS_TYPES.PTR) && sameName(name, SERVICES_ENUMERATION);
    for (const service of zone.services) {
      const { records } = service;
      // One PTR per type, however many services share it (pushOnce compares the records).
      if (enumeration) pushOnce(answers, records.enumeration);
      if (asks(DNS_TYPES.PTR) && sameName(name, service.typeName)) {
        answers.push(records.ptr);
        for (const record of [records.srv, records.txt, ...zone.host]) pushOnce(additionals, record);
      }
      if (sameName(name, service.instanceName)) {
        if (asks(DNS_TYPES.SRV)) {
          answers.push(records.srv);
          for (const record of zone.host) pushOnce(additionals, record);
        }
        if (asks(DNS_TYPES.TXT)) answers.push(records.txt);
        // RFC 6762 6.1: the instance name has no address records; the answer says so, with the
        // SRV, TXT and addresses as additionals. python-zeroconf asks this once the SRV it holds
        // expired (it keeps an expired record up to 10 s, neither asks for it nor sends it as a
        // known answer, and asks the addresses of the instance name instead of the SRV's target).
        if (type === DNS_TYPES.A || type === DNS_TYPES.AAAA) {
          pushOnce(answers, records.nsec);
          for (const record of [records.srv, records.txt, ...zone.host]) pushOnce(additionals, record);
        }
      }
    }
  }

  /** What may be answered now, built once per message (a message may repeat 256 questions). */
  private zone(): Zone {
    const hostAnswerable = this.answerable(this.host);
    const services: Zone['services'][number][] = [];
    for (const entry of this.services.values()) {
      if (!this.answerable(entry)) continue;
      services.push({ typeName: serviceLabels(entry.type), instanceName: instanceLabels(entry.current, entry.type), records: serviceRecords(this.serviceData(entry), this.host.current) });
    }
    const host = hostAnswerable ? addressRecords(this.host.current, this.addresses) : [];
    return { hostName: hostLabels(this.host.current), host, hostNsec: addressNsec(this.host.current, host), services };
  }

  /**
   * 6.7: a legacy query gets one unicast reply with its ID and questions, TTLs of at most 10 s
   * and no cache-flush bits, in 512 bytes or what its OPT record offers; TC when answers are cut.
   * A reply that would leave a TXT record out may take an MTU's payload instead, as Apple's
   * responder answers: senders that scan a host ask several types in one query and read the
   * receiver's features from the TXT.
   */
  private legacyReply(message: DnsMessage, answers: DnsRecord[], additionals: DnsRecord[], address: string, port: number): MdnsDatagram {
    const opt = message.additionals.find((record) => record.type === DNS_OTHER_TYPES.OPT);
    const offered = opt ? opt.class | (opt.cacheFlush ? 0x8000 : 0) : 0;
    const size = Math.min(MDNS_LIMITS.receiveBytesMax, Math.max(MDNS_LIMITS.legacyBytes, offered));
    const extra = additionalsFor(answers, additionals);
    let reply = legacyMessage(message, answers, extra, size);
    if (reply.txtLeftOut && size < MDNS_LIMITS.legacyBytesForTxt) reply = legacyMessage(message, answers, extra, MDNS_LIMITS.legacyBytesForTxt);
    return { bytes: reply.bytes, address, port };
  }

  // --- writing ---

  /** Records multicast to the group (marked sent), `ttl` overriding theirs (0: goodbye). */
  private multicast(records: readonly DnsRecord[], now: number, ttl?: number, additionals: readonly DnsRecord[] = []): MdnsDatagram[] {
    if (ttl === undefined) for (const record of records) this.noteMulticast(record, now);
    return this.write(records, additionals, MDNS_GROUP.ipv4, MDNS_GROUP.port, ttl);
  }

  /**
   * Responses (ID 0, no questions: 18.1, 6) holding `answers`, as many messages as they take;
   * additionals go where they fit, and only with the last message. A record that fits no
   * message at all is reported and left out.
   */
  private write(answers: readonly DnsRecord[], additionals: readonly DnsRecord[], address: string, port: number, ttl?: number): MdnsDatagram[] {
    const out: MdnsDatagram[] = [];
    let writer = new MessageWriter(MDNS_LIMITS.packetBytesMax);
    const flags = DNS_FLAGS.QR | DNS_FLAGS.AA;
    for (const record of answers) {
      if (writer.record('answer', record, ttl ?? record.ttl)) continue;
      if (!writer.empty) {
        out.push({ bytes: writer.finish(0, flags), address, port });
        writer = new MessageWriter(MDNS_LIMITS.packetBytesMax);
        if (writer.record('answer', record, ttl ?? record.ttl)) continue;
      }
      this.event({ kind: 'not-sent', reason: `a type ${record.type} record of ${record.rdata.length} bytes fits no ${MDNS_LIMITS.packetBytesMax}-byte message` });
    }
    for (const record of additionals) writer.record('additional', record, ttl ?? record.ttl);
    if (!writer.empty) out.push({ bytes: writer.finish(0, flags), address, port });
    return out;
  }

  private send(datagrams: readonly MdnsDatagram[]): void {
    for (const datagram of datagrams) this.queue(datagram);
  }

  private queue(datagram: MdnsDatagram): void {
    if (this.transmits.length >= MDNS_LIMITS.transmitQueueMax) {
      this.transmits.shift();
      this.event({ kind: 'not-sent', reason: `more than ${MDNS_LIMITS.transmitQueueMax} datagrams waiting; the oldest was dropped` });
    }
    this.transmits.push(datagram);
  }

  private event(event: MdnsEvent): void {
    if (this.events.length >= MDNS_LIMITS.eventQueueMax) this.events.shift();
    this.events.push(event);
  }

  private noteMulticast(record: DnsRecord, now: number): void {
    this.multicastAt.set(this.keyOf(record), now);
  }

  /**
   * After the records held changed (a TXT or port updated, a service withdrawn, a name or the
   * addresses changed): the multicast times of records no longer held move to `retired`, and
   * retired ones past MDNS_LIMITS.retiredRecordMs, or beyond retiredRecordsMax (oldest first),
   * are forgotten. So what is remembered is bounded by the records held, however often they change.
   */
  private retireReplaced(now: number): void {
    const held = new Set<string>();
    for (const record of this.heldRecords()) held.add(this.keyOf(record));
    for (const [recordKey, at] of this.multicastAt) {
      if (held.has(recordKey)) continue;
      this.multicastAt.delete(recordKey);
      this.retired.set(recordKey, at);
    }
    for (const [recordKey, at] of this.retired) if (at <= now - MDNS_LIMITS.retiredRecordMs) this.retired.delete(recordKey);
    for (const recordKey of this.retired.keys()) {
      if (this.retired.size <= MDNS_LIMITS.retiredRecordsMax) break;
      this.retired.delete(recordKey);
    }
  }

  /** Every record this responder answers with now: the host's addresses and NSEC, and each service's. */
  private heldRecords(): DnsRecord[] {
    const zone = this.zone();
    const held = [...zone.host];
    if (zone.hostNsec) held.push(zone.hostNsec);
    for (const { records } of zone.services) held.push(records.ptr, records.srv, records.txt, records.enumeration, records.nsec);
    return held;
  }

  /** How many records' multicast times are remembered, held and retired (bounded; tests read it). */
  get recordsRemembered(): number {
    return this.multicastAt.size + this.retired.size;
  }

  private keyOf(record: DnsRecord): string {
    let text = this.recordKeys.get(record);
    if (text === undefined) this.recordKeys.set(record, (text = recordKey(record)));
    return text;
  }

  /**
   * Our own multicast heard back (multicast loopback): a record we sent with these very data,
   * held now or replaced within MDNS_LIMITS.retiredRecordMs.
   */
  private ownEcho(record: DnsRecord, now: number): boolean {
    const recordKey = this.keyOf(record);
    return this.multicastAt.has(recordKey) || (this.retired.get(recordKey) ?? -Infinity) > now - MDNS_LIMITS.retiredRecordMs;
  }

  // --- records ---

  private answerable(claim: Claim): boolean {
    return claim.phase.kind === 'announcing' || claim.phase.kind === 'announced';
  }

  private claimName(claim: Claim): readonly string[] {
    return claim === this.host ? hostLabels(claim.current) : instanceLabels(claim.current, (claim as ServiceEntry).type);
  }

  /** The unique records a claim probes for and defends: the addresses, or SRV and TXT. */
  private proposed(claim: Claim): DnsRecord[] {
    if (claim === this.host) return addressRecords(claim.current, this.addresses);
    const records = serviceRecords(this.serviceData(claim as ServiceEntry), this.host.current);
    return [records.srv, records.txt];
  }

  private allRecords(entry: ServiceEntry): DnsRecord[] {
    const records = serviceRecords(this.serviceData(entry), this.host.current);
    return [records.ptr, records.srv, records.txt, records.enumeration];
  }

  /** A service's records with TTL 0; the type's enumeration PTR too when no other service has that type. */
  private goodbyeRecords(entry: ServiceEntry): DnsRecord[] {
    const records = serviceRecords(this.serviceData(entry), this.host.current);
    const typeShared = [...this.services.values()].some((other) => other !== entry && this.answerable(other) && other.type.toLowerCase() === entry.type.toLowerCase());
    return typeShared ? [records.ptr, records.srv, records.txt] : [records.ptr, records.srv, records.txt, records.enumeration];
  }

  private serviceData(entry: ServiceEntry): ServiceData {
    return { instance: entry.current, type: entry.type, port: entry.port, txt: entry.txt };
  }

  private randomDelay(min: number, max: number): number {
    const bytes = this.options.random(2);
    return min + Math.floor((((bytes[0] << 8) | bytes[1]) / 0x10000) * (max - min + 1));
  }
}

/** `Living Room (2)` or `Living-Room-2`, the base shortened (never mid-character) to fit one label. */
export function numbered(base: string, n: number, style: ' (' | '-'): string {
  const suffix = style === '-' ? `-${n}` : ` (${n})`;
  let head = base;
  while (head.length > 0 && utf8Encode(head + suffix).length > LABEL_MAX) head = [...head].slice(0, -1).join('');
  return head + suffix;
}

/** A legacy reply in `size` bytes, and whether a TXT record had to be left out. */
function legacyMessage(query: DnsMessage, answers: readonly DnsRecord[], additionals: readonly DnsRecord[], size: number): { bytes: Uint8Array; txtLeftOut: boolean } {
  const writer = new MessageWriter(size);
  for (const question of query.questions) if (!writer.question({ ...question, unicastResponse: false })) break;
  const ttl = (record: DnsRecord): number => Math.min(record.ttl, MDNS_LIMITS.legacyTtlMax);
  let txtLeftOut = false;
  let truncated = false;
  for (const record of answers) {
    if (!truncated && writer.record('answer', record, ttl(record), false)) continue;
    truncated = true;
    txtLeftOut ||= record.type === DNS_TYPES.TXT;
  }
  for (const record of additionals) {
    if (!truncated && writer.record('additional', record, ttl(record), false)) continue;
    txtLeftOut ||= record.type === DNS_TYPES.TXT;
  }
  return { bytes: writer.finish(query.id, DNS_FLAGS.QR | DNS_FLAGS.AA | (truncated ? DNS_FLAGS.TC : 0)), txtLeftOut };
}

/** The records answerable now, with the names questions are compared with. */
interface Zone {
  readonly hostName: readonly string[];
  /** A and AAAA of the host name, once it is claimed. */
  readonly host: readonly DnsRecord[];
  /** RFC 6762 6.1: the NSEC denying the address type the host lacks, if it has one type only. */
  readonly hostNsec: DnsRecord | undefined;
  readonly services: readonly { readonly typeName: readonly string[]; readonly instanceName: readonly string[]; readonly records: ServiceRecords }[];
}

/** What identifies a record on the wire: owner name (folded), type, data. */
function recordKey(record: DnsRecord): string {
  let text = `${record.type}|${record.name.join('.').toLowerCase()}|`;
  for (let i = 0; i < record.rdata.length; i++) text += String.fromCharCode(record.rdata[i]);
  return text;
}

/**
 * Adds a record not yet in `records`: the lists stay as short as our own records however many
 * questions a message repeats (a 256-question message costs no more than answering each once).
 */
function pushOnce(records: DnsRecord[], record: DnsRecord): void {
  if (!records.some((other) => sameRecord(other, record))) records.push(record);
}

function sameRecord(x: DnsRecord, y: DnsRecord): boolean {
  return sameName(x.name, y.name) && sameData(x, y);
}

function dedupe(records: readonly DnsRecord[]): DnsRecord[] {
  return records.filter((record, index) => records.findIndex((other) => sameRecord(other, record)) === index);
}

/**
 * The records of a delayed answer as they are when it goes out (RFC 6762 6: shared answers wait
 * 20-120 ms). A unique record replaced meanwhile (the TXT changes with every activity change)
 * goes in its new version, never the one the question found; a record no longer held (the
 * service withdrawn, a name renamed) is left out.
 */
function currentVersions(records: readonly DnsRecord[], held: readonly DnsRecord[]): DnsRecord[] {
  const current: DnsRecord[] = [];
  for (const record of records) {
    const version = held.find((other) => sameRecord(other, record)) ?? (record.cacheFlush ? held.find((other) => other.cacheFlush && other.type === record.type && sameName(other.name, record.name)) : undefined);
    if (version) pushOnce(current, version);
  }
  return current;
}

/** Additionals not already among the answers, once each. */
function additionalsFor(answers: readonly DnsRecord[], additionals: readonly DnsRecord[]): DnsRecord[] {
  return dedupe(additionals.filter((record) => !answers.some((answer) => sameRecord(answer, record))));
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
