// Static proof that the Moddable host makes SDK timers in known places only: the one-timer clock
// (ports.ts, hosts/moddable/single-timer-clock.ts), the memory report's one repeating timer and
// the mirroring test clip's feeder. The Linux port numbers each new SDK timer with a 16-bit
// counter and treats id 0 as removed: a module making a timer per event (a decode slice, a
// video frame, a deadline) wraps it within the hour, and the 65,536th timer corrupts XS's
// remembered objects (the listeners were collected: hosts/moddable/README.md, Realtime audio).
// Everything else takes the host clock.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from './source-files';

const HOST = fileURLToPath(new URL('../../hosts/moddable', import.meta.url));

/** The modules that may use the SDK's `timer` module, and why. */
const SDK_TIMER_USERS: Readonly<Record<string, string>> = {
  'ports.ts': 'the one SDK timer every core and host timer runs on',
  'memory.ts': 'one repeating timer for the memory report, made once',
  'mirror-test-clip.ts': 'the built-in test clip (mirror-test/manifest.json), by hand only',
};


/** `file: line` of each import of the SDK's `timer` module in `text`. */
export function sdkTimerImports(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) => (/^\s*import\s+(type\s+)?\w+\s+from\s+['"]timer['"]/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

test('only the one-timer clock, the memory report and the test clip use the SDK\'s timer module in hosts/moddable', () => {
  const found = sourceFiles(HOST).flatMap((file) => {
    const relative = path.relative(HOST, file);
    return relative in SDK_TIMER_USERS ? [] : sdkTimerImports(relative, readFileSync(file, 'utf8'));
  });
  assert.deepEqual(found, []);
});

test('the check finds an import of the SDK timer module (planted text)', () => {
  assert.deepEqual(sdkTimerImports('display.ts', "import Poco from 'commodetto/Poco';\nimport Timer from 'timer';\n"), ["display.ts:2: import Timer from 'timer';"]);
  assert.deepEqual(sdkTimerImports('x.ts', "import type { Clock } from '../../src/platform';\n"), []);
});
