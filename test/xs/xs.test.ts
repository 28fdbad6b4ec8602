// Runs every portable suite (test/unit) inside the XS engine and fails on any failure there.
// This is what proves src/ is ECMAScript only: XS has no Node globals and no host modules.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundlePortableSuites, portableSuites } from './bundle';
import { runInXs, suiteResult } from './xsnap';

/** How long the whole portable suite may take inside XS before it counts as hung. */
const XS_SUITE_BOUND_MS = 480_000;

test('every portable suite passes inside the XS engine', { timeout: XS_SUITE_BOUND_MS + 60_000 }, async () => {
  const files = portableSuites();
  assert.ok(files.length > 0, 'test/unit has no suites');
  const script = await bundlePortableSuites(files);
  // A bound on a hung engine, not a speed claim: the whole suite takes about a minute alone and
  // three or four on a loaded machine (the compute steps below are its measure).
  const run = await runInXs(script, XS_SUITE_BOUND_MS);
  const { summary, failures } = suiteResult(run);
  // The meter figures of the whole suite, for the record (issue notes quote them).
  console.log(
    `XS suite: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped in ${files.length} files; ` +
      `compute ${run.meter.compute} steps, allocate ${run.meter.allocate} bytes, heap ${run.meter.currentHeapCount} slots`,
  );
  assert.deepEqual(failures, [], `failures inside XS:\n${failures.join('\n')}`);
  assert.equal(summary.failed, 0);
  assert.ok(summary.passed > 0);
});
