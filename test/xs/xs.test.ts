// Runs every portable suite (test/unit) inside the XS engine and fails on any failure there.
// This is what proves src/ is ECMAScript only: XS has no Node globals and no host modules.

import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { bundlePortableSuites, portableSuites } from './bundle';
import { runSuitesInXs, suiteResult } from './xsnap';

/** How long the whole portable suite may take inside XS before it counts as hung. */
const XS_SUITE_BOUND_MS = 480_000;
/**
 * XS machines run at once, each taking the next file when done with one. An XS machine is one
 * thread, and this file (the slowest of `npm test`, about 90 s of CPU) sorts last of all, so
 * alone in one machine it ran on one core at the end of the run while the other had nothing left.
 */
const MACHINES = Math.max(1, Math.min(2, os.availableParallelism()));

test('every portable suite passes inside the XS engine', { timeout: XS_SUITE_BOUND_MS + 60_000 }, async () => {
  const files = portableSuites();
  assert.ok(files.length > 0, 'test/unit has no suites');
  const script = await bundlePortableSuites(files, { run: 'by-file' });
  // A bound on a hung engine, not a speed claim: the whole suite takes about a minute and a half
  // of CPU, and three or four minutes on a loaded machine (the compute steps below are its measure).
  const run = await runSuitesInXs(script, files, MACHINES, XS_SUITE_BOUND_MS);
  const { summary, summaries, failures } = suiteResult(run);
  // The meter figures of the whole suite, for the record (issue notes quote them).
  console.log(
    `XS suite: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped in ${files.length} files (${MACHINES} machines); ` +
      `compute ${run.meter.compute} steps, allocate ${run.meter.allocate} bytes, heap ${run.meter.currentHeapCount} slots`,
  );
  assert.deepEqual(failures, [], `failures inside XS:\n${failures.join('\n')}`);
  assert.equal(summaries, files.length, 'every file was run once');
  assert.equal(summary.failed, 0);
  assert.ok(summary.passed > 0);
});
