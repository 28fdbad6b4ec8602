// `npm test` runs the portable suites (every test file directly in test/unit) in one Node process,
// as test/xs/xs.test.ts runs them in one XS machine, instead of one process per file: a process
// of its own costs a file about 0.6 s of CPU (Node and tsx starting, then src/ loaded again),
// which for 140-odd files was about 160 of the 185 s of CPU test/unit took, and a quarter of
// the whole run on two cores. Nothing is shared that XS does not share already: the suites
// import nothing of Node but node:test and node:assert (the XS bundle refuses anything else),
// so they cannot hold a port, a file or a mocked clock of the process.
//
// Each file is a suite named by its path, so a failure still says which file it is in; its tests
// run one after another, in the order of the file. One file stays runnable alone:
// `node --import tsx --test test/unit/NAME.test.ts`.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const UNIT = path.dirname(fileURLToPath(import.meta.url));

/** The same files, in the same order, as the XS bundle's portableSuites() (test/xs/bundle.ts). */
const suites = readdirSync(UNIT)
  .filter((name) => name.endsWith('.test.ts'))
  .sort();

if (suites.length === 0) throw new Error(`no test files in ${UNIT}`);

for (const name of suites) {
  // The import registers the file's tests inside this suite (node:test finds the suite a test()
  // call belongs to from the async context the call runs in).
  describe(`test/unit/${name}`, async () => {
    await import(pathToFileURL(path.join(UNIT, name)).href);
  });
}
