// Periodic XS heap figures in the log (config `memoryReportSeconds`), from the SDK's
// `instrumentation` module, after a full garbage collection so the figures are what is live. The
// heaps' figures also carry their peak so far among the reports: XS's own peaks count garbage not
// yet collected (on a fixed heap they reach its size before every collection), so a board's proof
// reads how much stays live at most (scripts/moddable-build.mjs --board-sizes).

import Debug from 'debug';
import Instrumentation from 'instrumentation';
import Timer from 'timer';
import type { Logger } from '../../src/platform';

/** The figures reported, and whether each one's peak is kept. */
const FIGURES = [
  { name: 'XS Slot Heap Used', peak: true },
  { name: 'XS Chunk Heap Used', peak: true },
  { name: 'XS Keys Used', peak: false },
  { name: 'Network Sockets', peak: false },
  { name: 'Timers', peak: false },
] as const;

/** Logs the figures now and every `seconds` seconds. */
export function reportMemory(seconds: number, log: Logger, describe: () => string): void {
  const indexes = FIGURES.map(({ name }) => Instrumentation.map(name));
  const peaks = FIGURES.map(() => 0);
  const report = (): void => {
    Debug.gc();
    const values = FIGURES.map(({ name, peak }, i) => {
      const label = name.replace(/^XS /, '').toLowerCase();
      if (indexes[i] === undefined) return `${label} ?`;
      const value = Number(Instrumentation.get(indexes[i]));
      if (!peak) return `${label} ${value}`;
      peaks[i] = Math.max(peaks[i], value);
      return `${label} ${value} (peak ${peaks[i]})`;
    });
    log('info', `memory: ${values.join(', ')}; ${describe()}`);
  };
  report();
  Timer.repeat(report, seconds * 1000);
}
