// Writes the man pages, man/vendorplay-receiver.1 and man/vendorplay-send.1, from the options
// tables (hosts/node/man-pages.ts and sender/man-page.ts, bundled here with esbuild as the build
// bundles the commands) and the built sender's --help (its usage and commands). Run by `npm run build` and `prepare`, so a
// packed package carries them (package.json `files` and `man`); man/ is not kept in git.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT } from './build.mjs';

export const MAN_DIR = path.join(ROOT, 'man');
export const MAN_PAGES = ['vendorplay-receiver.1', 'vendorplay-send.1'];

/** Writes both pages; returns their paths. */
export async function writeManPages() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    // An install without devDependencies: the package it came from carries the pages.
    process.stderr.write('man: esbuild is not installed (an install with --omit=dev); man/ is kept as it is\n');
    return [];
  }
  const bundled = path.join(DIST, `man-pages.${process.pid}.mjs`);
  await esbuild.build({
    absWorkingDir: ROOT,
    stdin: { contents: "export { receiverManPage } from './hosts/node/man-pages.ts';\nexport { senderManPage } from './sender/man-page.ts';\n", resolveDir: ROOT, loader: 'ts', sourcefile: 'man-pages-entry.ts' },
    outfile: bundled,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['@homebridge/ciao', 'ws', '@homebridge/dbus-native'],
    logLevel: 'silent',
  });
  let pages;
  try {
    pages = await import(pathToFileURL(bundled).href);
  } finally {
    rmSync(bundled, { force: true });
  }
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const sendHelp = execFileSync(process.execPath, [path.join(ROOT, 'bin', 'vendorplay-send.js'), '--help'], { encoding: 'utf8' });
  mkdirSync(MAN_DIR, { recursive: true });
  const written = [
    [MAN_PAGES[0], pages.receiverManPage(version)],
    [MAN_PAGES[1], pages.senderManPage(version, sendHelp)],
  ].map(([name, text]) => {
    const file = path.join(MAN_DIR, name);
    writeFileSync(file, text);
    return file;
  });
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const written = await writeManPages();
  if (written.length > 0) process.stderr.write(`man: ${written.map((file) => path.relative(ROOT, file)).join(', ')}\n`);
}
