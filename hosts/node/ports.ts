// The Node host's ports for time, randomness, logging and storage (src/platform.ts).

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import path from 'node:path';
import { LOG_LEVELS, type Clock, type Logger, type LogLevel, type RandomSource, type Store } from '../../src/platform';

export const nodeClock: Clock = {
  now: () => performance.now(),
  wallTime: () => Date.now(),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    // A pending idle timer must not keep the process alive on shutdown.
    timer.unref();
    return timer;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const nodeRandom: RandomSource = (length) => new Uint8Array(randomBytes(length));

/** Log lines on stderr at or above `level`: `2026-11-21T23:50:00.000Z info  message`. */
export function consoleLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  return (lineLevel, message) => {
    if (LOG_LEVELS.indexOf(lineLevel) > threshold) return;
    write(`${new Date().toISOString()} ${lineLevel.padEnd(5)} ${message}`);
  };
}

/** Keys become file names; anything outside a safe set is hex-escaped so no key leaves the directory. */
function fileName(key: string): string {
  return key.replace(/[^A-Za-z0-9._-]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).replace(/^\./, '%2e');
}

/**
 * Records as files in `directory`. A write goes to a temporary file that is flushed and then
 * renamed over the old one, so a crash leaves the old record or the new one, never half of one.
 */
export function fileStore(directory: string): Store {
  mkdirSync(directory, { recursive: true });
  return {
    get(key) {
      try {
        return new Uint8Array(readFileSync(path.join(directory, fileName(key))));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    put(key, value) {
      const target = path.join(directory, fileName(key));
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, value);
      const fd = openSync(temporary, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, target);
    },
    delete(key) {
      rmSync(path.join(directory, fileName(key)), { force: true });
    },
  };
}
