// The ESP32-S3 XS archive, built by the SDK makefile's own steps (scripts/moddable-build-archive.mjs):
// every module compiles to XS byte code and the preloaded ones load at link time, for the photo
// frame on the Moddable Six and the speaker on a plain ESP32-S3, and the archive fits the board's
// app partition. Needs the Moddable SDK's host tools (MODDABLE set, its tools on PATH): without
// them the build is skipped, saying so; the report's readers run everywhere.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = path.join(ROOT, 'scripts/moddable-build-archive.mjs');

interface ArchiveReport {
  board: string;
  mcXsC: string;
  archive: { scripts: number; codeBytes: number; heapSlots: number; flashBytes: number };
  resourceBytes: number;
  partition: { name: string; bytes: number };
}
interface ArchiveScript {
  sdkMissing(): string | undefined;
  appPartition(csv: string): { name: string; bytes: number };
  archiveFigures(mcXsC: string): { scripts: number; codeBytes: number; heapSlots: number; stackSlots: number; keys: number; stringBytes: number; flashBytes: number };
  resourceBytes(mcResourcesC: string): number;
  buildArchive(options: { board: string; out: string; manifest: string; config: string[] }): ArchiveReport;
}
const script = (await import(pathToFileURL(SCRIPT).href)) as ArchiveScript;

test('reads the app partition of an SDK partitions.csv (moddable_six: factory, 0x7F0000)', () => {
  const csv = [
    '# Name,   Type, SubType, Offset,  Size, Flags',
    'nvs,      data, nvs,     0x9000,  0x006000,',
    'phy_init, data, phy,     0xf000,  0x001000,',
    'factory,  app,  factory, 0x10000, 0x7F0000,',
  ].join('\n');
  assert.deepEqual(script.appPartition(csv), { name: 'factory', bytes: 0x7f0000 });
  assert.deepEqual(script.appPartition('ota_0, app, ota_0, , 3M,\nota_1, app, ota_1, , 3M,'), { name: 'ota_0', bytes: 3 * 1024 * 1024 });
  assert.throws(() => script.appPartition('nvs, data, nvs, 0x9000, 0x6000,'), /no app partition/);
});

test('counts an xsl output\'s flash: byte code, 16-byte slots, 4-byte table entries, strings with their NUL', () => {
  const mcXsC = [
    '#define mxHeapCount 10', '#define mxStackCount 2', '#define mxKeysCount 3', '#define mxNamesCount 5',
    '#define mxSymbolsCount 1', '#define mxScriptsCount 2',
    'static const txU1 gxCode0[100];', 'static const txU1 gxCode1[23];',
    '{ .value.string = "ab" }, { .value.string = "\\x41" }',
  ].join('\n');
  const figures = script.archiveFigures(mcXsC);
  assert.deepEqual(figures, { scripts: 2, codeBytes: 123, heapSlots: 10, stackSlots: 2, keys: 3, stringBytes: 5, flashBytes: 123 + 12 * 16 + 9 * 4 + 5 });
  assert.equal(script.resourceBytes('static const unsigned char r[] = { 0x00, 0x4f,\n\t0x70 };'), 3);
});

const missing = script.sdkMissing();

test('the photo frame (Moddable Six) and the speaker (ESP32-S3) compile to an XS archive with their preloads, within the app partition',
  { skip: missing ? `no Moddable SDK here: ${missing}` : false },
  () => {
    const out = mkdtempSync(path.join(tmpdir(), 'moddable-archive-'));
    try {
      const preload = JSON.parse(readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')).preload as string[];
      for (const [board, profile] of [['esp32/moddable_six', 'photo-frame'], ['esp32/esp32s3', 'speaker']] as const) {
        const report = script.buildArchive({ board, out, manifest: path.join(ROOT, 'manifest.json'), config: [`profile=${profile}`] });
        const mcXsC = readFileSync(report.mcXsC, 'utf8');
        assert.match(mcXsC, /static const txSlot gxHeap\[mxHeapCount\] = \{/, `${board}: no preloaded heap`);
        // xsl names each preloaded module's entry in the module map of the heap it writes (`.ID = 4601
        // /* src/bytes */`); a module loaded at run time (the host's main) has none.
        for (const name of preload.filter((entry) => !entry.endsWith('*'))) assert.ok(mcXsC.includes(`/* ${name} */`), `${board}: ${name} not preloaded`);
        assert.ok(!mcXsC.includes('/* hosts/moddable/main */'), `${board}: the main module is preloaded`);
        assert.ok(report.archive.scripts > 100 && report.archive.heapSlots > 1000, `${board}: ${JSON.stringify(report.archive)}`);
        assert.ok(report.archive.flashBytes + report.resourceBytes < report.partition.bytes, `${board}: ${report.archive.flashBytes} + ${report.resourceBytes} bytes exceed the ${report.partition.bytes}-byte ${report.partition.name} partition`);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
