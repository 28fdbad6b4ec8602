// Builds the XS test host: @agoric/xsnap's worker (the engine and pipe protocol test/xs/xsnap.ts
// speaks) from the XS sources that package brings at install, linked with our natives
// (modules/native/vp-crypto.c, vp-nal.c, video-decoder/video-decoder.c) and Debian's libsodium,
// mbedTLS, libavcodec and libswscale. Nothing of XS is copied
// here: the sources are compiled where npm put them, with the flags of the package's own
// makefile (xsnap-native/xsnap/makefiles/lin/xsnap-worker.mk) plus two renames:
// - modInstallBase64 -> vpInstallNatives in the worker, so natives.c installs the natives;
// - fxNewFunctionLength -> vpNoFunctionLength in the engine's defaults, so functions have no
//   own `length`, as in every app the Moddable SDK's linker links (issue 12's first bug).
// Objects are cached in modules/native/build/xs-host (gitignored) and rebuilt when their
// source or the flags change. Usage: node modules/native/xs-host/build.mjs [--quiet]
// Prints the path of the binary; exits 1 with the compiler's message when a step fails.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
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
    { source: path.join(NATIVE, 'video-decoder', 'video-decoder.c'), extra: ['-Wall', '-Werror'] },
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

/**
 * Compiles what is stale (two at a time at most: the machine is shared) and links. Test files
 * running in parallel may build at once on a fresh clone: each object and the binary are written
 * under a temporary name and renamed into place, so no process ever links a half-written object
 * or runs a half-written binary (a running host keeps the file it started from).
 */
export async function buildXsHost({ quiet = false } = {}) {
  mkdirSync(OBJ, { recursive: true });
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

