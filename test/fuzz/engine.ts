// The fuzzing engine: runs a campaign's inputs, each drawn from its own seeded generator, and
// records what went wrong. Portable (runs in the XS suite too): ECMAScript only; a host gives the
// clock and the heap reading.
//
// A campaign generates one input from a PRNG seeded with (campaign seed, index), so any failing
// input is rebuilt from those two numbers alone (`npm run fuzz -- --only NAME --seed S --index I`).
// An input fails as
//   crash  an exception that is not the module's own error type for bad input (or a broken
//          invariant: FuzzFailure), named with the seed and index;
//   hang   a single input that took longer than `hangMs`.

import { makeRng, type Rng } from '../support/arbitrary';

/** A broken invariant (wrong output, unbounded growth): always a crash, never an expected error. */
export class FuzzFailure extends Error {
  override name = 'FuzzFailure';
}

export interface Campaign<I = unknown> {
  /** Short name, used by --only and in the JSON line. */
  readonly name: string;
  /** What the module throws by design for bad input (PlistError, PairingError...). */
  expected(error: unknown): boolean;
  /** One input from `rng` (valid shapes, then mutations). */
  generate(rng: Rng): I;
  /** Feeds the input and checks the invariants; throws FuzzFailure when one breaks. */
  check(input: I, rng: Rng): void;
  /** Called once before the first input and after the last (per-run state, leak checks). */
  setUp?(): void;
  tearDown?(): void;
}

export interface CampaignOptions {
  seed: number;
  count: number;
  /**
   * Stop early after this long (inputs run so far are reported); none when absent. For long runs
   * by hand (`npm run fuzz -- --time-limit MS`): a test runs its whole count, so what it finds
   * does not depend on how busy the machine is.
   */
  timeLimitMs?: number;
  /** One input over this is a hang. */
  hangMs: number;
  /** First index (to replay one input: index I, count 1). */
  start?: number;
  /** Milliseconds, as precise as the host has. */
  clock?: () => number;
  /** Heap in use, in bytes, after a collection where the host can force one. */
  heapBytes?: () => number;
  /** Failures kept in the report (the counts go on). */
  keep?: number;
}

export interface Failure {
  readonly kind: 'crash' | 'hang';
  readonly seed: number;
  readonly index: number;
  readonly message: string;
}

export interface CampaignReport {
  readonly name: string;
  readonly seed: number;
  readonly inputs: number;
  /** Inputs the module refused with its own error type. */
  readonly rejected: number;
  readonly crashes: number;
  readonly hangs: number;
  readonly maxMsPerInput: number;
  readonly heapMbBefore: number | null;
  readonly heapMbAfter: number | null;
  readonly elapsedMs: number;
  readonly inputsPerSecond: number;
  readonly failures: readonly Failure[];
}

/** The PRNG seed of input `index` of a campaign seeded `seed` (a 32-bit mix: nearby indexes differ). */
export function inputSeed(seed: number, index: number): number {
  let h = Math.imul((seed ^ 0x9e3779b9) >>> 0, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const where = error.stack ? error.stack.split('\n').slice(1, 4).map((line) => line.trim()).join(' | ') : '';
    return `${error.name}: ${error.message}${where ? ` (${where})` : ''}`;
  }
  return String(error);
}

const round = (value: number, places: number): number => Math.round(value * 10 ** places) / 10 ** places;

export function runCampaign<I>(campaign: Campaign<I>, options: CampaignOptions): CampaignReport {
  const clock = options.clock ?? (() => Date.now());
  const keep = options.keep ?? 10;
  const timeLimitMs = options.timeLimitMs ?? Infinity;
  const start = options.start ?? 0;
  const failures: Failure[] = [];
  let crashes = 0;
  let hangs = 0;
  let rejected = 0;
  let maxMs = 0;
  let inputs = 0;
  const heapBefore = options.heapBytes ? options.heapBytes() : null;
  const began = clock();
  campaign.setUp?.();
  const fail = (kind: Failure['kind'], index: number, message: string): void => {
    if (failures.length < keep) failures.push({ kind, seed: options.seed, index, message });
  };
  for (let index = start; index < start + options.count; index++) {
    if (inputs > 0 && (inputs & 15) === 0 && clock() - began > timeLimitMs) break;
    const rng: Rng = makeRng(inputSeed(options.seed, index));
    const t0 = clock();
    try {
      campaign.check(campaign.generate(rng), rng);
    } catch (error) {
      if (!(error instanceof FuzzFailure) && campaign.expected(error)) rejected++;
      else {
        crashes++;
        fail('crash', index, describe(error));
      }
    }
    const ms = clock() - t0;
    inputs++;
    if (ms > maxMs) maxMs = ms;
    if (ms > options.hangMs) {
      hangs++;
      fail('hang', index, `took ${round(ms, 1)} ms (limit ${options.hangMs} ms)`);
    }
  }
  try {
    campaign.tearDown?.();
  } catch (error) {
    crashes++;
    fail('crash', start + inputs, `after the last input: ${describe(error)}`);
  }
  const elapsedMs = clock() - began;
  const heapAfter = options.heapBytes ? options.heapBytes() : null;
  const mb = (bytes: number | null): number | null => (bytes === null ? null : round(bytes / (1024 * 1024), 1));
  return {
    name: campaign.name,
    seed: options.seed,
    inputs,
    rejected,
    crashes,
    hangs,
    maxMsPerInput: round(maxMs, 2),
    heapMbBefore: mb(heapBefore),
    heapMbAfter: mb(heapAfter),
    elapsedMs: Math.round(elapsedMs),
    inputsPerSecond: elapsedMs > 0 ? Math.round((inputs * 1000) / elapsedMs) : inputs,
    failures,
  };
}

/** The failures of a report as lines a person can replay. */
export function failureLines(report: CampaignReport): string[] {
  return report.failures.map(
    (failure) => `${report.name} ${failure.kind} at seed ${failure.seed} index ${failure.index} (npm run fuzz -- --only ${report.name} --seed ${failure.seed} --index ${failure.index}): ${failure.message}`,
  );
}
