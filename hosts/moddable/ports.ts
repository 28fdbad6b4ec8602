// The Moddable host's ports for time and logging (src/platform.ts), on the SDK's `timer` and
// `time` modules and XS's `trace`.

import Time from 'time';
import Timer from 'timer';
import { leveledLogger, type Clock, type Logger, type LogLevel } from '../../src/platform';

/** Time.ticks: milliseconds since start, monotonic. Date.now(): the wall clock (set by SNTP on boards). */
export const moddableClock: Clock = {
  now: () => Time.ticks,
  wallTime: () => Date.now(),
  setTimer: (ms, callback) => Timer.set(() => callback(), ms),
  clearTimer: (handle) => Timer.clear(handle as Timer),
};

/** Log lines through `trace` (xsbug, the serial console, or the simulator's standard output). */
export function traceLogger(level: LogLevel): Logger {
  return leveledLogger(level, (lineLevel, message) => trace(`${lineLevel.padEnd(5)} ${message}\n`));
}
