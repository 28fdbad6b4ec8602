// bin/run-with-code-cache.mjs, which runs the receiver's bundle through V8's code cache: a bundle
// runs as CommonJS with its arguments, a start that had no cache can save one that the next start
// takes, and a cache made from another bundle (same length, other text: V8 itself checks only
// the length) is not used. Each start is a fresh Node process, as each command start is.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const RUNNER = pathToFileURL(path.join(import.meta.dirname, '..', '..', 'bin', 'run-with-code-cache.mjs')).href;

/** A bundle shaped like dist/receiver.cjs: prints what it was given, as JSON. */
function bundle(greeting: string): string {
  return `(function (exports, require, module, __filename, __dirname) {
  const say = ${JSON.stringify(greeting)};
  module.exports.said = say;
  process.stdout.write(JSON.stringify({ say, file: __filename, dir: __dirname, join: typeof require('node:path').join, self: this === exports }) + '\\n');
})`;
}

/** Runs `file` in a new process with runBundle; saves a cache when asked. */
function start(file: string, save = false): { cached: boolean; printed: { say: string; file: string; dir: string; join: string; self: boolean } } {
  const script = `const { runBundle } = await import(${JSON.stringify(RUNNER)}); const run = runBundle(${JSON.stringify(file)}); if (${save}) run.save(); process.stdout.write(JSON.stringify({ cached: run.cached }));`;
  const [printed, result] = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).split('\n');
  return { ...(JSON.parse(result) as { cached: boolean }), printed: JSON.parse(printed) };
}

test('a bundle runs as CommonJS; a start without a cache saves one, the next start takes it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vendorplay-code-cache-'));
  try {
    const file = path.join(dir, 'bundle.cjs');
    writeFileSync(file, bundle('hello'), 'latin1');
    const first = start(file, true);
    assert.deepEqual(first, { cached: false, printed: { say: 'hello', file, dir, join: 'function', self: true } });
    assert.ok(existsSync(`${file}.v8cache`));
    assert.equal(start(file).cached, true, 'the saved cache is taken');
    // The same length, other text, a later time: the cache is of another bundle.
    writeFileSync(file, bundle('howdy'), 'latin1');
    utimesSync(file, new Date(), new Date(Date.now() + 2000));
    const rebuilt = start(file);
    assert.equal(rebuilt.cached, false);
    assert.equal(rebuilt.printed.say, 'howdy');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a start whose cache cannot be written runs all the same, and saving leaves nothing behind', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vendorplay-code-cache-'));
  try {
    const file = path.join(dir, 'bundle.cjs');
    writeFileSync(file, bundle('hello'), 'latin1');
    // Where the cache would go, a directory: the save's rename fails, as in a directory not ours.
    mkdirSync(`${file}.v8cache`);
    const run = start(file, true);
    assert.equal(run.cached, false);
    assert.equal(run.printed.say, 'hello');
    assert.deepEqual(readdirSync(dir).sort(), ['bundle.cjs', 'bundle.cjs.v8cache']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the build writes the receiver as such a bundle, Latin-1 and wrapped', () => {
  const built = path.join(import.meta.dirname, '..', '..', 'dist', 'receiver.cjs');
  const text = readFileSync(built, 'latin1');
  assert.ok(text.startsWith('(function (exports, require, module, __filename, __dirname) {'));
  assert.ok(text.replace(/\/\/# sourceMappingURL=\S+\s*$/, '').trimEnd().endsWith('})'));
});
