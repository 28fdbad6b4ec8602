// The Advertiser port (src/platform.ts) on Node: DNS-SD services published by multicast DNS
// through the `@homebridge/ciao` responder (RFC 6762/6763: probing, announcements, goodbyes),
// every service on one host name, and unicast queries answered beside it (unicast-responder.ts).
// The built-in responder: choose-advertiser.ts starts it when avahi-daemon does not run (or for
// --mdns builtin); beside avahi, avahi-advertiser.ts registers the services through avahi instead.

import { networkInterfaces } from 'node:os';
import { getResponder, type CiaoService, type Protocol, type Responder, type ServiceTxt } from '@homebridge/ciao';
import { hostLabel, parseServiceType } from '../../../src/discovery/dnssd-names';
import { txtBytes } from '../../../src/discovery/txt-bytes';
import type { ZoneService } from '../../../src/discovery/mdns-unicast';
import type { Advertiser, Logger, ServiceRecord } from '../../../src/platform';
import { shareHostNames } from './ciao-shared-host';
import { startUnicastResponder, type UnicastResponder } from './unicast-responder';
import { describeError } from '../../../src/errors';

export interface MdnsAdvertiserOptions {
  /**
   * The receiver's name: every service points at the one host `<hostLabel(name)>.local`
   * (`Living Room` -> `Living-Room.local`). Absent: the first published instance name.
   */
  name?: string;
  /**
   * Interface names (`eth0`, `wlan0`) or addresses to advertise on. ciao always adds the
   * loopback interface to a restricted set. Absent or empty: every interface that has an
   * address when the first service is published (see `defaultInterfaces`).
   */
  interfaces?: string[];
  /**
   * Whether AAAA records are published beside A records (default true). Turning it off does
   * not stop ciao listening on IPv6; it only leaves IPv6 addresses out of the answers.
   */
  ipv6?: boolean;
  log: Logger;
  /** Longest wait in shutdown() for goodbye packets before giving up on ciao (default 2000 ms). */
  shutdownTimeoutMs?: number;
  /** Whether queries sent to the receiver's own address are answered (default true). */
  unicast?: boolean;
}

export interface MdnsAdvertiser extends Advertiser {
  /**
   * Sends goodbye packets for every service still published and closes the responder's
   * sockets. Resolves within `shutdownTimeoutMs` even if ciao does not. Later publish/update
   * calls are ignored (logged).
   */
  shutdown(): Promise<void>;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 2000;

/**
 * The interfaces to advertise on when none are named: every non-loopback interface with an
 * address (IPv4, or IPv6 unless `ipv6` is false), by the names the kernel gives them.
 *
 * Why not leave it to ciao: on Linux ciao lists links with `ip -o link show`, which prints a
 * veth or container interface as `eth0@if12` (the `@if12` names its peer), and then looks that
 * up in os.networkInterfaces() under `eth0`, finds nothing and skips it ("Initial networks [lo]
 * ignoring [eth0]"): a receiver in a container or network namespace advertised on loopback
 * only. Naming the interfaces ourselves is ciao's documented `interface` option. What it costs:
 * ciao then follows address changes on these interfaces but not interfaces that appear later;
 * a restart picks those up.
 */
function defaultInterfaces(ipv6 = true): string[] {
  const names: string[] = [];
  for (const [name, infos] of Object.entries(networkInterfaces())) {
    const usable = (infos ?? []).some((info) => !info.internal && (info.family === 'IPv4' || (ipv6 && info.family === 'IPv6')));
    if (usable) names.push(name);
  }
  return names;
}

interface Published {
  /** The record as last published or updated (its original name: ciao may have renamed it). */
  record: ServiceRecord;
  service: CiaoService;
  /** Probed unique and announced (or being announced); before that a withdraw only cancels probing. */
  announced: boolean;
}

function describe(record: ServiceRecord): string {
  return `"${record.name}" ${record.type}`;
}

/**
 * ciao takes the TXT record as a plain object and writes `Object.entries` order, which is
 * insertion order except that integer-like keys ("0", "12") would move to the front. DNS-SD
 * gives key order no meaning, but ours is fixed (src/discovery/txt.ts) so records are
 * reproducible; the protocol has no numeric keys, and one is reported rather than reordered.
 * RFC 6763 6.4: only the first of repeated keys counts, so later ones are dropped.
 */
function txtObject(record: ServiceRecord, log: Logger): ServiceTxt {
  const txt: ServiceTxt = {};
  for (const [key, value] of record.txt) {
    if (Object.hasOwn(txt, key)) {
      log('warn', `mdns: ${describe(record)}: TXT key "${key}" repeated; only the first is published (RFC 6763 6.4)`);
      continue;
    }
    if (/^(0|[1-9]\d*)$/.test(key)) log('warn', `mdns: ${describe(record)}: numeric TXT key "${key}" is published before the others`);
    txt[key] = value;
  }
  return txt;
}

/** An Advertiser publishing by multicast DNS through ciao. Errors are logged, never thrown. */
export function createMdnsAdvertiser(options: MdnsAdvertiserOptions): MdnsAdvertiser {
  return new CiaoAdvertiser(options);
}

const keyOf = (record: ServiceRecord): string => `${record.name}\u0000${record.type}`;

class CiaoAdvertiser implements MdnsAdvertiser {
  private readonly log: Logger;
  private readonly named: string[];
  private readonly shutdownTimeoutMs: number;
  /** Said in log lines: where the responder advertises, decided when it starts. */
  private where = '';
  private readonly published = new Map<string, Published>();
  /** Goodbyes under way (withdraw), which shutdown waits for. */
  private readonly pending = new Set<Promise<void>>();
  private responder: Responder | undefined;
  private unicast: UnicastResponder | undefined;
  private shutdownPromise: Promise<void> | undefined;
  /** One host name for every service (RFC 6763: a host publishes its services on its name). */
  private sharedHost: string | undefined;
  private readonly hostsShared: boolean;

  constructor(private readonly options: MdnsAdvertiserOptions) {
    this.log = options.log;
    this.named = options.interfaces?.filter((name) => name !== '') ?? [];
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    this.sharedHost = options.name === undefined ? undefined : hostLabel(options.name);
    this.hostsShared = shareHostNames();
    if (!this.hostsShared) this.log('warn', 'mdns: this version of ciao cannot publish two services on one host name; each service gets its own');
  }

  publish(record: ServiceRecord): void {
    const { log } = this;
    if (this.shutdownPromise) {
      log('warn', `mdns: ${describe(record)} not published: the advertiser is shut down`);
      return;
    }
    const key = keyOf(record);
    if (this.published.has(key)) {
      this.update(record);
      return;
    }
    const service = this.createService(record);
    if (!service) return;
    // ciao resolves a name taken on the network by numbering it ("Living Room (2)").
    service.on('name-change', (name) => log('warn', `mdns: ${describe(record)}: the name is taken on the network; published as "${name}"`));
    service.on('hostname-change', (hostname) => {
      log('info', `mdns: ${describe(record)}: host name taken on the network; now ${hostname}`);
      // Services published later follow the new name, so they stay on one host.
      if (this.hostsShared && hostname) this.sharedHost = hostname.replace(/\.local\.?$/, '');
    });
    const entry: Published = { record, service, announced: false };
    this.published.set(key, entry);
    log('info', `mdns: publishing ${describe(record)} port ${record.port} ${this.where}`);
    service.advertise().then(
      () => {
        // advertise() also resolves when a withdraw cancelled the probing.
        if (this.published.get(key) !== entry) return;
        entry.announced = true;
        log('debug', `mdns: ${service.getFQDN()} probed unique, announcing (host ${service.getHostname()})`);
      },
      (error: unknown) => log('error', `mdns: ${describe(record)} could not be advertised: ${describeError(error)}`),
    );
  }

  update(record: ServiceRecord): void {
    const { log } = this;
    if (this.shutdownPromise) {
      log('warn', `mdns: ${describe(record)} not updated: the advertiser is shut down`);
      return;
    }
    const entry = this.published.get(keyOf(record));
    if (!entry) {
      log('warn', `mdns: ${describe(record)} updated before it was published; publishing it`);
      this.publish(record);
      return;
    }
    if (entry.record.port !== record.port) {
      // An announced service's SRV record cannot change in ciao: publish it anew.
      this.withdraw(entry.record);
      this.publish(record);
      return;
    }
    entry.record = record;
    try {
      entry.service.updateTxt(txtObject(record, log));
      log('debug', `mdns: ${describe(record)} TXT record announced again`);
    } catch (error) {
      log('error', `mdns: ${describe(record)} TXT update failed: ${describeError(error)}`);
    }
  }

  withdraw(record: ServiceRecord): void {
    const { log } = this;
    const key = keyOf(record);
    const entry = this.published.get(key);
    if (!entry) {
      log('debug', `mdns: ${describe(record)} withdrawn but not published; nothing to do`);
      return;
    }
    this.published.delete(key);
    const outcome = entry.announced ? 'goodbye sent' : 'probing cancelled; it had not been announced';
    const goodbye = entry.service.destroy().then(
      () => log('info', `mdns: withdrew ${describe(record)} (${outcome})`),
      (error: unknown) => log('error', `mdns: ${describe(record)} goodbye failed: ${describeError(error)}`),
    );
    this.pending.add(goodbye);
    void goodbye.finally(() => this.pending.delete(goodbye));
  }

  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.shutDownResponder();
    return this.shutdownPromise;
  }

  /** Goodbyes for what is still published and the sockets closed, bounded by shutdownTimeoutMs. */
  private async shutDownResponder(): Promise<void> {
    const { log, shutdownTimeoutMs } = this;
    const remaining = this.published.size;
    this.published.clear();
    this.unicast?.close();
    const work = (async () => {
      await Promise.allSettled([...this.pending]);
      // Responder.shutdown sends goodbyes for every service still announced, then closes the sockets.
      await this.responder?.shutdown();
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), shutdownTimeoutMs);
    });
    try {
      const outcome = await Promise.race([work.then(() => 'done' as const), timeout]);
      if (outcome === 'timeout') log('warn', `mdns: responder did not shut down within ${shutdownTimeoutMs} ms; goodbyes may be missing`);
      else if (this.responder) log('info', `mdns: responder shut down${remaining > 0 ? ` (goodbye for ${remaining} service(s))` : ''}`);
    } catch (error) {
      log('error', `mdns: responder shutdown failed: ${describeError(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The ciao service for a record, or undefined (logged) when ciao refuses it. */
  private createService(record: ServiceRecord): CiaoService | undefined {
    const type = parseServiceType(record.type);
    if (!type) {
      this.log('error', `mdns: ${describe(record)} not published: the type is not _name._tcp or _name._udp (RFC 6763 7)`);
      return undefined;
    }
    try {
      return this.getOrCreateResponder().createService({
        name: record.name,
        type: type.name,
        protocol: type.protocol as Protocol,
        port: record.port,
        // Without the shared-host change, two services on one name would rename each other.
        hostname: this.hostsShared ? (this.sharedHost ??= hostLabel(record.name)) : hostLabel(record.name),
        txt: txtObject(record, this.log),
      });
    } catch (error) {
      this.log('error', `mdns: ${describe(record)} not published: ${describeError(error)}`);
      return undefined;
    }
  }

  // The responder is made on first use, so an advertiser that publishes nothing opens no socket.
  private getOrCreateResponder(): Responder {
    if (this.responder) return this.responder;
    const { log, named, options } = this;
    const known = networkInterfaces();
    for (const name of named) {
      // ciao silently skips an interface it cannot find, which would leave only loopback.
      const isAddress = Object.values(known).some((infos) => infos?.some((info) => info.address === name));
      if (!known[name] && !isAddress) log('warn', `mdns: interface ${name} not found (have: ${Object.keys(known).join(', ')}); not advertising there`);
    }
    const interfaces = named.length > 0 ? named : defaultInterfaces(options.ipv6 !== false);
    this.where = interfaces.length > 0 ? `on ${interfaces.join(', ')} (and loopback)` : 'on loopback only (no other interface has an address)';
    // An empty list would have ciao fall back to its own interface discovery (see defaultInterfaces).
    this.responder = getResponder({
      interface: interfaces.length > 0 ? interfaces : [loopbackName(known)],
      ...(options.ipv6 === false && { disableIpv6: true }),
    });
    log('info', `mdns: responder started ${this.where}`);
    if (options.unicast !== false) {
      this.unicast = startUnicastResponder({ interfaces: named, services: () => this.zoneServices(), log });
    }
    return this.responder;
  }

  /** The announced services as the unicast responder answers for them: names as ciao probed them. */
  private zoneServices(): ZoneService[] {
    const zone: ZoneService[] = [];
    for (const entry of this.published.values()) {
      if (!entry.announced) continue;
      // ciao's FQDN is `<instance>.<type>.local.` with the instance as probed (maybe renamed).
      const fqdn = entry.service.getFQDN();
      const instance = fqdn.slice(0, fqdn.length - entry.service.getTypePTR().length - 1);
      let txt: Uint8Array;
      try {
        txt = txtBytes(entry.record.txt);
      } catch {
        continue; // ciao published it as an object; a record the core cannot write is not answered here
      }
      const host = entry.service.getHostname().replace(/\.local\.?$/, '');
      zone.push({ instance, type: entry.record.type, port: entry.record.port, txt, host });
    }
    return zone;
  }
}

/** The loopback interface's name (`lo` on Linux, `lo0` on macOS). */
function loopbackName(known: ReturnType<typeof networkInterfaces>): string {
  for (const [name, infos] of Object.entries(known)) if (infos?.some((info) => info.internal)) return name;
  return 'lo';
}
