// The short fuzz run of `npm test`: every campaign with its fixed seed, a count and a time bound
// (all together well under 30 s on two cores). Long runs: `npm run fuzz -- --count N`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CAMPAIGNS, DEFAULT_SEED } from './campaigns';
import { failureLines, runCampaign } from './engine';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;
const heapBytes = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** Inputs per campaign, and the time bound that stops a campaign early on a loaded machine. */
const COUNT = 3000;
const TIME_LIMIT_MS = 1500;
/** Growth of the heap over one campaign that counts as unbounded. */
const HEAP_GROWTH_MB = 32;

for (const campaign of CAMPAIGNS) {
  test(`fuzz ${campaign.name}: no crash, no hang, bounded heap (seed ${DEFAULT_SEED})`, () => {
    const report = runCampaign(campaign, {
      seed: DEFAULT_SEED,
      count: COUNT,
      timeLimitMs: TIME_LIMIT_MS,
      hangMs: 2000,
      clock: () => performance.now(),
      heapBytes,
    });
    const { failures, ...figures } = report;
    console.log(JSON.stringify(figures));
    assert.ok(report.inputs >= 100, `only ${report.inputs} inputs ran`);
    assert.deepEqual(failureLines(report), [], `${report.crashes} crashes, ${report.hangs} hangs`);
    assert.equal(report.crashes + report.hangs, 0);
    assert.ok((report.heapMbAfter ?? 0) - (report.heapMbBefore ?? 0) < HEAP_GROWTH_MB, `heap grew from ${report.heapMbBefore} to ${report.heapMbAfter} MB`);
    void failures;
  });
}
