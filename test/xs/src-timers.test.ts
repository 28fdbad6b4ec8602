// Static proof that the core arms host timers in one place (DESIGN 6): only src/receiver/timers.ts
// calls the Clock port's setTimer (HostTimer, under the ConnectionDriver and the TimerDriver).
// A feature sets named deadlines in the receiver's timer table instead; one that arms a host
// timer of its own is named here.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from './source-files';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** The one file of src/ that arms host timers. */
const TIMER_MODULE = path.join(SRC, 'receiver', 'timers.ts');


/** `file:line` of each call of setTimer or clearTimer in `text` (a method call, not a declaration). */
export function hostTimerCalls(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/\.(setTimer|clearTimer)\s*\(/.test(line)) found.push(`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`);
  });
  return found;
}

test('only src/receiver/timers.ts arms host timers; features set deadlines in the timer table', () => {
  const problems = sourceFiles(SRC)
    .filter((file) => file !== TIMER_MODULE)
    .flatMap((file) => hostTimerCalls(file, readFileSync(file, 'utf8')));
  assert.deepEqual(problems, []);
});

test('the check names a feature that arms its own host timer', () => {
  const planted = path.join(SRC, 'receiver', 'slideshow', 'slideshow.ts');
  assert.deepEqual(hostTimerCalls(planted, 'const a = 1;\n    this.slideTimer = clock.setTimer(ms, () => this.slideOver());\n'), [
    'receiver/slideshow/slideshow.ts:2: this.slideTimer = clock.setTimer(ms, () => this.slideOver());',
  ]);
});
