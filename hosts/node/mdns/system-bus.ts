// A connection to the D-Bus system bus as avahi-advertiser.ts needs it: method calls as promises
// with a deadline, signals to one listener, and the connection's end said once. Built on
// @homebridge/dbus-native (the bus protocol in JavaScript; nothing native).

import dbusNative from '@homebridge/dbus-native';

/** createClient is in the package (index.js) but not in its typings. */
const dbus = dbusNative as unknown as { createClient(options: { busAddress: string }): unknown };

/** D-Bus message types (D-Bus specification, "Message Format"). */
const METHOD_CALL = 1;
const SIGNAL = 4;

/** A method call's answer must come within this long (a daemon that hangs is not waited on). */
const CALL_TIMEOUT_MS = 5000;

/** Where the system bus is when DBUS_SYSTEM_BUS_ADDRESS does not say (D-Bus specification). */
const DEFAULT_SYSTEM_BUS = 'unix:path=/var/run/dbus/system_bus_socket';

/** An error answered by the other end: `name` is the D-Bus error name (org.freedesktop.Avahi.CollisionError). */
export class DBusError extends Error {
  constructor(
    readonly dbusName: string,
    message: string,
  ) {
    super(message ? `${dbusName}: ${message}` : dbusName);
  }
}

export interface Signal {
  sender: string;
  path: string;
  interface: string;
  member: string;
  body: unknown[];
}

export interface MethodCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  /** D-Bus signature of `body` (`iiussssqaay`), absent for no arguments. */
  signature?: string;
  body?: unknown[];
}

/** The dbus-native objects used here (its typings name only part of them). */
interface RawMessage {
  type: number;
  serial?: number;
  sender?: string;
  path?: string;
  interface?: string;
  member?: string;
  signature?: string;
  body?: unknown[];
}
interface RawBus {
  connection: { on(event: string, listener: (...args: unknown[]) => void): void; end(): void };
  cookies: Record<number, unknown>;
  invoke(message: RawMessage & { destination: string }, callback: (error: { name: string; message: string } | null | undefined, ...values: unknown[]) => void): void;
}

export class SystemBus {
  private closed = false;
  private readonly closeListeners: ((reason: string) => void)[] = [];
  /** The calls waiting for an answer, each failed when the connection ends. */
  private readonly waiting = new Set<(reason: string) => void>();
  private signalListener: ((signal: Signal) => void) | undefined;

  private constructor(private readonly bus: RawBus) {
    bus.connection.on('message', (message) => {
      const raw = message as RawMessage;
      if (raw.type !== SIGNAL || !this.signalListener) return;
      this.signalListener({ sender: raw.sender ?? '', path: raw.path ?? '', interface: raw.interface ?? '', member: raw.member ?? '', body: raw.body ?? [] });
    });
    bus.connection.on('error', (error) => this.ended(error instanceof Error ? error.message : String(error)));
    bus.connection.on('end', () => this.ended('the bus closed the connection'));
  }

  /**
   * Connects to the system bus and says hello (the bus's first answer proves it is there).
   * Rejects when there is no bus (no socket, refused) within the call deadline.
   */
  static async connect(): Promise<SystemBus> {
    const busAddress = process.env.DBUS_SYSTEM_BUS_ADDRESS || DEFAULT_SYSTEM_BUS;
    const bus = new SystemBus(dbus.createClient({ busAddress }) as unknown as RawBus);
    try {
      // Any answer from the bus itself will do; GetId has no side effect.
      await bus.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'GetId' });
    } catch (error) {
      bus.close();
      throw error;
    }
    return bus;
  }

  /** The first value of the answer, or a DBusError; rejects too when the connection is gone. */
  call(message: MethodCall): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the system bus connection is closed'));
    return new Promise((resolve, reject) => {
      const raw: RawMessage & { destination: string } = { ...message, type: METHOD_CALL };
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        this.waiting.delete(ended);
        if (raw.serial !== undefined) delete this.bus.cookies[raw.serial];
        reject(new Error(`${message.interface}.${message.member}: no answer within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      const ended = (reason: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error(`${message.interface}.${message.member}: ${reason}`));
      };
      this.waiting.add(ended);
      this.bus.invoke(raw, (error, ...values) => {
        this.waiting.delete(ended);
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(new DBusError(error.name, error.message));
        else resolve(values[0]);
      });
    });
  }

  /** Asks the bus to route signals matching `rule` (D-Bus match rule syntax) to this connection. */
  async addMatch(rule: string): Promise<void> {
    await this.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'AddMatch', signature: 's', body: [rule] });
  }

  /** Whether a name (org.freedesktop.Avahi) has an owner on the bus now. */
  async nameHasOwner(name: string): Promise<boolean> {
    const owned = await this.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'NameHasOwner', signature: 's', body: [name] });
    return owned === true;
  }

  /** The one listener for every signal routed here. */
  onSignal(listener: (signal: Signal) => void): void {
    this.signalListener = listener;
  }

  /** Called once when the connection ends (the bus went away, or close()). */
  onClose(listener: (reason: string) => void): void {
    if (this.closed) listener('the system bus connection is closed');
    else this.closeListeners.push(listener);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.bus.connection.end();
    this.ended('closed');
  }

  private ended(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const ended of [...this.waiting]) ended(reason);
    this.waiting.clear();
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}
