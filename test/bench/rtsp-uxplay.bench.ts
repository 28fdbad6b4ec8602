// CPU per request of the tiny RTSP answers, RFC 2326 OPTIONS and spec 2.11 GET /info: the real
// receiver command (the compiled build, at the default log level) beside UxPlay (C, the
// receiver other people run; PEERS.md), each in its own process, answering the same requests
// from one client in this process, one keep-alive connection, one request at a time; rounds
// alternate between the servers (and which goes first). Reported per request kind: each
// server's CPU microseconds per request (from /proc) and requests per second, min/median/max
// over rounds, and the ratio receiver/UxPlay per round (below 1: the receiver spends less).
// Beside them, `node-net`: a bare node:net server writing the receiver's own answer bytes back
// for every request it reads, no parsing at all: the floor of any receiver on Node (its event
// loop, one read and one write per request), to say how much of the gap is Node's.
//
// UxPlay needs avahi-daemon on a system bus to start, and avahi publishes on a network: so all
// of it runs inside a network namespace of the bench's own with a private bus and avahi
// (test/support/beside-avahi.sh, publishing on the namespace's veth only), this file re-run
// there; every request goes to 127.0.0.1 inside it. Skipped, saying why, without uxplay, root
// (namespaces) or avahi. Every answer is checked: status line, identifying headers, body.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createNetnsPair, netnsUnavailable } from '../e2e/netns';
import { PROJECT_ROOT, ReceiverProcess, delay, exchange, within, type RawResponse } from '../e2e/receiver-process';
import { expectedOf, infoCheck, requestRate, type Expected } from './http.bench';
import { ratioFigure, report, spreadFields, verify } from './measure';

const INSIDE = 'VENDORPLAY_BENCH_INSIDE_NETNS';
const BESIDE_AVAHI = path.join(PROJECT_ROOT, 'test/support/beside-avahi.sh');
const ROUNDS = 15;
const ROUND_MS = 1000;
const WARM_UP_MS = 500;
/** UxPlay's `-p n` takes TCP ports n, n+1, n+2; its RTSP listener is found among them. */
const UXPLAY_BASE_PORT = 7300;

const REQUESTS = [
  { what: 'rtsp.options', request: 'OPTIONS * RTSP/1.0\r\nCSeq: 7\r\n\r\n', identifying: ['Public', 'CSeq'] },
  { what: 'rtsp.info', request: 'GET /info RTSP/1.0\r\nCSeq: 7\r\nX-Vendor-ProtocolVersion: 1\r\n\r\n', identifying: ['Content-Type', 'CSeq'] },
] as const;

/** Why the comparison cannot run here, or undefined. */
function unavailable(): string | undefined {
  for (const tool of ['uxplay', 'avahi-daemon', 'dbus-daemon', 'unshare']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (Debian: uxplay gstreamer1.0-libav gstreamer1.0-plugins-good gstreamer1.0-plugins-bad avahi-daemon dbus util-linux)`;
  }
  return netnsUnavailable();
}

export async function runRtspUxplayBench(): Promise<void> {
  if (process.env[INSIDE] === '1') return measureInside();
  const why = unavailable();
  if (why !== undefined) {
    report({ bench: 'rtsp.uxplay', skipped: why });
    return;
  }
  const pair = createNetnsPair('vpux');
  try {
    const run = process.env.VENDORPLAY_BENCH_RUN;
    verify(run !== undefined, 'scripts/bench.mjs names the compiled bench (VENDORPLAY_BENCH_RUN)');
    const { command, args } = pair.exec(pair.receiver, 'unshare', ['-m', 'sh', BESIDE_AVAHI, pair.receiver.iface, 'vpbench', process.execPath, run, 'rtsp-uxplay']);
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, [INSIDE]: '1' } });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    verify(code === 0, `the bench inside the namespace ended with ${code ?? signal}`);
  } finally {
    pair.destroy();
  }
}

interface Server {
  readonly name: 'receiver' | 'uxplay' | 'node-net';
  readonly port: number;
  readonly pid: number;
}

/** Starts UxPlay (no video, no audio output) and resolves with the port its RTSP server answers on. */
async function startUxplay(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn('uxplay', ['-n', 'Bench', '-nh', '-vs', '0', '-as', '0', '-p', String(UXPLAY_BASE_PORT)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`uxplay exited (${child.exitCode}): ${stderr}`);
    for (const port of [UXPLAY_BASE_PORT, UXPLAY_BASE_PORT + 1, UXPLAY_BASE_PORT + 2]) {
      const answer = await exchange(port, REQUESTS[0].request).catch(() => undefined);
      if (answer?.head.status === 200 && answer.head.protocol === 'RTSP') return { child, port };
    }
    await delay(200);
  }
  child.kill('SIGKILL');
  throw new Error(`uxplay answered no OPTIONS on ports ${UXPLAY_BASE_PORT}-${UXPLAY_BASE_PORT + 2} in 15 s: ${stderr}`);
}

/** The floor: answers every read with `answer` (one request per read: the client sends one at a time). */
const NODE_NET_SERVER = `
const net = require('node:net');
const answer = Buffer.from(process.env.BENCH_ANSWER, 'base64');
const server = net.createServer((socket) => { socket.setNoDelay(true); socket.on('data', () => socket.write(answer)); });
server.listen(0, '127.0.0.1', () => process.stdout.write('listening on ' + server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

/** Starts the bare server answering with `answer`'s bytes, as the receiver wrote them. */
async function startNodeNet(answer: Uint8Array): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', NODE_NET_SERVER], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_ANSWER: Buffer.from(answer).toString('base64') } });
  let output = '';
  const port = await within(10_000, 'the node:net server to listen', new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      const listening = /listening on (\d+)/.exec(output);
      if (listening) resolve(Number(listening[1]));
    });
    child.once('exit', (code) => reject(new Error(`node:net server exited (${code})`)));
  }));
  return { child, port };
}

/** The bytes of a response as they came (status line, headers in order, body). */
function wireBytes(response: RawResponse): Uint8Array {
  const { head, body } = response;
  let text = `${head.protocol}/${head.version} ${head.status} ${head.reason}\r\n`;
  for (const [name, value] of head.headers) text += `${name}: ${value}\r\n`;
  const headBytes = Buffer.from(`${text}\r\n`, 'latin1');
  return Buffer.concat([headBytes, Buffer.from(body)]);
}

/** What every answer of `server` to `request` must be, from its first answer. */
async function expectationFor(server: Server, what: string, request: string, identifying: readonly string[]): Promise<{ expected: Expected; first: RawResponse }> {
  const first = await exchange(server.port, request);
  verify(first.head.status === 200, `${server.name} answered ${what} with ${first.head.status}`);
  const expected = expectedOf(first, [...identifying]);
  // The receiver's /info names each connection's own address (senderAddress); UxPlay's is fixed.
  if (what === 'rtsp.info' && server.name === 'receiver') expected.body = infoCheck(first.body);
  return { expected, first };
}

async function measureInside(): Promise<void> {
  const uxplay = await startUxplay();
  const receiver = await ReceiverProcess.start({ logLevel: 'info' });
  const floors: ChildProcess[] = [];
  try {
    const servers: Server[] = [
      { name: 'receiver', port: receiver.port, pid: receiver.child.pid ?? 0 },
      { name: 'uxplay', port: uxplay.port, pid: uxplay.child.pid ?? 0 },
    ];
    for (const { what, request, identifying } of REQUESTS) {
      const floor = await startNodeNet(wireBytes(await exchange(receiver.port, request)));
      floors.push(floor.child);
      const measured: Server[] = [...servers, { name: 'node-net', port: floor.port, pid: floor.child.pid ?? 0 }];
      const expected = new Map<string, Expected>();
      const bytes = new Map<string, number>();
      for (const server of measured) {
        const { expected: each, first } = await expectationFor(server, what, request, identifying);
        expected.set(server.name, each);
        bytes.set(server.name, first.body.length);
        await requestRate(server.port, server.pid, request, each, 1, 1, WARM_UP_MS);
      }
      const cpu: Record<string, number[]> = { receiver: [], uxplay: [], 'node-net': [] };
      const rates: Record<string, number[]> = { receiver: [], uxplay: [], 'node-net': [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const server of round % 2 === 0 ? measured : [...measured].reverse()) {
          const result = await within(ROUND_MS + 10_000, `${what} round on ${server.name}`, requestRate(server.port, server.pid, request, expected.get(server.name)!, 1, 1, ROUND_MS));
          cpu[server.name].push(result.cpuUsPerRequest);
          rates[server.name].push(result.requestsPerSec);
        }
      }
      for (const server of measured) {
        report({ bench: what, server: server.name, ...spreadFields('cpuUsPerRequest', cpu[server.name], 1), ...spreadFields('requestsPerSec', rates[server.name], 0), bodyBytes: bytes.get(server.name) ?? 0, connections: 1, rounds: ROUNDS, roundMs: ROUND_MS });
      }
      report({ bench: what, compared: 'receiver/uxplay cpuUsPerRequest (below 1: the receiver spends less)', ...ratioFigure(cpu.receiver, cpu.uxplay) });
      report({ bench: what, compared: 'node-net/uxplay cpuUsPerRequest (the floor of a receiver on Node)', ...ratioFigure(cpu['node-net'], cpu.uxplay) });
      report({ bench: what, compared: 'receiver/node-net cpuUsPerRequest (the receiver above that floor)', ...ratioFigure(cpu.receiver, cpu['node-net']) });
    }
  } finally {
    await receiver.stop();
    for (const floor of floors) floor.kill('SIGTERM');
    uxplay.child.kill('SIGTERM');
    await new Promise((resolve) => (uxplay.child.exitCode !== null ? resolve(undefined) : uxplay.child.once('exit', resolve)));
  }
}
