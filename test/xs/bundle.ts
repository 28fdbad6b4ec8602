// Bundles the portable suites (test/unit) into one script for the XS engine.
// `node:test` and `node:assert/strict` map to the shims beside this file; any other host import
// fails the build, which is how the suites (and the src/ they test) stay ECMAScript only.

import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { build, transform, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHIMS: Record<string, string> = {
  'node:test': path.join(ROOT, 'test/xs/shim/test.ts'),
  'node:assert/strict': path.join(ROOT, 'test/xs/shim/assert.ts'),
};

/** The portable suites: every test file directly in test/unit. */
export function portableSuites(): string[] {
  const dir = path.join(ROOT, 'test/unit');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => path.join(dir, name));
}

const hostImports: Plugin = {
  name: 'xs-host-imports',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:|^(fs|net|dgram|os|path|crypto|buffer|child_process|util|events|stream)$/ }, (args) => {
      const shim = SHIMS[args.path];
      if (shim) return { path: shim };
      return { errors: [{ text: `${args.importer} imports the host module "${args.path}"; portable suites and src/ may not` }] };
    });
  },
};

/**
 * The XS engine built by @agoric/xsnap 0.15 fails a static field initializer that constructs an
 * instance of its own class when that class declares instance fields (`class P { static B = new
 * P(); x; }` throws "get ?: not initialized yet"). @noble/curves does exactly that, so its files
 * (and only library files: our own src/ is run as written) have class fields lowered to
 * constructor assignments. The Moddable host must do the same until its XS has the fix.
 */
const lowerLibraryClassFields: Plugin = {
  name: 'xs-lower-library-class-fields',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]node_modules[\\/]@noble[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const lowered = await transform(source, { loader: 'js', format: 'esm', target: 'es2020' });
      return { contents: lowered.code, loader: 'js' };
    });
  },
};

/**
 * Each suite file's body starts by naming the file (globalThis.__xsSuiteFile, read by the shim's
 * test()), so its tests can be run by file. Its imports are evaluated before its body, so no
 * module it imports registers under its name.
 */
function nameSuiteFiles(files: readonly string[]): Plugin {
  const named = new Set(files);
  return {
    name: 'xs-name-suite-files',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!named.has(args.path)) return undefined;
        const source = await readFile(args.path, 'utf8');
        return { contents: `globalThis.__xsSuiteFile = ${JSON.stringify(args.path)};\n${source}`, loader: 'ts' };
      });
    },
  };
}

/**
 * Builds the XS bundle of the given suites and returns its source text. `run`: `all` (the
 * default) runs every test when the script is evaluated; `by-file` only registers them and
 * defines globalThis.__xsRunSuiteFile(file), which runs one file's tests (runSuitesInXs in
 * xsnap.ts hands the files out to several machines).
 */
export async function bundlePortableSuites(files = portableSuites(), { run = 'all' }: { run?: 'all' | 'by-file' } = {}): Promise<string> {
  const imports = files.map((file) => `import ${JSON.stringify(file)};`).join('\n');
  const start = run === 'all' ? 'runRegisteredTests();' : 'globalThis.__xsRunSuiteFile = runRegisteredTests;';
  const result = await build({
    stdin: {
      contents: `${imports}\nimport { runRegisteredTests } from ${JSON.stringify(SHIMS['node:test'])};\n${start}\n`,
      resolveDir: ROOT,
      sourcefile: 'xs-suite-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    plugins: [hostImports, lowerLibraryClassFields, nameSuiteFiles(files)],
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
