// Builds the AssemblyScript kernels (asconfig.json, target release) into assemblyscript/build/.
// `node assemblyscript/build.mjs` always compiles (`npm run build:kernels`); with --if-stale it
// compiles only when a source, asconfig.json or the compiler is newer than the .wasm, and when
// the compiler is not installed (an install without devDependencies) it says so and exits 0:
// the Node host then runs the portable TypeScript kernel.

import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const config = path.join(here, 'asconfig.json');
const output = path.join(here, 'build', 'frame-kernel.wasm');
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
if (ifStale && existsSync(output)) {
  const built = statSync(output).mtimeMs;
  const inputs = [config, compiler, ...readdirSync(here).filter((name) => name.endsWith('.ts')).map((name) => path.join(here, name))];
  if (inputs.every((file) => statSync(file).mtimeMs <= built)) process.exit(0);
}

const asc = await import('assemblyscript/asc');
const started = performance.now();
const { error, stderr } = await asc.main(['--config', config, '--target', 'release'], { stdout: process.stdout, stderr: process.stderr });
if (error) {
  process.stderr.write(`build:kernels: ${error.message}\n${stderr.toString()}`);
  process.exit(1);
}
process.stderr.write(`build:kernels: ${path.relative(process.cwd(), output)} (${statSync(output).size} bytes, ${Math.round(performance.now() - started)} ms)\n`);
