// The Advertiser port (src/platform.ts) through avahi-daemon, as UxPlay and shairport-sync
// publish: each service is an entry group of avahi's D-Bus API (org.freedesktop.Avahi), and avahi,
// which already owns UDP port 5353 on the machine, probes, announces, answers (multicast and
// unicast) and says goodbye. Nothing here opens a multicast socket.
//
// What the daemon does to a group, and what this advertiser does then:
// - a name taken on the network (the group's state goes to COLLISION, or AddService answers
//   CollisionError when another program on this machine holds it): the next name, numbered as
//   our own responder numbers it ("Living Room (2)"), logged;
// - a TXT change: UpdateServiceTxt (announced again), no probing;
// - a port change, or avahi's host name changed (the server's state leaves RUNNING and comes
//   back): the group is reset and its service added again;
// - avahi leaving the system bus (stopped, restarted): nothing is advertised until it is back,
//   then every service is registered anew; the bus itself going away: reconnected every few
//   seconds. Avahi frees the groups of a client that disconnects, so a receiver killed outright
//   leaves nothing behind.

import { numbered } from '../../../src/discovery/mdns/mdns-responder';
import { MDNS_LIMITS } from '../../../src/discovery/mdns/mdns-limits';
import { txtBytes } from '../../../src/discovery/txt-bytes';
import { utf8Encode } from '../../../src/bytes';
import { describeError } from '../../../src/errors';
import type { Logger, ServiceRecord } from '../../../src/platform';
import type { MdnsAdvertiser } from './advertiser';
import { DBusError, SystemBus, type Signal } from './system-bus';

/** avahi's well-known name on the system bus, its server object and interfaces (avahi-daemon's D-Bus API). */
export const AVAHI_NAME = 'org.freedesktop.Avahi';
const SERVER_PATH = '/';
const SERVER_INTERFACE = 'org.freedesktop.Avahi.Server';
const GROUP_INTERFACE = 'org.freedesktop.Avahi.EntryGroup';
const COLLISION_ERROR = 'org.freedesktop.Avahi.CollisionError';

/** AvahiServerState (avahi-common/defs.h). */
const SERVER_RUNNING = 2;
/** AvahiEntryGroupState (avahi-common/defs.h). */
const GROUP_STATES = ['uncommitted', 'registering', 'established', 'collision', 'failure'] as const;
/** AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC: every interface and both IP versions avahi serves. */
const ANY_INTERFACE = -1;
const ANY_PROTOCOL = -1;

/** After the system bus went away, how long before connecting again. */
const RECONNECT_MS = 5000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 2000;

export interface AvahiAdvertiserOptions {
  /** Interface names to publish on (avahi's index for each); absent or empty: every interface avahi serves. */
  interfaces?: string[];
  log: Logger;
  /** Longest wait in shutdown() for avahi to withdraw the services (default 2000 ms). */
  shutdownTimeoutMs?: number;
}

interface Entry {
  /** The record as last published or updated (its own name: avahi's may be numbered). */
  record: ServiceRecord;
  /** The instance name registered; numbered after each collision. */
  name: string;
  renames: number;
  /** The entry group's object path while avahi holds it. */
  group: string | undefined;
  /** The port the group's service was added with (a new port needs the service added again). */
  addedPort: number | undefined;
  established: boolean;
  /** Every D-Bus step for this service runs in turn: avahi's answers and signals come in order. */
  queue: Promise<void>;
}

function describe(record: ServiceRecord): string {
  return `"${record.name}" ${record.type}`;
}

/** The TXT record as avahi takes it (`aay`): one byte string per entry, checked as the core checks it. */
function txtStrings(record: ServiceRecord): Uint8Array[] {
  txtBytes(record.txt);
  return record.txt.map(([key, value]) => utf8Encode(`${key}=${value}`));
}

/**
 * Whether avahi-daemon is on the system bus now: the bus connection (kept, for the advertiser) or
 * why not (no bus, or no avahi on it), in words for the log.
 */
export async function findAvahi(): Promise<{ bus: SystemBus; version: string } | { absent: string }> {
  let bus: SystemBus;
  try {
    bus = await SystemBus.connect();
  } catch (error) {
    return { absent: `no D-Bus system bus (${describeError(error)})` };
  }
  try {
    if (!(await bus.nameHasOwner(AVAHI_NAME))) {
      bus.close();
      return { absent: `avahi-daemon is not on the D-Bus system bus (no owner of ${AVAHI_NAME})` };
    }
    const version = await bus.call({ destination: AVAHI_NAME, path: SERVER_PATH, interface: SERVER_INTERFACE, member: 'GetVersionString' });
    return { bus, version: String(version) };
  } catch (error) {
    bus.close();
    return { absent: `avahi-daemon did not answer on the D-Bus system bus (${describeError(error)})` };
  }
}

/** An Advertiser registering through avahi-daemon on `bus` (from findAvahi). Errors are logged, never thrown. */
export function createAvahiAdvertiser(bus: SystemBus, options: AvahiAdvertiserOptions): MdnsAdvertiser {
  return new AvahiAdvertiser(bus, options);
}

const keyOf = (record: ServiceRecord): string => `${record.name}\u0000${record.type}`;

class AvahiAdvertiser implements MdnsAdvertiser {
  private readonly log: Logger;
  private readonly entries = new Map<string, Entry>();
  /** Whether avahi is on the bus and RUNNING: only then are groups made. */
  private running = false;
  /** avahi's interface index for each named interface, looked up once per daemon. */
  private interfaceIndexes: number[] | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Withdrawals under way (their groups being freed), which shutdown waits for. */
  private readonly withdrawals = new Set<Promise<void>>();
  private shutdownPromise: Promise<void> | undefined;

  constructor(
    private bus: SystemBus,
    private readonly options: AvahiAdvertiserOptions,
  ) {
    this.log = options.log;
    void this.attach(bus);
  }

  publish(record: ServiceRecord): void {
    if (this.shutdownPromise) {
      this.log('warn', `mdns: ${describe(record)} not published: the advertiser is shut down`);
      return;
    }
    const key = keyOf(record);
    if (this.entries.has(key)) {
      this.update(record);
      return;
    }
    try {
      txtStrings(record);
    } catch (error) {
      this.log('error', `mdns: ${describe(record)} not published: ${describeError(error)}`);
      return;
    }
    const entry: Entry = { record, name: record.name, renames: 0, group: undefined, addedPort: undefined, established: false, queue: Promise.resolve() };
    this.entries.set(key, entry);
    this.log('info', `mdns: publishing ${describe(record)} port ${record.port} through avahi-daemon`);
    if (this.running) this.enqueue(entry, () => this.register(entry));
  }

  update(record: ServiceRecord): void {
    if (this.shutdownPromise) {
      this.log('warn', `mdns: ${describe(record)} not updated: the advertiser is shut down`);
      return;
    }
    const entry = this.entries.get(keyOf(record));
    if (!entry) {
      this.log('warn', `mdns: ${describe(record)} updated before it was published; publishing it`);
      this.publish(record);
      return;
    }
    try {
      txtStrings(record);
    } catch (error) {
      this.log('error', `mdns: ${describe(record)} TXT update refused, the last one stays: ${describeError(error)}`);
      return;
    }
    entry.record = record;
    // Whatever the group holds when this runs, the newest record is what gets there.
    if (this.running) this.enqueue(entry, () => this.bringUpToDate(entry));
  }

  withdraw(record: ServiceRecord): void {
    const key = keyOf(record);
    const entry = this.entries.get(key);
    if (!entry) {
      this.log('debug', `mdns: ${describe(record)} withdrawn but not published; nothing to do`);
      return;
    }
    this.entries.delete(key);
    const withdrawal = this.enqueue(entry, async () => {
      await this.freeGroup(entry);
      this.log('info', `mdns: withdrew ${describe(record)} (avahi-daemon says goodbye)`);
    });
    this.withdrawals.add(withdrawal);
    void withdrawal.finally(() => this.withdrawals.delete(withdrawal));
  }

  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.shutDown();
    return this.shutdownPromise;
  }

  private async shutDown(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    const entries = [...this.entries.values()];
    this.entries.clear();
    // The receiver withdraws its services as it stops; those goodbyes are waited for too.
    const work = Promise.allSettled([...this.withdrawals, ...entries.map((entry) => this.enqueue(entry, () => this.freeGroup(entry)))]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
    });
    const outcome = await Promise.race([work.then(() => 'done' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') this.log('warn', 'mdns: avahi-daemon did not withdraw the services in time; it frees them when this process leaves the bus');
    else this.log('info', 'mdns: done with avahi-daemon');
    this.bus.close();
  }

  /** Runs `step` after the entry's earlier steps; a failure is logged and the queue goes on. */
  private enqueue(entry: Entry, step: () => Promise<void>): Promise<void> {
    entry.queue = entry.queue.then(step).catch((error: unknown) => {
      // While avahi is away every call fails; that is said once, by daemonLeft.
      if (this.running) this.log('error', `mdns: ${describe(entry.record)} through avahi-daemon: ${describeError(error)}`);
    });
    return entry.queue;
  }

  /** Listens to `bus` for avahi coming, going and its groups' states; registers if avahi is running. */
  private async attach(bus: SystemBus): Promise<void> {
    bus.onSignal((signal) => this.onSignal(signal));
    bus.onClose((reason) => this.busLost(bus, reason));
    try {
      await bus.addMatch(`type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='${AVAHI_NAME}'`);
      await bus.addMatch(`type='signal',sender='${AVAHI_NAME}',interface='${SERVER_INTERFACE}',member='StateChanged'`);
      await bus.addMatch(`type='signal',sender='${AVAHI_NAME}',interface='${GROUP_INTERFACE}',member='StateChanged'`);
      if (await bus.nameHasOwner(AVAHI_NAME)) await this.daemonArrived();
      else this.log('warn', 'mdns: avahi-daemon is not on the system bus; the services are advertised once it is');
    } catch (error) {
      if (!bus.isClosed) this.log('error', `mdns: avahi-daemon could not be asked: ${describeError(error)}`);
    }
  }

  private onSignal(signal: Signal): void {
    if (signal.interface === 'org.freedesktop.DBus' && signal.member === 'NameOwnerChanged' && signal.body[0] === AVAHI_NAME) {
      // [name, old owner, new owner]: a restart may hand the name over without a gap.
      if (signal.body[1] !== '') this.daemonLeft();
      if (signal.body[2] !== '') void this.daemonArrived().catch((error: unknown) => this.log('error', `mdns: avahi-daemon could not be asked: ${describeError(error)}`));
      return;
    }
    if (signal.member !== 'StateChanged') return;
    const [state, error] = signal.body as [number, string];
    if (signal.interface === SERVER_INTERFACE && signal.path === SERVER_PATH) this.serverState(state);
    if (signal.interface === GROUP_INTERFACE) {
      for (const entry of this.entries.values()) if (entry.group === signal.path) this.groupState(entry, state, error);
    }
  }

  /** avahi is (again) on the bus: its server state says whether to register now. */
  private async daemonArrived(): Promise<void> {
    this.interfaceIndexes = undefined;
    const state = await this.bus.call({ destination: AVAHI_NAME, path: SERVER_PATH, interface: SERVER_INTERFACE, member: 'GetState' });
    const host = await this.bus.call({ destination: AVAHI_NAME, path: SERVER_PATH, interface: SERVER_INTERFACE, member: 'GetHostNameFqdn' }).catch(() => '?');
    this.log('info', `mdns: avahi-daemon on the system bus (host ${String(host)}); it advertises the services`);
    this.serverState(Number(state));
  }

  private daemonLeft(): void {
    this.running = false;
    for (const entry of this.entries.values()) this.forgetGroup(entry);
    this.log('warn', 'mdns: avahi-daemon left the system bus; the services are not advertised until it is back');
  }

  /** RUNNING: every service registered (again: a host name change leaves the groups pointing at the old one). */
  private serverState(state: number): void {
    const wasRunning = this.running;
    this.running = state === SERVER_RUNNING;
    if (!this.running) {
      if (wasRunning) this.log('info', `mdns: avahi-daemon is re-registering its host name (state ${state}); the services follow once it runs`);
      return;
    }
    if (wasRunning) return;
    for (const entry of this.entries.values()) {
      this.enqueue(entry, async () => {
        if (entry.group !== undefined) await this.call(entry.group, GROUP_INTERFACE, 'Reset');
        entry.addedPort = undefined;
        await this.register(entry);
      });
    }
  }

  private groupState(entry: Entry, state: number, error: string): void {
    const name = GROUP_STATES[state] ?? `state ${state}`;
    if (name === 'established') {
      if (!entry.established) this.log('info', `mdns: avahi-daemon established "${entry.name}" ${entry.record.type} port ${entry.addedPort}`);
      entry.established = true;
    } else if (name === 'collision') {
      entry.established = false;
      this.enqueue(entry, () => this.renameAfterCollision(entry, 'the name is taken on the network'));
    } else if (name === 'failure') {
      entry.established = false;
      this.log('error', `mdns: avahi-daemon could not publish "${entry.name}" ${entry.record.type}: ${error}`);
    } else {
      this.log('debug', `mdns: "${entry.name}" ${entry.record.type}: avahi group ${name}`);
    }
  }

  /** A group for the entry (if it has none), its service added under its current name, committed. */
  private async register(entry: Entry): Promise<void> {
    if (!this.running || this.entries.get(keyOf(entry.record)) !== entry) return;
    entry.group ??= String(await this.call(SERVER_PATH, SERVER_INTERFACE, 'EntryGroupNew'));
    const record = entry.record;
    try {
      for (const index of await this.interfaces()) {
        await this.call(entry.group, GROUP_INTERFACE, 'AddService', 'iiussssqaay', [index, ANY_PROTOCOL, 0, entry.name, record.type, '', '', record.port, txtStrings(record)]);
      }
    } catch (error) {
      // Another program on this machine holds the name: avahi refuses it at once.
      if (error instanceof DBusError && error.dbusName === COLLISION_ERROR) {
        await this.renameAfterCollision(entry, 'another program on this machine publishes it');
        return;
      }
      throw error;
    }
    entry.addedPort = record.port;
    await this.call(entry.group, GROUP_INTERFACE, 'Commit');
    this.log('debug', `mdns: "${entry.name}" ${record.type} registered with avahi-daemon (${entry.group})`);
  }

  /** The group made to hold the newest record: its TXT replaced, or (new port) the service added again. */
  private async bringUpToDate(entry: Entry): Promise<void> {
    const record = entry.record;
    if (entry.group === undefined || entry.addedPort === undefined) {
      await this.register(entry);
      return;
    }
    if (entry.addedPort !== record.port) {
      await this.call(entry.group, GROUP_INTERFACE, 'Reset');
      entry.addedPort = undefined;
      entry.established = false;
      await this.register(entry);
      return;
    }
    for (const index of await this.interfaces()) {
      await this.call(entry.group, GROUP_INTERFACE, 'UpdateServiceTxt', 'iiusssaay', [index, ANY_PROTOCOL, 0, entry.name, record.type, '', txtStrings(record)]);
    }
    this.log('debug', `mdns: ${describe(record)} TXT record announced again by avahi-daemon`);
  }

  /** The next name ("Name (2)", "Name (3)"...), logged, and the service added under it. */
  private async renameAfterCollision(entry: Entry, why: string): Promise<void> {
    if (this.entries.get(keyOf(entry.record)) !== entry) return;
    if (entry.renames >= MDNS_LIMITS.renamesMax) {
      this.log('error', `mdns: ${describe(entry.record)}: ${entry.renames} names taken; not advertised`);
      return;
    }
    const from = entry.name;
    entry.renames++;
    entry.name = numbered(entry.record.name, entry.renames + 1, ' (');
    this.log('warn', `mdns: ${describe(entry.record)}: "${from}" ${why}; published as "${entry.name}"`);
    if (entry.group !== undefined) await this.call(entry.group, GROUP_INTERFACE, 'Reset');
    entry.addedPort = undefined;
    await this.register(entry);
  }

  private async freeGroup(entry: Entry): Promise<void> {
    const group = entry.group;
    this.forgetGroup(entry);
    if (group !== undefined && this.running) await this.call(group, GROUP_INTERFACE, 'Free');
  }

  private forgetGroup(entry: Entry): void {
    entry.group = undefined;
    entry.addedPort = undefined;
    entry.established = false;
  }

  /** avahi's interface indexes for --interface (AVAHI_IF_UNSPEC for none), looked up once per daemon. */
  private async interfaces(): Promise<number[]> {
    if (this.interfaceIndexes) return this.interfaceIndexes;
    const named = this.options.interfaces?.filter((name) => name !== '') ?? [];
    if (named.length === 0) return (this.interfaceIndexes = [ANY_INTERFACE]);
    const indexes: number[] = [];
    for (const name of named) {
      try {
        indexes.push(Number(await this.call(SERVER_PATH, SERVER_INTERFACE, 'GetNetworkInterfaceIndexByName', 's', [name])));
      } catch (error) {
        this.log('warn', `mdns: avahi-daemon does not know interface ${name} (${describeError(error)}); not advertising there`);
      }
    }
    if (indexes.length === 0) throw new Error(`none of the interfaces ${named.join(', ')} is known to avahi-daemon`);
    return (this.interfaceIndexes = indexes);
  }

  private call(path: string, iface: string, member: string, signature?: string, body?: unknown[]): Promise<unknown> {
    return this.bus.call({ destination: AVAHI_NAME, path, interface: iface, member, ...(signature !== undefined && { signature, body }) });
  }

  /** The bus went away (dbus-daemon restarted): nothing is advertised; connect again in a while. */
  private busLost(bus: SystemBus, reason: string): void {
    if (this.shutdownPromise || bus !== this.bus) return;
    this.running = false;
    for (const entry of this.entries.values()) this.forgetGroup(entry);
    this.log('error', `mdns: the D-Bus system bus connection ended (${reason}); the services are not advertised; connecting again every ${RECONNECT_MS / 1000} s`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.reconnectTimer = setTimeout(() => {
      SystemBus.connect().then(
        (bus) => {
          if (this.shutdownPromise) {
            bus.close();
            return;
          }
          this.log('info', 'mdns: connected to the D-Bus system bus again');
          this.bus = bus;
          void this.attach(bus);
        },
        () => this.scheduleReconnect(),
      );
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }
}
