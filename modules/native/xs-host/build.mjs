// Builds the XS test host: @agoric/xsnap's worker (the engine and pipe protocol test/xs/xsnap.ts
// speaks) from the XS sources that package brings at install, linked with our natives
// (modules/native/vp-crypto.c, vp-nal.c, vp-alac.c, vp-aac.c, video-decoder/video-decoder.c) and Debian's libsodium,
// mbedTLS, libavcodec and libswscale. Nothing of XS is copied
// here: the sources are compiled where npm put them, with the flags of the package's own
// makefile (xsnap-native/xsnap/makefiles/lin/xsnap-worker.mk) plus two renames:
// - modInstallBase64 -> vpInstallNatives in the worker, so natives.c installs the natives;
// - fxNewFunctionLength -> vpNoFunctionLength in the engine's defaults, so functions have no
//   own `length`, as in every app the Moddable SDK's linker links (the first bug found when the natives ran in XS).
// Objects are cached in modules/native/build/xs-host (gitignored) and rebuilt when their
// source or the flags change. One build at a time: test files run in parallel (and benches)
// all call buildXsHost(); the first takes a lock file, the others wait for it and then find
// nothing stale, so XS is compiled once per run (withLock below).
// Usage: node modules/native/xs-host/build.mjs [--quiet]
// Prints the path of the binary; exits 1 with the compiler's message when a step fails.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const NATIVE = path.dirname(HERE);
const OUT = path.join(NATIVE, 'build', 'xs-host');
const OBJ = path.join(OUT, 'obj');
export const XS_HOST_BINARY = path.join(OUT, 'vp-xsnap-worker');
/** Held by the process that builds (its pid inside); see withLock. */
const LOCK = path.join(OUT, 'build.lock');

const require = createRequire(import.meta.url);
const XSNAP = path.dirname(require.resolve('@agoric/xsnap/package.json'));
const XS = path.join(XSNAP, 'moddable', 'xs');
const WORKER = path.join(XSNAP, 'xsnap-native', 'xsnap', 'sources');
const DATA = path.join(XSNAP, 'moddable', 'modules', 'data');

const CC = process.env.CC ?? 'cc';
// The defines of xsnap-worker.mk (release), which the worker's protocol and metering rely on.
const FLAGS = [
  '-O2',
  '-fno-common',
  '-DINCLUDE_XSPLATFORM',
  '-DXSPLATFORM="xsnapPlatform.h"',
  '-DXSNAP_VERSION="vendorplay-xs-host"',
  '-DXSNAP_TEST_RECORD=0',
  '-DmxLockdown=1',
  '-DmxMetering=1',
  '-DmxDebug=1',
  '-UmxInstrument',
  '-DmxNoConsole=1',
  '-DmxBoundsCheck=1',
  '-DmxParse=1',
  '-DmxRun=1',
  '-DmxSloppy=1',
  '-DmxSnapshot=1',
  '-DmxRegExpUnicodePropertyEscapes=1',
  '-DmxStringNormalize=1',
  '-DmxMinusZero=1',
  `-I${path.join(XS, 'includes')}`,
  `-I${path.join(XS, 'platforms')}`,
  `-I${path.join(XS, 'sources')}`,
  `-I${WORKER}`,
  '-Wno-misleading-indentation',
  '-Wno-implicit-fallthrough',
];
const LIBRARIES = ['-lsodium', '-lmbedcrypto', '-lavcodec', '-lswscale', '-lavutil', '-ldl', '-lm', '-lpthread'];

const XS_SOURCES = [
  'xsAll', 'xsAPI', 'xsArguments', 'xsArray', 'xsAtomics', 'xsBigInt', 'xsBoolean', 'xsCode', 'xsCommon',
  'xsDataView', 'xsDate', 'xsDebug', 'xsDefaults', 'xsError', 'xsFunction', 'xsGenerator', 'xsGlobal', 'xsJSON',
  'xsLexical', 'xsLockdown', 'xsMapSet', 'xsMarshall', 'xsMath', 'xsMemory', 'xsModule', 'xsNumber', 'xsObject',
  'xsPlatforms', 'xsProfile', 'xsPromise', 'xsProperty', 'xsProxy', 'xsRegExp', 'xsRun', 'xsScope', 'xsScript',
  'xsSnapshot', 'xsSourceMap', 'xsString', 'xsSymbol', 'xsSyntaxical', 'xsTree', 'xsType', 'xsdtoa', 'xsre', 'xsmc',
];

/** Every translation unit: source file and the flags added to FLAGS for it. */
function units() {
  const list = XS_SOURCES.map((name) => ({
    source: path.join(XS, 'sources', `${name}.c`),
    extra: name === 'xsDefaults' ? ['-DfxNewFunctionLength=vpNoFunctionLength'] : [],
  }));
  list.push(
    { source: path.join(DATA, 'text', 'decoder', 'textdecoder.c'), extra: [] },
    { source: path.join(DATA, 'text', 'encoder', 'textencoder.c'), extra: [] },
    { source: path.join(DATA, 'base64', 'modBase64.c'), extra: [] },
    { source: path.join(WORKER, 'xsnapPlatform.c'), extra: [] },
    { source: path.join(WORKER, 'xsnap-worker.c'), extra: ['-DmodInstallBase64=vpInstallNatives'] },
    { source: path.join(HERE, 'natives.c'), extra: [] },
    { source: path.join(NATIVE, 'vp-crypto.c'), extra: ['-Wall', '-Werror'] },
    { source: path.join(NATIVE, 'vp-nal.c'), extra: ['-Wall', '-Wextra', '-Werror'] },
    { source: path.join(NATIVE, 'vp-alac.c'), extra: ['-Wall', '-Wextra', '-Werror'] },
    { source: path.join(NATIVE, 'video-decoder', 'video-decoder.c'), extra: ['-Wall', '-Werror'] },
    { source: path.join(NATIVE, 'vp-aac.c'), extra: ['-Wall', '-Wextra', '-Werror'] },
  );
  return list;
}

const HEADERS = [
  path.join(XS, 'includes', 'xs.h'),
  path.join(XS, 'includes', 'xsmc.h'),
  path.join(XS, 'sources', 'xsAll.h'),
  path.join(XS, 'sources', 'xsCommon.h'),
  path.join(WORKER, 'xsnap.h'),
  path.join(WORKER, 'xsnapPlatform.h'),
];

function mtime(file) {
  return statSync(file).mtimeMs;
}

/** A lock older than this is taken as left behind (its pid reused by another process): no build takes half as long. */
const LOCK_STALE_MS = 20 * 60_000;
const LOCK_POLL_MS = 100;

/** The lock's holder, or undefined when the lock is free or left behind by a process that is gone. */
function lockHolder(lock, staleMs) {
  let text;
  let age;
  try {
    text = readFileSync(lock, 'utf8');
    age = Date.now() - statSync(lock).mtimeMs;
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number.parseInt(text, 10);
  if (pid > 0 && age < staleMs) {
    try {
      process.kill(pid, 0);
      return pid;
    } catch (error) {
      // EPERM: it exists, run by another user.
      if (error.code === 'EPERM') return pid;
    }
  }
  // Its holder died (a killed test run) or it is too old: remove it, unless it changed meanwhile.
  try {
    if (readFileSync(lock, 'utf8') === text) unlinkSync(lock);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  return undefined;
}

/**
 * Runs `work` holding the lock file `lock`, across processes: the lock is made whole (the
 * holder's pid written to a file of its own, then hard-linked to the lock's name, which fails if
 * the name exists), so no one ever reads a half-written lock. A caller that finds it held waits
 * until it is released (polling, `onWait` told once with the holder's pid) and then takes it. A
 * lock whose holder is gone (killed mid-build) or older than `staleMs` is removed, so a crashed
 * run never hangs the next. Two callers removing the same stale lock may both go on; the build
 * stays correct then (every file is written under a temporary name and renamed), it only costs
 * a second compile.
 */
export async function withLock(lock, work, { staleMs = LOCK_STALE_MS, pollMs = LOCK_POLL_MS, onWait } = {}) {
  const own = `${lock}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  let told = false;
  try {
    for (;;) {
      // Written anew for each try, so the lock's age counts from when it was taken.
      writeFileSync(own, `${process.pid}\n`);
      try {
        linkSync(own, lock);
        break;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
      const holder = lockHolder(lock, staleMs);
      if (holder === undefined) continue;
      if (!told) onWait?.(holder);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    try {
      unlinkSync(own);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
  }
  try {
    return await work();
  } finally {
    try {
      unlinkSync(lock);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
  }
}

/**
 * Compiles what is stale (two at a time at most: the machine is shared) and links, holding the
 * build lock: test files running in parallel call this at once on a fresh clone; one compiles,
 * the others wait and then find every object and the binary fresh. Each object and the binary
 * are also written under a temporary name and renamed into place, so no process ever links a
 * half-written object or runs a half-written binary (a running host keeps the file it started
 * from), even when a stale lock lets two builds run.
 */
export async function buildXsHost({ quiet = false } = {}) {
  mkdirSync(OBJ, { recursive: true });
  const onWait = (pid) => {
    if (!quiet) process.stderr.write(`xs-host: waiting for the build of process ${pid}\n`);
  };
  return withLock(LOCK, () => build(quiet), { onWait });
}

async function build(quiet) {
  const headersTime = Math.max(...HEADERS.map(mtime));
  const jobs = [];
  let linkNeeded = !existsSync(XS_HOST_BINARY);
  const objects = [];
  for (const unit of units()) {
    const flags = [...FLAGS, ...unit.extra];
    const stamp = createHash('sha256').update(`${CC}\n${flags.join('\n')}`).digest('hex').slice(0, 16);
    const object = path.join(OBJ, `${path.basename(unit.source, '.c')}-${stamp}.o`);
    objects.push(object);
    if (existsSync(object) && mtime(object) >= Math.max(mtime(unit.source), headersTime)) continue;
    linkNeeded = true;
    jobs.push({ source: unit.source, object, flags });
  }
  const started = Date.now();
  const parallel = Math.max(1, Math.min(2, os.availableParallelism?.() ?? 2));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const temporary = `${job.object}.${process.pid}.tmp`;
      await run(CC, ['-c', job.source, '-o', temporary, ...job.flags], { maxBuffer: 16 << 20 });
      renameSync(temporary, job.object);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  if (linkNeeded || objects.some((object) => mtime(object) > mtime(XS_HOST_BINARY))) {
    const temporary = `${XS_HOST_BINARY}.${process.pid}.tmp`;
    await run(CC, ['-rdynamic', ...objects, ...LIBRARIES, '-o', temporary], { maxBuffer: 16 << 20 });
    renameSync(temporary, XS_HOST_BINARY);
  }
  if (!quiet && jobs.length > 0) process.stderr.write(`xs-host: compiled ${jobs.length} files in ${Date.now() - started} ms\n`);
  return XS_HOST_BINARY;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(await buildXsHost({ quiet: process.argv.includes('--quiet') }));
  } catch (error) {
    process.stderr.write(`xs-host: ${error.stderr || error.message}\n`);
    process.exitCode = 1;
  }
}

