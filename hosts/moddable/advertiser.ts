// The Advertiser port (src/platform.ts) on the Moddable SDK's `mdns` responder: it claims the host
// name (probing), announces each service, answers queries, re-announces a changed TXT record
// (update) and says goodbye (remove). dnssd.ts says what is patched around and why: TXT goes as
// RDATA bytes, and records are written under each service's own instance name.

import DNS from 'dns';
import Parser from 'dns/parser';
import Serializer from 'dns/serializer';
import MDNS from 'mdns';
import Net from 'net';
import type { Advertiser, Logger, ServiceRecord } from '../../src/platform';
import { hostLabel, instanceAnswer, instanceDomain, RECORD, sdkService, serviceDomain, type SdkService } from './dnssd';
import { describeError } from '../../src/errors';

/** RFC 6762 10: 75 minutes for records not tied to a host name, 120 s for those that are. */
const SHARED_TTL = 4500;
const HOST_TTL = 120;
/** RFC 6762 10.2 cache-flush bit (answers), and the unicast-response bit (questions, 5.4). */
const FLUSH = 0x8000;
const UNICAST = 0x8000;
const MDNS_ADDRESS = '224.0.0.251';
const MDNS_PORT = 5353;
/** The SDK responder's messages to its callback (mdns.js: MDNS.hostName, MDNS.retry, MDNS.error). */
const CLAIMED = 1;
const RETRY = 2;
const FAILED = -1;
/** Legacy socket message: a datagram arrived (modules/network/socket: kSocketMsgDataReceived). */
const DATA_RECEIVED = 2;

/** The parts of the SDK's DNS serializer used here (typings 5.6.0 type its data as ArrayBuffer only). */
interface DnsSerializer {
  add(section: number, name: string, type: number, clss: number, ttl: number, data?: unknown): void;
  build(id?: number): ArrayBuffer;
}
interface DnsQuestion {
  qname: string[];
  qtype: number;
  qclass: number;
}
const NewSerializer = Serializer as unknown as new (options: { query: boolean; opcode: number; authoritative: boolean }) => DnsSerializer;

/** The SDK responder's members this file relies on (mdns.js, SDK 8.2); typings 5.6.0 show none. */
interface SdkResponder {
  hostName?: string;
  probing?: number;
  services: SdkService[];
  add(service: SdkService): void;
  update(service: SdkService): void;
  remove(service: SdkService): void;
  close(): void;
  write(address: string, port: number, packet: ArrayBuffer): void;
  read(type: typeof ArrayBuffer): ArrayBuffer;
  callback(message: number, value: number, address: string, port: number): void;
  reply(response: DnsSerializer | null, mask: number, service: SdkService, bye?: boolean, from?: string): ArrayBuffer | undefined;
}
type ResponderClass = new (options: { hostName: string }, callback: (message: number, value: string) => string | undefined) => SdkResponder;

/**
 * The SDK responder, writing each service's records under its own instance name and answering
 * SRV, TXT and ANY questions about those names (the SDK answers them only for its host name).
 */
class InstanceResponder extends (MDNS as unknown as ResponderClass) {
  /** A datagram read here first, handed to the SDK's callback when it reads. */
  private pending: ArrayBuffer | undefined;

  override read(type: typeof ArrayBuffer): ArrayBuffer {
    const pending = this.pending;
    if (pending) {
      this.pending = undefined;
      return pending;
    }
    return super.read(type);
  }

  override callback(message: number, value: number, address: string, port: number): void {
    if (message === DATA_RECEIVED && !this.probing) {
      const packet = super.read(ArrayBuffer);
      this.pending = packet;
      try {
        this.answerInstanceQuestions(new Parser(packet), address, port);
      } catch {
        // A malformed query is the SDK's to judge; it reads the same bytes next.
      }
    }
    super.callback(message, value, address, port);
  }

  private answerInstanceQuestions(packet: Parser, address: string, port: number): void {
    if (packet.flags & 0x8000) return; // a response, not a query
    let multicast: DnsSerializer | undefined;
    let unicast: DnsSerializer | undefined;
    for (const service of this.services) {
      const masks = [0, 0];
      for (let i = 0; i < packet.questions; i++) {
        const question = packet.question(i) as DnsQuestion;
        masks[question.qclass & UNICAST ? 1 : 0] |= instanceAnswer(question.qname, question.qtype, service);
      }
      if (masks[0]) this.reply((multicast ??= newResponse()), masks[0], service, false, address);
      if (masks[1]) this.reply((unicast ??= newResponse()), masks[1], service, false, address);
    }
    if (multicast) this.write(MDNS_ADDRESS, MDNS_PORT, multicast.build(packet.id));
    if (unicast) this.write(address, port, unicast.build(packet.id));
  }

  /** The records of `mask` for `service`, under its instance name; TTL 0 says goodbye. */
  override reply(response: DnsSerializer | null, mask: number, service: SdkService, bye = false, from?: string): ArrayBuffer | undefined {
    const out = response ?? newResponse();
    const host = `${this.hostName}.local`;
    const type = serviceDomain(service);
    const instance = instanceDomain(service);
    const shared = bye ? 0 : SHARED_TTL;
    const unique = bye ? 0 : HOST_TTL;
    const { ANSWER } = DNS.SECTION;
    const { IN } = DNS.CLASS;
    if (mask & RECORD.NSEC) out.add(ANSWER, host, DNS.RR.NSEC, IN | FLUSH, shared, { next: host, bitmaps: Uint8Array.of(0, 4, 0x40, 0, 0, 0) });
    if (mask & RECORD.SERVICES_PTR) out.add(ANSWER, '_services._dns-sd._udp.local', DNS.RR.PTR, IN, shared, type);
    if (mask & RECORD.PTR) out.add(ANSWER, type, DNS.RR.PTR, IN, shared, instance);
    if (mask & RECORD.TXT) out.add(ANSWER, instance, DNS.RR.TXT, IN | (mask & RECORD.FLUSH_TXT ? FLUSH : 0), shared, service.txt);
    if (mask & RECORD.SRV) out.add(ANSWER, instance, DNS.RR.SRV, IN | FLUSH, unique, { priority: 0, weight: 0, port: service.port, target: host });
    if (mask & RECORD.A) {
      // The address on the interface the question came in on, when there are several.
      const ip = from ? (Net as unknown as { get(what: 'IP', from: string): string | undefined }).get('IP', from) : Net.get('IP');
      if (ip) out.add(ANSWER, host, DNS.RR.A, IN | FLUSH, unique, ip);
    }
    return response ? undefined : out.build();
  }
}

function newResponse(): DnsSerializer {
  return new NewSerializer({ query: false, opcode: DNS.OPCODE.QUERY, authoritative: true });
}

export interface MdnsAdvertiserOptions {
  /** The receiver's name; the host name is made from it (`Living Room` -> `Living-Room.local`). */
  name: string;
  log: Logger;
}

function describe(record: ServiceRecord): string {
  return `"${record.name}" ${record.type}`;
}

/** An Advertiser on the SDK's responder. Errors are logged, never thrown (as the Node host's). */
export function createMdnsAdvertiser(options: MdnsAdvertiserOptions): Advertiser & { close(): void } {
  return new SdkAdvertiser(options);
}

const keyOf = (record: ServiceRecord): string => `${record.name}\u0000${record.type}`;

class SdkAdvertiser implements Advertiser {
  private readonly log: Logger;
  /** Published services by `name\0type`; `added` once handed to the SDK (after the claim). */
  private readonly services = new Map<string, { service: SdkService; added: boolean }>();
  private claimed = false;
  /** The responder could not be made (said once in the log); services are kept, not announced. */
  private unavailable = false;
  private responder: InstanceResponder | undefined;

  constructor(private readonly options: MdnsAdvertiserOptions) {
    this.log = options.log;
  }

  publish(record: ServiceRecord): void {
    const key = keyOf(record);
    if (this.services.has(key)) {
      this.update(record);
      return;
    }
    let service: SdkService;
    try {
      service = sdkService(record);
    } catch (error) {
      this.log('error', `mdns: ${describe(record)} not published: ${describeError(error)}`);
      return;
    }
    this.services.set(key, { service, added: false });
    this.start();
    if (this.claimed) this.addAll();
  }

  update(record: ServiceRecord): void {
    const { log, responder } = this;
    const entry = this.services.get(keyOf(record));
    if (!entry) {
      this.publish(record);
      return;
    }
    let next: SdkService;
    try {
      next = sdkService(record);
    } catch (error) {
      log('error', `mdns: ${describe(record)} TXT not updated: ${describeError(error)}`);
      return;
    }
    const { service } = entry;
    if (next.port !== service.port) {
      this.withdraw(record);
      this.publish(record);
      return;
    }
    // The SDK keeps the object it was given: change it in place and have it announced again.
    service.txt = next.txt;
    if (!entry.added || !responder) return;
    try {
      responder.update(service);
      log('debug', `mdns: ${describe(record)} TXT record announced again`);
    } catch (error) {
      log('error', `mdns: ${describe(record)} TXT update failed: ${describeError(error)}`);
    }
  }

  withdraw(record: ServiceRecord): void {
    const key = keyOf(record);
    const entry = this.services.get(key);
    if (!entry) return;
    this.services.delete(key);
    if (!entry.added || !this.responder) return;
    try {
      this.responder.remove(entry.service);
      this.log('info', `mdns: withdrew ${describe(record)} (goodbye sent)`);
    } catch (error) {
      this.log('error', `mdns: ${describe(record)} goodbye failed: ${describeError(error)}`);
    }
  }

  close(): void {
    for (const entry of this.services.values()) if (entry.added) this.responder?.remove(entry.service);
    this.services.clear();
    this.responder?.close();
    this.responder = undefined;
  }

  /** The responder, made on the first publish: it probes for the host name, then announces. */
  private start(): void {
    if (this.responder || this.unavailable) return;
    const { log } = this;
    const hostName = hostLabel(this.options.name);
    try {
      this.responder = new InstanceResponder({ hostName }, (status, value) => {
        if (status === CLAIMED && value) {
          this.claimed = true;
          log('info', `mdns: host name ${value}.local claimed`);
          this.addAll();
        } else if (status === RETRY) {
          // Returning nothing lets the SDK number the name (`Living-Room-2`) and probe again.
          log('warn', `mdns: host name ${value}.local is taken on the network; trying another`);
        } else if (status === FAILED) {
          log('error', 'mdns: no host name could be claimed; not advertising');
        }
        return undefined;
      });
      log('debug', `mdns: probing for ${hostName}.local`);
    } catch (error) {
      // The SDK's Linux simulator cannot open its multicast socket (modules/network/socket/lin
      // rejects every valid group address); a board without a network fails here too.
      this.unavailable = true;
      log('warn', `mdns: responder unavailable (${describeError(error)}); serving without advertising`);
    }
  }

  /** Hands the SDK every service not yet added (once the host name is claimed). */
  private addAll(): void {
    const { responder } = this;
    if (!responder) return;
    for (const entry of this.services.values()) {
      if (entry.added) continue;
      try {
        responder.add(entry.service);
        entry.added = true;
        this.log('info', `mdns: announcing "${entry.service.instance}" ${serviceDomain(entry.service)} port ${entry.service.port} (host ${responder.hostName}.local)`);
      } catch (error) {
        this.log('error', `mdns: "${entry.service.instance}" not announced: ${describeError(error)}`);
      }
    }
  }
}
