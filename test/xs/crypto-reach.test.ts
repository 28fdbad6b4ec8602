// Static proof that a Moddable build with the natives of modules/native/vp-crypto (lin, esp32)
// never loads @noble/curves: importing @noble/curves/ed25519 alone costs about 6,700 XS slots
// and 22 KB of chunk heap, more than an ESP32-S3 without PSRAM has to spare. The core picks no
// kernels itself (src/pairing/crypto-kernels.ts has the contract only); the host links the
// portable build (hosts/moddable/portable-crypto) only where the natives are absent. The walk
// reads the compiled JavaScript, so imports of types only do not count, as in the build.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { matchPlatform, platformModules, reachedFrom, ROOT, withCompiledManifest } from './moddable-graph';

const MAIN = 'hosts/moddable/main';
/** The targets with natives: the simulator, the bare ESP32 platform, a board section and the esp32/* wildcard. */
const NATIVE_TARGETS = ['lin', 'esp32', 'esp32/moddable_six', 'esp32/esp32s3'];

/** The modules of @noble/curves `platform` reaches from MAIN, each with the chain of imports to it. */
function curvesReached(manifestFile: string, platform: string): { curves: string[]; reached: Map<string, string[]> } {
  const reached = reachedFrom(platformModules(manifestFile, platform), MAIN);
  const curves = [...reached].filter(([name]) => name.startsWith('@noble/curves/')).map(([, chain]) => chain.join(' -> '));
  return { curves, reached };
}

test('on the platforms with crypto natives (lin, esp32) no module reached from the host\'s main imports @noble/curves', () => {
  withCompiledManifest((manifestFile) => {
    for (const platform of NATIVE_TARGETS) {
      const { curves, reached } = curvesReached(manifestFile, platform);
      // The walk did reach pairing and the natives: an empty answer is not an empty graph.
      assert.ok(reached.has('src/pairing/pair-setup') && reached.has('modules/native/kernels'), `${platform}: ${[...reached.keys()].join(', ')}`);
      assert.deepEqual(curves, [], platform);
    }
  });
});

test('where the natives are absent (mac, win, others) the host links the portable build, which reaches @noble/curves', () => {
  withCompiledManifest((manifestFile) => {
    for (const platform of ['mac', 'win']) {
      const { curves, reached } = curvesReached(manifestFile, platform);
      assert.ok(reached.has('src/pairing/portable-crypto-kernels'), platform);
      assert.ok(curves.some((chain) => chain.endsWith('@noble/curves/ed25519')), `${platform}: ${curves.join('\n')}`);
    }
  });
});

/** The one file of src/ that may import @noble/curves: the portable build, which hosts pick by its path. */
const PORTABLE_BUILD = 'src/pairing/portable-crypto-kernels.ts';

test('in src/ only the portable build imports @noble/curves, so no other module of the core brings it in', () => {
  const files = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  assert.ok(files.length > 100);
  const importers = files
    .map((file) => path.posix.join('src', file.split(path.sep).join('/')))
    .filter((file) => ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true).importedFiles.some((ref) => ref.fileName.startsWith('@noble/curves')));
  assert.deepEqual(importers, [PORTABLE_BUILD]);
});

test('the platform sections are chosen as mcconfig chooses them', () => {
  const platforms = { lin: 'lin', esp32: 'esp32', 'esp32/*': 'esp32/*', 'esp32/moddable_six': 'six', '...': 'others' };
  assert.equal(matchPlatform(platforms, 'lin'), 'lin');
  assert.equal(matchPlatform(platforms, 'esp32'), 'esp32');
  assert.equal(matchPlatform(platforms, 'esp32/esp32s3'), 'esp32/*');
  assert.equal(matchPlatform(platforms, 'mac'), 'others');
  assert.equal(matchPlatform({ esp32: 'esp32', '...': 'others' }, 'esp32/moddable_six'), 'esp32');
  assert.equal(matchPlatform({ lin: 'lin' }, 'mac'), undefined);
});
