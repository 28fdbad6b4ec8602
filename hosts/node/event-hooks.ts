// `--on-event COMMAND`: runs a person's command on each receiver event (src/receiver/host-events.ts),
// through `/bin/sh -c`, with the event in environment variables (VENDORPLAY_SEQUENCE numbers
// them, since hooks run side by side and may finish in any order). Never in the receiver's way: the
// command is spawned after the receiver's turn (setImmediate: the answer that caused the event is
// written first), never waited for, at most MAX_RUNNING at once (more are dropped, counted in one
// log line per interval), killed with its process group after TIMEOUT_MS; what it prints goes to
// the log at debug.

import { spawn, type ChildProcess } from 'node:child_process';
import { CountedLog } from '../../src/counted-log';
import type { Logger } from '../../src/platform';
import type { ReceiverEvent } from '../../src/receiver/host-events';

/** At most this many hooks run at once: a burst of events (a slideshow, a flood of photos) cannot fork-bomb the host. */
export const MAX_RUNNING_HOOKS = 4;
/** A hook still running after this long is killed (with whatever it started). */
export const HOOK_TIMEOUT_MS = 30_000;
/** At most one log line about dropped events per this many milliseconds. */
const DROPPED_LOG_INTERVAL_MS = 10_000;
/** A line a hook prints is cut to this many characters in the log. */
const MAX_OUTPUT_LINE = 300;

/** The prefix of every variable a hook gets. */
const PREFIX = 'VENDORPLAY_';

/**
 * The environment a hook gets for `event`, beside the receiver's own: VENDORPLAY_EVENT, _NAME (the
 * receiver's name), _SENDER (address) and _DEVICE_ID where known, and each detail of the event
 * as VENDORPLAY_<DETAIL> (`sender-name` as VENDORPLAY_SENDER_NAME).
 */
export function hookEnvironment(event: ReceiverEvent, receiverName: string): Record<string, string> {
  const env: Record<string, string> = { [`${PREFIX}EVENT`]: event.name, [`${PREFIX}NAME`]: receiverName };
  if (event.sender !== undefined) env[`${PREFIX}SENDER`] = event.sender;
  if (event.deviceId !== undefined) env[`${PREFIX}DEVICE_ID`] = event.deviceId;
  for (const [key, value] of Object.entries(event.details)) env[`${PREFIX}${key.toUpperCase().replace(/-/g, '_')}`] = value;
  return env;
}

export interface EventHooksOptions {
  /** The shell command (`/bin/sh -c COMMAND`). */
  readonly command: string;
  readonly receiverName: string;
  readonly log: Logger;
  readonly maxRunning?: number;
  readonly timeoutMs?: number;
}

export class EventHooks {
  private readonly running = new Set<ChildProcess>();
  /** Spawns asked for and not yet started (they count against the limit). */
  private waiting = 0;
  private readonly dropped = new CountedLog(DROPPED_LOG_INTERVAL_MS);
  private stopped = false;
  /** Events run so far: each hook gets its number (VENDORPLAY_SEQUENCE), as hooks run side by side. */
  private sequence = 0;

  constructor(private readonly options: EventHooksOptions) {}

  /** Runs the command for `event`, after the receiver's turn; dropped when MAX_RUNNING are running. */
  run(event: ReceiverEvent): void {
    const { log } = this.options;
    const max = this.options.maxRunning ?? MAX_RUNNING_HOOKS;
    if (this.stopped) return;
    if (this.running.size + this.waiting >= max) {
      const count = this.dropped.note(performance.now());
      if (count > 0) log('warn', `--on-event: ${count === 1 ? `event ${event.name} dropped` : `${count} events dropped in the last ${DROPPED_LOG_INTERVAL_MS / 1000} s, the last ${event.name}`}: ${max} hooks are still running`);
      return;
    }
    this.waiting++;
    const sequence = ++this.sequence;
    setImmediate(() => {
      this.waiting--;
      if (!this.stopped) this.start(event, sequence);
    });
  }

  /** Hooks running now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Kills the hooks still running (the receiver stops). */
  stop(): void {
    this.stopped = true;
    for (const child of this.running) killGroup(child);
  }

  private start(event: ReceiverEvent, sequence: number): void {
    const { command, receiverName, log } = this.options;
    const timeoutMs = this.options.timeoutMs ?? HOOK_TIMEOUT_MS;
    const label = `--on-event ${event.name}`;
    let child: ChildProcess;
    try {
      // detached: its own process group, so a timeout kills what the command started too.
      child = spawn('/bin/sh', ['-c', command], { env: { ...process.env, ...hookEnvironment(event, receiverName), [`${PREFIX}SEQUENCE`]: String(sequence) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (error) {
      log('warn', `${label}: cannot start /bin/sh: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.running.add(child);
    const timer = setTimeout(() => {
      log('warn', `${label}: still running after ${timeoutMs} ms: killed`);
      killGroup(child);
    }, timeoutMs);
    timer.unref();
    const output = (stream: NodeJS.ReadableStream | null, name: string) => {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        // Only what a log line shows is kept of a line still open: a hook that prints without
        // newlines must not grow the receiver.
        partial = (lines.pop() ?? '').slice(0, MAX_OUTPUT_LINE);
        for (const line of lines) log('debug', `${label} ${name}: ${line.slice(0, MAX_OUTPUT_LINE)}`);
      });
      stream?.on('end', () => {
        if (partial) log('debug', `${label} ${name}: ${partial.slice(0, MAX_OUTPUT_LINE)}`);
      });
    };
    output(child.stdout, 'stdout');
    output(child.stderr, 'stderr');
    child.on('error', (error) => log('warn', `${label}: ${error.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      this.running.delete(child);
      if (code === 0) log('debug', `${label}: done`);
      else log('info', `${label}: ${signal ? `ended by ${signal}` : `exit status ${code}`}`);
    });
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}
