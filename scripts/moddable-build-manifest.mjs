// Turns the app's Moddable manifests into ones that name JavaScript: every TypeScript module they
// map is compiled once here (esbuild's transform, one file at a time, no bundling, so every import
// specifier stays as written) into a tree that mirrors the repository, and each manifest is copied
// with its module targets pointed at that tree. The module names, the preload list, the config and
// everything else stay exactly as written; every other relative path (includes, C files, JavaScript
// modules, resources) becomes absolute, so the copies work from the build folder.
//
// Why: mcconfig's generated makefile runs a whole `tsc` per TypeScript module (a process, a
// program and a type check each time): 118 modules took most of a 17-21 minute app build. Type
// checking is `npm run typecheck`'s job (hosts/moddable/tsconfig.json, src/tsconfig.json); the
// project's `verbatimModuleSyntax` makes a file-by-file transform emit what tsc would.
//
// mcconfig's own rules are followed (tools/mcmanifest.js): a manifest's relative paths are relative
// to its folder; a module target `dir/name` stands for every `dir/name.<ext>` (a `.d.ts` beside a
// `.js` is only a type), `dir/*` for every file in `dir` whose name does not start with a dot; an
// app's name (its build folder) is its manifest's folder name, so the copy of `<repo>/manifest.json`
// is written as `<out>/main/manifest.json` when the repository's folder is `main`.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the generated manifests and JavaScript go (git-ignored with the rest of build/). */
export const OUT = path.join(ROOT, 'build', 'moddable');

/** Manifest sections whose string values are paths (relative ones are made absolute). */
const PATH_SECTIONS = ['include', 'modules', 'resources', 'data'];
/** esbuild's target when the manifest's `typescript.tsconfig` names none (mcconfig's own default). */
const DEFAULT_TARGET = 'es2025';

/** True for a path written relative to its manifest's folder. */
function isRelative(value) {
  return typeof value === 'string' && (value.startsWith('./') || value.startsWith('../'));
}

/** Extensions mcconfig's ModulesRule builds something from (others, and folders, it skips). */
const MODULE_EXTENSIONS = ['.js', '.mjs', '.ts', '.json', '.c', '.cc', '.cpp', '.m', '.h', '.java', '.pio'];

/** The files of `folder` a module target stands for (mcconfig's Rule.iterate), as { file, isTs, isDts }. */
function targetFiles(folder, base) {
  if (!existsSync(folder)) throw new Error(`module folder not found: ${folder}`);
  const files = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const name = entry.name;
    if (name.startsWith('.') || !entry.isFile() || !MODULE_EXTENSIONS.includes(path.extname(name))) continue;
    const isDts = name.endsWith('.d.ts');
    const stem = isDts ? name.slice(0, -5) : name.slice(0, name.length - path.extname(name).length);
    if (base !== '*' && stem !== base && name !== base) continue;
    files.push({ file: path.join(folder, name), isTs: !isDts && name.endsWith('.ts'), isDts });
  }
  return files;
}

/**
 * One module target, made absolute; a target that stands for TypeScript is pointed at its
 * JavaScript in `jsRoot` and the TypeScript files are added to `sources` (TypeScript file ->
 * JavaScript file).
 */
function moduleTarget(target, manifestDir, jsRoot, sources) {
  if (!isRelative(target)) return target;
  const absolute = path.resolve(manifestDir, target);
  const folder = path.dirname(absolute);
  const base = path.basename(absolute);
  if (base.includes('*') && base !== '*') throw new Error(`${target}: only "dir/*" wildcards are handled here`);
  const files = targetFiles(folder, base);
  const typescript = files.filter((entry) => entry.isTs);
  if (typescript.length === 0) return absolute;
  // The JavaScript folder holds only what is compiled, so a target that mixes TypeScript with
  // other module files (a .c, a .js) would lose them: refuse it rather than build something else.
  const others = files.filter((entry) => !entry.isTs && !entry.isDts);
  if (others.length > 0) {
    throw new Error(`${target}: TypeScript beside ${others.map((entry) => path.basename(entry.file)).join(', ')}; give the TypeScript its own target`);
  }
  for (const { file } of typescript) {
    const relative = path.relative(ROOT, file);
    if (relative.startsWith('..')) throw new Error(`${file}: TypeScript outside the repository`);
    sources.set(file, path.join(jsRoot, relative.slice(0, -3) + '.js'));
  }
  const relativeTarget = path.relative(ROOT, absolute).replace(/\.ts$/, '');
  return path.join(jsRoot, relativeTarget);
}

/** A copy of a manifest section with relative paths made absolute (and module targets translated). */
function translateSection(key, value, manifestDir, context) {
  if (key === 'modules') {
    const modules = {};
    for (const [name, targets] of Object.entries(value)) {
      modules[name] = Array.isArray(targets)
        ? targets.map((target) => moduleTarget(target, manifestDir, context.jsRoot, context.sources))
        : moduleTarget(targets, manifestDir, context.jsRoot, context.sources);
    }
    return modules;
  }
  if (key === 'include') {
    return [value].flat().map((include) => {
      if (!isRelative(include)) return include;
      return translateManifest(path.resolve(manifestDir, include), context);
    });
  }
  const absolute = (item) => {
    if (isRelative(item)) return path.resolve(manifestDir, item);
    if (Array.isArray(item)) return item.map(absolute);
    if (item && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, absolute(v)]));
    return item;
  };
  return absolute(value);
}

/** A manifest object translated: path sections at its top and inside `platforms`. */
function translateObject(manifest, manifestDir, context) {
  const copy = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (PATH_SECTIONS.includes(key)) copy[key] = translateSection(key, value, manifestDir, context);
    else if (key === 'platforms') {
      copy.platforms = Object.fromEntries(Object.entries(value).map(([platform, section]) => [platform, translateObject(section, manifestDir, context)]));
    } else copy[key] = value;
  }
  return copy;
}

/** Writes the translated copy of an included manifest under `manifestsRoot`; returns its path. */
function translateManifest(manifestFile, context) {
  const relative = path.relative(ROOT, manifestFile);
  if (relative.startsWith('..')) return manifestFile; // outside the repository: used as it is
  const copyFile = path.join(context.manifestsRoot, relative);
  writeIfChanged(copyFile, JSON.stringify(translateObject(readManifest(manifestFile), path.dirname(manifestFile), context), null, 2) + '\n');
  return copyFile;
}

function readManifest(manifestFile) {
  try {
    return JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch (error) {
    throw new Error(`${manifestFile}: ${error.message}`);
  }
}

/** Writes only when the text differs, so make sees unchanged modules as up to date. */
function writeIfChanged(file, text) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return true;
}

/** Every file under `dir` (recursively). */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

/** The esbuild target from the manifests' `typescript.tsconfig.compilerOptions.target`. */
function targetOf(manifestFile) {
  const seen = new Set();
  const find = (file) => {
    if (seen.has(file) || !existsSync(file)) return undefined;
    seen.add(file);
    const manifest = readManifest(file);
    const own = manifest.typescript?.tsconfig?.compilerOptions?.target;
    if (own) return own.toLowerCase();
    for (const include of [manifest.include ?? []].flat()) {
      if (isRelative(include)) {
        const found = find(path.resolve(path.dirname(file), include));
        if (found) return found;
      }
    }
    return undefined;
  };
  return find(manifestFile) ?? DEFAULT_TARGET;
}

/**
 * The platform section a board target builds with: its own (`esp32/moddable_six`), else the
 * first wildcard that matches it (`esp32/*`), as mcconfig picks them.
 */
function boardSection(platforms, target) {
  if (platforms[target]) return [target, platforms[target]];
  const wildcard = Object.keys(platforms).find((key) => key.endsWith('/*') && target.startsWith(key.slice(0, -1)));
  return wildcard ? [wildcard, platforms[wildcard]] : [undefined, undefined];
}

/**
 * `--board-sizes <target>`: the simulator (the `lin` section) gets exactly the XS creation sizes
 * of a board target, growth included (none on a board), so a run in mcsim aborts where the board
 * would run out ("failed in fixed size heap"); config `boardSizes` names the target in the log.
 * XS slots are 32 bytes on a 64-bit simulator against 16 on the 32-bit ESP32, and arrays keep
 * their items as slots in the chunk heap: the same counts hold less in the simulator, never more.
 */
function giveSimulatorBoardSizes(manifest, target) {
  const platforms = manifest.platforms ?? {};
  const [key, section] = boardSection(platforms, target);
  if (!section?.creation) {
    const boards = Object.keys(platforms).filter((name) => platforms[name].creation).join(', ');
    throw new Error(`--board-sizes ${target}: no platform section with creation sizes matches (sections with sizes: ${boards || 'none'})`);
  }
  const lin = (platforms.lin ??= {});
  lin.creation = { ...lin.creation, ...structuredClone(section.creation) };
  // The board's row of src/receiver/boards.ts too (config board), so the profile takes its limits there.
  lin.config = { ...lin.config, ...(section.config?.board ? { board: section.config.board } : {}), boardSizes: key === target ? target : `${target} (${key})` };
  manifest.platforms = platforms;
}

/**
 * Translates the app whose manifest is `manifestFile` into `out`/<app name>/: `manifest.json`
 * (what mcconfig is given), `manifests/` (the included manifests' copies, by repository path) and
 * `js/` (the compiled modules, by repository path). Returns { manifestFile, modules } (modules:
 * how many TypeScript files were compiled, and how many of them changed). `boardSizes`: a board
 * target whose creation sizes the simulator build gets (giveSimulatorBoardSizes).
 */
export function buildModdableApp(manifestFile, out = OUT, { boardSizes } = {}) {
  const appName = path.basename(path.dirname(path.resolve(manifestFile)));
  const appDir = path.join(out, appName);
  const context = { jsRoot: path.join(appDir, 'js'), manifestsRoot: path.join(appDir, 'manifests'), sources: new Map() };
  const source = path.resolve(manifestFile);
  const top = translateObject(readManifest(source), path.dirname(source), context);
  if (boardSizes !== undefined) giveSimulatorBoardSizes(top, boardSizes);
  const generated = path.join(appDir, 'manifest.json');
  writeIfChanged(generated, JSON.stringify(top, null, 2) + '\n');

  const target = targetOf(source);
  let changed = 0;
  for (const [tsFile, jsFile] of context.sources) {
    const { code } = transformSync(readFileSync(tsFile, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target,
      sourcefile: path.relative(ROOT, tsFile),
      // The project's settings (tsconfig.json): imports kept as written, class fields defined.
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
    });
    if (writeIfChanged(jsFile, code)) changed++;
  }
  // A module that left the manifest (or the repository) must not linger in a wildcard folder.
  const wanted = new Set(context.sources.values());
  for (const file of filesUnder(context.jsRoot)) if (!wanted.has(file)) rmSync(file);
  return { manifestFile: generated, modules: context.sources.size, changed };
}
