// Where the media proxy may connect: a URL's host resolved here, once, every address it has
// checked against the core's rules (src/receiver/video/media-destinations.ts: the refused table,
// the receiver's own addresses, private ranges, `--media-allow`), and the fetch then connects to
// the address checked, through a lookup that hands back that address and never asks DNS again:
// a name that answers an outside address to the check and 127.0.0.1 to the connect (DNS
// rebinding) is connected to the outside address. A name with any refused address is refused as
// a whole (a media server's name has no business resolving to loopback).

import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { checkDestination, DEFAULT_MEDIA_DESTINATION_RULES, type MediaDestinationRules } from '../../../src/receiver/video/media-destinations';

/** A name's addresses, as dns.lookup with `all` gives them. */
export type Resolver = (hostname: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

/** One address to connect to, checked. */
export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Where a URL may be fetched from: the checked addresses to connect to (in the resolver's order), or why it is refused (for the log). */
export type Destination = { readonly addresses: readonly CheckedAddress[] } | { readonly refused: string };

const resolveBySystem: Resolver = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** Every address of every interface of this machine, read when asked (interfaces come and go). */
export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((infos) => (infos ?? []).map((info) => info.address));
}

export class MediaDestinations {
  constructor(
    readonly rules: MediaDestinationRules = DEFAULT_MEDIA_DESTINATION_RULES,
    private readonly resolver: Resolver = resolveBySystem,
    private readonly ownAddresses: () => readonly string[] = interfaceAddresses,
  ) {}

  /**
   * The address `url` may be fetched from, or why not. Rejects when the name does not resolve
   * (the fetch failed: said to the sender as any failure).
   */
  async resolve(url: URL): Promise<Destination> {
    // new URL keeps an IPv6 literal in brackets and writes every IPv4 spelling (0x7f000001,
    // 2130706433, 0177.0.0.1, 127.1) as a dotted quad.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const literal = isIP(host);
    const addresses = literal ? [{ address: host, family: literal }] : await this.resolver(host);
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    const own = this.ownAddresses();
    for (const { address } of addresses) {
      const verdict = checkDestination(address, this.rules, own);
      if (!verdict.allowed) return { refused: `${literal ? address : `${host} is ${address}`}: ${verdict.why}` };
    }
    return { addresses: addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 })) };
  }
}

/**
 * A lookup for http.request that answers the checked addresses whatever name it is asked about:
 * the connection goes where the check said (the name still goes in Host and TLS SNI).
 */
export function pinnedLookup(addresses: readonly CheckedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for every address (`all`) when it tries them in turn (autoSelectFamily): a
    // dual-stack server whose IPv6 does not answer is reached over IPv4.
    if (options.all) (callback as unknown as (error: null, all: CheckedAddress[]) => void)(null, [...addresses]);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}
