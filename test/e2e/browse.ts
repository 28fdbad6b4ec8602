// Browsing from the test's own network namespaces: a child process whose output is kept line by
// line with bounded waits on it, and the events test/e2e/zeroconf_browse.py (Debian's
// python-zeroconf) prints. Shared by the discovery tests.

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from './receiver-process';

/** The python-zeroconf browser the tests run (inside a namespace). */
export const BROWSE = path.join(PROJECT_ROOT, 'test/e2e/zeroconf_browse.py');
/** Debian's python, which has python3-zeroconf; `python3` on PATH may be another one. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

export type TxtPairs = [string, string | null][];

export interface BrowseEvent {
  event: 'resolved' | 'updated' | 'removed' | 'unresolved' | 'ready' | 'timeout' | 'server-info' | 'unicast-resolved' | 'unicast-unanswered';
  type?: string;
  instance?: string;
  port?: number;
  server?: string;
  addresses?: string[];
  txt?: TxtPairs;
  url?: string;
  status?: number;
  error?: string;
  plist?: Record<string, unknown>;
  missing?: string[];
  question?: string;
  source_port?: number;
  ids_echoed?: boolean;
  questions_echoed?: boolean;
  max_ttl?: number;
  cache_flush?: boolean;
  /** The reply to the PTR question alone: its size, TC bit, and records as `TYPE name`. */
  ptr_reply?: { size: number; truncated: boolean; records: string[] };
}

/** A child process whose output is kept line by line, with bounded waits on it. */
export class Child {
  readonly lines: string[] = [];
  stderr = '';
  exitCode: number | null | undefined = undefined;
  readonly exited: Promise<void>;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly label: string,
    readonly process: ChildProcess,
  ) {
    createInterface({ input: process.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.notify();
    });
    process.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      // Enough of the tail to explain a failure.
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
    this.exited = new Promise((resolve) => {
      process.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        this.notify();
        resolve();
      });
      process.on('error', (error) => {
        this.stderr += `\nspawn error: ${error.message}`;
        this.exitCode = -1;
        this.notify();
        resolve();
      });
    });
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** What went on, for assertion messages. */
  report(): string {
    return `--- ${this.label} stdout ---\n${this.lines.join('\n')}\n--- ${this.label} stderr ---\n${this.stderr}`;
  }

  /** The first value `find` returns for the lines so far or to come, within `ms`. */
  waitFor<T>(what: string, ms: number, find: (lines: readonly string[]) => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        let found: T | undefined;
        try {
          found = find(this.lines);
        } catch (error) {
          finish();
          reject(error);
          return true;
        }
        if (found !== undefined) {
          finish();
          resolve(found);
          return true;
        }
        if (this.exitCode !== undefined) {
          finish();
          reject(new Error(`${this.label} exited (${this.exitCode}) before ${what}\n${this.report()}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no ${what} within ${ms} ms\n${this.report()}`));
      }, ms);
      const listener = (): void => void check();
      const finish = (): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
      check();
    });
  }

  /** Ends the process: `signal`, then SIGKILL if it is still there after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 3000): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.process.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    if ((await Promise.race([this.exited, late])) === 'late') {
      this.process.kill('SIGKILL');
      await this.exited;
    }
    clearTimeout(timer);
  }
}

export function spawnChild(label: string, argv: { command: string; args: string[] }): Child {
  return new Child(label, spawn(argv.command, argv.args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
}

export function browseEvents(lines: readonly string[]): BrowseEvent[] {
  return lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as BrowseEvent);
}

export function txtValue(txt: TxtPairs, key: string): string | null | undefined {
  return txt.find(([name]) => name === key)?.[1];
}
