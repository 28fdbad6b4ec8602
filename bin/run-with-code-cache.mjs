// Runs a CommonJS bundle written as one function of CommonJS's arguments (dist/receiver.cjs,
// scripts/build.mjs) with V8's code cache, which Node 20 offers for scripts (node:vm) but not for
// ES modules. A start compiles from the cache, instead of from source, the functions the start
// that made it ran: about a third of the CPU the receiver used to take before its first answer.
//
// The cache sits beside the bundle (FILE.v8cache; the build removes it) and is made by the first
// start that finds none it can use, a second after that start ran the bundle: V8 refuses one made
// by another V8 or under other flags, and the cache's first line names the bundle it was made
// from (size and modification time), since V8 itself checks only the source's length. A bundle
// that cannot be written beside (an installed package owned by another user) runs without one.

// Node's modules as `require` gives them (scripts/build.mjs says why).
const { readFileSync, renameSync, rmSync, statSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { Script } = process.getBuiltinModule('node:vm');
const { createRequire } = process.getBuiltinModule('node:module');
const path = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');

/** The cache of `file`'s bundle. */
export const codeCacheOf = (file) => `${file}.v8cache`;

/** The cache's first line: which bundle it was made from. */
function bundleStamp(file) {
  const { size, mtimeMs } = statSync(file);
  return Buffer.from(`${size} ${mtimeMs}\n`, 'latin1');
}

/** The cache's V8 data when it was made from this bundle, else undefined. */
function readCache(cacheFile, stamp) {
  let bytes;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  return bytes.subarray(0, stamp.length).equals(stamp) ? bytes.subarray(stamp.length) : undefined;
}

/**
 * Compiles `file` (Latin-1 text, one function expression) with its cache, runs it as a CommonJS
 * module, and says whether V8 took the cache. `save()` writes a cache of what has been compiled
 * so far (no-op when the directory cannot be written).
 */
export function runBundle(file) {
  const stamp = bundleStamp(file);
  const cacheFile = codeCacheOf(file);
  const cachedData = readCache(cacheFile, stamp);
  const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData });
  const cached = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const save = () => {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, Buffer.concat([stamp, script.createCachedData()]));
      renameSync(temporary, cacheFile);
    } catch {
      rmSync(temporary, { force: true });
    }
  };
  return { cached, save };
}

/** How long after the bundle ran a start without a usable cache makes one: its start-up is done. */
const SAVE_AFTER_MS = 1000;

/** Runs the bundle at `url` and, when it had no usable cache, makes one once it has started. */
export function runWithCodeCache(url) {
  const { cached, save } = runBundle(fileURLToPath(url));
  if (!cached) setTimeout(save, SAVE_AFTER_MS).unref();
}
