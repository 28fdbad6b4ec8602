// Builds the app's XS archive for an ESP32 board without the board's compiler: the Moddable SDK's
// own makefile for `esp32/<board>`, run only up to the two files it hands the ESP-IDF build:
// `mc.xs.c` (xsc compiles every module to byte code, xsl links them and runs the preloaded ones, so
// a module that cannot load at preload time fails here) and `mc.resources.c` (mcrez: fonts and
// other resources). No Xtensa toolchain and no ESP-IDF are needed, only the SDK's host tools
// (mcconfig, xsc, xsl, mcrez, png2bmp, compressbmf) on PATH and MODDABLE set.
//
//   node scripts/moddable-build-archive.mjs [--board esp32/moddable_six] [--out DIR] [name=value ...]
//
// The TypeScript is compiled once first (scripts/moddable-build-manifest.mjs), as for the fast app
// build. The make variables given on the command line keep the ESP-IDF out: its version check
// (IDF_VERSION), the sdkconfig.h the real build generates (SDKCONFIG_H, a prerequisite of every
// target, empty here) and the serial-monitor kill (KILL_SERIAL2XSBUG, empty: nothing is stopped by
// name). The report gives the archive's flash size from mc.xs.c's tables (32-bit slots) against the
// app partition of the board's partitions.csv.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildModdableApp, OUT, ROOT } from './moddable-build-manifest.mjs';

/** The SDK's host tools the archive steps run. */
export const SDK_TOOLS = ['mcconfig', 'xsc', 'xsl', 'mcrez', 'png2bmp', 'compressbmf'];
export const DEFAULT_BOARD = 'esp32/moddable_six';
/** An XS slot on a 32-bit ESP32 (xsAll.h: next, flags/kind/ID, value of 8 bytes). */
const SLOT_BYTES = 16;
const POINTER_BYTES = 4;

/** Why the SDK's tools cannot run here, or undefined when they can. */
export function sdkMissing(env = process.env) {
  if (!env.MODDABLE) return 'MODDABLE is not set (the Moddable SDK 8.2.3 with its Linux tools built: build/makefiles/lin, see hosts/moddable/README.md)';
  if (!existsSync(path.join(env.MODDABLE, 'tools', 'mcconfig', 'make.esp32.mk'))) return `MODDABLE=${env.MODDABLE} holds no Moddable SDK (no tools/mcconfig/make.esp32.mk)`;
  const dirs = (env.PATH ?? '').split(path.delimiter);
  const missing = SDK_TOOLS.filter((tool) => !dirs.some((dir) => existsSync(path.join(dir, tool))));
  if (missing.length > 0) return `${missing.join(', ')} not on PATH (add $MODDABLE/build/bin/lin/release)`;
  return undefined;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} ... exited with ${result.status ?? result.signal}`);
}

/** A variable of the generated makefile (`NAME = value`). */
function makefileVariable(makefile, name) {
  return new RegExp(`^${name} = (.*)$`, 'm').exec(makefile)?.[1]?.trim();
}

/** The app partition (factory, or the first ota_N) of a partitions.csv: { name, bytes }. */
export function appPartition(csv) {
  const rows = csv.split('\n').map((line) => line.replace(/#.*/, '').split(',').map((cell) => cell.trim())).filter((cells) => cells.length >= 5 && cells[1] === 'app');
  const row = rows.find((cells) => cells[2] === 'factory') ?? rows[0];
  if (!row) throw new Error('partitions.csv has no app partition');
  const size = row[4];
  const bytes = /^0x/i.test(size) ? parseInt(size, 16) : /[KM]$/i.test(size) ? parseInt(size, 10) * (/M$/i.test(size) ? 1 << 20 : 1 << 10) : parseInt(size, 10);
  return { name: row[0], bytes };
}

/** The flash an xsl output takes, from its tables (C string literals counted as their bytes + NUL). */
export function archiveFigures(mcXsC) {
  const count = (name) => Number(new RegExp(`#define ${name} (\\d+)`).exec(mcXsC)?.[1] ?? 0);
  const codeBytes = [...mcXsC.matchAll(/static const txU1 gxCode\d+\[(\d+)\];/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  const stringBytes = [...mcXsC.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].reduce((sum, match) => sum + Buffer.byteLength(JSON.parse(`"${match[1].replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1').replace(/\\([0-7]{1,3})/g, (_, octal) => `\\u${parseInt(octal, 8).toString(16).padStart(4, '0')}`)}"`)) + 1, 0);
  const figures = {
    scripts: count('mxScriptsCount'),
    codeBytes,
    heapSlots: count('mxHeapCount'),
    stackSlots: count('mxStackCount'),
    keys: count('mxKeysCount'),
    stringBytes,
  };
  const tables = (count('mxKeysCount') + count('mxNamesCount') + count('mxSymbolsCount') + count('mxSlotCount')) * POINTER_BYTES;
  figures.flashBytes = codeBytes + (figures.heapSlots + figures.stackSlots) * SLOT_BYTES + tables + count('mxBigIntCount') * 4 + count('mxRegExpCount') * 4 + stringBytes;
  return figures;
}

/** The bytes of the resource arrays mcrez wrote (each `0x..,` one byte). */
export function resourceBytes(mcResourcesC) {
  return (mcResourcesC.match(/0x[0-9a-fA-F]{2}\b/g) ?? []).length;
}

export function splitArguments(args) {
  let board = DEFAULT_BOARD;
  let out = path.join(OUT, 'esp32');
  let manifest = path.join(ROOT, 'manifest.json');
  const config = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--board') board = args[++i];
    else if (args[i] === '--out') out = path.resolve(args[++i]);
    else if (args[i].includes('=')) config.push(args[i]);
    else manifest = path.resolve(args[i]);
  }
  if (!/^esp32\/[\w-]+$/.test(board)) throw new Error(`--board ${board}: give an ESP32 board as esp32/<name> (a folder of $MODDABLE/build/devices/esp32/targets)`);
  return { board, out, manifest, config };
}

/** Builds the archive; returns the report (also written as archive-report.json beside mc.xs.c). */
export function buildArchive({ board, out, manifest, config }) {
  const missing = sdkMissing();
  if (missing) throw new Error(`no Moddable SDK: ${missing}`);
  const app = buildModdableApp(manifest, path.join(out, 'app'));
  mkdirSync(out, { recursive: true });
  run('mcconfig', ['-p', board, '-o', out, ...config, app.manifestFile]);
  const appName = path.basename(path.dirname(app.manifestFile));
  const tmpDir = path.join(out, 'tmp', 'esp32', board.slice('esp32/'.length), 'release', appName);
  const makefile = readFileSync(path.join(tmpDir, 'makefile'), 'utf8');
  const subclass = makefileVariable(makefile, 'ESP32_SUBCLASS') ?? 'esp32';
  const idfVersion = makefileVariable(makefile, 'EXPECTED_ESP_IDF') ?? 'v5';
  const started = Date.now();
  run('make', [
    '-f', path.join(tmpDir, 'makefile'),
    `IDF_PATH=${path.join(tmpDir, 'no-esp-idf')}`, `IDF_VERSION=${idfVersion}`, 'SDKCONFIG_H=', 'KILL_SERIAL2XSBUG=',
    `MAKEFLAGS_JOBS=--jobs=${Math.max(1, Number(process.env.ARCHIVE_JOBS ?? 2))}`,
    path.join(tmpDir, 'mc.xs.c'), path.join(tmpDir, 'mc.resources.c'),
  ], { cwd: tmpDir });
  const partitionsFile = path.join(tmpDir, `xsProj-${subclass}`, 'partitions.csv');
  const partition = appPartition(readFileSync(partitionsFile, 'utf8'));
  const archive = archiveFigures(readFileSync(path.join(tmpDir, 'mc.xs.c'), 'utf8'));
  const resources = resourceBytes(readFileSync(path.join(tmpDir, 'mc.resources.c'), 'utf8'));
  const report = {
    board, subclass, config, makeSeconds: Math.round((Date.now() - started) / 100) / 10,
    mcXsC: path.join(tmpDir, 'mc.xs.c'), archive, resourceBytes: resources,
    partition: { file: partitionsFile, ...partition },
    shareOfPartition: Math.round(((archive.flashBytes + resources) / partition.bytes) * 1000) / 10,
  };
  writeFileSync(path.join(tmpDir, 'archive-report.json'), JSON.stringify(report, null, 2) + '\n');
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const report = buildArchive(splitArguments(process.argv.slice(2)));
    const { archive } = report;
    console.log(`# ${report.board} (${report.subclass}) ${report.config.join(' ')}: ${archive.scripts} modules, ${archive.codeBytes} bytes of byte code, ${archive.heapSlots} preloaded slots, ${archive.keys} keys: about ${archive.flashBytes} bytes of flash for the XS archive, ${report.resourceBytes} of resources; ${report.shareOfPartition}% of the ${report.partition.bytes}-byte ${report.partition.name} partition (before ESP-IDF, XS and the natives)`);
    console.log(`# report: ${path.join(path.dirname(report.mcXsC), 'archive-report.json')}`);
  } catch (error) {
    console.error(`moddable-build-archive: ${error.message}`);
    process.exitCode = 1;
  }
}
