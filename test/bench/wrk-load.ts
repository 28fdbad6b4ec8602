// A load round driven by wrk (Debian's `wrk`, written in C) instead of this process's JavaScript
// client: at 10 and 100 connections the JavaScript client needs about as much of the machine's
// two cores as the server it measures, so its own speed and scheduling show in the figure; wrk
// needs a fraction of that. Every response is checked by wrk-check.lua (status, Content-Type,
// Server, every body byte); a round with a wrong or missing answer throws.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from '../e2e/receiver-process';

const CHECK_SCRIPT = fileURLToPath(new URL('wrk-check.lua', import.meta.url));

/** Whether `wrk` runs here (apt-get install wrk); the bench says so when it does not. */
export function wrkInstalled(): boolean {
  const run = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  // wrk prints its version and usage, and exits 1, for --version.
  return run.error === undefined && /wrk/.test(`${run.stdout}${run.stderr}`);
}

/** The one answer every request must get. */
export interface WrkExpected {
  status: number;
  contentType: string;
  server: string;
  body: Uint8Array;
}

/** What one wrk round measured: requests answered (and checked) and the seconds they took. */
export interface WrkRound {
  requests: number;
  seconds: number;
}

/**
 * Runs one wrk thread with `connections` keep-alive connections sending `GET requestPath` to
 * 127.0.0.1:`port` for `ms` milliseconds (whole seconds: wrk's unit), and returns the answers
 * checked and the time wrk measured them over. `cpu`: wrk runs on that CPU only (taskset).
 */
export async function wrkRound(port: number, requestPath: string, expected: WrkExpected, connections: number, ms: number, cpu?: number): Promise<WrkRound> {
  const work = mkdtempSync(path.join(tmpdir(), 'vendorplay-wrk-'));
  try {
    const bodyFile = path.join(work, 'body');
    writeFileSync(bodyFile, expected.body);
    const wrk = ['wrk', '-t1', `-c${connections}`, `-d${Math.max(1, Math.round(ms / 1000))}s`, '-s', CHECK_SCRIPT, `http://127.0.0.1:${port}${requestPath}`];
    const command = cpu === undefined ? wrk : ['taskset', '-c', String(cpu), ...wrk];
    const child = spawn(command[0], command.slice(1), {
      env: { ...process.env, BENCH_STATUS: String(expected.status), BENCH_CONTENT_TYPE: expected.contentType, BENCH_SERVER: expected.server, BENCH_BODY_FILE: bodyFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (out += text));
    const code = await within(ms + 15_000, `wrk on 127.0.0.1:${port}`, new Promise<number | null>((resolve) => child.once('exit', resolve)));
    const line = /vendorplay-wrk requests=(\d+) us=(\d+) checked=(\d+) wrong=(\d+) socket_errors=(\d+) first_wrong=(.*)/.exec(out);
    if (code !== 0 || !line) throw new Error(`wrk on 127.0.0.1:${port} failed (exit ${code}): ${out}`);
    const [requests, us, checked, wrong, socketErrors] = line.slice(1, 6).map(Number);
    if (wrong > 0) throw new Error(`wrk: ${wrong} of ${checked} answers from 127.0.0.1:${port} were not the expected one (first: ${line[6]})`);
    if (socketErrors > 0) throw new Error(`wrk: ${socketErrors} socket errors or error statuses on 127.0.0.1:${port}: ${out}`);
    // wrk counts a request whose answer was cut off by the end of the round; only checked ones count.
    if (checked === 0 || checked > requests) throw new Error(`wrk: ${checked} answers checked of ${requests} requests on 127.0.0.1:${port}`);
    return { requests: checked, seconds: us / 1e6 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Whether `taskset` (util-linux) runs here, to put processes on chosen CPUs. */
export function tasksetInstalled(): boolean {
  return spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }).status === 0;
}

/**
 * Runs `body` with every thread of each process in `pids` on `cpu` alone, then gives them back
 * the CPUs they had.
 */
export async function onOneCpu<T>(pids: readonly number[], cpu: number, body: () => Promise<T>): Promise<T> {
  const masks = pids.map((pid) => {
    const shown = spawnSync('taskset', ['-p', String(pid)], { encoding: 'utf8' });
    const mask = /mask:\s*([0-9a-f]+)/i.exec(shown.stdout)?.[1];
    if (shown.status !== 0 || !mask) throw new Error(`taskset -p ${pid}: ${shown.stderr || shown.stdout}`);
    return mask;
  });
  const setAffinity = (pid: number, args: string[]) => {
    const run = spawnSync('taskset', [...args, String(pid)], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`taskset ${args.join(' ')} ${pid}: ${run.stderr}`);
  };
  try {
    for (const pid of pids) setAffinity(pid, ['-a', '-p', '-c', String(cpu)]);
    return await body();
  } finally {
    pids.forEach((pid, i) => setAffinity(pid, ['-a', '-p', masks[i]]));
  }
}
