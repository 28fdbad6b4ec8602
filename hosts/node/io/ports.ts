// The Node host's ports for time, randomness, logging and storage (src/platform.ts).

import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { nodeBodyArrays } from './body-arrays';
import { clipMessage, formatLogLine, type LogFormat } from './log-lines';
import type { ByteAllocator } from '../../../src/http';
import { leveledLogger, type Clock, type Logger, type LogLevel, type RandomSource, type Store } from '../../../src/platform';

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

/** The receiver's arrays for request bodies (ReceiverPorts.allocateBytes): not zero-filled (body-arrays.ts). */
export const nodeAllocateBytes: ByteAllocator = nodeBodyArrays.allocate;

/** Gives back a body array the receiver let go of (ReceiverPorts.freeBytes; body-arrays.ts says why). */
export const nodeFreeBytes: (bytes: Uint8Array) => void = nodeBodyArrays.free;

/**
 * Log lines on stderr at or above `level`: `2026-11-21T23:50:00.000Z info  message`, or JSON
 * objects (log-lines.ts says the shape, and what is cut below debug).
 */
export function consoleLogger(level: LogLevel, format: LogFormat = 'text', write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Logger {
  return leveledLogger(level, (lineLevel, message) => write(formatLogLine(format, new Date(), lineLevel, clipMessage(message, level))));
}

/**
 * The start-up lines (where it listens, its profile, what it advertises) on stdout, in the log's
 * shape at info whatever the level: they are what the command says it does, and tools read them.
 */
export function startupPrinter(level: LogLevel, format: LogFormat = 'text', write: (line: string) => void = (line) => process.stdout.write(line + '\n')): (message: string) => void {
  return (message) => write(formatLogLine(format, new Date(), 'info', clipMessage(message, level)));
}

/** Where the receiver keeps its identity and pairings unless --data-dir says otherwise. */
export function defaultDataDir(): string {
  return path.join(process.env.XDG_DATA_HOME ?? path.join(homedir(), '.local', 'share'), 'vendorplay-receiver');
}

/** What a failed file-system call means to a person: `read-only file system (EROFS)`. */
export function fsCause(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const causes: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOTDIR: 'a part of the path is a file, not a directory',
    EISDIR: 'it is a directory, not a file',
    EEXIST: 'it exists and is not a directory',
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EIO: 'input/output error',
  };
  return code && causes[code] ? `${causes[code]} (${code})` : (error as Error).message;
}

/** A record of the file store could not be read or written; the message names file and cause. */
export class StoreFileError extends Error {
  override name = 'StoreFileError';
}

/**
 * The data directory holds the receiver's secret key (src/receiver/identity.ts): a directory the
 * receiver makes is its user's alone, and so is every record it writes.
 */
const DATA_DIR_MODE = 0o700;
const RECORD_MODE = 0o600;

/**
 * Makes the data directory, mode DATA_DIR_MODE, and any missing parents (with the usual mode:
 * `~/.local/share` is not ours to close). A directory that exists is left as it is, its mode
 * too: it is the person's. Throws the file-system error (ENOTDIR, EACCES, ...) otherwise.
 */
export function makeDataDir(directory: string): void {
  const make = (): boolean => {
    try {
      mkdirSync(directory, { mode: DATA_DIR_MODE });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return false;
      if (code !== 'EEXIST') throw error;
    }
    return true;
  };
  if (make()) return;
  mkdirSync(path.dirname(directory), { recursive: true });
  if (!make()) throw Object.assign(new Error(`${directory}: no such file or directory`), { code: 'ENOENT' });
}

/**
 * The records of `keys` in `directory` that users other than the owner may read (group or other
 * bits set), with their mode: files written 0644 by versions before records were 0600, or
 * opened up by hand. Said at start; the receiver does not change them behind the person's back
 * (a record written again is 0600).
 */
export function recordsOthersCanRead(directory: string, keys: readonly string[]): { file: string; mode: number }[] {
  const found: { file: string; mode: number }[] = [];
  for (const key of keys) {
    const file = path.join(directory, fileName(key));
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue; // absent (or unreadable: the store says so when it reads it)
    }
    if (mode & 0o077) found.push({ file, mode });
  }
  return found;
}

/** Keys become file names; anything outside a safe set is hex-escaped so no key leaves the directory. */
function fileName(key: string): string {
  return key.replace(/[^A-Za-z0-9._-]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).replace(/^\./, '%2e');
}

/** A temporary file of a write: `<key>.<pid>.tmp`. */
const TEMPORARY = /\.(\d+)\.tmp$/;

/** Whether process `pid` exists (signal 0 checks without sending anything). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files writes left behind when their process died mid-write (kill -9, a
 * power cut): those of processes that no longer run, and this process's own (an earlier one
 * with the same pid). Those of a live process are another receiver's write in progress.
 */
function removeStaleTemporaries(directory: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(directory)) {
    const match = TEMPORARY.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid !== process.pid && processExists(pid)) continue;
    rmSync(path.join(directory, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Flushes `directory`'s entries (a rename in it) to the disk. Where the file system cannot (some
 * refuse fsync on a directory; Windows opens none), the record is written all the same: the
 * rename is as durable as that file system makes it.
 */
function syncDirectory(directory: string): void {
  let fd: number;
  try {
    fd = openSync(directory, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // As above.
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `file` holds exactly `value` and mode RECORD_MODE (a record of other bytes, another
 * mode, or none is written).
 */
function holds(file: string, value: Uint8Array): boolean {
  try {
    if ((statSync(file).mode & 0o777) !== RECORD_MODE) return false;
    const stored = readFileSync(file);
    return stored.length === value.length && stored.equals(value);
  } catch {
    return false;
  }
}

/**
 * Records as files in `directory`. A write goes to a temporary file that is flushed (fsync; not
 * for putUnflushed) and then renamed over the old one, so a crash leaves the old record or the new
 * one, never half of one; a write of the bytes a record holds is skipped.
 * A write that fails (a full or read-only disk) removes its temporary file and throws; stale
 * temporary files of dead processes are removed when the store is opened.
 */
export function fileStore(directory: string): Store {
  const fail = (action: string, file: string, error: unknown): never => {
    throw new StoreFileError(`cannot ${action} ${file}: ${fsCause(error)}`);
  };
  try {
    makeDataDir(directory);
    removeStaleTemporaries(directory);
  } catch (error) {
    fail('use the data directory', directory, error);
  }
  /**
   * Writes `value` as the record `key` through a temporary file renamed over the old record,
   * flushed to the disk first when `flush` (so a crash right after keeps it). A record that
   * already holds these bytes is not written again (read from the disk, not remembered: the
   * `pairings` command changes records under a running receiver).
   */
  const writeRecord = (key: string, value: Uint8Array, flush: boolean): void => {
    const target = path.join(directory, fileName(key));
    if (holds(target, value)) return;
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      // RECORD_MODE whatever the umask, and whatever an earlier temporary file had: the
      // rename gives the record this file's mode, so a record written 0644 once is 0600 now.
      const fd = openSync(temporary, 'w', RECORD_MODE);
      try {
        fchmodSync(fd, RECORD_MODE);
        writeFileSync(fd, value);
        if (flush) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, target);
      // The rename is an entry of the directory: flushed with it, a power cut right after keeps
      // the new record, not the old one.
      if (flush) syncDirectory(directory);
    } catch (error) {
      // A full disk leaves a 0-byte temporary file otherwise. On a read-only
      // disk there is none to remove; the write's own error is the one to report.
      try {
        rmSync(temporary, { force: true });
      } catch {
        // Left for removeStaleTemporaries at the next start.
      }
      fail('write', target, error);
    }
  };
  return {
    get(key) {
      const file = path.join(directory, fileName(key));
      try {
        return new Uint8Array(readFileSync(file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        return fail('read', file, error);
      }
    },
    put(key, value) {
      writeRecord(key, value, true);
    },
    // The group id changes with every photo and every stop: a flush each time was one fsync on
    // the event loop per request (about 300 a second on demand, slower on a board's flash).
    putUnflushed(key, value) {
      writeRecord(key, value, false);
    },
    delete(key) {
      const file = path.join(directory, fileName(key));
      try {
        rmSync(file, { force: true });
      } catch (error) {
        fail('delete', file, error);
      }
    },
  };
}
