// `vendorplay-receiver pairings` finds the receiver's data directory where a service keeps it:
// --data-dir, else the data-dir its config file names (--config), else the default. In-process,
// on a temporary directory.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { runPairingsCommand } from '../../hosts/node/pairings-command';

const dir = mkdtempSync(path.join(tmpdir(), 'vendorplay-pairings-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): { status: number; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const status = runPairingsCommand(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out, err };
}

test('the data directory named by the config file is the one worked on; --data-dir still wins', () => {
  const data = path.join(dir, 'service-data');
  mkdirSync(data);
  const config = path.join(dir, 'receiver.conf');
  writeFileSync(config, `# as a service's\nname = Frame\ndata-dir = ${data}\n`);
  const listed = run(['list', '--config', config]);
  assert.equal(listed.status, 0, listed.err.join('\n'));
  assert.deepEqual(listed.out, [`0 pairings in ${data}`]);
  const other = path.join(dir, 'other-data');
  mkdirSync(other);
  assert.deepEqual(run(['list', '--config', config, '--data-dir', other]).out, [`0 pairings in ${other}`]);
});

test('a config file with a mistake is said in its one line, naming file, line and key', () => {
  const config = path.join(dir, 'bad.conf');
  writeFileSync(config, 'name = Frame\ncolour = blue\n');
  const result = run(['list', '--config', config]);
  assert.equal(result.status, 1);
  assert.equal(result.err.length, 1);
  assert.match(result.err[0], new RegExp(`^vendorplay-receiver pairings: ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: colour: unknown key`));
});
