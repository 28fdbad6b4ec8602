// Access lists: which senders the receiver serves, by address and by device id (config.allow,
// config.block). Entries are an IPv4 or IPv6 address, a CIDR block (`192.168.1.0/24`,
// `fd00::/8`) or a device id: a MAC address in any usual spelling (`58:55:CA:1A:E2:88`,
// `5855ca1ae288`, `0x5855ca1ae288`), a DACP-ID, or a pairing identifier (what the sender names
// itself in pair-setup and pair-verify). Device ids compare case-insensitively.
//
// The rules (the README's "Access lists" says them for people):
//   - block wins: a blocked address is refused when it connects; a blocked device id on the
//     first request that names it, and in the pair-setup or pair-verify step that names it;
//   - with an allow list, a connection is served when its address is on it, or once it has
//     named a device id on it (a request header, or the identifier pair-verify proved); until
//     then only the routes that need no identity (`open`: GET /info, RTSP OPTIONS, pairing) are
//     answered, so a sender can find out and pair, and everything else is 403 and closed;
//   - a device id in a header is what the sender says of itself; only pair-verify's identifier
//     is proven (by the sender's key). An allow list of pairing identifiers with a required PIN
//     is the strict form.

/** What the access lists say of a sender's address. */
export type AddressVerdict =
  /** On the block list: refused when it connects. */
  | 'blocked'
  /** Served (no allow list, or the address is on it). */
  | 'allowed'
  /** Not on the allow list, which names device ids: served once it names one of them. */
  | 'needs-device';

/** What the access lists say of a device id. */
export type DeviceVerdict = 'blocked' | 'allowed' | 'unlisted';

/** One address or CIDR block: its bytes (4 or 16) and how many leading bits must match. */
interface AddressRange {
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

interface ParsedList {
  readonly ranges: AddressRange[];
  readonly devices: Set<string>;
}

/** Thrown for an entry that is neither an address, a CIDR block nor a device id; the message names it. */
export class AccessListError extends Error {
  override name = 'AccessListError';
}

export class AccessList {
  private readonly allow: ParsedList;
  private readonly block: ParsedList;

  constructor(allow: readonly string[], block: readonly string[]) {
    this.allow = parseList('allow', allow);
    this.block = parseList('block', block);
  }

  /** Whether any list has an entry (otherwise every sender is served and nothing is checked). */
  get active(): boolean {
    return this.restricts || this.block.ranges.length > 0 || this.block.devices.size > 0;
  }

  /** Whether there is an allow list. */
  get restricts(): boolean {
    return this.allow.ranges.length > 0 || this.allow.devices.size > 0;
  }

  addressVerdict(address: string): AddressVerdict {
    const bytes = parseAddress(address);
    if (bytes && inRanges(this.block.ranges, bytes)) return 'blocked';
    if (!this.restricts) return 'allowed';
    if (bytes && inRanges(this.allow.ranges, bytes)) return 'allowed';
    return this.allow.devices.size > 0 ? 'needs-device' : 'blocked';
  }

  deviceVerdict(deviceId: string): DeviceVerdict {
    const key = deviceKey(deviceId);
    if (this.block.devices.has(key)) return 'blocked';
    return this.allow.devices.has(key) ? 'allowed' : 'unlisted';
  }
}

function parseList(name: string, entries: readonly string[]): ParsedList {
  const ranges: AddressRange[] = [];
  const devices = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '' || /\s/.test(entry)) throw new AccessListError(`${name} entry "${raw}" is not an address, a CIDR block or a device id`);
    const range = MAC.test(entry) ? undefined : parseRange(entry);
    if (range === 'bad') throw new AccessListError(`${name} entry "${raw}" is not an IPv4/IPv6 address, or has a prefix length it cannot have`);
    if (range) ranges.push(range);
    else devices.add(deviceKey(entry));
  }
  return { ranges, devices };
}

/** A MAC address spelled with colons or dashes: six groups of two hex digits (never an IPv6 address). */
const MAC = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i;

/**
 * The form device ids are compared in: a MAC address in any of its spellings (`5855ca1ae288`,
 * `58-55-ca-1a-e2-88`, the header's `0x5855ca1ae288`) as `58:55:CA:1A:E2:88`; anything else
 * (a DACP-ID, a pairing identifier) upper-cased.
 */
export function deviceKey(deviceId: string): string {
  const id = deviceId.trim();
  let hex: string | undefined;
  if (MAC.test(id)) hex = id.replace(/[:-]/g, '');
  else if (/^0x[0-9a-f]{1,12}$/i.test(id)) hex = id.slice(2).padStart(12, '0');
  else if (/^[0-9a-f]{12}$/i.test(id)) hex = id;
  if (hex === undefined) return id.toUpperCase();
  return hex.toUpperCase().replace(/(..)(?!$)/g, '$1:');
}

/** An address or CIDR block; undefined when the entry is no address at all (a device id), 'bad' when it is one with a wrong prefix. */
function parseRange(entry: string): AddressRange | 'bad' | undefined {
  const slash = entry.indexOf('/');
  const bytes = parseAddress(slash < 0 ? entry : entry.slice(0, slash));
  // A typo in an address (`192.168.1.300`, `10.0.0/8`) must not turn into a device id no sender has.
  if (!bytes) return slash >= 0 || /^[\d.]+$/.test(entry) ? 'bad' : undefined;
  if (slash < 0) return { bytes, prefix: bytes.length * 8 };
  const prefixText = entry.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > bytes.length * 8) return 'bad';
  return { bytes, prefix };
}

function inRanges(ranges: readonly AddressRange[], bytes: Uint8Array): boolean {
  for (const range of ranges) if (range.bytes.length === bytes.length && prefixMatches(range, bytes)) return true;
  return false;
}

function prefixMatches(range: AddressRange, bytes: Uint8Array): boolean {
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((range.bytes[i] & mask) !== (bytes[i] & mask)) return false;
  }
  return true;
}

/**
 * The bytes of an IPv4 (4) or IPv6 (16) address, undefined when it is neither. An IPv4-mapped
 * IPv6 address (`::ffff:192.0.2.1`, how a dual-stack listener reports IPv4 peers) is its IPv4
 * address, and a zone (`fe80::1%eth0`) is dropped, so lists match however the host reports peers.
 */
export function parseAddress(text: string): Uint8Array | undefined {
  const address = text.replace(/%.*$/, '');
  const v4 = parseIpv4(address);
  if (v4) return v4;
  const v6 = parseIpv6(address);
  if (!v6) return undefined;
  const mapped = v6.subarray(0, 10).every((byte) => byte === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i]) || Number(parts[i]) > 255) return undefined;
    bytes[i] = Number(parts[i]);
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const words: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (i === parts.length - 1 && part.includes('.')) {
        // A trailing dotted IPv4 (RFC 4291 2.2 form 3): two groups.
        const v4 = parseIpv4(part);
        if (!v4) return undefined;
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) words.push(parseInt(part, 16));
      else return undefined;
    }
    return words;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const count = head.length + tail.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const words = [...head, ...new Array<number>(8 - count).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    bytes[2 * i] = words[i] >> 8;
    bytes[2 * i + 1] = words[i] & 0xff;
  }
  return bytes;
}
