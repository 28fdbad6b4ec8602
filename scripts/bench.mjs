// `npm run bench [-- GROUP...]`: compiles test/bench/run.ts with esbuild (as scripts/build.mjs
// compiles the receiver) into .cache/bench/ and runs it, so every bench measures the JavaScript
// a user runs: the same code on both sides of each comparison, with none of tsx's run-time
// wrappers (its `__name` helpers and getter-based module bindings) on ours alone.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, sourceUrlPlugin } from './build.mjs';

const outdir = path.join(ROOT, '.cache', 'bench');
mkdirSync(outdir, { recursive: true });
const esbuild = await import('esbuild');
await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: [{ in: 'test/bench/run.ts', out: 'run' }],
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [sourceUrlPlugin(outdir)],
});
// A bench that runs its rounds in fresh processes (photo.bench.ts) starts this compiled file again.
process.env.VENDORPLAY_BENCH_RUN = path.join(outdir, 'run.js');
await import(pathToFileURL(process.env.VENDORPLAY_BENCH_RUN).href);
