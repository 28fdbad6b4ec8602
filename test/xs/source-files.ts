// The TypeScript files under a folder, for the static checks of test/xs (imports, layers, timers,
// tests by name): one walk, so every check reads the same set of files.

import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every `.ts` file under `dir`, its sub-folders included, as full paths. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}
