// Runs a script inside Moddable's XS engine, as built by the npm package @agoric/xsnap.
// Speaks the worker's own pipe protocol (netstrings on fds 3 and 4), so nothing of that
// package's Node API (which installs SES lockdown) enters the test process.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
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

/**
 * Evaluates `script` in a fresh XS machine, waits until its promise jobs are done, and exits.
 * `workerPath`: another build of the worker (the XS test host with natives, modules/native/xs-host).
 */
export function runInXs(script: string, timeoutMs = 120_000, workerPath = xsnapWorkerPath()): Promise<XsRun> {
  return new Promise((resolve, reject) => {
    const worker = spawn(workerPath, ['xs-suite'], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    });
    const toWorker = worker.stdio[3] as NodeJS.WritableStream;
    const fromWorker = worker.stdio[4] as NodeJS.ReadableStream;
    let stdout = '';
    let stderr = '';
    let replies = Buffer.alloc(0);
    let reply: { meter: XsMeter; error?: string } | undefined;
    const timer = setTimeout(() => {
      worker.kill('SIGKILL');
      reject(new Error(`XS run exceeded ${timeoutMs} ms`));
    }, timeoutMs);
    worker.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    worker.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    fromWorker.on('data', (chunk: Buffer) => {
      replies = Buffer.concat([replies, chunk]);
      const colon = replies.indexOf(0x3a);
      if (colon < 0) return;
      const length = Number(replies.subarray(0, colon).toString());
      if (replies.length < colon + 1 + length + 1) return;
      const message = replies.subarray(colon + 1, colon + 1 + length);
      // '.' is success, optionally `.{meter json}\x01`; '!' is an uncaught exception.
      const separator = message.indexOf(1);
      const meterJson = message[0] === 0x2e && separator > 0 ? message.subarray(1, separator).toString() : '{}';
      const meter = JSON.parse(meterJson) as XsMeter;
      reply = message[0] === 0x21 ? { meter, error: message.subarray(1).toString() } : { meter };
      // Closing the command pipe ends the worker, which flushes its stdout.
      toWorker.end();
    });
    worker.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    worker.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!reply) {
        reject(new Error(`xsnap-worker exited (code ${code}, signal ${signal}) before replying: ${stderr}`));
        return;
      }
      resolve({ stdout, stderr, meter: reply.meter, error: reply.error });
    });
    toWorker.write(netstring(`e${script}`));
  });
}

/** What the shim (test/xs/shim/test.ts) printed: its `# xs-summary` line, its `not ok` lines, every line. */
export interface XsSuiteResult {
  summary: { passed: number; failed: number; skipped: number };
  failures: string[];
  lines: string[];
}

/**
 * The suite result a run printed. Throws (an assertion error) when XS threw or printed no summary,
 * with the end of its output.
 */
export function suiteResult(run: XsRun): XsSuiteResult {
  const lines = run.stdout.split('\n');
  const summaryLine = lines.find((line) => line.startsWith(SUMMARY));
  assert.equal(run.error, undefined, `XS threw: ${run.error}\n${run.stdout.slice(-2000)}`);
  assert.ok(summaryLine, `XS printed no summary; output:\n${run.stdout.slice(-2000)}\n${run.stderr}`);
  return { summary: JSON.parse(summaryLine.slice(SUMMARY.length)) as XsSuiteResult['summary'], failures: lines.filter((line) => line.startsWith('not ok')), lines };
}

const SUMMARY = '# xs-summary ';
