// A few inputs of every fuzz campaign (test/fuzz), so the XS suite runs them too, and the engine's
// own contract: crashes, expected errors and hangs are told apart and named by seed and index.
// Portable (runs in the XS suite too).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAMPAIGNS, DEFAULT_SEED } from '../fuzz/campaigns';
import { failureLines, FuzzFailure, inputSeed, runCampaign, type Campaign } from '../fuzz/engine';
import { mutate, randomSplit } from '../fuzz/mutate';
import { makeRng } from '../support/arbitrary';

class OwnError extends Error {}

test('the fuzz engine tells crashes, expected errors and hangs apart, naming seed and index', () => {
  let time = 0;
  const campaign: Campaign<number> = {
    name: 'engine-check',
    expected: (error) => error instanceof OwnError,
    generate: (rng) => rng.int(0, 3),
    check(input) {
      time += input === 3 ? 50 : 1; // input 3 is slow
      if (input === 0) throw new OwnError('refused');
      if (input === 1) throw new TypeError('crashed');
      if (input === 2) throw new FuzzFailure('invariant broken');
    },
  };
  const report = runCampaign(campaign, { seed: 9, count: 200, hangMs: 10, clock: () => time, keep: 1000 });
  const byKind = (kind: string, index: number) => report.failures.some((failure) => failure.kind === kind && failure.index === index);
  let rejected = 0;
  let crashes = 0;
  let hangs = 0;
  for (let index = 0; index < 200; index++) {
    const input = makeRng(inputSeed(9, index)).int(0, 3);
    if (input === 0) rejected++;
    if (input === 1 || input === 2) {
      crashes++;
      assert.ok(byKind('crash', index), `index ${index} recorded as a crash`);
    }
    if (input === 3) {
      hangs++;
      assert.ok(byKind('hang', index), `index ${index} recorded as a hang`);
    }
  }
  assert.deepEqual([report.inputs, report.rejected, report.crashes, report.hangs], [200, rejected, crashes, hangs]);
  assert.ok(rejected > 0 && crashes > 0 && hangs > 0);
  assert.match(failureLines(report)[0], /^engine-check (crash|hang) at seed 9 index \d+ \(npm run fuzz -- --only engine-check --seed 9 --index \d+\)/);
  // Replaying one index gives the same outcome as in the run.
  const first = report.failures[0];
  const replay = runCampaign(campaign, { seed: 9, count: 1, start: first.index, hangMs: 10, clock: () => time });
  assert.equal(replay.failures[0]?.kind, first.kind);
});

test('without a time limit every input of the count runs however slow; --time-limit stops a long run at a check after the limit', () => {
  let time = 0;
  const slow: Campaign<number> = { name: 'slow', expected: () => false, generate: (rng) => rng.int(0, 9), check: () => void (time += 100) };
  // 100 ms an input, 500 inputs: 50 s by this clock, and none left out.
  assert.equal(runCampaign(slow, { seed: 1, count: 500, hangMs: 1000, clock: () => time }).inputs, 500);
  // With a limit of 1 s the run checks the clock every 16 inputs and stops at the first check past it.
  time = 0;
  assert.equal(runCampaign(slow, { seed: 1, count: 500, timeLimitMs: 1000, hangMs: 1000, clock: () => time }).inputs, 16);
});

test('mutations and splits are deterministic for a seed and keep every byte when splitting', () => {
  const base = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
  const a = mutate(makeRng(5), base, { maxEdits: 8 });
  const b = mutate(makeRng(5), base, { maxEdits: 8 });
  assert.deepEqual(a, b);
  for (let seed = 0; seed < 50; seed++) {
    const pieces = randomSplit(makeRng(seed), base);
    assert.deepEqual(Uint8Array.from(pieces.flatMap((piece) => [...piece])), base);
  }
});

for (const campaign of CAMPAIGNS) {
  test(`fuzz smoke ${campaign.name}: a few inputs, no crash`, () => {
    const report = runCampaign(campaign, { seed: DEFAULT_SEED, count: 25, hangMs: 30_000 });
    assert.deepEqual(failureLines(report), []);
    assert.equal(report.inputs, 25);
  });
}
