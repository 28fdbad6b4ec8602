// Builds the AssemblyScript kernels into assemblyscript/build/: the frame kernel (asconfig.json)
// and the same without SIMD (frame-kernel-scalar.asconfig.json: for an engine or CPU without
// WebAssembly SIMD), the NAL kernel (nal-kernel.asconfig.json) and the ALAC kernel (alac-kernel.asconfig.json), each
// its target release.
// `node assemblyscript/build.mjs` always compiles (`npm run build:kernels`); with --if-stale it
// compiles a kernel only when a source, its config or the compiler is newer than its .wasm, and when
// the compiler is not installed (an install without devDependencies) it says so and exits 0:
// the Node host then runs the portable TypeScript kernel.

import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Each kernel: its asc config and the .wasm that config writes. */
const KERNELS = [
  { config: path.join(here, 'asconfig.json'), output: path.join(here, 'build', 'frame-kernel.wasm') },
  { config: path.join(here, 'frame-kernel-scalar.asconfig.json'), output: path.join(here, 'build', 'frame-kernel-scalar.wasm') },
  { config: path.join(here, 'nal-kernel.asconfig.json'), output: path.join(here, 'build', 'nal-kernel.wasm') },
  { config: path.join(here, 'alac-kernel.asconfig.json'), output: path.join(here, 'build', 'alac-kernel.wasm') },
];
const ifStale = process.argv.includes('--if-stale');

/** The compiler's entry file, or undefined when AssemblyScript is not installed. */
function compilerFile() {
  try {
    return fileURLToPath(import.meta.resolve('assemblyscript/asc'));
  } catch {
    return undefined;
  }
}

const compiler = compilerFile();
if (compiler === undefined || !existsSync(compiler)) {
  if (!ifStale) {
    process.stderr.write('build:kernels: the AssemblyScript compiler is not installed (npm install)\n');
    process.exit(1);
  }
  process.stderr.write('build:kernels: AssemblyScript not installed; the Node host will use the portable kernel\n');
  process.exit(0);
}

// Checked before the compiler is loaded (that alone takes most of a second).
const sources = readdirSync(here).filter((name) => name.endsWith('.ts')).map((name) => path.join(here, name));
const stale = KERNELS.filter(({ config, output }) => {
  if (!ifStale || !existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return ![config, compiler, ...sources].every((file) => statSync(file).mtimeMs <= built);
});
if (stale.length === 0) process.exit(0);

const asc = await import('assemblyscript/asc');
for (const { config, output } of stale) {
  const started = performance.now();
  const { error, stderr } = await asc.main(['--config', config, '--target', 'release'], { stdout: process.stdout, stderr: process.stderr });
  if (error) {
    process.stderr.write(`build:kernels: ${error.message}\n${stderr.toString()}`);
    process.exit(1);
  }
  process.stderr.write(`build:kernels: ${path.relative(process.cwd(), output)} (${statSync(output).size} bytes, ${Math.round(performance.now() - started)} ms)\n`);
}
