// A Clock (src/platform.ts) whose timers all run on ONE of the SDK's timers, created once and
// rescheduled for the earliest deadline. Pure: the SDK's `Timer` is handed in (ports.ts), so the
// portable suites run it against a fake.
//
// Why not one SDK timer per setTimer: the core arms a timer for every deadline (a realtime audio
// stream arms thousands a second), and the Linux port's timers (SDK 8.2.3,
// modules/base/timer/lin/timer.c) number each new one with a 16-bit counter (`static txS2
// gTimerID`, `timer->id = ++gTimerID`) and take id 0 to mean "removed": the 65,536th timer gets
// id 0, and when it comes due modTimerExecuteOne frees it without running it and without
// forgetting its remembered host object. XS's list of remembered slots then runs through freed
// memory, the next garbage collection stops marking there, and every object remembered before it
// is collected: the listeners on 7000 and 7002 close, the memory report's timer stops, and the
// process lives on with nothing listening. One timer for the app's lifetime is never renumbered.
//
// How the SDK timer is driven, so it is right on both ports: it is a repeating timer, scheduled
// with the same first and repeat interval, never 0 (the Linux port turns a 0/0 schedule into a
// one-shot that frees itself after it fires), and unscheduled when nothing is armed. Rescheduling
// it inside its own callback is what the SDK documents; a fire that finds nothing due (a deadline
// cleared after the SDK timer was set) only reschedules.

import type { Clock, TimerHandle } from '../../src/platform';

/** What this clock needs of the SDK's `timer` module (Timer.repeat, Timer.schedule). */
export interface SdkTimer<T> {
  repeat(callback: () => void, ms: number): T;
  /** With ms: due in ms, then every ms. Without: unscheduled (kept, never fires). */
  schedule(timer: T, ms?: number): void;
}

interface Entry {
  at: number;
  /** Order among equal deadlines: the order they were set. */
  order: number;
  callback: () => void;
}

/** The SDK timer's shortest interval: 0 means something else on the Linux port (above). */
const MIN_INTERVAL_MS = 1;

export class SingleTimerClock<T> implements Clock {
  private readonly pending: Entry[] = [];
  private sdkTimer: T | undefined;
  /** The deadline the SDK timer is scheduled for (undefined: unscheduled; NaN: firing, so due again at its old interval until rescheduled). */
  private scheduledAt: number | undefined;
  private nextOrder = 0;
  private firing = false;

  constructor(
    private readonly sdk: SdkTimer<T>,
    private readonly ticks: () => number,
    private readonly wall: () => number,
  ) {}

  now(): number {
    return this.ticks();
  }

  wallTime(): number {
    return this.wall();
  }

  setTimer(ms: number, callback: () => void): TimerHandle {
    const entry: Entry = { at: this.ticks() + Math.max(0, ms || 0), order: this.nextOrder++, callback };
    this.pending.push(entry);
    if (!this.firing) this.schedule();
    return entry;
  }

  clearTimer(handle: TimerHandle): void {
    const at = this.pending.indexOf(handle as Entry);
    if (at < 0) return;
    this.pending.splice(at, 1);
    if (!this.firing) this.schedule();
  }

  /** Timers armed and not yet run (for tests and the log). */
  get armed(): number {
    return this.pending.length;
  }

  /**
   * The SDK timer fired: runs every entry due now, earliest first, equal ones in the order they
   * were set. One set by a callback runs at a later fire even when already due, so a callback that
   * re-arms at 0 ms cannot keep this fire going. A callback that throws stops the fire (as its
   * own SDK timer would have aborted); the SDK timer is rescheduled for what is left either way.
   */
  private fire(): void {
    this.firing = true;
    this.scheduledAt = Number.NaN;
    try {
      const now = this.ticks();
      const lastOrder = this.nextOrder;
      for (;;) {
        let due = -1;
        for (let i = 0; i < this.pending.length; i++) {
          const entry = this.pending[i]!;
          if (entry.at > now || entry.order >= lastOrder) continue;
          if (due < 0 || entry.at < this.pending[due]!.at || (entry.at === this.pending[due]!.at && entry.order < this.pending[due]!.order)) due = i;
        }
        if (due < 0) break;
        const [entry] = this.pending.splice(due, 1);
        entry!.callback();
      }
    } finally {
      this.firing = false;
      this.schedule();
    }
  }

  /** Points the SDK timer at the earliest deadline, or unschedules it when nothing is armed. */
  private schedule(): void {
    let next: number | undefined;
    for (const entry of this.pending) if (next === undefined || entry.at < next) next = entry.at;
    if (next === this.scheduledAt) return;
    if (next === undefined) {
      this.scheduledAt = undefined;
      if (this.sdkTimer !== undefined) this.sdk.schedule(this.sdkTimer);
      return;
    }
    const ms = Math.max(MIN_INTERVAL_MS, Math.ceil(next - this.ticks()));
    this.scheduledAt = next;
    if (this.sdkTimer === undefined) this.sdkTimer = this.sdk.repeat(() => this.fire(), ms);
    else this.sdk.schedule(this.sdkTimer, ms);
  }
}
