// In-memory ports for driving the sans-I/O core in portable tests: a manual clock, a seeded
// random source, a map store, a connection that records what the core writes, a recording
// advertiser and a recording display. Portable (runs in the XS suite too).

import { concat, latin1Decode } from '../../src/bytes';
import type { Advertiser, Clock, Connection, Display, DisplayStatus, Logger, NowPlaying, RandomSource, ServiceRecord, Store } from '../../src/platform';
import { makeRng } from './arbitrary';

/** A clock whose time moves only when the test advances it; timers fire in order. */
export class ManualClock implements Clock {
  private time = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();
  wall = Date.UTC(2026, 10, 21, 12, 0, 0);

  now(): number {
    return this.time;
  }
  wallTime(): number {
    return this.wall + this.time;
  }
  setTimer(ms: number, callback: () => void): number {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pendingTimers(): number {
    return this.timers.size;
  }
  /** Moves time forward, firing each timer that comes due, earliest first. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = end;
  }
}

export function seededRandom(seed = 1): RandomSource {
  const rng = makeRng(seed);
  return (length) => rng.bytes(length);
}

export class MemoryStore implements Store {
  readonly records = new Map<string, Uint8Array>();
  get(key: string): Uint8Array | undefined {
    return this.records.get(key);
  }
  put(key: string, value: Uint8Array): void {
    this.records.set(key, value.slice());
  }
  delete(key: string): void {
    this.records.delete(key);
  }
}

/** A connection whose peer is the test: `send` delivers bytes to the core, `written` holds its replies. */
export class MemoryConnection implements Connection {
  remoteAddress = '192.0.2.20';
  remotePort = 50000;
  localAddress = '192.0.2.1';
  localPort = 7000;
  readonly chunks: Uint8Array[] = [];
  closed = false;
  /** The core asked to stop reading (flow control). */
  paused = false;
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  onData: (bytes: Uint8Array) => void = () => {};
  onClose: (error?: string) => void = () => {};
  onDrain: () => void = () => {};

  write(bytes: Uint8Array): boolean {
    if (this.closed) throw new Error('write after close');
    this.chunks.push(bytes);
    return true;
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
  }
  send(data: string | Uint8Array): void {
    this.onData(typeof data === 'string' ? latin1Bytes(data) : data);
  }
  get written(): Uint8Array {
    return concat(...this.chunks);
  }
  get text(): string {
    return latin1Decode(this.written);
  }
}

function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

export class RecordingAdvertiser implements Advertiser {
  readonly events: { kind: 'publish' | 'update' | 'withdraw'; service: ServiceRecord }[] = [];
  publish(service: ServiceRecord): void {
    this.events.push({ kind: 'publish', service });
  }
  update(service: ServiceRecord): void {
    this.events.push({ kind: 'update', service });
  }
  withdraw(service: ServiceRecord): void {
    this.events.push({ kind: 'withdraw', service });
  }
}

/** What a RecordingDisplay was asked to do, in order. */
export type DisplayCall =
  | { kind: 'photo'; jpeg: Uint8Array; transition: string | undefined; at: number }
  | { kind: 'clear'; at: number }
  | { kind: 'status'; status: DisplayStatus; at: number }
  | { kind: 'pin'; pin: string; at: number }
  | { kind: 'hidePin'; at: number }
  | { kind: 'nowPlaying'; playing: NowPlaying | undefined; at: number };

/** A screen that records every call, stamped with the clock's time when one is given. */
export class RecordingDisplay implements Display {
  readonly calls: DisplayCall[] = [];
  constructor(private readonly clock?: Clock) {}
  private get at(): number {
    return this.clock?.now() ?? 0;
  }
  showPhoto(jpeg: Uint8Array, transition?: string): void {
    this.calls.push({ kind: 'photo', jpeg, transition, at: this.at });
  }
  clear(): void {
    this.calls.push({ kind: 'clear', at: this.at });
  }
  showStatus(status: DisplayStatus): void {
    this.calls.push({ kind: 'status', status: { ...status }, at: this.at });
  }
  showPin(pin: string): void {
    this.calls.push({ kind: 'pin', pin, at: this.at });
  }
  hidePin(): void {
    this.calls.push({ kind: 'hidePin', at: this.at });
  }
  showNowPlaying(playing: NowPlaying | undefined): void {
    this.calls.push({ kind: 'nowPlaying', playing, at: this.at });
  }
  /** The pictures shown, in order. */
  get photos(): { jpeg: Uint8Array; transition: string | undefined; at: number }[] {
    return this.calls.flatMap((call) => (call.kind === 'photo' ? [call] : []));
  }
  /** The calls other than status lines, by kind, in order: `['photo', 'photo', 'clear']`. */
  get kinds(): string[] {
    return this.calls.filter((call) => call.kind !== 'status').map((call) => call.kind);
  }
}

export interface LogLine {
  level: string;
  message: string;
}

export function recordingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const log: Logger = (level, message) => {
    lines.push({ level, message });
  };
  return Object.assign(log, { lines });
}

