// `npm run fuzz -- --count N [--only NAME[,NAME]] [--seed S] [--index I] [--time-limit MS] [--hang-ms MS]`:
// long fuzz campaigns on Node, one JSON line per campaign (name, inputs, crashes, hangs, max ms
// per input, heap MB before/after, inputs/s), failures as replayable lines on stderr. Exits 1
// when any campaign crashed or hung. `--index I` replays one input (count 1 from index I) and
// prints it on stderr.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CAMPAIGNS, DEFAULT_SEED } from './campaigns';
import { makeRng } from '../support/arbitrary';
import { failureLines, inputSeed, runCampaign } from './engine';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

function heapBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const numeric = (name: string, fallback: number): number => {
  const text = option(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`--${name} ${text}: not a number`);
    process.exit(2);
  }
  return value;
};

const only = option('only')?.split(',');
const unknown = only?.filter((name) => !CAMPAIGNS.some((campaign) => campaign.name === name));
if (unknown && unknown.length > 0) {
  console.error(`unknown campaign ${unknown.join(', ')}; campaigns: ${CAMPAIGNS.map((campaign) => campaign.name).join(', ')}`);
  process.exit(2);
}
const index = option('index');
const seed = numeric('seed', DEFAULT_SEED);
const count = index !== undefined ? 1 : numeric('count', 10_000);
let failed = false;
for (const campaign of CAMPAIGNS) {
  if (only && !only.includes(campaign.name)) continue;
  const report = runCampaign(campaign, {
    seed,
    count,
    start: index !== undefined ? numeric('index', 0) : 0,
    timeLimitMs: option('time-limit') === undefined ? undefined : numeric('time-limit', 0),
    hangMs: numeric('hang-ms', 1000),
    clock: () => performance.now(),
    heapBytes,
  });
  if (index !== undefined) {
    // Replaying one input: show it, bytes as Latin-1 text, to turn it into a unit test.
    const input = campaign.generate(makeRng(inputSeed(seed, numeric('index', 0))));
    const shown = JSON.stringify(input, (_, value) => (value instanceof Uint8Array ? `bytes(${value.length}) ${String.fromCharCode(...value.subarray(0, 4096))}` : value), 1);
    console.error(`input ${index} of ${campaign.name} (seed ${seed}):\n${shown}`);
  }
  const { failures, ...figures } = report;
  console.log(JSON.stringify(figures));
  for (const line of failureLines(report)) console.error(line);
  if (report.crashes > 0 || report.hangs > 0) failed = true;
  void failures;
}
process.exit(failed ? 1 : 0);
