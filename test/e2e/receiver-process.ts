// End-to-end helpers: start the real `vendorplay-receiver` command on loopback (the compiled
// build in dist/, as a user runs it; the command rebuilds it first when a source is newer), read
// what it prints, stop it; and a raw socket client that splits HTTP/RTSP responses with our
// parser.
//
// Network safety: the receiver always runs with --no-mdns and listens on the loopback interface
// only (--interface lo: 127.0.0.1, and ::1 where it exists); the clients here connect to loopback only.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { concat, latin1Encode } from '../../src/bytes';
import { MessageParser, type ResponseHead } from '../../src/http';

/** The project root (where bin/vendorplay-receiver.js lives). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The receiver command the tests run (the compiled build, as a person runs it). */
export const RECEIVER_COMMAND = path.join(PROJECT_ROOT, 'bin', 'vendorplay-receiver.js');

/** One service line the command printed: `not advertising (--no-mdns) "NAME" TYPE port N: k=v ...`. */
export interface PrintedService {
  readonly name: string;
  readonly type: string;
  readonly port: number;
  /** The TXT record in printed order. Values are split on spaces, so none may hold one. */
  readonly txt: [string, string][];
  readonly line: string;
}

export interface StartOptions {
  /** Data directory; a fresh temporary one (removed by stop()) when omitted. */
  dataDir?: string;
  /** More command-line arguments (`--dialect apple`, `--profile speaker`, `--limit ...`). */
  args?: string[];
  /** --log-level (default debug: the log is kept for failure messages). */
  logLevel?: 'error' | 'warn' | 'info' | 'debug';
  /** Bound on start-up, from spawn to every service line printed (default 30 s: a busy machine is slow to load a program). */
  timeoutMs?: number;
  /**
   * A command the receiver runs under, given node and its arguments to exec (e.g. `unshare -m sh
   * -c SCRIPT` to give it a private mount namespace); it must exec, so the child is the receiver.
   */
  prefix?: string[];
}

/** What starts every start-up line (stdout) and log line (stderr): the time to the ms, and the level. */
export const LOG_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (?:error|warn |info |debug) /;
/** A start-up line's pattern: `message` after the prefix of a line at info. */
const startupLine = (message: RegExp) => new RegExp(String.raw`^\S+Z info  ${message.source.replace(/^\^/, '')}`);
const LISTENING = startupLine(/listening on (\S+):(\d+) \(HTTP and RTSP\)$/);
const MIRRORING = startupLine(/listening on (\S+):(\d+) \(screen mirroring; NTP client on UDP port (\d+)/);
const SCREEN = startupLine(/screen on (http:\/\/127\.0\.0\.1:\d+\/)(?: and \S+)? \(virtual screen page\)$/);
const PROFILE = startupLine(/profile (\S+), dialect (\S+), device id (\S+), data in (.*)$/);
const SERVICE = startupLine(/(?:not advertising \(--no-mdns\)|advertising) "(.*)" (\S+) port (\d+):(.*)$/);
/**
 * The default bound on a wait for something the receiver does at once (a log line, a response, a
 * close). A failure bound, not a speed claim: on a busy machine (two test files, Chromium and
 * ffmpeg sharing two cores) "at once" can take seconds, and a wait ends as soon as its condition holds.
 */
export const PROMPT_MS = 10_000;
/**
 * After the `profile` line the service lines follow in the same tick; this much quiet ends them
 * (quiet once the test process has read what the pipe held: see waitUntilReady).
 */
const SETTLE_MS = 150;

export class ReceiverProcess {
  readonly listening: { address: string; port: number }[] = [];
  /** The mirroring listener's port and the NTP client's UDP port, when the command mirrors (--record). */
  mirrorPort: number | undefined;
  ntpPort: number | undefined;
  /** The virtual screen page on 127.0.0.1 (`http://127.0.0.1:PORT/`), when the command serves one. */
  screenUrl: string | undefined;
  readonly services: PrintedService[] = [];
  profile = '';
  dialect = '';
  deviceId = '';
  private out = '';
  private err = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  private constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
    private readonly ownsDataDir: boolean,
  ) {
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => (this.out += text));
    child.stderr?.on('data', (text: string) => (this.err += text));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        resolve(this.exitStatus);
      });
    });
  }

  /** Starts the command and resolves once it has printed its listeners and services. */
  static async start(options: StartOptions = {}): Promise<ReceiverProcess> {
    const ownsDataDir = options.dataDir === undefined;
    const dataDir = options.dataDir ?? freshDataDir();
    const args = [
      RECEIVER_COMMAND,
      '--no-mdns',
      '--interface',
      loopbackInterface(),
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      options.logLevel ?? 'debug',
      // The virtual screen on any free loopback port, so receivers started together never clash
      // on 7080 (a test may name its own --screen-port, or --no-screen).
      ...(options.args?.some((arg) => arg === '--screen-port' || arg === '--no-screen') ? [] : ['--screen-port', '0']),
      // A receiver with a screen mirrors (the page decodes): its mirroring listener and NTP
      // client on free ports too, so receivers started together never clash on 7100 or 7011.
      ...(options.args?.includes('--mirror-port') ? [] : ['--mirror-port', '0']),
      ...(options.args?.includes('--ntp-port') ? [] : ['--ntp-port', '0']),
      ...(options.args ?? []),
    ];
    const [program, ...programArgs] = options.prefix ? [...options.prefix, process.execPath, ...args] : [process.execPath, ...args];
    const child = spawn(program, programArgs, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const receiver = new ReceiverProcess(child, dataDir, ownsDataDir);
    try {
      await receiver.waitUntilReady(options.timeoutMs ?? 30_000);
    } catch (error) {
      await receiver.stop();
      throw error;
    }
    return receiver;
  }

  /** The port every listener took (--port 0 picks one; all listeners share it). */
  get port(): number {
    return this.listening[0].port;
  }

  /** What the command printed on stdout so far. */
  get stdout(): string {
    return this.out;
  }

  /** The log (stderr) so far. */
  get stderr(): string {
    return this.err;
  }

  /** The printed service of `type`; throws naming what was printed when there is none. */
  service(type: string): PrintedService {
    const service = this.services.find((candidate) => candidate.type === type);
    if (!service) throw new Error(`no ${type} service printed; stdout was:\n${this.out}`);
    return service;
  }

  /** The TXT value of `key` in the printed service of `type`; throws when absent. */
  txt(type: string, key: string): string {
    const entry = this.service(type).txt.find(([name]) => name === key);
    if (!entry) throw new Error(`${type} TXT has no ${key}: ${this.service(type).line}`);
    return entry[1];
  }

  /** Waits up to `timeoutMs` for a log line (stderr) matching `pattern`; returns it, or throws. */
  async waitForLog(pattern: RegExp, timeoutMs = PROMPT_MS): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.err.split('\n').find((candidate) => pattern.test(candidate));
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms; log:\n${this.err}`);
      await delay(10);
    }
  }

  /**
   * Stops it like a person would (SIGTERM), SIGKILL when it has not exited within `graceMs`;
   * removes the data directory when start() made it. Resolves with how it exited.
   */
  async stop(graceMs = PROMPT_MS): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!this.exitStatus && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    const status = await this.exited;
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
    return status;
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastLength = -1;
    let quietSince = Date.now();
    for (;;) {
      if (this.exitStatus) {
        throw new Error(`vendorplay-receiver exited (${JSON.stringify(this.exitStatus)}) before it was ready\nstdout:\n${this.out}\nstderr:\n${this.err}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`vendorplay-receiver not ready within ${timeoutMs} ms\nstdout:\n${this.out}\nstderr:\n${this.err}`);
      }
      if (this.out.length !== lastLength) {
        lastLength = this.out.length;
        quietSince = Date.now();
      }
      if (this.out.split('\n').some((line) => PROFILE.test(line)) && Date.now() - quietSince >= SETTLE_MS) {
        // After a stall of this process, timers run before the pipe is read: let it read what the
        // receiver wrote meanwhile (an I/O phase comes before setImmediate's), then look again.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.out.length === lastLength) break;
        continue;
      }
      await delay(20);
    }
    for (const line of this.out.split('\n')) {
      const screen = SCREEN.exec(line);
      if (screen) {
        this.screenUrl = screen[1];
        continue;
      }
      let match = MIRRORING.exec(line);
      if (match) {
        this.mirrorPort = Number(match[2]);
        this.ntpPort = Number(match[3]);
        continue;
      }
      match = LISTENING.exec(line);
      if (match) {
        this.listening.push({ address: match[1].replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) });
        continue;
      }
      match = PROFILE.exec(line);
      if (match) {
        [, this.profile, this.dialect, this.deviceId] = match;
        continue;
      }
      match = SERVICE.exec(line);
      if (match) {
        const txt = match[4]
          .trim()
          .split(' ')
          .filter(Boolean)
          .map((pair): [string, string] => {
            const equals = pair.indexOf('=');
            return equals < 0 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
          });
        this.services.push({ name: match[1], type: match[2], port: Number(match[3]), txt, line });
      }
    }
    if (this.listening.length === 0) throw new Error(`no "listening on" line; stdout was:\n${this.out}`);
  }
}

/** The name of the loopback interface (`lo` on Linux, `lo0` on macOS): the one holding 127.0.0.1. */
export function loopbackInterface(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (addresses?.some((info) => info.internal && info.address === '127.0.0.1')) return name;
  }
  throw new Error('no loopback interface with 127.0.0.1');
}

/** A new empty temporary directory for a receiver's identity (the caller removes it). */
export function freshDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'vendorplay-e2e-'));
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Checks `check` every `stepMs` until it holds; rejects after `timeoutMs` naming `what()` (asked
 * then, so it can show the last state seen).
 */
export async function until(what: () => string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000, stepMs = 20): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what()}`);
    await delay(stepMs);
  }
}

/** Rejects with `what` when `promise` has not settled within `ms`. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// A raw loopback client: writes exactly the bytes a test gives, reads responses in order.

export interface RawResponse {
  readonly head: ResponseHead;
  readonly body: Uint8Array;
}

/** One TCP connection to the receiver; responses are split by MessageParser('response'). */
export class RawClient {
  private readonly parser = new MessageParser('response');
  private readonly responses: RawResponse[] = [];
  private current: { head: ResponseHead; chunks: Uint8Array[] } | undefined;
  private problem: string | undefined;
  private ended = false;
  private wake: (() => void) | undefined;
  /** Every byte received, for failure messages and byte-level checks. */
  received: Uint8Array = new Uint8Array(0);

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => {
      const bytes = new Uint8Array(data);
      this.received = concat(this.received, bytes);
      this.parser.receive(bytes);
      this.pump();
    });
    socket.on('end', () => {
      this.parser.receiveEnd();
      this.pump();
      this.ended = true;
      this.notify();
    });
    socket.on('close', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('error', (error) => {
      this.problem ??= `socket error: ${error.message}`;
      this.notify();
    });
  }

  /** Connects to `host` (loopback only) within `timeoutMs`. */
  static connect(port: number, host = '127.0.0.1', timeoutMs = PROMPT_MS): Promise<RawClient> {
    if (host !== '127.0.0.1' && host !== '::1') throw new Error(`RawClient connects to loopback only, not ${host}`);
    return within(
      timeoutMs,
      `connect to ${host}:${port}`,
      new Promise<RawClient>((resolve, reject) => {
        const socket = net.connect({ port, host }, () => {
          socket.off('error', reject);
          resolve(new RawClient(socket));
        });
        socket.once('error', reject);
      }),
    );
  }

  get localAddress(): string {
    return this.socket.localAddress ?? '';
  }

  get localPort(): number {
    return this.socket.localPort ?? 0;
  }

  /**
   * Writes `message` (text is sent as Latin-1, `\r\n` spelled out by the caller) in one write.
   * `methods` names, in order, the requests it holds when one of them is HEAD, whose response
   * has no body however its Content-Length reads.
   */
  send(message: string | Uint8Array, methods: string[] = []): void {
    for (const method of methods) this.parser.expectResponseTo(method);
    this.socket.write(typeof message === 'string' ? latin1Encode(message) : message);
  }

  /** The next complete response, within `timeoutMs`. */
  async response(timeoutMs = PROMPT_MS): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const next = this.responses.shift();
      if (next) return next;
      if (this.problem) throw new Error(`${this.problem}; received ${JSON.stringify(this.receivedText())}`);
      if (this.ended) throw new Error(`connection closed before a response; received ${JSON.stringify(this.receivedText())}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms; received ${JSON.stringify(this.receivedText())}`);
      await this.waitForEvent(left);
    }
  }

  /** `count` responses in order. */
  async responsesOf(count: number, timeoutMs = PROMPT_MS): Promise<RawResponse[]> {
    const out: RawResponse[] = [];
    for (let i = 0; i < count; i++) out.push(await this.response(timeoutMs));
    return out;
  }

  /**
   * Whether the receiver closed the connection within `timeoutMs` (false: still open then). A
   * bound for a close that is due; "still open" is shown by a later request answered instead.
   */
  async closedByPeer(timeoutMs = PROMPT_MS): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.waitForEvent(left);
    }
    return true;
  }

  receivedText(): string {
    return Buffer.from(this.received).toString('latin1');
  }

  close(): void {
    this.socket.destroy();
  }

  private pump(): void {
    for (let event = this.parser.next(); event; event = this.parser.next()) {
      if (event.type === 'head') this.current = { head: event.head, chunks: [] };
      else if (event.type === 'body') this.current?.chunks.push(event.data.slice());
      else if (event.type === 'end' && this.current) {
        this.responses.push({ head: this.current.head, body: concat(...this.current.chunks) });
        this.current = undefined;
      } else if (event.type === 'error') {
        this.problem ??= `unparseable response: ${event.status} ${event.reason}`;
      }
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private waitForEvent(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Sends `message` on a new connection and returns the first response (then closes). */
export async function exchange(port: number, message: string | Uint8Array, host = '127.0.0.1'): Promise<RawResponse> {
  const client = await RawClient.connect(port, host);
  try {
    client.send(message);
    return await client.response();
  } finally {
    client.close();
  }
}

/** What a command run printed, and how it ended. */
export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The sender command the tests run (the compiled build, as a person runs it). */
export const SEND_COMMAND = path.join(PROJECT_ROOT, 'bin', 'vendorplay-send.js');

/**
 * Runs the Node script `command` (one of the bin/ commands) to its end (bounded); `whileRunning`
 * runs alongside it and may read its stdout and signal it (a person's Ctrl-C is `child.kill('SIGINT')`).
 */
export function runCommand(command: string, args: string[], timeoutMs = 20_000, whileRunning?: (output: () => string, child: ChildProcess) => Promise<void>): Promise<CommandRun> {
  const child = spawn(process.execPath, [command, ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<CommandRun>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  const side = whileRunning?.(() => stdout, child) ?? Promise.resolve();
  return within(timeoutMs, `${path.basename(command)} ${args.join(' ')}`, Promise.all([exited, side]).then(([run]) => run)).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  });
}

/** Runs `vendorplay-send` to its end (bounded); `whileRunning` runs alongside it and may read its stdout and signal it. */
export function runSender(args: string[], timeoutMs = 20_000, whileRunning?: (output: () => string, child: ChildProcess) => Promise<void>): Promise<CommandRun> {
  return runCommand(SEND_COMMAND, args, timeoutMs, whileRunning);
}
