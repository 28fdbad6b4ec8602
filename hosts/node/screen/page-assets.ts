// The files the screen server sends as they are: the page as scripts/build.mjs built it into
// dist/screen/ (its markup and style, and hosts/node/screen/page/ bundled for the browser), and
// hls.js from node_modules. Each is read on its first request and kept.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The page's build (scripts/build.mjs PAGE.outdir), from this file in the sources or in dist/. */
const PAGE_BUILD = new URL('../../../dist/screen/', import.meta.url);

interface StaticFile {
  readonly type: string;
  readonly body: Buffer;
}

/** The page's files by the path they are served at (page.html names the others by these). */
export const PAGE_FILES: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '/': { file: 'page.html', type: 'text/html; charset=utf-8' },
  '/screen.css': { file: 'screen.css', type: 'text/css; charset=utf-8' },
  '/page.js': { file: 'page.js', type: 'text/javascript; charset=utf-8' },
  // For the browser's developer tools: the page's TypeScript, line for line.
  '/page.js.map': { file: 'page.js.map', type: 'application/json; charset=utf-8' },
};

const read = new Map<string, StaticFile>();

/** The page's file `file` (a name of PAGE_FILES); throws when the page is not built. */
export function pageFile(file: string, type: string): StaticFile {
  let found = read.get(file);
  if (!found) {
    const url = new URL(file, PAGE_BUILD);
    try {
      found = { type, body: readFileSync(url) };
    } catch (error) {
      throw new Error(`the screen page is not built (${url.pathname}: ${(error as NodeJS.ErrnoException).code ?? String(error)}): run \`npm run build\``);
    }
    read.set(file, found);
  }
  return found;
}

let hlsLibrary: StaticFile | undefined;

/** hls.js, its UMD build (which defines the global `Hls` the page's video layer takes). */
export function hlsLibraryFile(): StaticFile {
  hlsLibrary ??= { type: 'text/javascript; charset=utf-8', body: readFileSync(createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js')) };
  return hlsLibrary;
}
