// Periodic XS heap figures in the log (config `memoryReportSeconds`), from the SDK's
// `instrumentation` module, after a full garbage collection so the figures are what is live.

import Debug from 'debug';
import Instrumentation from 'instrumentation';
import Timer from 'timer';
import type { Logger } from '../../src/platform';

const FIGURES = ['XS Slot Heap Used', 'XS Chunk Heap Used', 'XS Keys Used', 'Network Sockets', 'Timers'] as const;

/** Logs the figures now and every `seconds` seconds. */
export function reportMemory(seconds: number, log: Logger, describe: () => string): void {
  const indexes = FIGURES.map((name) => Instrumentation.map(name));
  const report = (): void => {
    Debug.gc();
    const values = FIGURES.map((name, i) => `${name.replace(/^XS /, '').toLowerCase()} ${indexes[i] === undefined ? '?' : Instrumentation.get(indexes[i])}`);
    log('info', `memory: ${values.join(', ')}; ${describe()}`);
  };
  report();
  Timer.repeat(report, seconds * 1000);
}
