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

/** Where a URL may be fetched from: the checked address to connect to, or why it is refused (for the log). */
export type Destination = { readonly address: string; readonly family: 4 | 6 } | { readonly refused: string };

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
    const first = addresses[0];
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }
}

/**
 * A lookup for http.request that answers the checked address whatever name it is asked about:
 * the connection goes where the check said (the name still goes in Host and TLS SNI).
 */
export function pinnedLookup(destination: { readonly address: string; readonly family: 4 | 6 }): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for every address (`all`) when it tries several (autoSelectFamily).
    if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
}
