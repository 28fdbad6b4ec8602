// The short fuzz run of `npm test`: every campaign with its fixed seed and a fixed count of inputs
// (under a second each on a quiet machine; all together about 10 s of one core). The same inputs
// run however busy the machine is, so a run finds the same things on a laptop and on a loaded CI
// machine; there is no time budget that a slow machine would cut short. Long runs:
// `npm run fuzz -- --count N`.

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

/**
 * Inputs per campaign: half a second to a second of one core each on a quiet machine (measured
 * by `npm run fuzz -- --count N`, which prints inputs per second). A campaign not named here fails
 * its test, so a new one gets a count chosen for it.
 */
const COUNTS: Readonly<Record<string, number>> = {
  'http-request-parser': 2000,
  'http-response-parser': 3000,
  'http-assembler': 2000,
  'plist-xml': 1500,
  'plist-binary': 6000,
  'plist-parameters': 6000,
  tlv8: 5000,
  'channel-open': 3000,
  jpeg: 10_000,
  'slideshow-asset-reply': 4000,
  'mdns-unicast': 5000,
  'mdns-responder': 1000,
  'receiver-connection': 1500,
  admission: 3000,
  'pairing-crowd': 1500,
  'session-setup': 5000,
  'pairing-lock': 8000,
  'mirror-avcc': 10_000,
  'mirror-stream-request': 8000,
  'mirror-packets': 4000,
  'mirror-session': 500,
  'audio-rtp-packets': 20_000,
  'audio-sdp': 10_000,
  'audio-transport-header': 10_000,
  'audio-stream': 1000,
};
/**
 * One input taking longer than this is a hang (a parser gone quadratic, a loop that does not end
 * soon). A failure bound, far above the slowest input of a quiet run (tens of ms) times any load.
 */
const HANG_MS = 10_000;
/** Growth of the heap over one campaign that counts as unbounded. */
const HEAP_GROWTH_MB = 32;

for (const campaign of CAMPAIGNS) {
  test(`fuzz ${campaign.name}: no crash, no hang, bounded heap (seed ${DEFAULT_SEED})`, () => {
    const count = COUNTS[campaign.name];
    assert.ok(count, `no count for campaign ${campaign.name} in COUNTS`);
    const report = runCampaign(campaign, {
      seed: DEFAULT_SEED,
      count,
      hangMs: HANG_MS,
      clock: () => performance.now(),
      heapBytes,
    });
    const { failures, ...figures } = report;
    console.log(JSON.stringify(figures));
    assert.equal(report.inputs, count, 'every input ran');
    assert.deepEqual(failureLines(report), [], `${report.crashes} crashes, ${report.hangs} hangs`);
    assert.equal(report.crashes + report.hangs, 0);
    assert.ok((report.heapMbAfter ?? 0) - (report.heapMbBefore ?? 0) < HEAP_GROWTH_MB, `heap grew from ${report.heapMbBefore} to ${report.heapMbAfter} MB`);
    void failures;
  });
}
