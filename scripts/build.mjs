// Builds the Node host (hosts/node and the src/ core it imports) into dist/ with esbuild: the
// receiver as one CommonJS function (dist/receiver.cjs, which bin/run-with-code-cache.mjs runs
// through V8's code cache), the sender as an ES module with its chunks (dist/send.js), so `npm
// start` and the bin/ commands run plain JavaScript instead of compiling TypeScript at every start
// (tsx, which stays for the tests). The virtual screen's page (hosts/node/screen/page/, browser code) is
// bundled for the browser into dist/screen/, with its markup and style, which the screen server
// serves.
//
// `node scripts/build.mjs` always builds (`npm run build`); with --if-stale (`prepare`, `npm
// test`) only when a file under src/, hosts/node or sender/, this script, package.json or the
// installed packages' lock is newer than the last build.
// The bin/ commands call ensureBuild(): a stale build is rebuilt when esbuild is installed (a
// normal `npm install` installs devDependencies) and refused with a message saying what to run
// when it is not (an install with --omit=dev and no dist/).
//
// The @noble libraries are bundled too: loaded as separate ES modules from node_modules they took
// 35-60 ms of every start, bundled 12-15 ms. An install that changes node_modules (npm writes
// node_modules/.package-lock.json) therefore makes the build stale. @homebridge/ciao stays
// outside: it is loaded only when advertising, with its own dependencies. ws stays outside too:
// a CommonJS package that requires Node's modules, which an ES module bundle cannot; so does
// @homebridge/dbus-native (avahi's D-Bus API), loaded only when advertising through avahi.

// Node's modules as `require` gives them, not imported as ES modules: the bin/ commands load this
// file at every start, and an imported built-in module costs a facade (builtinModulesPlugin says why).
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = path.join(ROOT, 'dist');
/** Written last by a build: its mtime is the build's time, its text what was built from what. */
const STAMP = path.join(DIST, 'build.json');
const THIS_SCRIPT = fileURLToPath(import.meta.url);
/**
 * Trees whose files the build depends on. Not hosts/moddable: nothing of it is built here, and its
 * by-hand test clip (hosts/moddable/mirror-test, made by ffmpeg) would mark every build stale.
 */
const SOURCE_TREES = ['src', 'hosts/node', 'sender'];
/** Single files it depends on: this script, and what says which library versions are installed. */
const SOURCE_FILES = [THIS_SCRIPT, 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];
/** The name the code cache of a bundle in dist/ ends with (bin/run-with-code-cache.mjs). */
export const CODE_CACHE_SUFFIX = '.v8cache';

/** Loaded from node_modules at run time, not bundled. */
const EXTERNAL = ['@homebridge/ciao', '@homebridge/dbus-native', 'ws'];

/** The commands: output name -> entry file. */
export const ENTRIES = {
  receiver: 'hosts/node/main.ts',
  send: 'sender/main.ts',
};

/** Each command's file in dist/. */
export const OUTPUTS = {
  receiver: 'receiver.cjs',
  send: 'send.js',
};

/**
 * The receiver's bundle is one function of CommonJS's arguments, not a module Node loads:
 * bin/run-with-code-cache.mjs compiles it with V8's code cache (Node 20 has none for ES modules)
 * and calls it. V8 compiles most of a start's functions from the cache instead of from source,
 * about a third of the CPU a start takes before it answers.
 */
const RECEIVER_WRAPPER = { banner: '(function (exports, require, module, __filename, __dirname) {', footer: '})' };

/** What earlier builds wrote that this one does not (the receiver as an ES module). */
const OBSOLETE_OUTPUTS = ['receiver.js', 'receiver.js.map'];

/** The virtual screen page: its entry, bundled to `script` in `outdir`, and the files copied beside it. */
export const PAGE = {
  entry: 'hosts/node/screen/page/main.ts',
  outdir: 'dist/screen',
  script: 'page.js',
  copied: ['hosts/node/screen/page/page.html', 'hosts/node/screen/page/screen.css'],
};

/** Every file of dist/screen/ the screen server reads. */
const PAGE_OUTPUTS = [PAGE.script, ...PAGE.copied.map((file) => path.basename(file))].map((name) => path.join(PAGE.outdir, name));

/**
 * The newest file under `dir` (recursively): { file, mtimeMs }. Every `vendorplay-receiver` start
 * runs this over a few hundred files, so it joins names by hand: path.join's normalising loop,
 * called that often, is hot enough for V8 to optimise it, and that first optimising compile
 * touched about 4 MB of the process's memory (its resident size at idle), for nothing.
 */
function newestUnder(dir, newest = { file: '', mtimeMs: 0 }) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = `${dir}${path.sep}${entry.name}`;
    if (entry.isDirectory()) newestUnder(file, newest);
    else {
      const { mtimeMs } = statSync(file);
      if (mtimeMs > newest.mtimeMs) {
        newest.file = file;
        newest.mtimeMs = mtimeMs;
      }
    }
  }
  return newest;
}

/**
 * Why the build in dist/ cannot be used as it is (missing, or older than a source), or undefined
 * when it is fresh. Stats every file under src/ and hosts/ (about 110: a millisecond or two).
 */
export function staleReason() {
  if (!existsSync(STAMP)) return 'dist/ has not been built';
  const built = statSync(STAMP).mtimeMs;
  for (const output of Object.values(OUTPUTS)) {
    if (!existsSync(path.join(DIST, output))) return `dist/${output} is missing`;
  }
  for (const output of PAGE_OUTPUTS) {
    if (!existsSync(path.join(ROOT, output))) return `${output} is missing`;
  }
  // An installed package ships dist/ without the TypeScript (package.json `files`): there is
  // nothing to rebuild from, and its files' times say only when npm unpacked each one.
  if (!existsSync(path.join(ROOT, SOURCE_TREES[0]))) return undefined;
  const newest = newestUnder(path.join(ROOT, SOURCE_TREES[0]));
  for (const tree of SOURCE_TREES.slice(1)) newestUnder(path.join(ROOT, tree), newest);
  for (const name of SOURCE_FILES) {
    const file = path.resolve(ROOT, name);
    if (!existsSync(file)) continue;
    const { mtimeMs } = statSync(file);
    if (mtimeMs > newest.mtimeMs) {
      newest.file = file;
      newest.mtimeMs = mtimeMs;
    }
  }
  if (newest.mtimeMs > built) return `${path.relative(ROOT, newest.file)} is newer than dist/`;
  return undefined;
}

/**
 * esbuild keeps `import.meta.url` as it is, which in dist/ names the bundle, not the source file
 * (hosts/node/screen/server.ts reads its page next to itself; hosts/node/kernels/kernels.ts finds the
 * .wasm by a relative path). This rewrites it, in the files that use it, to the URL of the
 * source file, computed from the bundle's own URL (in `outdir`), so a moved checkout still works.
 * In a CommonJS bundle (`format` 'cjs') the bundle's URL is that of its __filename.
 */
export function sourceUrlPlugin(outdir, format = 'esm') {
  const bundleUrl = format === 'cjs' ? 'require("node:url").pathToFileURL(__filename)' : 'import.meta.url';
  return {
    name: 'source-import-meta-url',
    setup(build) {
      // Our .mjs too (modules/native/xs-host/build.mjs finds the XS sources and its natives from
      // its own URL, and the benches bundle it); a library's files keep their own meaning.
      build.onLoad({ filter: /\.(ts|mjs)$/ }, (args) => {
        if (args.path.endsWith('.mjs') && args.path.split(path.sep).includes('node_modules')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        // Chunks sit in `outdir` next to the entries (chunkNames below): one relative path serves.
        const fromOut = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromOut)}, ${bundleUrl}).href`), loader: args.path.endsWith('.mjs') ? 'js' : 'ts' };
      });
    },
  };
}

/**
 * Node's own modules a start does not need, loaded at their first use instead (together 40 of
 * the 220 internal modules a start loaded): `node:https` (with TLS) and `node:dns/promises` fetch
 * a video the page is told to play, `node:child_process` starts aplay at the first audio or an
 * --on-event command, `node:crypto` draws random bytes (pairing, the screen's event streams; a
 * start with its identity made draws none). Their functions are wrappers that load the module
 * when called, their default export an object whose properties do; anything else imported from
 * them (a class, a constant) loads the module where it is imported.
 */
const LOADED_ON_FIRST_USE = new Set(['node:https', 'node:dns/promises', 'node:child_process', 'node:crypto']);
const PROMISIFY_CUSTOM = Symbol.for('nodejs.util.promisify.custom');

/**
 * Node's own modules (`node:fs`...) taken with process.getBuiltinModule, as `require` gives them,
 * rather than imported as ES modules: Node makes an ES module of a built-in one by reading every
 * export once, getters included (`node:fs` loads fs/promises, `node:crypto` the Web Crypto API).
 * Each becomes a module exporting its properties, each read once where it is imported and
 * dropped by esbuild where nothing imports it; those of LOADED_ON_FIRST_USE load at first use.
 */
export const builtinModulesPlugin = {
  name: 'node-builtins-without-esm-facade',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-builtin' }));
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => {
      const builtin = process.getBuiltinModule(args.path);
      const names = Object.getOwnPropertyNames(builtin).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default');
      const load = JSON.stringify(args.path);
      if (!LOADED_ON_FIRST_USE.has(args.path)) {
        const lines = [`const builtin = process.getBuiltinModule(${load});`, 'export default builtin;', ...names.map((name) => `export const ${name} = /* @__PURE__ */ (() => builtin.${name})();`)];
        return { contents: lines.join('\n'), loader: 'js' };
      }
      const isFunction = (name) => typeof builtin[name] === 'function' && !/^[A-Z]/.test(name);
      // util.promisify(execFile) takes execFile's own promise form (its stdout and stderr), which
      // the wrapper hands on, loading the module then.
      const promisified = (name) => (PROMISIFY_CUSTOM in builtin[name] ? [`Object.defineProperty(${name}, Symbol.for('nodejs.util.promisify.custom'), { get: () => builtin().${name}[Symbol.for('nodejs.util.promisify.custom')] });`] : []);
      const lines = [
        'let loaded;',
        `const builtin = () => (loaded ??= process.getBuiltinModule(${load}));`,
        `export default { ${names.map((name) => `get ${name}() { return builtin().${name}; }`).join(', ')} };`,
        ...names.flatMap((name) => (isFunction(name) ? [`export function ${name}(...args) { return builtin().${name}(...args); }`, ...promisified(name)] : [`export const ${name} = /* @__PURE__ */ (() => builtin().${name})();`])),
      ];
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * hosts/node/on-first-use-modules.ts imports its modules as any module does (for tsx and the
 * tests); the bundle takes on-first-use-modules.bundled.ts in its place, whose `require` calls
 * esbuild compiles to each module's init function, run at the first call (that file says why).
 */
export const onFirstUseModulesPlugin = {
  name: 'modules-evaluated-on-first-use',
  setup(build) {
    build.onResolve({ filter: /[\\/]on-first-use-modules$/ }, (args) => ({ path: path.join(args.resolveDir, `${args.path}.bundled.ts`) }));
  },
};

/** Builds dist/ now. Returns the milliseconds it took. */
export async function build() {
  const started = performance.now();
  // The stamp takes the time the build started: a source saved while esbuild runs is newer.
  const startedAt = new Date();
  const esbuild = await import('esbuild');
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    sourcemap: 'linked',
    // No `__name` wrappers (tsx adds them: ~4% of request CPU); names are not read.
    keepNames: false,
    // Without comments and indentation: V8 keeps every module's source for the life of the
    // process (it compiles each function from it when first called), 1.1 MB of text as written,
    // 0.8 MB so (0.4 MB less resident memory at idle). Names stay; a stack trace's line and column
    // are the bundle's, which `node --enable-source-maps` maps back to the TypeScript.
    minifyWhitespace: true,
    write: false,
    logLevel: 'silent',
  };
  const [receiver, send, page] = await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [{ out: path.parse(OUTPUTS.receiver).name, in: ENTRIES.receiver }],
      outdir: DIST,
      outExtension: { '.js': path.extname(OUTPUTS.receiver) },
      format: 'cjs',
      // import() becomes require(): a module loaded later (the mDNS advertisers) is evaluated
      // then, from the one file.
      supported: { 'dynamic-import': false },
      banner: { js: RECEIVER_WRAPPER.banner },
      footer: { js: RECEIVER_WRAPPER.footer },
      plugins: [sourceUrlPlugin(DIST, 'cjs'), builtinModulesPlugin, onFirstUseModulesPlugin],
    }),
    esbuild.build({
      ...common,
      entryPoints: [{ out: path.parse(OUTPUTS.send).name, in: ENTRIES.send }],
      outdir: DIST,
      chunkNames: 'chunk-[hash]',
      splitting: true,
      format: 'esm',
      plugins: [sourceUrlPlugin(DIST), builtinModulesPlugin, onFirstUseModulesPlugin],
    }),
    buildPage(esbuild),
  ]);
  mkdirSync(path.join(ROOT, PAGE.outdir), { recursive: true });
  const wanted = new Set();
  for (const file of [...receiver.outputFiles, ...send.outputFiles]) {
    // The receiver's bundle is written as Latin-1, which is how the code cache's runner reads it
    // (one byte a character, no UTF-8 decoding): latin1Only leaves it no character above U+00FF.
    const isReceiver = receiver.outputFiles.includes(file);
    const contents = /\.c?js$/.test(file.path) ? await latin1Only(esbuild, file.text, file.path) : file.contents;
    writeWhole(file.path, isReceiver && typeof contents === 'string' ? Buffer.from(contents, 'latin1') : contents);
    wanted.add(file.path);
  }
  for (const file of page.outputFiles) {
    writeWhole(file.path, file.contents);
    wanted.add(file.path);
  }
  for (const file of PAGE.copied) writeWhole(path.join(ROOT, PAGE.outdir, path.basename(file)), readFileSync(path.join(ROOT, file)));
  // Chunks of earlier builds (their names hash their contents) would pile up; a code cache made
  // for the last bundle is of no use to this one.
  for (const name of readdirSync(DIST)) {
    const file = path.join(DIST, name);
    const obsolete = OBSOLETE_OUTPUTS.includes(name) || name.endsWith(CODE_CACHE_SUFFIX);
    if ((obsolete || (name.startsWith('chunk-') && !wanted.has(file))) && !name.endsWith('.tmp')) rmSync(file, { force: true });
  }
  const ms = Math.round(performance.now() - started);
  const stampTemporary = `${STAMP}.${process.pid}.tmp`;
  writeFileSync(stampTemporary, `${JSON.stringify({ builtBy: 'scripts/build.mjs', esbuild: esbuild.version, entries: ENTRIES, page: PAGE.entry, ms }, null, 2)}\n`);
  utimesSync(stampTemporary, startedAt, startedAt);
  renameSync(stampTemporary, STAMP);
  return ms;
}

/**
 * A module's text with every character above U+00FF replaced by `?`. esbuild escapes them in
 * strings, identifiers and regular expressions (its default charset is ASCII) but leaves comments
 * as they are, and one such character (in @noble's JSDoc) made V8 hold that whole chunk's source
 * two bytes a character, for the life of the process: 390 KB more of the idle receiver's heap.
 * Only comments may change, which is checked: both texts without comments must be the same. One
 * UTF-16 unit for one keeps the source map's columns.
 */
async function latin1Only(esbuild, text, file) {
  if (!/[^\x00-\xff]/.test(text)) return text;
  const replaced = text.replace(/[^\x00-\xff]/g, '?');
  const withoutComments = async (source) => (await esbuild.transform(source, { loader: 'js', format: 'esm', minifyWhitespace: true, legalComments: 'none' })).code;
  if ((await withoutComments(text)) !== (await withoutComments(replaced))) throw new Error(`${file}: a character above U+00FF outside a comment`);
  return replaced;
}

/**
 * The page for the browser: one ES module (no splitting: the page loads one script), modern
 * Chromium's language level. Its imports of page-protocol.ts and of types (src/platform.ts,
 * hls.js) leave nothing but the protocol's constants in it; hls.js is loaded at run time, only
 * where HLS needs it.
 */
function buildPage(esbuild) {
  return esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [PAGE.entry],
    outfile: path.join(ROOT, PAGE.outdir, PAGE.script),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
  });
}

/**
 * Writes `file` beside its final name and renames it: several commands starting at once on a
 * stale build (the end-to-end tests) each build, and none reads a half-written file.
 */
function writeWhole(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

/** Whether esbuild can be loaded (it is a devDependency). */
function esbuildInstalled() {
  try {
    import.meta.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

/**
 * For the bin/ commands: the file URL of dist/`output`.js, rebuilt first when stale. Without
 * esbuild a stale or missing build is refused: `command` exits 1 with what to do.
 */
export async function ensureBuild(output, command) {
  const reason = staleReason();
  if (reason !== undefined) {
    if (!esbuildInstalled()) {
      process.stderr.write(`${command}: ${reason}, and esbuild (a devDependency) is not installed to rebuild it: run \`npm install\` and \`npm run build\` in ${ROOT}\n`);
      process.exit(1);
    }
    let ms;
    try {
      ms = await build();
    } catch (error) {
      // esbuild's message lists each error with its file and line.
      process.stderr.write(`${command}: ${reason}, and rebuilding it failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
    process.stderr.write(`${command}: rebuilt dist/ (${reason}; ${ms} ms)\n`);
  }
  return pathToFileURL(path.join(DIST, OUTPUTS[output])).href;
}

// As a script: `node scripts/build.mjs [--if-stale]`.
if (process.argv[1] && path.resolve(process.argv[1]) === THIS_SCRIPT) {
  const ifStale = process.argv.includes('--if-stale');
  const reason = staleReason();
  if (ifStale && reason === undefined) process.exit(0);
  if (!esbuildInstalled()) {
    // An install without devDependencies: nothing to build with; say so, do not fail the install.
    process.stderr.write(`build: esbuild is not installed (an install with --omit=dev), so dist/ is not built; ${reason ?? 'dist/ is kept as it is'}\n`);
    process.exit(ifStale ? 0 : 1);
  }
  const ms = await build();
  process.stderr.write(`build: ${Object.values(OUTPUTS).map((output) => `dist/${output}`).join(', ')}, ${PAGE.outdir}/ (${reason ?? 'asked'}; ${ms} ms)\n`);
}
