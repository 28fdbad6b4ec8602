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

/** Builds the XS bundle of the given suites and returns its source text. */
export async function bundlePortableSuites(files = portableSuites()): Promise<string> {
  const imports = files.map((file) => `import ${JSON.stringify(file)};`).join('\n');
  const result = await build({
    stdin: {
      contents: `${imports}\nimport { runRegisteredTests } from ${JSON.stringify(SHIMS['node:test'])};\nrunRegisteredTests();\n`,
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
    plugins: [hostImports, lowerLibraryClassFields],
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
