// Benchmark helpers: timed loops, repetitions summarised as min/median/max, ratios with their
// spread, and one JSON line per figure on stdout (machine-readable).

export interface Figure {
  bench: string;
  [field: string]: string | number | boolean;
}

/** Prints one figure as a JSON line. */
export function report(figure: Figure): void {
  console.log(JSON.stringify(figure));
}

/** Operations per second of `fn`, measured for about `ms` milliseconds after a warm-up. */
export function opsPerSecond(fn: () => unknown, ms = 300): number {
  const warmUntil = performance.now() + ms / 4;
  while (performance.now() < warmUntil) fn();
  let count = 0;
  const start = performance.now();
  let now = start;
  // Check the clock every few calls only: the clock read is not free for fast functions.
  while (now - start < ms) {
    for (let i = 0; i < 16; i++) fn();
    count += 16;
    now = performance.now();
  }
  return (count * 1000) / (now - start);
}

/**
 * Compares implementations on one task in the same run: rounds alternate between them so drift
 * in machine speed affects each alike. Returns every round's operations per second, per name,
 * in round order (round i of each name ran back to back: ratios pair them).
 */
export function compare(fns: Record<string, () => unknown>, rounds = 5, ms = 200): Record<string, number[]> {
  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(fns)) samples[name] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(fns)) samples[name].push(opsPerSecond(fn, ms));
  }
  return samples;
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** Min, median and max of repetitions (the median of an even count is the upper middle). */
export function spread(values: readonly number[], digits = 3): Spread {
  if (values.length === 0) throw new Error('spread of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return { min: round(sorted[0], digits), median: round(sorted[Math.floor(sorted.length / 2)], digits), max: round(sorted[sorted.length - 1], digits) };
}

/**
 * A ratio figure: the ratio of the medians (`ratio`), and the spread of the per-round ratios
 * ours[i] / theirs[i] (rounds ran back to back, so each pair saw the same machine).
 */
export function ratioFigure(ours: readonly number[], theirs: readonly number[]): { ratio: number; ratioMin: number; ratioMedian: number; ratioMax: number; rounds: number } {
  if (ours.length !== theirs.length) throw new Error(`ratio of ${ours.length} and ${theirs.length} rounds`);
  const perRound = spread(ours.map((value, i) => value / theirs[i]));
  return { ratio: round(spread(ours, 12).median / spread(theirs, 12).median), ratioMin: perRound.min, ratioMedian: perRound.median, ratioMax: perRound.max, rounds: ours.length };
}

/** `values` as { [prefix]Min, [prefix]Median, [prefix]Max } fields of a figure. */
export function spreadFields(prefix: string, values: readonly number[], digits = 3): Record<string, number> {
  const { min, median, max } = spread(values, digits);
  return { [`${prefix}Min`]: min, [`${prefix}Median`]: median, [`${prefix}Max`]: max };
}

export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Throws naming `what` unless `condition` holds: a bench that measured wrong work must not print. */
export function verify(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`bench output check failed: ${what}`);
}
