// Start-up: from spawning a server process to its first 200 answer to GET /server-info, and its
// resident memory (VmRSS) after a second of idling and again once settled (15 s after the first
// 200: V8's memory reducer has run by then, about 8-10 s into an idle process, and given back
// what start-up left; what `top` shows of a receiver nobody uses), for
// - `receiver`: the `vendorplay-receiver` command as a user runs it (bin/, the compiled build in
//   dist/, its staleness check included), with a data directory that already holds an identity;
// - `node-http`: a bare node:http script serving the same bytes (the baseline);
// - `receiver-tsx`: the receiver's TypeScript run through tsx, as the command did before it ran
//   a build (for reference).
// Rounds alternate between them; min/median/max and ratios to the baseline with their spread.
// Both sides are ready at the same sign: the first 200 over a real connection, asked every 2 ms
// from the moment the process prints its port; every first answer is checked to be the
// receiver's /server-info body. Beside the wall-clock time, the CPU the process used until that
// answer (user + system, all its threads, from /proc: 10 ms ticks), which a machine shared with
// other work disturbs less.
//
// Fair and robust: the receiver takes every port free (--port 0 moves all its listeners and
// sockets, the mirroring and NTP ones too, to free ports: no other program holding 7000, 7011,
// 7080 or 7100 stops it), reads an empty config file (not the user's), and a start that rebuilt
// dist/ (a source saved during the bench) or printed a warning fails the bench rather than
// counting.
//
// Network safety: every server listens on loopback only (--no-mdns --interface lo).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { equal } from '../../src/bytes';
import { exchange, loopbackInterface, PROJECT_ROOT, RECEIVER_COMMAND, ReceiverProcess, delay, type RawResponse } from '../e2e/receiver-process';
import { ratioFigure, report, spreadFields, verify } from './measure';

const ROUNDS = 5;
const IDLE_MS = 1000;
/** When the settled reading is taken (after the first 200): V8's memory reducer runs once an idle process's allocation rate falls, some 8-10 s after start here. */
const SETTLED_MS = 15_000;
const REQUEST = 'GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

/** The bare baseline: serves BENCH_BODY as /server-info does, prints its port like the receiver. */
const NODE_HTTP_SCRIPT = `
const http = require('node:http');
const body = Buffer.from(process.env.BENCH_BODY, 'base64');
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'Content-Type': process.env.BENCH_TYPE });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write('listening on 127.0.0.1:' + server.address().port + ' (HTTP)\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

interface Start {
  ms: number;
  /** CPU time (user + system) the process had used when the first 200 arrived. */
  cpuMs: number;
  rssMb: number;
  /** VmRSS SETTLED_MS after the first 200, when asked for. */
  settledRssMb?: number;
}

/** Spawns `args`, waits for its printed port, asks until the first 200, idles, reads VmRSS. */
async function measureStart(name: string, args: string[], env: NodeJS.ProcessEnv, expectedBody: Uint8Array, settled: boolean): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (out += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (err += text));
  try {
    let port: number | undefined;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode}): ${err}`);
      if (performance.now() - started > 20_000) throw new Error(`${args.join(' ')}: no answer within 20 s: ${out}${err}`);
      port ??= Number(/listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || undefined;
      const answer = port === undefined ? undefined : await tryRequest(port);
      if (answer?.head.status === 200) {
        const ms = performance.now() - started;
        const cpuMs = cpuUsedMs(child);
        verify(equal(answer.body, expectedBody), `${name}: the first answer is the /server-info body`);
        await delay(IDLE_MS);
        verify(!/rebuilt dist\/| warn  | error /.test(err), `${name}: started without rebuilding dist/ or a warning (stderr: ${err.trim()})`);
        const rssMb = residentMb(child);
        if (!settled) return { ms, cpuMs, rssMb };
        await delay(SETTLED_MS - IDLE_MS);
        verify(child.exitCode === null, `${name}: still running when settled`);
        return { ms, cpuMs, rssMb, settledRssMb: residentMb(child) };
      }
      await delay(2);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
}

async function tryRequest(port: number): Promise<RawResponse | undefined> {
  try {
    return await exchange(port, REQUEST);
  } catch {
    return undefined;
  }
}

/** utime + stime of the process (all its threads) from /proc/PID/stat, in ms. */
function cpuUsedMs(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'latin1');
  // The fields after the command name (in parentheses, which may hold spaces): state is the 3rd field, utime the 14th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  verify(Number.isFinite(ticks), 'utime and stime read from /proc');
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Linux's USER_HZ, the unit of /proc's times: 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

function residentMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'latin1');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  verify(Number.isFinite(kb), 'VmRSS read from /proc');
  return kb / 1024;
}

export async function runStartupBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-startup-'));
  try {
    // A first start creates the identity; the measured starts are ordinary ones. It also gives
    // the body the baseline serves.
    const first = await ReceiverProcess.start({ dataDir, logLevel: 'info' });
    const sample = await exchange(first.port, REQUEST);
    await first.stop();
    verify(sample.head.status === 200, 'receiver answers /server-info');
    const configFile = path.join(dataDir, 'empty.conf');
    writeFileSync(configFile, '');
    const flags = ['--no-mdns', '--interface', loopbackInterface(), '--port', '0', '--screen-port', '0', '--data-dir', dataDir, '--config', configFile, '--log-level', 'info'];
    // The settled reading is taken of the two compared (the tsx run is for reference only).
    const servers: Record<string, { args: string[]; env: NodeJS.ProcessEnv; settled: boolean }> = {
      receiver: { args: [RECEIVER_COMMAND, ...flags], env: process.env, settled: true },
      'node-http': {
        args: ['-e', NODE_HTTP_SCRIPT, 'node-http'],
        env: { ...process.env, BENCH_BODY: Buffer.from(sample.body).toString('base64'), BENCH_TYPE: sample.head.headers.get('Content-Type') ?? '' },
        settled: true,
      },
      'receiver-tsx': { args: ['--import', 'tsx', path.join(PROJECT_ROOT, 'hosts', 'node', 'main.ts'), ...flags], env: process.env, settled: false },
    };
    const results: Record<string, Start[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, { args, env, settled }] of Object.entries(servers)) (results[name] ??= []).push(await measureStart(name, args, env, sample.body, settled));
    }
    const common = { rounds: ROUNDS, idleMs: IDLE_MS };
    const settledOf = (starts: Start[]): number[] => starts.flatMap((start) => (start.settledRssMb === undefined ? [] : [start.settledRssMb]));
    for (const [name, starts] of Object.entries(results)) {
      const settled = settledOf(starts);
      report({ bench: 'startup', server: name, ...spreadFields('msToFirst200', starts.map((start) => start.ms), 1), ...spreadFields('cpuMsToFirst200', starts.map((start) => start.cpuMs), 0), ...spreadFields('idleRssMb', starts.map((start) => start.rssMb), 1), ...(settled.length > 0 ? { ...spreadFields('settledRssMb', settled, 1), settledMs: SETTLED_MS } : {}), ...common });
    }
    const baseline = results['node-http'];
    for (const name of ['receiver', 'receiver-tsx']) {
      const starts = results[name];
      report({ bench: 'startup', of: `${name}/node-http start to first 200`, ...ratioFigure(starts.map((start) => start.ms), baseline.map((start) => start.ms)), ...common });
      report({ bench: 'startup', of: `${name}/node-http CPU to first 200`, ...ratioFigure(starts.map((start) => start.cpuMs), baseline.map((start) => start.cpuMs)), ...common });
      report({ bench: 'startup', of: `${name}/node-http idle RSS`, ...ratioFigure(starts.map((start) => start.rssMb), baseline.map((start) => start.rssMb)), ...common });
      if (servers[name].settled) report({ bench: 'startup', of: `${name}/node-http settled idle RSS`, ...ratioFigure(settledOf(starts), settledOf(baseline)), settledMs: SETTLED_MS, ...common });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
