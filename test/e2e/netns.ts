// Network namespaces for the end-to-end tests: a "receiver" and a "sender" namespace joined by a
// veth pair, so multicast DNS runs on a private link of the test's own and never on a real one.

import { execFileSync } from 'node:child_process';

/** One end of the link: a namespace, its veth interface and its IPv4 address on the link. */
export interface NetnsHost {
  readonly namespace: string;
  readonly iface: string;
  readonly address: string;
}

export interface NetnsPair {
  readonly receiver: NetnsHost;
  readonly sender: NetnsHost;
  /** The argv that runs `command` inside `host`'s namespace. */
  exec(host: NetnsHost, command: string, args: string[]): { command: string; args: string[] };
  /** Kills whatever still runs in the namespaces and deletes them (the veth pair goes with them). */
  destroy(): void;
}

/**
 * The system bus as a command in the namespaces sees it: none. A network namespace does not hide
 * the machine's /run/dbus, and a receiver there would otherwise register its services with the
 * machine's own avahi-daemon (--mdns auto), which publishes them on the real network. A test that
 * wants avahi runs a private one (test/support/private-avahi.sh sets the address to it).
 */
const NO_SYSTEM_BUS = 'unix:path=/nonexistent/vendorplay-test/no-system-bus';

/** Run inside a namespace, where /proc/sys/net is that namespace's; a kernel without IPv6 has nothing to turn off. */
const DISABLE_IPV6 = 'if [ -d /proc/sys/net/ipv6 ]; then echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6; fi';

function ip(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
}

function reason(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim()) return stderr.trim();
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why namespaces cannot be made here (not root, no `ip`, no CAP_SYS_ADMIN in a container), or
 * undefined when they can: it makes one and deletes it at once.
 */
export function netnsUnavailable(): string | undefined {
  const probe = `vpprobe${process.pid}`;
  try {
    ip(['netns', 'add', probe]);
  } catch (error) {
    return `cannot create a network namespace (ip netns add: ${reason(error)}); discovery runs only inside namespaces the test makes`;
  }
  try {
    ip(['netns', 'del', probe]);
  } catch {
    // Nothing runs in it; a failure here leaves an empty namespace, which the next probe replaces.
  }
  return undefined;
}

/**
 * Two namespaces named after `tag` and this process's id, each with `lo` up, joined by a veth
 * pair made inside them (it never appears in the caller's namespace), 10.211.N.1/24 and .2/24
 * with N derived from the pid, and a multicast route on the veth. IPv6 is off in both, so the
 * link is IPv4 only and no address is ever tentative (DAD) when a listener binds it.
 */
export function createNetnsPair(tag: string): NetnsPair {
  const id = process.pid;
  const subnet = `10.211.${(id % 254) + 1}`;
  const receiver: NetnsHost = { namespace: `${tag}-r-${id}`, iface: `${tag.slice(0, 4)}r${id}`, address: `${subnet}.1` };
  const sender: NetnsHost = { namespace: `${tag}-s-${id}`, iface: `${tag.slice(0, 4)}s${id}`, address: `${subnet}.2` };
  const created: string[] = [];

  const destroy = (): void => {
    for (const namespace of created.splice(0)) {
      try {
        for (const pid of ip(['netns', 'pids', namespace]).split(/\s+/).filter(Boolean)) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      } catch {
        // `ip netns pids` failed: deleting the namespace below is still worth trying.
      }
      try {
        ip(['netns', 'del', namespace]);
      } catch (error) {
        process.stderr.write(`netns: could not delete ${namespace}: ${reason(error)}\n`);
      }
    }
  };

  try {
    for (const host of [receiver, sender]) {
      ip(['netns', 'add', host.namespace]);
      created.push(host.namespace);
      // Before the veth exists, so it never gets an IPv6 address (sh, not sysctl: procps may be absent).
      ip(['netns', 'exec', host.namespace, 'sh', '-c', DISABLE_IPV6]);
      ip(['-n', host.namespace, 'link', 'set', 'lo', 'up']);
    }
    ip(['-n', receiver.namespace, 'link', 'add', receiver.iface, 'type', 'veth', 'peer', 'name', sender.iface, 'netns', sender.namespace]);
    for (const host of [receiver, sender]) {
      ip(['-n', host.namespace, 'addr', 'add', `${host.address}/24`, 'dev', host.iface]);
      ip(['-n', host.namespace, 'link', 'set', host.iface, 'up']);
      // Multicast (224.0.0.251 for mDNS) leaves by the veth even for a socket that names no interface.
      ip(['-n', host.namespace, 'route', 'add', '224.0.0.0/4', 'dev', host.iface]);
    }
  } catch (error) {
    destroy();
    throw new Error(`netns: could not set up ${receiver.namespace} and ${sender.namespace}: ${reason(error)}`);
  }

  return {
    receiver,
    sender,
    exec: (host, command, args) => ({ command: 'ip', args: ['netns', 'exec', host.namespace, 'env', `DBUS_SYSTEM_BUS_ADDRESS=${NO_SYSTEM_BUS}`, command, ...args] }),
    destroy,
  };
}
