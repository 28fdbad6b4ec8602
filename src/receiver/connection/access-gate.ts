// Where the access lists (../access-list.ts) are applied: to a connection when it is accepted, to
// each request head before it is routed, and to the identifier a pairing step names. Refusals
// are 403 and close, over HTTP and RTSP alike (RTSP/1.0 has 403 too, RFC 2326 7.1.1), with one
// log line per cause and interval however many there are.

import { CountedLog } from '../../counted-log';
import { readMakerHeader } from '../../dialect';
import { HEADER, STATUS, type RequestHead } from '../../http';
import { utf8Encode } from '../../bytes';
import type { ConnectionState } from '../../connection-state';
import { StateKey } from '../../connection-state';
import type { Logger } from '../../platform';
import { AccessList, type DeviceVerdict } from '../access-list';
import type { Response } from './router';

/** At most one log line per cause about refused senders per this many milliseconds. */
const ACCESS_LOG_INTERVAL_MS = 10_000;

/** Set on a connection whose session SETUP named a blocked device: every later request is refused. */
const BLOCKED = new StateKey<string>('access: blocked');

/** Set on a connection once it named a device id on the allow list (or pair-verify proved one). */
const ADMITTED_BY_DEVICE = new StateKey<string>('access: admitted by device id');

/** What the gate reads of a connection. */
export interface GatedConnection {
  readonly addresses: { readonly remoteAddress: string };
  readonly state: ConnectionState;
  readonly peer: string;
}

interface AccessGateContext {
  readonly log: Logger;
  now(): number;
  /** The receiver's open connections: a sender's other connections of one address share its admission. */
  connections(): Iterable<GatedConnection>;
}

/**
 * The device ids a request head names: the maker's Device-ID header (`0x5855ca1ae288` from real
 * senders, a MAC address from others) and DACP-ID (the id of the sender's remote-control service).
 */
export function devicesNamed(head: RequestHead): string[] {
  const named: string[] = [];
  const device = readMakerHeader(head.headers, 'Device-ID');
  if (device) named.push(device);
  const dacp = head.headers.get(HEADER.dacpId)?.trim();
  if (dacp) named.push(dacp);
  return named;
}

/**
 * The answer to a sender the access lists refuse: 403 and close. No `reason`: the connection
 * would log every one at info; the gate's counted line says it.
 */
export function accessRefusal(why: string): Response {
  return {
    status: STATUS.forbidden,
    headers: { [HEADER.contentType]: 'text/plain; charset=utf-8' },
    body: utf8Encode(`this receiver does not serve this sender (${why})\n`),
    close: true,
  };
}

export class AccessGate {
  readonly list: AccessList;
  private readonly logs = new Map<string, CountedLog>();

  constructor(allow: readonly string[], block: readonly string[], private readonly context: AccessGateContext) {
    this.list = new AccessList(allow, block);
  }

  /** Whether a connection from `address` is refused when it connects (logged, counted). */
  refusesConnection(address: string, peer: string): boolean {
    if (this.list.addressVerdict(address) !== 'blocked') return false;
    this.note('address', `${peer} refused: ${this.list.restricts ? 'its address is blocked or not on the allow list' : 'its address is blocked'} (closed at once)`);
    return true;
  }

  /**
   * The refusal of a request head, or undefined when it is served. `open`: its route needs no
   * identity (GET /info, RTSP OPTIONS, pairing), served to a connection still to name a device.
   */
  screen(connection: GatedConnection, head: RequestHead, open: boolean): Response | undefined {
    const blocked = connection.state.get(BLOCKED);
    if (blocked !== undefined) return this.refuse(connection, head, blocked);
    const named = devicesNamed(head);
    for (const device of named) {
      if (this.list.deviceVerdict(device) === 'blocked') return this.refuse(connection, head, `device ${device} is blocked`);
    }
    const address = this.list.addressVerdict(connection.addresses.remoteAddress);
    if (address === 'allowed') return undefined;
    if (address === 'blocked') return this.refuse(connection, head, 'its address is blocked');
    const { state } = connection;
    if (state.get(ADMITTED_BY_DEVICE) !== undefined) return undefined;
    const listed = named.find((device) => this.list.deviceVerdict(device) === 'allowed') ?? (state.peerId !== undefined && this.list.deviceVerdict(state.peerId) === 'allowed' ? state.peerId : undefined);
    if (listed !== undefined) {
      state.set(ADMITTED_BY_DEVICE, listed);
      return undefined;
    }
    if (named.length > 0) return this.refuse(connection, head, `device ${named[0]} is not on the allow list`);
    // A sender's other connections (its reverse connection, a second request connection) need
    // not name the device again while one of its address named it.
    if (this.companionAdmitted(connection)) return undefined;
    if (open) return undefined;
    return this.refuse(connection, head, 'neither its address nor a device id it named is on the allow list');
  }

  /**
   * Why a pairing step that names `identifier` (pair-setup M5, pair-verify M3) is refused, or
   * undefined: a blocked identifier always; with an allow list, one not on it from a connection
   * not otherwise admitted (its address, a device id it named).
   */
  refusesPeer(identifier: string, connection: GatedConnection): string | undefined {
    const verdict: DeviceVerdict = this.list.deviceVerdict(identifier);
    let why: string | undefined;
    if (verdict === 'blocked') why = `sender ${identifier} is blocked`;
    else if (verdict === 'unlisted' && this.list.addressVerdict(connection.addresses.remoteAddress) !== 'allowed' && connection.state.get(ADMITTED_BY_DEVICE) === undefined && !this.companionAdmitted(connection)) {
      why = `sender ${identifier} is not on the allow list`;
    }
    if (why) this.note('pairing', `${connection.peer} pairing refused: ${why}`);
    return why;
  }

  /**
   * Why a session SETUP naming `deviceId` in its body is refused (a blocked device), or undefined.
   * The connection is refused from then on (its head named no device, or a listed one).
   */
  refusesSessionDevice(deviceId: string, state: ConnectionState, peer: string): string | undefined {
    if (this.list.deviceVerdict(deviceId) !== 'blocked') return undefined;
    const why = `device ${deviceId} is blocked`;
    state.set(BLOCKED, why);
    this.note('request', `${peer} SETUP refused (403): ${why}`);
    return why;
  }

  private companionAdmitted(connection: GatedConnection): boolean {
    const { remoteAddress } = connection.addresses;
    for (const other of this.context.connections()) {
      if (other !== connection && other.addresses.remoteAddress === remoteAddress && !other.state.closed && other.state.get(ADMITTED_BY_DEVICE) !== undefined) return true;
    }
    return false;
  }

  private refuse(connection: GatedConnection, head: RequestHead, why: string): Response {
    this.note('request', `${connection.peer} ${head.protocol} ${head.method} ${head.target} refused (403, closed): ${why}`);
    return accessRefusal(why);
  }

  /** Logs a refusal: the first of each cause at once, then one line per interval with the count. */
  private note(cause: string, message: string): void {
    let counted = this.logs.get(cause);
    if (!counted) this.logs.set(cause, (counted = new CountedLog(ACCESS_LOG_INTERVAL_MS)));
    const count = counted.note(this.context.now());
    if (count === 0) return;
    this.context.log('warn', count === 1 ? message : `${count} senders refused by the access lists in the last ${ACCESS_LOG_INTERVAL_MS / 1000} s (${cause}), the last: ${message}`);
  }
}
