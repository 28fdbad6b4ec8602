// The Advertiser port (src/platform.ts) on Node: DNS-SD services published by multicast DNS
// through the `@homebridge/ciao` responder (RFC 6762/6763: probing, announcements, goodbyes).

import { networkInterfaces } from 'node:os';
import { getResponder, type CiaoService, type Protocol, type Responder, type ServiceTxt } from '@homebridge/ciao';
import type { Advertiser, Logger, ServiceRecord } from '../../src/platform';

export interface MdnsAdvertiserOptions {
  /**
   * Interface names (`eth0`, `wlan0`) or addresses to advertise on. ciao always adds the
   * loopback interface to a restricted set. Absent or empty: every interface ciao finds
   * (on Linux, every link `ip -o link show` lists that has an address).
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

/** RFC 6763 7: `_name._tcp` or `_name._udp`, the name 1 to 15 letters, digits and hyphens. */
const SERVICE_TYPE = /^_([A-Za-z0-9-]{1,15})\._(tcp|udp)$/;

/** RFC 1035 2.3.4: a label is at most 63 bytes. */
const HOST_LABEL_MAX = 63;

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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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

/**
 * The host name a service's SRV record points at. ciao derives it from the instance name and
 * probes it like the name, so each service needs its own (two sharing one would conflict with
 * each other). A host name is kept to letters, digits and hyphens: `5855CA1AE288@Living Room`
 * becomes `5855CA1AE288-Living-Room.local`.
 */
function hostnameFor(name: string): string {
  const label = name.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, HOST_LABEL_MAX).replace(/-+$/, '');
  return label || 'receiver';
}

/** An Advertiser publishing by multicast DNS through ciao. Errors are logged, never thrown. */
export function createMdnsAdvertiser(options: MdnsAdvertiserOptions): MdnsAdvertiser {
  const { log } = options;
  const interfaces = options.interfaces?.filter((name) => name !== '') ?? [];
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const where = interfaces.length > 0 ? `on ${interfaces.join(', ')} (and loopback)` : 'on every interface';
  const published = new Map<string, Published>();
  /** Goodbyes under way (withdraw), which shutdown waits for. */
  const pending = new Set<Promise<void>>();
  let responder: Responder | undefined;
  let shutdownPromise: Promise<void> | undefined;

  const keyOf = (record: ServiceRecord): string => `${record.name}\u0000${record.type}`;

  // The responder is made on first use, so an advertiser that publishes nothing opens no socket.
  function getOrCreateResponder(): Responder {
    if (responder) return responder;
    const known = networkInterfaces();
    for (const name of interfaces) {
      // ciao silently skips an interface it cannot find, which would leave only loopback.
      const isAddress = Object.values(known).some((infos) => infos?.some((info) => info.address === name));
      if (!known[name] && !isAddress) log('warn', `mdns: interface ${name} not found (have: ${Object.keys(known).join(', ')}); not advertising there`);
    }
    responder = getResponder({
      ...(interfaces.length > 0 && { interface: interfaces }),
      ...(options.ipv6 === false && { disableIpv6: true }),
    });
    log('debug', `mdns: responder started ${where}`);
    return responder;
  }

  function publish(record: ServiceRecord): void {
    if (shutdownPromise) {
      log('warn', `mdns: ${describe(record)} not published: the advertiser is shut down`);
      return;
    }
    const key = keyOf(record);
    if (published.has(key)) {
      update(record);
      return;
    }
    const type = SERVICE_TYPE.exec(record.type);
    if (!type) {
      log('error', `mdns: ${describe(record)} not published: the type is not _name._tcp or _name._udp (RFC 6763 7)`);
      return;
    }
    let service: CiaoService;
    try {
      service = getOrCreateResponder().createService({
        name: record.name,
        type: type[1],
        protocol: type[2] as Protocol,
        port: record.port,
        hostname: hostnameFor(record.name),
        txt: txtObject(record, log),
      });
    } catch (error) {
      log('error', `mdns: ${describe(record)} not published: ${message(error)}`);
      return;
    }
    // ciao resolves a name taken on the network by numbering it ("Living Room (2)").
    service.on('name-change', (name) => log('warn', `mdns: ${describe(record)}: the name is taken on the network; published as "${name}"`));
    service.on('hostname-change', (hostname) => log('info', `mdns: ${describe(record)}: host name taken on the network; now ${hostname}`));
    const entry: Published = { record, service, announced: false };
    published.set(key, entry);
    log('info', `mdns: publishing ${describe(record)} port ${record.port} ${where}`);
    service.advertise().then(
      () => {
        // advertise() also resolves when a withdraw cancelled the probing.
        if (published.get(key) !== entry) return;
        entry.announced = true;
        log('debug', `mdns: ${service.getFQDN()} probed unique, announcing (host ${service.getHostname()})`);
      },
      (error: unknown) => log('error', `mdns: ${describe(record)} could not be advertised: ${message(error)}`),
    );
  }

  function update(record: ServiceRecord): void {
    if (shutdownPromise) {
      log('warn', `mdns: ${describe(record)} not updated: the advertiser is shut down`);
      return;
    }
    const entry = published.get(keyOf(record));
    if (!entry) {
      log('warn', `mdns: ${describe(record)} updated before it was published; publishing it`);
      publish(record);
      return;
    }
    if (entry.record.port !== record.port) {
      // An announced service's SRV record cannot change in ciao: publish it anew.
      withdraw(entry.record);
      publish(record);
      return;
    }
    entry.record = record;
    try {
      entry.service.updateTxt(txtObject(record, log));
      log('debug', `mdns: ${describe(record)} TXT record announced again`);
    } catch (error) {
      log('error', `mdns: ${describe(record)} TXT update failed: ${message(error)}`);
    }
  }

  function withdraw(record: ServiceRecord): void {
    const key = keyOf(record);
    const entry = published.get(key);
    if (!entry) {
      log('debug', `mdns: ${describe(record)} withdrawn but not published; nothing to do`);
      return;
    }
    published.delete(key);
    const outcome = entry.announced ? 'goodbye sent' : 'probing cancelled; it had not been announced';
    const goodbye = entry.service.destroy().then(
      () => log('info', `mdns: withdrew ${describe(record)} (${outcome})`),
      (error: unknown) => log('error', `mdns: ${describe(record)} goodbye failed: ${message(error)}`),
    );
    pending.add(goodbye);
    void goodbye.finally(() => pending.delete(goodbye));
  }

  function shutdown(): Promise<void> {
    shutdownPromise ??= (async () => {
      const remaining = published.size;
      published.clear();
      const work = (async () => {
        await Promise.allSettled([...pending]);
        // Responder.shutdown sends goodbyes for every service still announced, then closes the sockets.
        await responder?.shutdown();
      })();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), shutdownTimeoutMs);
      });
      try {
        const outcome = await Promise.race([work.then(() => 'done' as const), timeout]);
        if (outcome === 'timeout') log('warn', `mdns: responder did not shut down within ${shutdownTimeoutMs} ms; goodbyes may be missing`);
        else if (responder) log('info', `mdns: responder shut down${remaining > 0 ? ` (goodbye for ${remaining} service(s))` : ''}`);
      } catch (error) {
        log('error', `mdns: responder shutdown failed: ${message(error)}`);
      } finally {
        clearTimeout(timer);
      }
    })();
    return shutdownPromise;
  }

  return { publish, update, withdraw, shutdown };
}
