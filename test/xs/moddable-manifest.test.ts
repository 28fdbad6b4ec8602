// Static proof that the Moddable build finds every module it imports. CI has no Moddable SDK, so
// this walks the imports from the host's main module the way XS resolves them (module names,
// `.js` dropped, relative to the importing module's name) and checks manifest.json maps each one.
// A new src/ folder or @noble file the core starts importing fails here by name.
// The fast build (scripts/moddable-build.mjs) hands mcconfig a generated manifest naming compiled
// JavaScript; the same walk over it proves the JavaScript keeps every import specifier and the
// manifest every module name and preload entry.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { matchPlatform, platformModules, reachedFrom, ROOT, withCompiledManifest } from './moddable-graph';

const MAIN = 'hosts/moddable/main';

interface Manifest {
  include?: string | string[];
  modules?: Record<string, string | string[]>;
  preload?: string[];
  creation?: { main?: string };
}

/** The platform checked besides the common modules: the Linux simulator, the build verified by hand in mcsim. */
const PLATFORM = 'lin';

/** Module name -> source file on PLATFORM (test/xs/moddable-graph.ts). */
const moduleMap = (manifestFile: string): Map<string, string> => platformModules(manifestFile, PLATFORM);

/** The module names reached from MAIN whose import has no module in the manifest, and every name reached. */
function unmappedImports(manifestFile: string): { problems: string[]; seen: Set<string> } {
  const modules = moduleMap(manifestFile);
  const reached = reachedFrom(modules, MAIN);
  const problems = [...reached]
    .filter(([name]) => !modules.has(name))
    .map(([name, chain]) => `${path.relative(ROOT, modules.get(chain.at(-2)!)!)} imports "${name}": no module "${name}" in ${path.basename(manifestFile)}`);
  return { problems, seen: new Set(reached.keys()) };
}

/** Every preload entry of a manifest and the manifests it includes inside this repo (or the build folder), in order. */
function preloads(manifestFile: string): string[] {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const included = [manifest.include ?? []].flat().filter((include) => !include.startsWith('$('));
  return [...included.flatMap((include) => preloads(path.resolve(path.dirname(manifestFile), include))), ...(manifest.preload ?? [])];
}

test('manifest.json maps every module the Moddable host imports, under the name XS looks up', () => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')) as Manifest;
  assert.equal(manifest.creation?.main, MAIN);
  const { problems, seen } = unmappedImports(path.join(ROOT, 'manifest.json'));
  assert.ok(seen.has('src/receiver/receiver'));
  assert.ok(seen.has('@noble/ciphers/chacha'));
  assert.deepEqual(problems, []);
});

test('the fast build\'s manifest maps the same module names to compiled JavaScript, with the same preload list', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'moddable-build-'));
  try {
    const generated = execFileSync(process.execPath, [path.join(ROOT, 'scripts/moddable-build.mjs'), '--emit-only', '--out', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    assert.equal(generated, path.join(out, path.basename(ROOT), 'manifest.json'));
    const original = moduleMap(path.join(ROOT, 'manifest.json'));
    const compiled = moduleMap(generated);
    assert.deepEqual([...compiled.keys()].sort(), [...original.keys()].sort());
    const notCompiled: string[] = [];
    for (const [name, source] of original) {
      const target = compiled.get(name)!;
      if (source.endsWith('.ts') ? !(target.startsWith(out) && target.endsWith('.js')) : target !== source) notCompiled.push(`${name}: ${path.relative(ROOT, source)} -> ${target}`);
    }
    assert.deepEqual(notCompiled, []);
    assert.ok(original.get(MAIN)!.endsWith('.ts'));
    assert.deepEqual(preloads(generated), preloads(path.join(ROOT, 'manifest.json')));
    assert.deepEqual(JSON.parse(readFileSync(generated, 'utf8')).creation, JSON.parse(readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')).creation);
    // The walk reads the JavaScript now: every specifier still names a mapped module (the
    // TypeScript reaches a few more, through imports of types only, which the JavaScript drops).
    const { problems, seen } = unmappedImports(generated);
    assert.deepEqual(problems, []);
    const reachedFromTypeScript = unmappedImports(path.join(ROOT, 'manifest.json')).seen;
    assert.deepEqual([...seen].filter((name) => !reachedFromTypeScript.has(name)), []);
    assert.ok(seen.has('src/receiver/receiver'));
    assert.ok(seen.has('@noble/ciphers/chacha'));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

/**
 * The module names the Moddable build preloads: each preload entry ('src/http/*' names every
 * module under it) and every module those import, as xsl runs them all at link time.
 */
function preloadedModules(manifestFile: string): Map<string, string> {
  const modules = moduleMap(manifestFile);
  const entries = preloads(manifestFile).flatMap((entry) => (entry.endsWith('/*') ? [...modules.keys()].filter((name) => name.startsWith(entry.slice(0, -1))) : [entry]));
  return new Map([...reachedFrom(modules, entries).keys()].flatMap((name) => (modules.has(name) ? [[name, modules.get(name)!] as const] : [])));
}

/**
 * The modules xsl preloads, from the JavaScript the fast build hands mcconfig: a TypeScript
 * `import type` is gone there, so what is reached is what xsl runs (names mapped to the
 * TypeScript sources, for the checks' line numbers). Built once for the tests that ask.
 */
let compiledPreloads: Map<string, string> | undefined;
function preloadedFromCompiled(): Map<string, string> {
  compiledPreloads ??= withCompiledManifest((generated) => {
    const sources = moduleMap(path.join(ROOT, 'manifest.json'));
    return new Map([...preloadedModules(generated).keys()].map((name) => [name, sources.get(name)!]));
  });
  return compiledPreloads;
}

test('no preloaded module reaches @noble: xsl runs preloaded modules at link time, and @noble/curves calls TextEncoder there (a global only the host\'s prelude installs, at run time) and writes its WeakMaps at run time', () => {
  const preloaded = preloadedFromCompiled();
  assert.ok(preloaded.has('src/receiver/connection/connection-driver'), [...preloaded.keys()].join(', '));
  assert.deepEqual([...preloaded.keys()].filter((name) => name.startsWith('@noble/')), []);
});

test('no preloaded module writes at run time to what XS keeps read-only from preload: a Map, Set, WeakMap or WeakSet, a typed array, or a global or sticky RegExp made at module level', () => {
  // xsl keeps what preloaded modules made in the archive's read-only heap: ordinary objects and
  // arrays are copied to RAM when written, but built-ins' instances are not ("XS linker
  // warnings", Exceptions): a collection's set throws ("TypeError: this: read-only WeakMap
  // instance", which aborted the app in a timer), so do a typed array's element writes and
  // set/fill, and a RegExp's lastIndex, which exec and replace write for the g and y flags. A
  // table filled while the module loads and only read afterwards is fine; one written at run
  // time must be made at run time (per instance, or on first use).
  const preloaded = preloadedFromCompiled();
  assert.ok(preloaded.has('src/discovery/mdns/mdns-responder'), [...preloaded.keys()].join(', '));
  const collections = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);
  const collectionWrites = new Set(['set', 'add', 'delete', 'clear']);
  const typedArrays = new Set(['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array']);
  const typedArrayWrites = new Set(['set', 'fill', 'copyWithin', 'reverse', 'sort']);
  const found: string[] = [];
  for (const [name, file] of preloaded) {
    if (!file.endsWith('.ts')) continue; // the SDK's and @noble's own modules are not ours to check
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    const moduleCollections = new Set<string>();
    const moduleTypedArrays = new Set<string>();
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (!init || !ts.isIdentifier(declaration.name)) continue;
        if (ts.isRegularExpressionLiteral(init) && /\/[a-z]*[gy][a-z]*$/.test(init.text)) {
          found.push(`${name}: ${declaration.name.text} = ${init.text}, a module-level RegExp whose lastIndex its uses write (line ${line(declaration)})`);
        }
        if (!ts.isNewExpression(init) || !ts.isIdentifier(init.expression)) continue;
        if (collections.has(init.expression.text)) moduleCollections.add(declaration.name.text);
        if (typedArrays.has(init.expression.text)) moduleTypedArrays.add(declaration.name.text);
      }
    }
    const visit = (node: ts.Node, inFunction: boolean): void => {
      if (inFunction && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression)) {
        const [target, method] = [node.expression.expression.text, node.expression.name.text];
        if ((moduleCollections.has(target) && collectionWrites.has(method)) || (moduleTypedArrays.has(target) && typedArrayWrites.has(method))) {
          found.push(`${name}: ${node.expression.getText(source)}() at run time (line ${line(node)})`);
        }
      }
      if (
        inFunction &&
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
        node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
        ts.isElementAccessExpression(node.left) &&
        ts.isIdentifier(node.left.expression) &&
        moduleTypedArrays.has(node.left.expression.text)
      ) {
        found.push(`${name}: ${node.left.getText(source)} written at run time (line ${line(node)})`);
      }
      node.forEachChild((child) => visit(child, inFunction || ts.isFunctionLike(node)));
    };
    if (moduleCollections.size > 0 || moduleTypedArrays.size > 0) visit(source, false);
  }
  assert.deepEqual(found, []);
});

test('--board-sizes gives the simulator build a board target\'s XS creation sizes, no growth (its own section, or the wildcard it falls under), and refuses a target with none', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'moddable-build-'));
  const build = (target: string) =>
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/moddable-build.mjs'), '--emit-only', '--out', out, '--board-sizes', target], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  try {
    const platforms = JSON.parse(readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')).platforms;
    for (const [target, section, named] of [
      ['esp32/moddable_six', 'esp32/moddable_six', 'esp32/moddable_six'],
      ['esp32/esp32s3', 'esp32/*', 'esp32/esp32s3 (esp32/*)'],
    ] as const) {
      const lin = JSON.parse(readFileSync(build(target), 'utf8')).platforms.lin;
      assert.deepEqual(lin.creation, { ...platforms.lin.creation, ...platforms[section].creation }, target);
      assert.equal(lin.creation.chunk.incremental, 0);
      assert.equal(lin.creation.heap.incremental, 0);
      assert.equal(lin.config.boardSizes, named);
      assert.equal(lin.config.board, platforms[section].config.board, `${target}: the board's row goes with its sizes`);
    }
    assert.throws(() => build('esp8266/nodemcu'), (error: { status: number; stderr: string }) => {
      assert.equal(error.status, 1);
      assert.match(error.stderr, /--board-sizes esp8266\/nodemcu: no platform section with creation sizes matches \(sections with sizes: esp32\/moddable_six, /);
      return true;
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

/**
 * Every target `name` is mapped to on `platform` by a manifest and those it includes inside this
 * repo (or the build folder), and the SDK manifests it includes (by their `$(...)` path, unread).
 */
function mappingsOn(manifestFile: string, platform: string, name: string): { targets: string[]; sdkIncludes: string[] } {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest & { platforms?: Record<string, Manifest> };
  const section = manifest.platforms ? matchPlatform(manifest.platforms, platform) : undefined;
  const found = { targets: [] as string[], sdkIncludes: [] as string[] };
  for (const include of [manifest.include ?? [], section?.include ?? []].flat()) {
    if (include.startsWith('$(')) found.sdkIncludes.push(include);
    else {
      const inner = mappingsOn(path.resolve(path.dirname(manifestFile), include), platform, name);
      found.targets.push(...inner.targets);
      found.sdkIncludes.push(...inner.sdkIncludes);
    }
  }
  for (const modules of [manifest.modules, section?.modules]) if (modules?.[name] !== undefined) found.targets.push(...[modules[name]].flat());
  return found;
}

test('every target, ESP32 boards included, maps commodetto/readJPEG to the SDK\'s generic picojpeg wrapper, which takes a picture in pieces, and includes no manifest that maps ESP32\'s esp_new_jpeg', () => {
  // The SDK's modules/commodetto/jpeg/manifest.json maps esp_new_jpeg on esp32, whose push throws:
  // the display could not draw a photo as it arrives, and the board would run another decoder
  // than the one proven in the simulator (hosts/moddable/README.md "Display").
  withCompiledManifest((generated) => {
    for (const platform of ['esp32/moddable_six', 'esp32/m5stack_cores3', 'esp32/qtpys3_ili9341', 'esp32/esp32s3', 'lin', 'mac']) {
      const { targets, sdkIncludes } = mappingsOn(generated, platform, 'commodetto/readJPEG');
      assert.deepEqual(targets, ['$(COMMODETTO)/commodettoReadJPEG'], platform);
      assert.deepEqual(sdkIncludes.filter((include) => include.includes('modules/commodetto/jpeg')), [], platform);
    }
    assert.ok(preloads(generated).includes('commodetto/readJPEG'));
  });
});
