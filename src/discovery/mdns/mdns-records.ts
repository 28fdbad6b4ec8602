// The records a receiver publishes by multicast DNS (RFC 6763 4, 6, 9, 12; RFC 6762 10): per
// service PTR, SRV and TXT and the service-type enumeration PTR, per host A and AAAA; and how
// records compare (RFC 6762 6, 8.2, 16).

import { writeU16BE } from '../../bytes';
import { hostLabels, instanceLabels, serviceLabels } from '../dnssd-names';
import { DNS_TYPES } from '../mdns-unicast';
import { DNS_CLASS, DNS_OTHER_TYPES, nameBytes, type DnsRecord } from './dns-message';
import { MDNS_TTL } from './mdns-limits';

/** RFC 6763 9: the name whose PTR records list the service types. */
export const SERVICES_ENUMERATION: readonly string[] = ['_services', '_dns-sd', '_udp', 'local'];

/** One service as the responder publishes it: its instance label as probed, its TXT as RDATA. */
export interface ServiceData {
  readonly instance: string;
  /** `_vendorplay._tcp` */
  readonly type: string;
  readonly port: number;
  /** The TXT RDATA (RFC 6763 6), as `txtBytes` makes it. */
  readonly txt: Uint8Array;
}

/** The host's addresses as the host gives them (`192.0.2.1`, `fe80::1`). */
export interface HostAddresses {
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
}

/** RFC 6763 4.1 and 12.1: a service's records. The PTRs are shared, SRV and TXT unique. */
export interface ServiceRecords {
  readonly ptr: DnsRecord;
  readonly srv: DnsRecord;
  readonly txt: DnsRecord;
  /** RFC 6763 9: `_services._dns-sd._udp.local` PTR the service type. */
  readonly enumeration: DnsRecord;
  /** RFC 6762 6.1: the instance name has SRV and TXT only (the answer to an A or AAAA question about it). */
  readonly nsec: DnsRecord;
}

export function serviceRecords(service: ServiceData, host: string): ServiceRecords {
  const type = serviceLabels(service.type);
  const instance = instanceLabels(service.instance, service.type);
  const target = hostLabels(host);
  const targetBytes = nameBytes(target);
  const srvData = new Uint8Array(6 + targetBytes.length);
  // RFC 2782: priority 0, weight 0, port, target.
  writeU16BE(srvData, 4, service.port);
  srvData.set(targetBytes, 6);
  return {
    ptr: pointer(type, instance),
    srv: { name: instance, type: DNS_TYPES.SRV, class: DNS_CLASS.IN, cacheFlush: true, ttl: MDNS_TTL.host, rdata: srvData, rdataNameAt: 6, rdataName: target },
    txt: { name: instance, type: DNS_TYPES.TXT, class: DNS_CLASS.IN, cacheFlush: true, ttl: MDNS_TTL.shared, rdata: service.txt, rdataNameAt: -1 },
    enumeration: pointer(SERVICES_ENUMERATION, type),
    nsec: nsecRecord(instance, [DNS_TYPES.TXT, DNS_TYPES.SRV]),
  };
}

function pointer(owner: readonly string[], target: readonly string[]): DnsRecord {
  return { name: owner, type: DNS_TYPES.PTR, class: DNS_CLASS.IN, cacheFlush: false, ttl: MDNS_TTL.shared, rdata: nameBytes(target), rdataNameAt: 0, rdataName: target };
}

/** RFC 6762 6: A and AAAA of the host name, unique, one per address that can be read. */
export function addressRecords(host: string, addresses: HostAddresses): DnsRecord[] {
  const name = hostLabels(host);
  const records: DnsRecord[] = [];
  const add = (type: number, rdata: Uint8Array | undefined): void => {
    if (rdata) records.push({ name, type, class: DNS_CLASS.IN, cacheFlush: true, ttl: MDNS_TTL.host, rdata, rdataNameAt: -1 });
  };
  for (const address of addresses.ipv4) add(DNS_TYPES.A, ipv4Bytes(address));
  for (const address of addresses.ipv6) add(DNS_TYPES.AAAA, ipv6Bytes(address));
  return records;
}

/**
 * RFC 6762 6.1: the host name's NSEC record, saying which address types it has, for a question
 * about the type it lacks (AAAA of an IPv4-only board). Undefined when it has both or neither.
 */
export function addressNsec(host: string, addresses: readonly DnsRecord[]): DnsRecord | undefined {
  const types = [DNS_TYPES.A, DNS_TYPES.AAAA].filter((type) => addresses.some((record) => record.type === type));
  return types.length === 1 ? nsecRecord(hostLabels(host), types) : undefined;
}

/**
 * RFC 6762 6.1: an NSEC record saying `name` has exactly `types` (each below 256), in the
 * restricted form mDNS uses: the next name is the name itself, one bitmap window (0).
 */
export function nsecRecord(name: readonly string[], types: readonly number[]): DnsRecord {
  const next = nameBytes(name);
  const bitmapBytes = (Math.max(...types) >> 3) + 1;
  const rdata = new Uint8Array(next.length + 2 + bitmapBytes);
  rdata.set(next, 0);
  rdata[next.length + 1] = bitmapBytes;
  for (const type of types) rdata[next.length + 2 + (type >> 3)] |= 0x80 >> (type & 7);
  return { name, type: DNS_OTHER_TYPES.NSEC, class: DNS_CLASS.IN, cacheFlush: true, ttl: MDNS_TTL.host, rdata, rdataNameAt: -1 };
}

/** `192.0.2.1` as 4 bytes, or undefined when it is not a dotted quad. */
export function ipv4Bytes(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i]) || Number(parts[i]) > 255) return undefined;
    out[i] = Number(parts[i]);
  }
  return out;
}

/** `fe80::1` (RFC 4291 2.2, a zone `%eth0` dropped, an embedded IPv4 tail read) as 16 bytes, or undefined. */
export function ipv6Bytes(text: string): Uint8Array | undefined {
  const address = text.split('%')[0];
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = ipv4Bytes(part);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(part)) out.push(parseInt(part, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((group, i) => writeU16BE(out, 2 * i, group));
  return out;
}

/** RFC 6762 16: names compare with ASCII letters case-insensitive, every other byte exact. */
function foldByte(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

/** Same type and data; the name inside PTR or SRV data compares as names do (RFC 6762 16). */
export function sameData(x: DnsRecord, y: DnsRecord): boolean {
  if (x.type !== y.type || x.rdata.length !== y.rdata.length || x.rdataNameAt !== y.rdataNameAt) return false;
  const nameAt = x.rdataNameAt < 0 ? x.rdata.length : x.rdataNameAt;
  for (let i = 0; i < x.rdata.length; i++) {
    const a = x.rdata[i];
    const b = y.rdata[i];
    if (i < nameAt ? a !== b : foldByte(a) !== foldByte(b)) return false;
  }
  return true;
}

/** RFC 6762 8.2: records ordered by class, then type, then RDATA as unsigned bytes (uncompressed). */
export function compareRecords(x: DnsRecord, y: DnsRecord): number {
  if (x.class !== y.class) return x.class - y.class;
  if (x.type !== y.type) return x.type - y.type;
  const length = Math.min(x.rdata.length, y.rdata.length);
  for (let i = 0; i < length; i++) if (x.rdata[i] !== y.rdata[i]) return x.rdata[i] - y.rdata[i];
  return x.rdata.length - y.rdata.length;
}

/**
 * RFC 6762 8.2: which of two sets of records proposed for one name wins a simultaneous probe.
 * Each set sorted, compared record by record; the set that runs out first is the lesser.
 * Negative: ours is lesser (we defer), zero: the same (our own probe heard back), positive: ours wins.
 */
export function compareRecordSets(ours: readonly DnsRecord[], theirs: readonly DnsRecord[]): number {
  const a = [...ours].sort(compareRecords);
  const b = [...theirs].sort(compareRecords);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareRecords(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}
