// Runs a script inside Moddable's XS engine, as built by the npm package @agoric/xsnap.
// Speaks the worker's own pipe protocol (netstrings on fds 3 and 4), so nothing of that
// package's Node API (which installs SES lockdown) enters the test process.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface XsMeter {
  /** XS's compute meter: the number of byte-code steps the evaluation took. */
  compute: number;
  /** Bytes the XS heap allocated (chunks and slots). */
  allocate: number;
  /** Live slots in the heap after the evaluation. */
  currentHeapCount: number;
}

export interface XsRun {
  stdout: string;
  stderr: string;
  meter: XsMeter;
  /** Error message when the script threw, otherwise undefined. */
  error?: string;
}

/** Path of the xsnap-worker binary that `npm install` built from XS's sources. */
export function xsnapWorkerPath(): string {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve('@agoric/xsnap/package.json'));
  const worker = path.join(packageDir, 'xsnap-native/xsnap/build/bin/lin/release/xsnap-worker');
  if (!existsSync(worker)) {
    throw new Error(`${worker} is missing: @agoric/xsnap's install script did not build XS (run: npm rebuild @agoric/xsnap)`);
  }
  return worker;
}

function netstring(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length}:`), body, Buffer.from(',')]);
}

/** What one evaluation in a worker gave: its meter, and the message when it threw. */
interface XsReply {
  meter: XsMeter;
  error?: string;
}

/**
 * One xsnap worker (one XS machine): scripts are evaluated one at a time, each reply coming once
 * its promise jobs are done; close() ends the worker, which flushes its stdout.
 * `workerPath`: another build of the worker (the XS test host with natives, modules/native/xs-host).
 */
class XsWorker {
  private readonly worker: ChildProcess;
  private readonly toWorker: NodeJS.WritableStream;
  private stdout = '';
  private stderr = '';
  private replies = Buffer.alloc(0);
  private waiting: { resolve: (reply: XsReply) => void; reject: (error: Error) => void } | undefined;
  private readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private failure: Error | undefined;

  constructor(workerPath: string) {
    this.worker = spawn(workerPath, ['xs-suite'], { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    this.toWorker = this.worker.stdio[3] as NodeJS.WritableStream;
    const fromWorker = this.worker.stdio[4] as NodeJS.ReadableStream;
    this.worker.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    this.worker.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    fromWorker.on('data', (chunk: Buffer) => {
      this.replies = Buffer.concat([this.replies, chunk]);
      const colon = this.replies.indexOf(0x3a);
      if (colon < 0) return;
      const length = Number(this.replies.subarray(0, colon).toString());
      if (this.replies.length < colon + 1 + length + 1) return;
      const message = this.replies.subarray(colon + 1, colon + 1 + length);
      this.replies = this.replies.subarray(colon + 1 + length + 1);
      // '.' is success, optionally `.{meter json}\x01`; '!' is an uncaught exception.
      const separator = message.indexOf(1);
      const meterJson = message[0] === 0x2e && separator > 0 ? message.subarray(1, separator).toString() : '{}';
      const meter = JSON.parse(meterJson) as XsMeter;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.resolve(message[0] === 0x21 ? { meter, error: message.subarray(1).toString() } : { meter });
    });
    this.worker.on('error', (error) => this.fail(error));
    this.closed = new Promise((resolve) => {
      this.worker.on('close', (code, signal) => {
        this.exitStatus = { code, signal };
        this.fail(new Error(`xsnap-worker exited (code ${code}, signal ${signal}) before replying: ${this.stderr}`));
        resolve(this.exitStatus);
      });
    });
  }

  /** Evaluates `script` (the previous evaluation must have replied). */
  evaluate(script: string): Promise<XsReply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.toWorker.write(netstring(`e${script}`));
    });
  }

  /** Ends the worker (closing its command pipe) and resolves with all it printed. */
  async close(): Promise<{ stdout: string; stderr: string }> {
    this.toWorker.end();
    await this.closed;
    return { stdout: this.stdout, stderr: this.stderr };
  }

  kill(): void {
    this.worker.kill('SIGKILL');
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }
}

/** Rejects with `message` (after `onTimeout`) when `work` has not settled within `timeoutMs`. */
async function bounded<T>(work: Promise<T>, timeoutMs: number, message: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(message));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Evaluates `script` in a fresh XS machine, waits until its promise jobs are done, and exits.
 * `workerPath`: another build of the worker (the XS test host with natives, modules/native/xs-host).
 */
export function runInXs(script: string, timeoutMs = 120_000, workerPath = xsnapWorkerPath()): Promise<XsRun> {
  const worker = new XsWorker(workerPath);
  const run = async (): Promise<XsRun> => {
    const reply = await worker.evaluate(script);
    const { stdout, stderr } = await worker.close();
    return { stdout, stderr, ...reply };
  };
  return bounded(run(), timeoutMs, `XS run exceeded ${timeoutMs} ms`, () => worker.kill());
}

/**
 * Runs the suites of a `by-file` bundle (bundlePortableSuites(files, { run: 'by-file' })) in
 * `machines` XS machines at once: each evaluates the bundle, then takes the next file not yet run
 * until none is left, so one file's tests run in one machine, in order, and the machines end
 * together however unevenly the files cost. The run's output is every machine's; its meter the
 * sum of their compute and allocation, and the largest heap; its error the first one thrown.
 */
export function runSuitesInXs(script: string, files: readonly string[], machines: number, timeoutMs = 120_000, workerPath = xsnapWorkerPath()): Promise<XsRun> {
  const workers = Array.from({ length: Math.max(1, Math.min(machines, files.length)) }, () => new XsWorker(workerPath));
  const pending = [...files];
  const meter: XsMeter = { compute: 0, allocate: 0, currentHeapCount: 0 };
  let error: string | undefined;
  const count = (reply: XsReply): void => {
    meter.compute += reply.meter.compute ?? 0;
    meter.allocate += reply.meter.allocate ?? 0;
    meter.currentHeapCount = Math.max(meter.currentHeapCount, reply.meter.currentHeapCount ?? 0);
    error ??= reply.error;
  };
  const lane = async (worker: XsWorker): Promise<{ stdout: string; stderr: string }> => {
    count(await worker.evaluate(script));
    for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
      count(await worker.evaluate(`globalThis.__xsRunSuiteFile(${JSON.stringify(file)});`));
    }
    return worker.close();
  };
  const run = async (): Promise<XsRun> => {
    try {
      const outputs = await Promise.all(workers.map(lane));
      return { stdout: outputs.map((output) => output.stdout).join(''), stderr: outputs.map((output) => output.stderr).join(''), meter, error };
    } catch (failure) {
      // One machine died: the others are not left running.
      for (const worker of workers) worker.kill();
      throw failure;
    }
  };
  return bounded(run(), timeoutMs, `XS run exceeded ${timeoutMs} ms`, () => workers.forEach((worker) => worker.kill()));
}

/**
 * What the shim (test/xs/shim/test.ts) printed: its `# xs-summary` lines (one per run of tests:
 * one for a whole bundle, one per file run by runSuitesInXs) added up, and how many there were;
 * its `not ok` lines; every line.
 */
export interface XsSuiteResult {
  summary: { passed: number; failed: number; skipped: number };
  summaries: number;
  failures: string[];
  lines: string[];
}

/**
 * The suite result a run printed. Throws (an assertion error) when XS threw or printed no summary,
 * with the end of its output.
 */
export function suiteResult(run: XsRun): XsSuiteResult {
  const lines = run.stdout.split('\n');
  const summaryLines = lines.filter((line) => line.startsWith(SUMMARY));
  assert.equal(run.error, undefined, `XS threw: ${run.error}\n${run.stdout.slice(-2000)}`);
  assert.ok(summaryLines.length > 0, `XS printed no summary; output:\n${run.stdout.slice(-2000)}\n${run.stderr}`);
  const summary = { passed: 0, failed: 0, skipped: 0 };
  for (const line of summaryLines) {
    const counts = JSON.parse(line.slice(SUMMARY.length)) as XsSuiteResult['summary'];
    summary.passed += counts.passed;
    summary.failed += counts.failed;
    summary.skipped += counts.skipped;
  }
  return { summary, summaries: summaryLines.length, failures: lines.filter((line) => line.startsWith('not ok')), lines };
}

const SUMMARY = '# xs-summary ';
