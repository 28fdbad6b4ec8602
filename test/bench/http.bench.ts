// Keep-alive request rate of GET /server-info: the real receiver command (the compiled build,
// as `npm start` runs it) against Node's own `http` module serving the same bytes, each in its
// own child process on loopback, driven by one load generator in this process, at 1, 10 and 100
// connections; reported per shape as a ratio (receiver / node-http; above 1 means the receiver
// answers faster), and CPU time per request of each server (from /proc: less disturbed by the
// other processes on a shared machine than the rate).
//
// Then the receiver's CPU per request for RTSP GET /info and OPTIONS (spec 2.11; no other RTSP
// server is run here to compare with).
//
// Every response is checked whole: status line, the headers that identify it, and each body byte
// against the first response's body.
//
// The same GET /server-info shapes run twice: with this process's JavaScript client (`generator:
// js-client`), and with wrk (`generator: wrk`, wrk-load.ts) when it is installed. At 10 and 100
// connections the JavaScript client takes about as much of a two-core machine as the server it
// measures; wrk, in C, takes far less, so its figures say more about the servers. With wrk, one
// connection runs a second time with wrk and both servers on one CPU (`cpus`), where no idle core
// has to be woken between request and answer.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import { equal, latin1Encode } from '../../src/bytes';
import { ReceiverProcess, delay, exchange, within, type RawResponse } from '../e2e/receiver-process';
import { decodeBinaryPlist } from '../../src/plist/binary';
import type { PlistDict } from '../../src/plist/value';
import { ratioFigure, report, spreadFields, verify } from './measure';
import { onOneCpu, tasksetInstalled, wrkInstalled, wrkRound, type WrkExpected } from './wrk-load';

export interface HttpLoad {
  /** Load shapes: parallel keep-alive connections. */
  connections: number[];
  /** Requests written at once on a connection before waiting for their answers (1: sequential). */
  pipeline: number;
  /** Length of one measured round. */
  roundMs: number;
  /** Rounds per server and shape, alternating between the servers (which goes first, too). */
  rounds: number;
  /** Rounds per server at one connection (see DEFAULT_HTTP_LOAD). */
  singleConnectionRounds: number;
  warmUpMs: number;
}

/** Connections of the warm-up before each server's first measured round (and before the RTSP figures). */
const WARM_UP_CONNECTIONS = 10;

// Nine rounds, and 25 at one connection. At one connection a round's rate is set by the wake-ups
// of the two processes on loopback far more than by either server (on this two-core virtual
// machine a wake-up of an idle core costs tens of microseconds; the server's own work is a few):
// it moves by +-15% from round to round, a server that does nothing but answer as much, so the
// per-round ratio has a spread of about 8% and its median over 9 pairs about 3%. 25 pairs bring
// that near 2%.
export const DEFAULT_HTTP_LOAD: HttpLoad = { connections: [1, 10, 100], pipeline: 1, roundMs: 1000, rounds: 9, singleConnectionRounds: 25, warmUpMs: 500 };

/** Request rates and CPU per request of each server, one value per round. */
interface Measured {
  rates: Record<string, number[]>;
  cpu: Record<string, number[]>;
}

/** Runs `rounds` rounds of `measure` on each server, the servers taking turns (inTurn). */
async function inRounds<S extends { readonly name: string }>(servers: readonly S[], rounds: number, measure: (server: S) => Promise<RoundResult>): Promise<Measured> {
  const measured: Measured = { rates: {}, cpu: {} };
  for (const server of servers) {
    measured.rates[server.name] = [];
    measured.cpu[server.name] = [];
  }
  for (let i = 0; i < rounds; i++) {
    for (const server of inTurn(servers, i)) {
      const result = await measure(server);
      measured.rates[server.name].push(result.requestsPerSec);
      measured.cpu[server.name].push(result.cpuUsPerRequest);
      await delay(50);
    }
  }
  return measured;
}

/** The rounds of a shape. */
function roundsAt(load: HttpLoad, connections: number): number {
  return connections === 1 ? load.singleConnectionRounds : load.rounds;
}

/** The servers in the order of round `index`: turn about, so neither always runs right after the other. */
function inTurn<T>(servers: readonly T[], index: number): readonly T[] {
  return index % 2 === 0 ? servers : [...servers].reverse();
}

const SERVER_INFO = 'GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const RTSP_INFO = 'GET /info RTSP/1.0\r\nCSeq: 7\r\nX-Vendor-ProtocolVersion: 1\r\n\r\n';
const RTSP_OPTIONS = 'OPTIONS * RTSP/1.0\r\nCSeq: 7\r\n\r\n';

/**
 * Node's http server answering every request with the given status, headers and body. Node
 * adds Date itself (as the receiver does) and `Connection: keep-alive`, which it writes on
 * every kept-alive HTTP/1.1 response whatever the handler does; keepAliveTimeout 0 leaves out
 * its `Keep-Alive: timeout=` header and its idle timer.
 */
const NODE_HTTP_SERVER = `
const http = require('node:http');
const { status, headers, body } = JSON.parse(process.env.BENCH_RESPONSE);
const bytes = Buffer.from(body, 'base64');
const server = http.createServer((request, response) => {
  response.writeHead(status, headers);
  response.end(bytes);
});
server.keepAliveTimeout = 0;
server.maxConnections = 1000;
server.listen(0, '127.0.0.1', () => process.stdout.write('listening on ' + server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

interface NodeHttpServer {
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts Node's http server in a child process, serving `response` (its Date aside). */
async function startNodeHttp(response: RawResponse): Promise<NodeHttpServer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.head.headers) if (name.toLowerCase() !== 'date') headers[name] = value;
  const spec = { status: response.head.status, headers, body: Buffer.from(response.body).toString('base64') };
  const child = spawn(process.execPath, ['-e', NODE_HTTP_SERVER], {
    env: { ...process.env, BENCH_RESPONSE: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    const port = await within(
      10_000,
      'node http server start',
      new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout?.setEncoding('utf8');
        child.stdout?.on('data', (text: string) => {
          out += text;
          const match = /listening on (\d+)\n/.exec(out);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', (code) => reject(new Error(`node http server exited (${code}) before listening`)));
      }),
    );
    return { port, pid: child.pid ?? 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What every response in a load run must be: its status line, headers it must carry, its body. */
export interface Expected {
  statusLine: string;
  /** Lower-case `name: value` lines that must appear in the head. */
  headerLines: string[];
  /**
   * The body of every response; or, for a body that differs per connection (/info names the
   * sender's address), a check of the connection's first body, which later ones must equal.
   */
  body: Buffer | ((first: Buffer, socket: net.Socket) => void);
}

export function expectedOf(response: RawResponse, identifying: string[]): Expected {
  const { head } = response;
  const headerLines = identifying.map((name) => {
    const value = head.headers.get(name);
    verify(value !== undefined, `the first response has ${name}`);
    return `${name}: ${value}`.toLowerCase();
  });
  return { statusLine: `${head.protocol}/${head.version} ${head.status} ${head.reason}`, headerLines, body: Buffer.from(response.body) };
}

/**
 * Counts whole responses in a byte stream of responses framed by Content-Length, checking each
 * against `expected`, with little work per byte (the load generator must not be the
 * bottleneck: the body check is a memcmp).
 */
class ResponseCounter {
  private pending: Buffer = Buffer.alloc(0);
  private bodyLeft = 0;
  private bodyDone = 0;
  private inBody = false;
  private body: Buffer | undefined;
  /** The first body's parts while it is learnt (Expected.body a check). */
  private learning: Buffer[] | undefined;

  constructor(
    private readonly expected: Expected,
    private readonly socket: net.Socket,
  ) {
    if (Buffer.isBuffer(expected.body)) this.body = expected.body;
  }

  /** Feeds bytes; returns how many responses they completed. Throws on any difference. */
  feed(data: Buffer): number {
    const { expected } = this;
    let bytes = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    let pos = 0;
    let done = 0;
    for (;;) {
      if (this.inBody) {
        const take = Math.min(this.bodyLeft, bytes.length - pos);
        if (this.body === undefined) this.learning?.push(Buffer.from(bytes.subarray(pos, pos + take)));
        else if (bytes.compare(this.body, this.bodyDone, this.bodyDone + take, pos, pos + take) !== 0) {
          throw new Error(`load generator: body bytes ${this.bodyDone} to ${this.bodyDone + take} differ from the expected body`);
        }
        pos += take;
        this.bodyDone += take;
        this.bodyLeft -= take;
        if (this.bodyLeft > 0) break;
        this.inBody = false;
        if (this.body === undefined && this.learning && typeof expected.body === 'function') {
          this.body = Buffer.concat(this.learning);
          this.learning = undefined;
          expected.body(this.body, this.socket);
        }
        done++;
        continue;
      }
      const end = bytes.indexOf('\r\n\r\n', pos, 'latin1');
      if (end < 0) break;
      const head = bytes.toString('latin1', pos, end);
      if (!head.startsWith(`${expected.statusLine}\r\n`)) throw new Error(`load generator: unexpected response ${JSON.stringify(head.slice(0, 80))}`);
      const lower = head.toLowerCase();
      for (const line of expected.headerLines) if (!lower.includes(`\r\n${line}\r\n`) && !lower.endsWith(`\r\n${line}`)) throw new Error(`load generator: response without ${line}: ${JSON.stringify(head)}`);
      const length = /\r\ncontent-length:[ \t]*(\d+)/.exec(lower);
      this.bodyLeft = length ? Number(length[1]) : 0;
      if (this.body === undefined) this.learning = [];
      else if (this.bodyLeft !== this.body.length) throw new Error(`load generator: Content-Length ${this.bodyLeft}, expected ${this.body.length}`);
      this.bodyDone = 0;
      this.inBody = true;
      pos = end + 4;
    }
    // Keep only the unparsed tail (a partial head), copied so the socket's buffer is released.
    bytes = bytes.subarray(pos);
    this.pending = this.inBody || bytes.length === 0 ? Buffer.alloc(0) : Buffer.from(bytes);
    return done;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 (1-based), 12 and 13 here; clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface RoundResult {
  requestsPerSec: number;
  /** CPU microseconds the server used per request. */
  cpuUsPerRequest: number;
}

/**
 * Requests per second that the server on `port` (process `pid`) answers: `connections`
 * keep-alive connections each write `pipeline` requests, wait for their answers, and repeat
 * until `ms` has passed.
 */
export async function requestRate(port: number, pid: number, request: string, expected: Expected, connections: number, pipeline: number, ms: number): Promise<RoundResult> {
  const batch = latin1Encode(request.repeat(pipeline));
  const sockets = await Promise.all(
    Array.from({ length: connections }, () =>
      within(
        3000,
        `connect to 127.0.0.1:${port}`,
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(socket));
          socket.setNoDelay(true);
          socket.once('error', reject);
        }),
      ),
    ),
  );
  const cpuBefore = cpuSeconds(pid);
  const start = performance.now();
  const deadline = start + ms;
  let completed = 0;
  try {
    await within(
      ms + 5000,
      `load on 127.0.0.1:${port}`,
      Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve, reject) => {
              const counter = new ResponseCounter(expected, socket);
              let outstanding = 0;
              const send = () => {
                outstanding = pipeline;
                socket.write(batch);
              };
              socket.on('data', (data: Buffer) => {
                let done: number;
                try {
                  done = counter.feed(data);
                } catch (error) {
                  reject(error);
                  return;
                }
                completed += done;
                outstanding -= done;
                if (outstanding > 0) return;
                if (performance.now() < deadline) send();
                else resolve();
              });
              socket.on('error', reject);
              socket.on('close', () => reject(new Error(`server closed a connection after ${completed} responses`)));
              send();
            }),
        ),
      ),
    );
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  return { requestsPerSec: completed / seconds, cpuUsPerRequest: (cpu * 1e6) / completed };
}

export async function runHttpBench(load: HttpLoad = DEFAULT_HTTP_LOAD): Promise<void> {
  const most = Math.max(WARM_UP_CONNECTIONS, ...load.connections);
  // The default log level (info) logs nothing for a successful request, as a person runs it.
  // The load comes from one address: room for all of it there too (a sender uses a handful).
  const room = most + 8;
  const receiver = await ReceiverProcess.start({ logLevel: 'info', args: ['--limit', `maxConnections=${room}`, '--limit', `maxConnectionsPerAddress=${room}`] });
  let nodeHttp: NodeHttpServer | undefined;
  try {
    const receiverPid = receiver.child.pid ?? 0;
    const sample = await exchange(receiver.port, SERVER_INFO);
    verify(sample.head.status === 200, `receiver answered GET /server-info with ${sample.head.status}`);
    nodeHttp = await startNodeHttp(sample);
    // Same status and body; the headers differ only by Node's own Connection: keep-alive.
    const nodeSample = await exchange(nodeHttp.port, SERVER_INFO);
    verify(nodeSample.head.status === sample.head.status && equal(nodeSample.body, sample.body), 'node http server serves the same response');
    const names = (response: RawResponse) => [...response.head.headers].map(([name]) => name.toLowerCase()).sort();
    const extra = names(nodeSample).filter((name) => !names(sample).includes(name));

    const servers = [
      { name: 'receiver', port: receiver.port, pid: receiverPid, expected: expectedOf(sample, ['Content-Type', 'Server']) },
      { name: 'node-http', port: nodeHttp.port, pid: nodeHttp.pid, expected: expectedOf(nodeSample, ['Content-Type', 'Server']) },
    ] as const;
    for (const server of servers) await requestRate(server.port, server.pid, SERVER_INFO, server.expected, WARM_UP_CONNECTIONS, load.pipeline, load.warmUpMs);
    const responseBytes = { receiver: responseSize(sample), 'node-http': responseSize(nodeSample) };
    const reportShape = (measured: Measured, common: Record<string, string | number>) => {
      for (const server of servers) {
        report({
          bench: 'http.server-info',
          server: server.name,
          ...spreadFields('requestsPerSec', measured.rates[server.name], 0),
          ...spreadFields('cpuUsPerRequest', measured.cpu[server.name], 1),
          responseBytes: responseBytes[server.name],
          ...common,
        });
      }
      report({ bench: 'http.server-info', of: 'receiver/node-http requests per second', ...ratioFigure(measured.rates.receiver, measured.rates['node-http']), ...common, nodeExtraHeaders: extra.join(',') });
      report({ bench: 'http.server-info', of: 'receiver/node-http CPU per request (below 1: the receiver uses less)', ...ratioFigure(measured.cpu.receiver, measured.cpu['node-http']), ...common });
    };
    for (const connections of load.connections) {
      const rounds = roundsAt(load, connections);
      const measured = await inRounds(servers, rounds, (server) => requestRate(server.port, server.pid, SERVER_INFO, server.expected, connections, load.pipeline, load.roundMs));
      reportShape(measured, { generator: 'js-client', connections, pipeline: load.pipeline, rounds, roundMs: load.roundMs });
    }

    // The same shapes again with wrk (C) as the load generator, when it is installed: see wrk-load.ts.
    if (wrkInstalled()) {
      const contentType = sample.head.headers.get('Content-Type') ?? '';
      const expected: WrkExpected = { status: 200, contentType, server: sample.head.headers.get('Server') ?? '', body: sample.body };
      const wrkRoundMs = Math.max(1000, Math.round(load.roundMs / 1000) * 1000);
      /** One wrk round on `server`, wrk on CPU `cpu` when given, with the server's CPU time from /proc. */
      const wrkMeasure = async (server: (typeof servers)[number], connections: number, cpu?: number): Promise<RoundResult> => {
        const cpuBefore = cpuSeconds(server.pid);
        const round = await wrkRound(server.port, '/server-info', expected, connections, load.roundMs, cpu);
        return { requestsPerSec: round.requests / round.seconds, cpuUsPerRequest: ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / round.requests };
      };
      for (const connections of load.connections) {
        const rounds = roundsAt(load, connections);
        const measured = await inRounds(servers, rounds, (server) => wrkMeasure(server, connections));
        reportShape(measured, { generator: 'wrk', connections, rounds, roundMs: wrkRoundMs });
      }
      // One connection again with wrk and the server sharing one CPU: no core goes idle between
      // request and answer, so no wake-up stands in the round trip and the servers' own work per
      // request decides the rate. Not the P3 shape (that is the one above, on the machine as it
      // schedules); it shows what the wake-ups hide.
      if (tasksetInstalled() && availableParallelism() >= 2) {
        const measured = await onOneCpu(
          servers.map((server) => server.pid),
          0,
          () => inRounds(servers, load.rounds, (server) => wrkMeasure(server, 1, 0)),
        );
        reportShape(measured, { generator: 'wrk', connections: 1, cpus: 'one, shared by wrk and the server', rounds: load.rounds, roundMs: wrkRoundMs });
      } else {
        report({ bench: 'http.server-info', generator: 'wrk', cpus: 'one', skipped: 'taskset is not installed or this machine has one CPU' });
      }
    } else {
      report({ bench: 'http.server-info', generator: 'wrk', skipped: 'wrk is not installed (apt-get install wrk): figures with the JavaScript client only' });
    }

    // RTSP: the receiver alone (spec 2.11 /info, RFC 2326 OPTIONS).
    for (const [what, request, identifying] of [
      ['rtsp.info', RTSP_INFO, ['Content-Type', 'CSeq']],
      ['rtsp.options', RTSP_OPTIONS, ['Public', 'CSeq']],
    ] as const) {
      const first = await exchange(receiver.port, request);
      verify(first.head.status === 200, `receiver answered ${what} with ${first.head.status}`);
      const expected = expectedOf(first, [...identifying]);
      if (what === 'rtsp.info') expected.body = infoCheck(first.body);
      await requestRate(receiver.port, receiverPid, request, expected, WARM_UP_CONNECTIONS, load.pipeline, load.warmUpMs);
      for (const connections of [1, 10]) {
        const rates: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i < load.rounds; i++) {
          const result = await requestRate(receiver.port, receiverPid, request, expected, connections, load.pipeline, load.roundMs);
          rates.push(result.requestsPerSec);
          cpu.push(result.cpuUsPerRequest);
        }
        report({ bench: what, server: 'receiver', ...spreadFields('requestsPerSec', rates, 0), ...spreadFields('cpuUsPerRequest', cpu, 1), responseBytes: responseSize(first), connections, rounds: load.rounds, roundMs: load.roundMs });
      }
    }
  } finally {
    await nodeHttp?.stop();
    await receiver.stop();
  }
}

/**
 * /info bodies differ per connection by senderAddress only (spec 2.11): a connection's first body
 * must name that connection's own address and otherwise equal `sample`.
 */
export function infoCheck(sample: Uint8Array): (first: Buffer, socket: net.Socket) => void {
  const reference = decodeBinaryPlist(sample) as PlistDict;
  return (first, socket) => {
    const info = decodeBinaryPlist(new Uint8Array(first)) as PlistDict;
    verify(info.senderAddress === `${socket.localAddress}:${socket.localPort}`, `/info senderAddress ${String(info.senderAddress)} names this connection`);
    verify(Object.keys(info).length === Object.keys(reference).length, '/info has the keys of the first reply');
    for (const key of Object.keys(reference)) {
      if (key === 'senderAddress') continue;
      const [a, b] = [info[key], reference[key]];
      verify(a instanceof Uint8Array && b instanceof Uint8Array ? equal(a, b) : JSON.stringify(a) === JSON.stringify(b), `/info ${key} equals the first reply's`);
    }
  };
}

/** Bytes of a response on the wire: status line, headers, empty line, body. */
function responseSize(response: RawResponse): number {
  const { head, body } = response;
  let size = `${head.protocol}/${head.version} ${head.status} ${head.reason}\r\n`.length + 2 + body.length;
  for (const [name, value] of head.headers) size += name.length + 2 + value.length + 2;
  return size;
}

