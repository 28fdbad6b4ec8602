// The Advertiser port (src/platform.ts) on the Moddable host: the core's own multicast DNS responder
// (src/discovery/mdns) over an ECMA-419 UDP socket on 224.0.0.251:5353, its deadlines on the
// receiver's TimerDriver. The host gives only the socket and the address; probing, announcing,
// answering and goodbyes are the core's. Pure: the socket and the address are handed in, so the
// portable suites test it with a scripted socket.

import { MDNS_GROUP, MdnsAdvertiser } from '../../src/discovery';
import { describeError } from '../../src/errors';
import type { Clock, Logger, RandomSource, UdpSocket } from '../../src/platform';
import { TimerDriver } from '../../src/receiver';

/** RFC 6762 11: multicast DNS is sent with IP TTL 255 (receivers may check it). */
export const MDNS_TTL = 255;

export interface MdnsStartOptions {
  /** The receiver's name; the host name is made from it (`Living Room` -> `Living-Room.local`). */
  readonly name: string;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Logger;
  /** The IPv4 address the host name stands for (`Net.get('IP')`), undefined without a network. */
  readonly address: string | undefined;
  /**
   * Binds the socket on the group's port (udp.ts bindMulticastUdp); throws when it cannot.
   * `joined`: whether the group was joined (the SDK's Linux simulator cannot).
   */
  bind(): UdpSocket & { readonly joined: boolean };
}

/** The advertiser, or why there is none (for the start-up log line). */
export type MdnsStart = { readonly advertiser: MdnsAdvertiser; readonly reason?: undefined } | { readonly advertiser?: undefined; readonly reason: string };

/**
 * Starts the responder: nothing is sent until the receiver publishes. Undefined advertiser, with
 * the cause, when there is no address or the port cannot be bound; "advertising" is logged by the
 * responder only once a service is announced.
 */
export function startMdnsAdvertiser(options: MdnsStartOptions): MdnsStart {
  const { log } = options;
  if (!options.address) return { reason: 'no IPv4 address (Net.get("IP") is empty): no network yet' };
  let socket: UdpSocket & { readonly joined: boolean };
  try {
    socket = options.bind();
  } catch (error) {
    return { reason: `UDP port ${MDNS_GROUP.port} cannot be bound (${describeError(error)}; another mDNS responder on this host?)` };
  }
  if (!socket.joined) {
    log('warn', `mdns: this platform's UDP socket cannot join ${MDNS_GROUP.ipv4}; queries are heard only where another socket on the host joined it (announcements still go out)`);
  }
  const advertiser = new MdnsAdvertiser({ socket, time: options.clock, random: options.random, name: options.name, addresses: { ipv4: [options.address], ipv6: [] }, log });
  new TimerDriver(advertiser, options.clock);
  return { advertiser };
}
