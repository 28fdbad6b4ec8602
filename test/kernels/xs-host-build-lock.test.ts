// The XS test host's build lock (withLock in modules/native/xs-host/build.mjs): test files run in
// parallel all build the host, and XS must be compiled once per run, not once per file. Builders
// in separate processes take turns; a builder killed mid-build, or a lock too old to be real,
// never hangs the next run. Every wait here is on what a process printed or wrote, not a sleep.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { withLock } from '../../modules/native/xs-host/build.mjs';
import { PROJECT_ROOT, until } from '../e2e/receiver-process';

const BUILD = pathToFileURL(path.join(PROJECT_ROOT, 'modules', 'native', 'xs-host', 'build.mjs')).href;
/** A builder: takes the lock, writes "NAME start" to the log, holds the lock until the go file exists (if one is named), writes "NAME end". */
const BUILDER = `
import { appendFileSync, existsSync } from 'node:fs';
import { withLock } from ${JSON.stringify(BUILD)};
const [lock, log, name, go] = process.argv.slice(1);
await withLock(lock, async () => {
  appendFileSync(log, name + ' start\\n');
  console.log('holding');
  while (go && !existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 10));
  appendFileSync(log, name + ' end\\n');
}, { pollMs: 10, onWait: (pid) => console.log('waiting for ' + pid) });
`;

/** A last bound on each test: a broken lock hangs a waiter, which must fail, not stall the run. */
const BOUND = { timeout: 60_000 };

const dir = mkdtempSync(path.join(tmpdir(), 'vp-build-lock-'));
const children: ChildProcess[] = [];
after(() => {
  // A builder left waiting by a failed test must not keep the run alive.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Builder {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function builder(lock: string, log: string, name: string, go = ''): Builder {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BUILDER, lock, log, name, go], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const printed = (process: Builder, line: string) => until(() => `no "${line}"; printed:\n${process.output()}`, () => process.output().split('\n').includes(line), 30_000);

test('builders in two processes take turns: the second waits for the first and goes when it is done', BOUND, async () => {
  const lock = path.join(dir, 'turns.lock');
  const log = path.join(dir, 'turns.log');
  const go = path.join(dir, 'turns.go');
  const first = builder(lock, log, 'first', go);
  await printed(first, 'holding');
  const second = builder(lock, log, 'second');
  await printed(second, `waiting for ${first.child.pid}`);
  writeFileSync(go, '');
  assert.deepEqual(await Promise.all([first.exited, second.exited]), [0, 0], first.output() + second.output());
  assert.equal(readFileSync(log, 'utf8'), 'first start\nfirst end\nsecond start\nsecond end\n');
  assert.equal(existsSync(lock), false, 'the lock is released');
});

test('a builder killed while it holds the lock does not hang the next: its lock is taken as left behind', BOUND, async () => {
  const lock = path.join(dir, 'killed.lock');
  const log = path.join(dir, 'killed.log');
  const killed = builder(lock, log, 'killed', path.join(dir, 'never'));
  await printed(killed, 'holding');
  const next = builder(lock, log, 'next');
  await printed(next, `waiting for ${killed.child.pid}`);
  killed.child.kill('SIGKILL');
  assert.equal(await next.exited, 0, next.output());
  assert.equal(readFileSync(log, 'utf8'), 'killed start\nnext start\nnext end\n');
  assert.equal(existsSync(lock), false);
});

test('a lock naming a process that does not exist, or older than staleMs, is removed and taken', BOUND, async () => {
  const lock = path.join(dir, 'stale.lock');
  // Above any pid_max Linux allows (2^22): no such process can exist.
  writeFileSync(lock, '4194399\n');
  const waited: number[] = [];
  assert.equal(await withLock(lock, async () => 'built', { onWait: (pid) => waited.push(pid) }), 'built');
  // A live pid (ours), but the lock is an hour old: a pid reused since its holder died.
  writeFileSync(lock, `${process.pid}\n`);
  const hourAgo = new Date(Date.now() - 3600_000);
  utimesSync(lock, hourAgo, hourAgo);
  assert.equal(await withLock(lock, async () => 'built again', { staleMs: 600_000, onWait: (pid) => waited.push(pid) }), 'built again');
  assert.deepEqual(waited, [], 'no wait for a lock left behind');
  assert.equal(existsSync(lock), false);
});

test('two builds in one process take turns too', BOUND, async () => {
  const lock = path.join(dir, 'same-process.lock');
  const order: string[] = [];
  let release!: () => void;
  const first = withLock(lock, async () => {
    order.push('first start');
    await new Promise<void>((resolve) => (release = resolve));
    order.push('first end');
  });
  const second = withLock(lock, async () => void order.push('second'), {
    pollMs: 5,
    onWait: (pid) => {
      order.push(`second waits for ${pid === process.pid ? 'this process' : pid}`);
      release();
    },
  });
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first start', 'second waits for this process', 'first end', 'second']);
});
