// The receiver's deadlines in one table (DESIGN 6, quinn-proto's TimerTable): features set named
// deadlines with what to do then; the receiver is polled for the earliest (pollTimeout) and told
// when time has passed (handleTimeout), so a host arms ONE timer for all of them (TimerDriver),
// the same way a ConnectionDriver arms one for a connection. No feature touches a host timer.
//
//   feature: timers.set('slideshowSlide', now + duration, show next)  /  timers.cancel(name)
//   host:    receiver.pollTimeout() -> one timer -> receiver.handleTimeout(now)

import type { Clock, TimerHandle } from '../platform';

/**
 * The receiver's named deadlines, one row each; at most one of each is armed. Deadlines that fall
 * due at the same time run in this order (as quinn-proto runs its timers in enum order).
 */
export const RECEIVER_TIMERS = [
  /** POST /pair-pin-start: the PIN leaves the screen (limits.pairingTimeoutMs). */
  'pairingPin',
  /** The slideshow's sender has kept no slideshow connection open for SENDER_GONE_MS. */
  'slideshowGone',
  /** The slideshow's pause after a bad reply is over: fetch again. */
  'slideshowRetry',
  /** The slide shown has had its slideDuration. */
  'slideshowSlide',
  /** The video has not been taken by a player, or not become ready, in limits.videoLoadTimeoutMs. */
  'videoLoad',
  /** The video reaches its forward or reverse end time. */
  'videoEnd',
  /** A sender's session has had no request for limits.sessionTimeoutMs (the earliest of all sessions). */
  'sessionTimeout',
  /** A session's timing client asks the sender's clock again (the earliest of all sessions). */
  'sessionTiming',
  /** The playing audio stream's next deadline: frames due to the sink, a retransmit request, a gap to fill. */
  'audioPlayout',
  /** Records kept for the next start (the group id) are written, at most once per STORE_WRITE_DELAY_MS. */
  'storeWrite',
] as const;

type ReceiverTimer = (typeof RECEIVER_TIMERS)[number];

/** What a feature sees of the table: its own named deadlines, in monotonic milliseconds. */
export interface Deadlines<Name extends string = ReceiverTimer> {
  /** Arms `name` for `at`, replacing what it was armed for; `action` runs once it is due. */
  set(name: Name, at: number, action: () => void): void;
  /** Disarms `name`; returns whether it was armed. */
  cancel(name: Name): boolean;
  /** When `name` is due, if it is armed. */
  deadline(name: Name): number | undefined;
}

/** Something with deadlines in the quinn-proto shape: polled for the next, told when time passed. */
export interface SansIoTimers {
  /** The monotonic time (ms) of the next deadline, if any. */
  pollTimeout(): number | undefined;
  /** Runs what is due at `now`. */
  handleTimeout(now: number): void;
  /**
   * Set by the driver: called when a deadline was set outside handleTimeout (by a request's
   * handler, a player's report, a sender's reply), so the driver polls again.
   */
  onWake: () => void;
}

interface Armed {
  readonly at: number;
  readonly action: () => void;
  /** Which set() armed it: one armed while handleTimeout runs waits for the next call. */
  readonly generation: number;
}

export class TimerTable<Name extends string = ReceiverTimer> implements Deadlines<Name>, SansIoTimers {
  onWake: () => void = () => {};
  /** The armed deadline of each name, in the order of `names` (the order of equal deadlines). */
  private readonly armed: (Armed | undefined)[];
  private readonly index = new Map<Name, number>();
  private generation = 0;

  constructor(names: readonly Name[]) {
    names.forEach((name, i) => this.index.set(name, i));
    this.armed = names.map(() => undefined);
  }

  set(name: Name, at: number, action: () => void): void {
    this.armed[this.slot(name)] = { at, action, generation: ++this.generation };
    this.onWake();
  }

  cancel(name: Name): boolean {
    const slot = this.slot(name);
    const was = this.armed[slot] !== undefined;
    this.armed[slot] = undefined;
    return was;
  }

  deadline(name: Name): number | undefined {
    return this.armed[this.slot(name)]?.at;
  }

  pollTimeout(): number | undefined {
    let next: number | undefined;
    for (const entry of this.armed) if (entry && (next === undefined || entry.at < next)) next = entry.at;
    return next;
  }

  /**
   * Runs each deadline due at `now`, earliest first, equal ones in the table's order. An action
   * may set and cancel deadlines; one it sets runs at the next call even when already due (a
   * deadline that re-arms itself at `now` cannot keep this call going).
   */
  handleTimeout(now: number): void {
    const before = this.generation;
    for (;;) {
      let due = -1;
      for (let i = 0; i < this.armed.length; i++) {
        const entry = this.armed[i];
        if (!entry || entry.at > now || entry.generation > before) continue;
        if (due < 0 || entry.at < this.armed[due]!.at) due = i;
      }
      if (due < 0) return;
      const { action } = this.armed[due]!;
      this.armed[due] = undefined;
      action();
    }
  }

  private slot(name: Name): number {
    const slot = this.index.get(name);
    if (slot === undefined) throw new RangeError(`no timer named ${name} in this table`);
    return slot;
  }
}

/**
 * One host timer for a sans-I/O deadline source: armed for its next deadline, firing
 * handleTimeout. Armed lazily: a deadline that moved later (a connection's idle deadline after
 * every request) keeps the timer it has, which re-arms when it fires early; only an earlier
 * deadline re-arms now. A timer that finds nothing due is harmless.
 */
export class HostTimer {
  private timer: TimerHandle | undefined;
  private deadline: number | undefined;

  constructor(
    private readonly clock: Clock,
    /** Runs when the timer fires (handleTimeout, then whatever the owner does after it). */
    private readonly fire: (now: number) => void,
  ) {}

  /** Arms the timer for `deadline` unless one is armed for it or earlier. */
  arm(deadline: number | undefined): void {
    if (deadline === undefined || (this.deadline !== undefined && this.deadline <= deadline)) return;
    this.clear();
    this.deadline = deadline;
    this.timer = this.clock.setTimer(Math.max(0, deadline - this.clock.now()), () => {
      this.timer = undefined;
      this.deadline = undefined;
      this.fire(this.clock.now());
    });
  }

  clear(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.deadline = undefined;
  }
}

/**
 * Drives a SansIoTimers (the Receiver) with one host timer. The source wakes the driver whenever
 * a deadline is set (TimerTable.set calls onWake), wherever that happens: inside a request's
 * handler, a player's report, a sender's reply on a reverse connection. That one hook covers every
 * way a deadline can appear, so nothing has to re-poll after each request or connection step.
 */
export class TimerDriver {
  private readonly timer: HostTimer;

  constructor(
    private readonly source: SansIoTimers,
    clock: Clock,
  ) {
    this.timer = new HostTimer(clock, (now) => {
      try {
        source.handleTimeout(now);
      } finally {
        // What ran may have set deadlines (woken already), and what is left is armed again.
        this.poll();
      }
    });
    source.onWake = () => this.poll();
    this.poll();
  }

  /** Stops driving: the host timer is cleared and the source no longer wakes the driver. */
  stop(): void {
    this.source.onWake = () => {};
    this.timer.clear();
  }

  private poll(): void {
    this.timer.arm(this.source.pollTimeout());
  }
}
