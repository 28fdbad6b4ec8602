// The version of the installed package, read at run time from its package.json: the nearest one
// above this file (hosts/node/ in a checkout, dist/ once built or installed) named
// vendorplay-receiver, so a checkout, a build and an installed package each say their own.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'vendorplay-receiver';

/** The package's version, e.g. `0.1.0`; `unknown` when no package.json of ours is above this file. */
export function packageVersion(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here, or not one of ours: look one folder up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
