// One log line for something that can happen thousands of times a second (refused connections,
// refused pairing steps): the first at once, then at most one line per interval, with the count,
// so a flood of refusals does not flood the log too.

export class CountedLog {
  private count = 0;
  private loggedAt: number | undefined;

  constructor(readonly intervalMs = 10_000) {}

  /**
   * Counts one occurrence at `now` (monotonic ms). Returns how many occurrences the caller should
   * report in one line now, this one included; 0 while the interval since the last line runs.
   */
  note(now: number): number {
    this.count++;
    if (this.loggedAt !== undefined && now - this.loggedAt < this.intervalMs) return 0;
    const count = this.count;
    this.count = 0;
    this.loggedAt = now;
    return count;
  }
}
