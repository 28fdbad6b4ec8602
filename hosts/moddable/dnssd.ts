// DNS-SD services in the shape the Moddable SDK's `mdns` module takes, and the names its records
// carry. Pure: imports nothing from Moddable, so the portable suites (Node and XS) test it.
//
// Two things of the SDK's responder (modules/network/mdns, SDK 8.2) shape this file:
// - Its DNS serializer writes TXT given as a plain object or a Map wrongly (it iterates with
//   `for...in` and destructures each key string), and an array as `0=value`. It copies a
//   Uint8Array verbatim as the RDATA. So the TXT record is handed over as its RFC 6763 bytes,
//   made by the core (`txtBytes`): the same bytes /info reports in txtAirPlay and txtRAOP.
// - It names every service instance after the host name. DNS-SD instance names are ours to
//   choose (spec 2.2: `_raop._tcp` is `MAC@name`), so each service carries its instance name
//   and the host's responder (advertiser.ts) writes records under it.

import { hostLabel, instanceDomain as coreInstanceDomain, parseServiceType, sameLabel, serviceDomain as coreServiceDomain } from '../../src/discovery/dnssd-names';
import { DNS_TYPES } from '../../src/discovery/mdns-unicast';
import { txtBytes } from '../../src/discovery/txt-bytes';
import type { ServiceRecord } from '../../src/platform';

/** A service as the SDK's MDNS.add()/update()/remove() take it, plus its DNS-SD instance name. */
export interface SdkService {
  /** Service name without the underscore: `vendorplay` for `_vendorplay._tcp`. */
  name: string;
  /** `tcp` or `udp`. */
  protocol: string;
  port: number;
  /** The TXT RDATA (RFC 6763 6): length-prefixed `key=value` strings, in the record's order. */
  txt: Uint8Array;
  /** The instance label, e.g. `Living Room` or `5855CA1AE288@Living Room`. */
  instance: string;
}

/** The host name rule is the core's (one host label for every service of the receiver). */
export { hostLabel };

/** DNS record types the responder answers for an instance name (the core's table). */
export const RR = { A: DNS_TYPES.A, TXT: DNS_TYPES.TXT, SRV: DNS_TYPES.SRV, ANY: DNS_TYPES.ANY } as const;

/**
 * The SDK responder's record mask bits (mdns.js `reply`): which records one answer carries.
 * Named here once; advertiser.ts writes records by them.
 */
export const RECORD = {
  A: 0x01,
  SRV: 0x02,
  TXT: 0x04,
  PTR: 0x08,
  SERVICES_PTR: 0x10,
  NSEC: 0x20,
  /** Set the cache-flush bit on the TXT record (announcing a changed TXT). */
  FLUSH_TXT: 0x8000,
} as const;

export class DnssdError extends Error {
  override name = 'DnssdError';
}

/**
 * Our record to the SDK's service shape. Throws a DnssdError for a type that is not
 * `_name._tcp`/`_name._udp`, and the core's DiscoveryError for a TXT record RFC 6763 forbids.
 */
export function sdkService(record: ServiceRecord): SdkService {
  const type = parseServiceType(record.type);
  if (!type) throw new DnssdError(`service type "${record.type}" is not _name._tcp or _name._udp (RFC 6763 7)`);
  if (record.name === '') throw new DnssdError(`service ${record.type}: empty instance name`);
  return { name: type.name, protocol: type.protocol, port: record.port, txt: txtBytes(record.txt), instance: record.name };
}

function typeOf(service: Pick<SdkService, 'name' | 'protocol'>): string {
  return `_${service.name}._${service.protocol}`;
}

/** `_vendorplay._tcp.local` */
export function serviceDomain(service: Pick<SdkService, 'name' | 'protocol'>): string {
  return coreServiceDomain(typeOf(service));
}

/** `Living Room._vendorplay._tcp.local`: the owner name of the service's SRV and TXT records. */
export function instanceDomain(service: Pick<SdkService, 'name' | 'protocol' | 'instance'>): string {
  return coreInstanceDomain(service.instance, typeOf(service));
}

/**
 * The records to answer a question about one of our instance names (RFC 6763 4: SRV and TXT
 * live at `<instance>.<service>.local`), as a RECORD mask, or 0 when the question is not about
 * `service`. Labels compare case-insensitively (RFC 6762 16: ASCII only).
 */
export function instanceAnswer(qname: readonly string[], qtype: number, service: Pick<SdkService, 'name' | 'protocol' | 'instance'>): number {
  if (qname.length !== 4) return 0;
  const [instance, name, protocol, local] = qname;
  if (!sameLabel(local, 'local') || !sameLabel(name, `_${service.name}`) || !sameLabel(protocol, `_${service.protocol}`)) return 0;
  if (!sameLabel(instance, service.instance)) return 0;
  switch (qtype) {
    case RR.SRV:
      return RECORD.SRV | RECORD.A;
    case RR.TXT:
      return RECORD.TXT;
    case RR.ANY:
      return RECORD.SRV | RECORD.TXT | RECORD.A;
    default:
      return 0;
  }
}
