// Builds the Moddable app with its TypeScript compiled once here instead of by mcconfig one `tsc`
// per module: `node scripts/moddable-build.mjs <mcconfig arguments> [manifest]` (or
// `npm run build:moddable -- ...`) writes the JavaScript and a manifest naming it under
// build/moddable/<app>/ (scripts/moddable-build-manifest.mjs) and runs mcconfig on that manifest
// with the other arguments unchanged. The manifest defaults to the repository's manifest.json, the
// same app `mcconfig` builds from the repository root; the build lands where mcconfig puts it
// ($MODDABLE/build/.../<app>/, or under -o). `--emit-only` writes the files, prints the generated
// manifest's path and runs nothing; `--out <dir>` writes them under <dir>/<app>/ instead;
// `--board-sizes <target>` (e.g. esp32/moddable_six) gives the simulator build that board's XS
// creation sizes with no growth, to prove in mcsim what the board's heap holds.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildModdableApp, OUT, ROOT } from './moddable-build-manifest.mjs';

/** mcconfig options followed by a value (tools/mcmanifest.js): that value is not a manifest. */
const OPTIONS_WITH_VALUE = new Set(['-f', '-o', '-p', '-r', '-s', '-t', '-x']);

/** Splits the command line into mcconfig's arguments and the manifest (at most one, as mcconfig). */
export function splitArguments(args) {
  const mcconfig = [];
  let manifest;
  let emitOnly = false;
  let out = OUT;
  let boardSizes;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--emit-only') emitOnly = true;
    else if (arg === '--out') out = path.resolve(args[++i]);
    else if (arg === '--board-sizes') boardSizes = args[++i];
    else if (OPTIONS_WITH_VALUE.has(arg)) mcconfig.push(arg, args[++i]);
    else if (arg.startsWith('-') || arg.includes('=')) mcconfig.push(arg);
    else if (manifest !== undefined) throw new Error(`'${arg}': too many manifests (already ${manifest})`);
    else manifest = arg;
  }
  if (boardSizes === '' || boardSizes?.startsWith('-')) throw new Error('--board-sizes needs a board target (e.g. esp32/moddable_six)');
  return { mcconfig, manifest: manifest ?? path.join(ROOT, 'manifest.json'), emitOnly, out, boardSizes };
}

function main() {
  const { mcconfig, manifest, emitOnly, out, boardSizes } = splitArguments(process.argv.slice(2));
  if (!existsSync(manifest)) throw new Error(`${manifest}: manifest not found`);
  const started = Date.now();
  const built = buildModdableApp(manifest, out, { boardSizes });
  console.error(`# ${built.modules} TypeScript modules compiled to JavaScript (${built.changed} changed) in ${Date.now() - started} ms: ${path.relative(process.cwd(), built.manifestFile)}`);
  if (emitOnly) {
    console.log(built.manifestFile);
    return 0;
  }
  const run = spawnSync('mcconfig', [...mcconfig, built.manifestFile], { stdio: 'inherit' });
  if (run.error) throw new Error(`mcconfig: ${run.error.message} (is the Moddable SDK's build/bin/<platform>/release on PATH?)`);
  return run.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = main();
  } catch (error) {
    console.error(`moddable-build: ${error.message}`);
    process.exitCode = 1;
  }
}
