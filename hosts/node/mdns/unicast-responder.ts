// Answers multicast DNS queries sent straight to one of the receiver's IPv4 addresses, port 5353
// (RFC 6762 5.5 and 6.7 legacy unicast), with the records the core builds (src/discovery/mdns-unicast.ts).
//
// Why beside ciao: ciao binds one socket per interface to 0.0.0.0:5353. Linux hands a unicast
// datagram to only one of the sockets sharing the port (the last bound: ciao's loopback one),
// and ciao drops it there as coming from off the loopback subnet, so "scan this host" in a
// sender found nothing. A socket bound to the interface's own address is the more specific
// match, so the kernel gives it every unicast query to that address; multicast (224.0.0.251)
// still goes only to ciao's sockets. ciao never asks for unicast replies to its own queries (it
// clears the QU bit, RFC 6762 15.1), so nothing it waits for arrives here instead.
//
// What it costs: another responder on the same host (avahi) no longer gets unicast queries to
// that address while the receiver runs, so those for its own services (ssh, printers) go
// unanswered until the receiver stops; multicast is unaffected. --no-mdns-unicast turns this off.
//
// Only queries from on-link sources are answered (RFC 6762 5.5, 11; isOnLink): one that crossed a
// router is dropped, counted in one log line per interval, so the receiver reflects nothing.

import dgram from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { answerQuery, isOnLink, MDNS_PORT, type LinkAddress, type ZoneService } from '../../../src/discovery/mdns-unicast';
import { CountedLog } from '../../../src/counted-log';
import type { Logger } from '../../../src/platform';
import { describeError } from '../../../src/errors';

interface UnicastResponderOptions {
  /** Interface names to answer on; empty: every interface with an IPv4 address but loopback. */
  interfaces: readonly string[];
  /** The services as published right now (names as the multicast responder probed them). */
  services(): readonly ZoneService[];
  log: Logger;
  /** How often the interface addresses are looked at again (default 15 s, ciao's own period). */
  pollMs?: number;
}

export interface UnicastResponder {
  /** The addresses answered on right now. */
  addresses(): string[];
  close(): void;
}

const DEFAULT_POLL_MS = 15_000;

/** The non-loopback IPv4 addresses of `interfaces` (or of all interfaces when it is empty). */
function unicastAddresses(interfaces: readonly string[]): string[] {
  const found: string[] = [];
  for (const [name, infos] of Object.entries(networkInterfaces())) {
    if (interfaces.length > 0 && !interfaces.includes(name)) continue;
    for (const info of infos ?? []) if (info.family === 'IPv4' && !info.internal) found.push(info.address);
  }
  return found;
}

function ipv4Bytes(address: string): Uint8Array {
  return Uint8Array.from(address.split('.').map(Number));
}

/** The IPv4 addresses and netmasks of every interface (loopback too): the subnets a query may come from. */
function linkAddresses(): LinkAddress[] {
  return Object.values(networkInterfaces()).flatMap((infos) => (infos ?? []).filter((info) => info.family === 'IPv4').map(({ address, netmask }) => ({ address, netmask })));
}

/** Off-link queries dropped: one log line per this interval at most, with the count. */
export const OFF_LINK_LOG_INTERVAL_MS = 10_000;

interface QueryAnswererOptions {
  services(): readonly ZoneService[];
  /** The subnets a query may come from (the interfaces' addresses, looked at again each poll). */
  links(): readonly LinkAddress[];
  log: Logger;
  /** Monotonic milliseconds, for the off-link log line's interval. */
  now(): number;
}

/**
 * What a responder socket does with a datagram that came to `local`: the reply's bytes, or
 * undefined for none (off-link source, not ours, unreadable).
 */
export function unicastQueryAnswerer(options: QueryAnswererOptions): (message: Uint8Array, from: { address: string; port: number }, local: string) => Uint8Array | undefined {
  const { log } = options;
  const offLink = new CountedLog(OFF_LINK_LOG_INTERVAL_MS);
  return (message, from, local) => {
    if (!isOnLink(from.address, options.links())) {
      const count = offLink.note(options.now());
      if (count > 0) log('warn', `mdns: ${count === 1 ? 'a unicast query' : `${count} unicast queries`} from off the local subnets dropped (RFC 6762 5.5), the last from ${from.address}:${from.port}`);
      return undefined;
    }
    const services = options.services();
    if (services.length === 0) return undefined;
    let reply: Uint8Array | undefined;
    try {
      reply = answerQuery(message, { services, ipv4: ipv4Bytes(local) }, { port: from.port });
    } catch (error) {
      log('debug', `mdns: unicast query from ${from.address}:${from.port} not read: ${describeError(error)}`);
      return undefined;
    }
    if (!reply) return undefined;
    const kind = from.port === MDNS_PORT ? 'unicast' : 'legacy unicast';
    log('debug', `mdns: ${kind} query from ${from.address}:${from.port} answered (${reply.length} bytes)`);
    return reply;
  };
}

/** Starts answering on every matching address, and follows addresses that come and go. */
export function startUnicastResponder(options: UnicastResponderOptions): UnicastResponder {
  const { log } = options;
  const sockets = new Map<string, dgram.Socket>();
  /** Addresses whose socket failed: said once in the log, not tried again every poll. */
  const failed = new Set<string>();
  let closed = false;
  let links = linkAddresses();
  const answer = unicastQueryAnswerer({ services: options.services, links: () => links, log, now: () => performance.now() });

  const open = (address: string): void => {
    // reuseAddr: ciao's sockets hold 0.0.0.0:5353 with SO_REUSEADDR, and so must this one.
    const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
    sockets.set(address, socket);
    socket.on('error', (error) => {
      log('warn', `mdns: unicast queries to ${address}:${MDNS_PORT} not answered: ${error.message}`);
      failed.add(address);
      socket.close();
      if (sockets.get(address) === socket) sockets.delete(address);
    });
    socket.on('message', (message, from) => {
      const reply = answer(message, from, address);
      if (!reply) return;
      socket.send(reply, from.port, from.address, (error) => {
        if (error) log('debug', `mdns: reply to ${from.address}:${from.port} not sent: ${error.message}`);
      });
    });
    socket.bind({ address, port: MDNS_PORT }, () => log('debug', `mdns: answering unicast queries on ${address}:${MDNS_PORT}`));
  };

  const refresh = (): void => {
    if (closed) return;
    links = linkAddresses();
    const wanted = new Set(unicastAddresses(options.interfaces));
    for (const [address, socket] of sockets) {
      if (wanted.has(address)) continue;
      sockets.delete(address);
      socket.close();
    }
    for (const address of wanted) if (!sockets.has(address) && !failed.has(address)) open(address);
  };

  refresh();
  const timer = setInterval(refresh, options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();

  return {
    addresses: () => [...sockets.keys()],
    close() {
      closed = true;
      clearInterval(timer);
      for (const socket of sockets.values()) socket.close();
      sockets.clear();
    },
  };
}
