// Where a video's media may be fetched from: a sender names any URL in POST /play, and the host's
// player fetches it from inside the receiver's network position, so a URL must not turn the
// receiver inward (its own loopback services, link-local cloud metadata, the receiver's own
// addresses) and read them for a sender. One table of the ranges refused, the private LAN ranges
// (allowed by default: a NAS on the home network is where most videos come from; a host may
// block them), and a small CIDR matcher (RFC 4632; IPv6 prefixes RFC 4291 2.3).
//
// Decisions:
// - The address checked is the one connected to: a host resolves a name itself, checks every
//   address it got, and connects to a checked one (never resolving again), so a name that
//   rebinds between check and connect gains nothing. Redirects and every URL a playlist names are
//   checked the same way.
// - An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is its IPv4 address: the kernel connects it so.
// - Ranges a person allows (`--media-allow`) win over everything below them: tests allow
//   127.0.0.0/8 to play from loopback media servers.
// - 0.0.0.0/8 and :: are refused: connecting to them reaches this machine.

import { ipv4Bytes, ipv6Bytes } from '../../discovery/mdns/mdns-records';

/** An address range: the first `prefix` bits of `bytes` (4 bytes for IPv4, 16 for IPv6). */
export interface AddressRange {
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

/** Ranges never fetched from, each with what it is (said in the receiver's log). */
export const REFUSED_RANGES: readonly { readonly range: string; readonly what: string }[] = [
  { range: '0.0.0.0/8', what: 'unspecified (this host)' },
  { range: '127.0.0.0/8', what: 'loopback' },
  { range: '169.254.0.0/16', what: 'link-local' },
  { range: '224.0.0.0/4', what: 'multicast' },
  { range: '240.0.0.0/4', what: 'reserved or broadcast' },
  { range: '::/128', what: 'unspecified (this host)' },
  { range: '::1/128', what: 'loopback' },
  { range: 'fe80::/10', what: 'link-local' },
  { range: 'ff00::/8', what: 'multicast' },
];

/** Private network ranges (RFC 1918, RFC 4193): allowed unless the host blocks them. */
export const PRIVATE_RANGES: readonly string[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

/** What a host decided about where media may come from. */
export interface MediaDestinationRules {
  /** Ranges allowed whatever else holds (`--media-allow`). */
  readonly allow: readonly AddressRange[];
  /** Whether PRIVATE_RANGES are fetched from (the default; `--media-block-private` says no). */
  readonly privateRanges: boolean;
}

export const DEFAULT_MEDIA_DESTINATION_RULES: MediaDestinationRules = { allow: [], privateRanges: true };

/** The verdict on one address: allowed, or refused with what the address is (for the log). */
export type DestinationVerdict = { readonly allowed: true } | { readonly allowed: false; readonly why: string };

/**
 * An address as bytes: 4 for IPv4 (an IPv4-mapped IPv6 address too), 16 for IPv6 (a zone
 * `%eth0` dropped), or undefined when `text` is not an address.
 */
export function addressBytes(text: string): Uint8Array | undefined {
  const v4 = ipv4Bytes(text);
  if (v4) return v4;
  const v6 = text.includes(':') ? ipv6Bytes(text) : undefined;
  if (!v6) return undefined;
  return isIpv4Mapped(v6) ? v6.slice(12) : v6;
}

/** ::ffff:0:0/96 (RFC 4291 2.5.5.2). */
function isIpv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * `10.0.0.0/8`, `fe80::/10`, or a bare address (the one address: /32, /128), or undefined when
 * it is none of these. An IPv6 range inside ::ffff:0:0/96 is the IPv4 range it maps.
 */
export function parseAddressRange(text: string): AddressRange | undefined {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  const v4 = ipv4Bytes(address);
  const v6 = v4 ? undefined : address.includes(':') ? ipv6Bytes(address) : undefined;
  let bytes = v4 ?? v6;
  if (!bytes) return undefined;
  const bits = bytes.length * 8;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  let prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  if (v6 && prefix >= 96 && isIpv4Mapped(v6)) {
    bytes = v6.slice(12);
    prefix -= 96;
  }
  return { bytes, prefix };
}

/** Whether `address` (addressBytes) lies in `range`. */
export function inRange(address: Uint8Array, range: AddressRange): boolean {
  if (address.length !== range.bytes.length) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== range.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address[whole] & mask) === (range.bytes[whole] & mask);
}

/** A table's ranges, parsed once. */
function parsedTable(ranges: readonly string[]): AddressRange[] {
  return ranges.map((text) => {
    const range = parseAddressRange(text);
    if (!range) throw new Error(`bad range in the table: ${text}`);
    return range;
  });
}

const REFUSED = parsedTable(REFUSED_RANGES.map((row) => row.range));
const PRIVATE = parsedTable(PRIVATE_RANGES);

/**
 * Whether media may be fetched from `address` (as a host resolved it), given the `rules` and
 * the receiver's `own` addresses (every interface's, which reach the receiver itself). In
 * order: allowed ranges, the refused table, the receiver's own addresses, private ranges.
 * Text that is no address is refused.
 */
export function checkDestination(address: string, rules: MediaDestinationRules, own: readonly string[]): DestinationVerdict {
  const bytes = addressBytes(address);
  if (!bytes) return { allowed: false, why: 'not an address' };
  if (rules.allow.some((range) => inRange(bytes, range))) return { allowed: true };
  const refused = REFUSED.findIndex((range) => inRange(bytes, range));
  if (refused >= 0) return { allowed: false, why: `${REFUSED_RANGES[refused].what} (${REFUSED_RANGES[refused].range})` };
  if (own.some((text) => sameAddress(bytes, addressBytes(text)))) return { allowed: false, why: 'an address of the receiver itself' };
  if (!rules.privateRanges && PRIVATE.some((range) => inRange(bytes, range))) return { allowed: false, why: 'a private network range, blocked' };
  return { allowed: true };
}

function sameAddress(a: Uint8Array, b: Uint8Array | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((byte, i) => byte === b[i]);
}
