// Static proof that the Moddable build finds every module it imports. CI has no Moddable SDK, so
// this walks the imports from the host's main module the way XS resolves them (module names,
// `.js` dropped, relative to the importing module's name) and checks manifest.json maps each one.
// A new src/ folder or @noble file the core starts importing fails here by name.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = 'hosts/moddable/main';

interface Manifest {
  include?: string | string[];
  modules?: Record<string, string | string[]>;
  creation?: { main?: string };
  platforms?: Record<string, { modules?: Record<string, string | string[]> }>;
}

/** The platform checked besides the common modules: the Linux simulator, the build verified by hand in mcsim. */
const PLATFORM = 'lin';

/** Module name -> source file, from a manifest and the manifests it includes inside this repo. */
function moduleMap(manifestFile: string, into = new Map<string, string>()): Map<string, string> {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const dir = path.dirname(manifestFile);
  for (const include of [manifest.include ?? []].flat()) {
    if (!include.startsWith('$(')) moduleMap(path.resolve(dir, include), into);
  }
  for (const [name, targets] of [...Object.entries(manifest.modules ?? {}), ...Object.entries(manifest.platforms?.[PLATFORM]?.modules ?? {})]) {
    for (const target of [targets].flat()) {
      if (target.startsWith('$(')) continue;
      const source = path.resolve(dir, target);
      if (name.endsWith('/*') && target.endsWith('/*')) {
        const folder = path.dirname(source);
        for (const file of readdirSync(folder)) {
          if (/\.(ts|js)$/.test(file) && !file.endsWith('.d.ts')) into.set(name.slice(0, -1) + file.replace(/\.(ts|js)$/, ''), path.join(folder, file));
        }
      } else if (name !== '*') {
        const file = ['.ts', '.js'].map((ext) => source + ext).find((candidate) => existsSync(candidate));
        if (file) into.set(name, file);
      }
    }
  }
  return into;
}

/** The module name XS looks up for `specifier` imported by module `from` (xs/platforms/mc/xsHosts.c). */
function resolveName(from: string, specifier: string): string | undefined {
  const name = specifier.replace(/\.m?js$/, '');
  if (name.startsWith('./') || name.startsWith('../')) return path.posix.normalize(path.posix.join(path.posix.dirname(from), name));
  if (name.startsWith('@noble/')) return name;
  return undefined; // an SDK module (timer, mdns, embedded:io/..., mc/config), mapped by the SDK's manifests
}

test('manifest.json maps every module the Moddable host imports, under the name XS looks up', () => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')) as Manifest;
  assert.equal(manifest.creation?.main, MAIN);
  const modules = moduleMap(path.join(ROOT, 'manifest.json'));
  const problems: string[] = [];
  const seen = new Set<string>([MAIN]);
  const queue = [MAIN];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const file = modules.get(name);
    if (!file) continue;
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = resolveName(name, ref.fileName);
      if (target === undefined || seen.has(target)) continue;
      seen.add(target);
      if (!modules.has(target)) problems.push(`${path.relative(ROOT, file)} imports "${ref.fileName}": no module "${target}" in manifest.json`);
      else queue.push(target);
    }
  }
  assert.ok(seen.has('src/receiver/receiver'));
  assert.ok(seen.has('@noble/curves/ed25519'));
  assert.deepEqual(problems, []);
});
