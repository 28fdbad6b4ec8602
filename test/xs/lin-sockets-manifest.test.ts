// The Linux port's ECMA-419 sockets (modules/native/lin-sockets) are the ones the Moddable build
// links for `lin`, and only there. mcconfig keeps the first mapping of a module name and the SDK's
// io manifest (included first) maps embedded:io/socket/* to its own lin files, so ours win only
// because the lin section drops the SDK's files with "~"; the fast build's generated manifest must
// keep that. Also: every host function the JavaScript names is defined in the C files, and every
// config key it reads has its default in the manifest.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = path.join(ROOT, 'modules/native/lin-sockets');

const SOCKET_MODULES = ['embedded:io/socket/tcp', 'embedded:io/socket/listener', 'embedded:io/socket/udp'];
const SDK_FILES = ['$(MODDABLE)/modules/io/socket/lin/tcp', '$(MODDABLE)/modules/io/socket/lin/listener', '$(MODDABLE)/modules/io/socket/lin/udp'];

interface Section {
  modules?: Record<string, string | string[]>;
  config?: Record<string, unknown>;
}
interface Manifest {
  include?: string | string[];
  platforms?: Record<string, Section>;
}

const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

test('lin maps embedded:io/socket/tcp, listener and udp to lin-sockets and drops the SDK\'s lin socket files', () => {
  const manifest = read(path.join(DIR, 'manifest.json'));
  assert.deepEqual(Object.keys(manifest.platforms ?? {}), ['lin'], 'the sockets are for lin only');
  const modules = manifest.platforms!.lin.modules ?? {};
  assert.deepEqual(modules['~'], SDK_FILES);
  for (const name of SOCKET_MODULES) {
    const target = modules[name];
    assert.equal(typeof target, 'string', `${name} is mapped`);
    const base = path.resolve(DIR, target as string);
    assert.ok(existsSync(`${base}.js`) && existsSync(`${base}.c`), `${name}: ${target}.js and .c`);
  }
  // The app's manifest reaches it through modules/native/manifest.json.
  const native = read(path.join(ROOT, 'modules/native/manifest.json'));
  assert.ok([native.include ?? []].flat().includes('./lin-sockets/manifest.json'));
  assert.ok([read(path.join(ROOT, 'manifest.json')).include ?? []].flat().includes('./modules/native/manifest.json'));
});

test('every host function the lin-sockets JavaScript names is defined in its C, and every config key it reads has a default', () => {
  const c = readdirSync(DIR).filter((file) => file.endsWith('.c')).map((file) => readFileSync(path.join(DIR, file), 'utf8')).join('\n');
  const defined = new Set([...c.matchAll(/^void (xs_vp_\w+)\(/gm)].map((match) => match[1]));
  const config = read(path.join(DIR, 'manifest.json')).platforms!.lin.config ?? {};
  const missing: string[] = [];
  for (const file of readdirSync(DIR).filter((name) => name.endsWith('.js'))) {
    const source = readFileSync(path.join(DIR, file), 'utf8');
    for (const [, name] of source.matchAll(/\bnative\("(\w+)"\)/gi)) if (!defined.has(name)) missing.push(`${file}: ${name} not defined`);
    for (const [, key] of source.matchAll(/\bconfig\.(\w+)/g)) if (typeof config[key] !== 'number') missing.push(`${file}: config.${key} has no default`);
  }
  assert.deepEqual(missing, []);
  assert.ok(defined.has('xs_vp_tcp_constructor') && defined.has('xs_vp_udp_add'));
});

test('the fast build\'s generated manifests keep the "~" and point the socket modules at the same files', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'lin-sockets-build-'));
  try {
    const generated = execFileSync(process.execPath, [path.join(ROOT, 'scripts/moddable-build.mjs'), '--emit-only', '--out', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    // Find the translated copy of lin-sockets/manifest.json among the generated manifests' includes.
    const queue = [generated];
    let section: Section | undefined;
    while (queue.length > 0 && !section) {
      const file = queue.shift()!;
      const manifest = read(file);
      const lin = manifest.platforms?.lin;
      if (lin?.modules?.['~']) section = lin;
      for (const include of [manifest.include ?? []].flat()) if (!include.startsWith('$(')) queue.push(path.resolve(path.dirname(file), include));
    }
    assert.ok(section, 'a generated manifest has the lin section with "~"');
    assert.deepEqual(section.modules!['~'], SDK_FILES);
    for (const name of SOCKET_MODULES) assert.equal(section.modules![name], path.join(DIR, (read(path.join(DIR, 'manifest.json')).platforms!.lin.modules![name] as string).slice(2)));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
