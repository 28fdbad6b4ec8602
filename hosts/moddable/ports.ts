// The Moddable host's ports for time and logging (src/platform.ts), on the SDK's `timer` and
// `time` modules and XS's `trace`.

import Time from 'time';
import Timer from 'timer';
import { leveledLogger, type Clock, type Logger, type LogLevel } from '../../src/platform';
import { SingleTimerClock } from './single-timer-clock';

/**
 * Time.ticks: milliseconds since start, monotonic. Date.now(): the wall clock (set by SNTP on
 * boards). Every timer the core sets runs on one SDK timer (single-timer-clock.ts says why: the
 * Linux port's timers break after 65,535 of them).
 */
export const moddableClock: Clock = new SingleTimerClock<Timer>(
  {
    repeat: (callback, ms) => Timer.repeat(() => callback(), ms),
    schedule: (timer, ms) => (ms === undefined ? Timer.schedule(timer) : Timer.schedule(timer, ms, ms)),
  },
  () => Time.ticks,
  () => Date.now(),
);

/** Log lines through `trace` (xsbug, the serial console, or the simulator's standard output). */
export function traceLogger(level: LogLevel): Logger {
  return leveledLogger(level, (lineLevel, message) => trace(`${lineLevel.padEnd(5)} ${message}\n`));
}
