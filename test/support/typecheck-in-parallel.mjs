// `npm test`'s type check: the tsc runs of `npm run typecheck` (package.json, the one list of
// them), two at a time instead of one after another. The four take about 65 s of CPU; one tsc
// keeps about 1.3 cores busy (its checker is one thread, V8's collector helps on another), so one
// after another they left much of a two-core machine idle for about 50 s. The root project alone
// is about half of the CPU, so two lanes end together: the root project in one, the other three
// in the other. Each run's output is printed whole when it ends (not interleaved); the exit
// status is 1 when any run failed.
// Usage: node test/support/typecheck-in-parallel.mjs

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const LANES = Math.max(1, Math.min(2, os.availableParallelism?.() ?? 2));

/** The projects of the typecheck script, in its order: it must be `tsc -p A && tsc -p B && ...`. */
function typecheckProjects() {
  const script = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts.typecheck;
  return script.split('&&').map((command) => {
    const project = /^\s*tsc -p (\S+)\s*$/.exec(command);
    if (!project) throw new Error(`typecheck-in-parallel: "${command.trim()}" in package.json's typecheck script is not "tsc -p PROJECT"`);
    return project[1];
  });
}

/** Runs tsc on `project`; resolves with its exit code and everything it printed. */
function check(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSC, '-p', project], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text) => (output += text));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? 1, output: signal ? `${output}tsc ended by ${signal}\n` : output }));
  });
}

const pending = typecheckProjects();
let failed = 0;
async function lane() {
  for (let project = pending.shift(); project !== undefined; project = pending.shift()) {
    const { code, output } = await check(project);
    process.stdout.write(`> tsc -p ${project}${code === 0 ? '' : ` (failed: exit ${code})`}\n${output}`);
    if (code !== 0) failed++;
  }
}
await Promise.all(Array.from({ length: LANES }, lane));
process.exitCode = failed > 0 ? 1 : 0;
