// The Moddable build's module graph for one platform, read statically: the module names a manifest
// (and the manifests it includes inside this repository) maps for that platform, chosen the way
// mcconfig chooses a platform section, and the names reached from a module by its imports,
// resolved the way XS resolves them. The fast build's compiled manifest (scripts/moddable-build.mjs
// --emit-only) names JavaScript, where TypeScript's imports of types only are gone.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface ManifestSection {
  include?: string | string[];
  modules?: Record<string, string | string[]>;
}

interface Manifest extends ManifestSection {
  platforms?: Record<string, ManifestSection>;
}

/**
 * The section of `platforms` mcconfig merges for `platform` (tools/mcmanifest.js matchPlatform):
 * the longest prefix of `esp32/moddable_six` that a key names exactly or by `esp32/*`, else "...".
 */
export function matchPlatform<T>(platforms: Record<string, T>, platform: string): T | undefined {
  const parts = platform.split('/');
  while (parts.length > 0) {
    const partial = parts.join('/');
    for (const [key, section] of Object.entries(platforms)) {
      if (key.endsWith('/*') ? partial.startsWith(key.slice(0, -1)) : key.startsWith('*/') ? partial.endsWith(key.slice(1)) : partial === key) return section;
    }
    parts.length -= 1;
  }
  return platforms['...'];
}

/** Module name -> source file for `platform`, from a manifest and the manifests it includes inside this repo. */
export function platformModules(manifestFile: string, platform: string, into = new Map<string, string>()): Map<string, string> {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const dir = path.dirname(manifestFile);
  const section = manifest.platforms ? matchPlatform(manifest.platforms, platform) : undefined;
  for (const include of [manifest.include ?? [], section?.include ?? []].flat()) {
    if (!include.startsWith('$(')) platformModules(path.resolve(dir, include), platform, into);
  }
  for (const [name, targets] of [...Object.entries(manifest.modules ?? {}), ...Object.entries(section?.modules ?? {})]) {
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
export function resolveName(from: string, specifier: string): string | undefined {
  const name = specifier.replace(/\.m?js$/, '');
  if (name.startsWith('./') || name.startsWith('../')) return path.posix.normalize(path.posix.join(path.posix.dirname(from), name));
  if (name.startsWith('@noble/')) return name;
  return undefined; // an SDK module (timer, mdns, embedded:io/..., mc/config), mapped by the SDK's manifests
}

/**
 * Every module name reached from `roots` (one name or several) through `modules`, each with the
 * chain of imports that reaches it first; names the map lacks are reached but not walked.
 */
export function reachedFrom(modules: Map<string, string>, roots: string | readonly string[]): Map<string, string[]> {
  const starts = typeof roots === 'string' ? [roots] : roots;
  const reached = new Map<string, string[]>(starts.map((root) => [root, [root]]));
  const queue = [...reached.keys()];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const file = modules.get(name);
    if (!file) continue;
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = resolveName(name, ref.fileName);
      if (target === undefined || reached.has(target)) continue;
      reached.set(target, [...reached.get(name)!, target]);
      queue.push(target);
    }
  }
  return reached;
}

/** Runs `use` on the fast build's compiled manifest, written to a temporary folder removed after. */
export function withCompiledManifest<T>(use: (manifestFile: string) => T): T {
  const out = mkdtempSync(path.join(tmpdir(), 'moddable-build-'));
  try {
    const generated = execFileSync(process.execPath, [path.join(ROOT, 'scripts/moddable-build.mjs'), '--emit-only', '--out', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return use(generated);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
