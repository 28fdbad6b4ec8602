// A clock offset followed at a bounded rate, as NTP's clock discipline slews a clock rather than
// step it (RFC 5905 11.3: steps only past 128 ms, slews at most 500 ppm below). The offset
// estimate moves whenever a better timing sample comes (a quieter exchange, the drift line
// refitted): used as it is, each move would shift a stream's output by its size at once, and a
// stream whose clocks agree would have frames dropped or repeated for the estimate's noise. Slewed,
// a move of a few ms is taken over seconds, within what the output's drift tolerance absorbs,
// while a real rate difference (a crystal's tens of ppm) is followed in full.

/** RFC 5905's step threshold: a move this large is the clock being wrong, taken at once. */
const STEP_MS = 128;
/** RFC 5905's largest slew rate. */
const MAX_SLEW_PPM = 500;

export class SlewedOffset {
  private value: number | undefined;
  private at = 0;

  constructor(
    private readonly maxSlewPpm = MAX_SLEW_PPM,
    private readonly stepMs = STEP_MS,
  ) {}

  /**
   * The offset to use at `now` (monotonic ms), moving from the last one toward `estimate` by at
   * most maxSlewPpm of the time since (a `now` earlier than the last one moves nothing). The
   * first estimate, one farther than stepMs, and any while `free` (nothing depends on the offset
   * yet: a stream not yet playing) are taken as they are.
   */
  follow(estimate: number | undefined, now: number, free = false): number | undefined {
    if (estimate === undefined) return this.value;
    if (free || this.value === undefined || Math.abs(estimate - this.value) > this.stepMs) {
      this.value = estimate;
      this.at = now;
      return estimate;
    }
    if (now <= this.at) return this.value;
    const room = (now - this.at) * this.maxSlewPpm * 1e-6;
    this.at = now;
    this.value += Math.max(-room, Math.min(room, estimate - this.value));
    return this.value;
  }
}
