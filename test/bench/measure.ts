// Benchmark helpers: timed loops and one JSON line per figure on stdout (machine-readable).

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
 * in machine speed affects each alike; the median of the rounds is reported.
 */
export function compare(fns: Record<string, () => unknown>, rounds = 5, ms = 200): Record<string, number> {
  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(fns)) samples[name] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(fns)) samples[name].push(opsPerSecond(fn, ms));
  }
  const medians: Record<string, number> = {};
  for (const [name, values] of Object.entries(samples)) {
    values.sort((a, b) => a - b);
    medians[name] = values[Math.floor(values.length / 2)];
  }
  return medians;
}

export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
