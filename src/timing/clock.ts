// Clock synchronisation with a sender, sans-I/O and the same for every timing format (mirroring's
// NTP, ntp.ts; audio sessions' RAOP timing, raop-timing.ts): the client's schedule (a request at
// once, then every few seconds; deadlines by pollTimeout/handleTimeout), the RFC 5905 checks on
// answers, offset and delay, a filter over the samples with an estimate of the clocks' drift,
// and the clock recovery that maps the sender's timestamps to the receiver's monotonic clock.

/** spec 4.5, 8: a request every 3 seconds. */
const REQUEST_INTERVAL_MS = 3000;

/** What a timing format reads from an answer: the origin bytes and T2, T3 (the server's clock, ms). */
export interface TimingAnswer {
  /** The request's transmit timestamp as the server copied it (matched byte for byte). */
  readonly origin: Uint8Array;
  readonly receive: number;
  readonly transmit: number;
}

/** A timing packet format: how a request is written and an answer read. */
export interface TimingFormat {
  /** For log lines: `NTP`, `RAOP timing`. */
  readonly name: string;
  /** A request whose transmit timestamp is `transmitMs` (our monotonic clock). */
  request(transmitMs: number): Uint8Array;
  /** Byte offset of the request's transmit timestamp (its 8 bytes come back as the answer's origin). */
  readonly requestTransmitAt: number;
  /** The answer a datagram carries, or why it is not one. */
  readAnswer(packet: Uint8Array): TimingAnswer | string;
}

/** One exchange's result (RFC 5905 8): the sender's clock minus ours, and the round trip. */
export interface TimingSample {
  /** theta: sender time = local time + offset (ms). */
  readonly offset: number;
  /** delta: the round-trip delay, the server's hold time taken out (ms). */
  readonly delay: number;
  /** Local time the answer arrived. */
  readonly at: number;
}

/** RFC 5905 8: offset ((T2 - T1) + (T3 - T4)) / 2 and delay (T4 - T1) - (T3 - T2). */
export function offsetAndDelay(t1: number, t2: number, t3: number, t4: number): { readonly offset: number; readonly delay: number } {
  return { offset: (t2 - t1 + (t3 - t4)) / 2, delay: t4 - t1 - (t3 - t2) };
}

/** The drift is estimated once the samples span this long (shorter spans say more about jitter). */
const DRIFT_MIN_SPAN_MS = 20_000;
/** A burst's requests go this far apart (see TimingClientOptions.burst). */
const BURST_INTERVAL_MS = 250;
/** ... and from at least this many samples. */
const DRIFT_MIN_SAMPLES = 4;
/** Samples within this much of the least delay seen count as good (and at most twice it). */
const GOOD_DELAY_MARGIN_MS = 2;
/** Clocks of real devices drift by tens of ppm; an estimate beyond this is noise, not drift. */
const MAX_DRIFT = 500e-6;
/**
 * Good samples lie within half their delay of the true offset (RFC 5905 8), a millisecond or so:
 * when they scatter from the line by more than this (RMS), it describes no clock.
 */
const MAX_RESIDUAL_MS = 2;

/** A straight line through the good samples: offset = offsetAtOrigin + drift * (at - origin). */
interface OffsetLine {
  readonly origin: number;
  readonly offsetAtOrigin: number;
  /** ms of offset per ms of local time (50e-6 is 50 ppm). */
  readonly drift: number;
}

/**
 * The clock filter (after RFC 5905 10, simplified). Queueing only ever adds delay, and adds
 * error with it, so the samples with the least delay say the offset best: the best of the last
 * `size` samples gives the offset until there are enough good samples over a long enough span to
 * fit a line through them (least squares), which gives the offset at any moment and the drift.
 */
export class ClockFilter {
  private readonly samples: TimingSample[] = [];
  private line: OffsetLine | undefined;

  constructor(
    private readonly size = 8,
    private readonly historySize = 64,
  ) {}

  add(sample: TimingSample): void {
    this.samples.push(sample);
    if (this.samples.length > this.historySize) this.samples.shift();
    this.line = fitLine(this.samples);
  }

  get count(): number {
    return this.samples.length;
  }

  /** The sample with the least delay among the last `size`, if any. */
  best(): TimingSample | undefined {
    let best: TimingSample | undefined;
    for (let i = Math.max(0, this.samples.length - this.size); i < this.samples.length; i++) {
      const sample = this.samples[i];
      if (!best || sample.delay < best.delay) best = sample;
    }
    return best;
  }

  /** The clocks' drift (ms per ms: 50e-6 is the sender's clock gaining 50 ppm), once estimated. */
  get drift(): number | undefined {
    return this.line?.drift;
  }

  /** The offset (sender = local + offset) at local time `at`, if there is any sample. */
  offsetAt(at: number): number | undefined {
    const line = this.line;
    if (line) return line.offsetAtOrigin + line.drift * (at - line.origin);
    return this.best()?.offset;
  }
}

/** The least-squares line through the good samples, when they are enough and span long enough. */
function fitLine(samples: readonly TimingSample[]): OffsetLine | undefined {
  if (samples.length < DRIFT_MIN_SAMPLES) return undefined;
  let least = Infinity;
  for (const sample of samples) least = Math.min(least, sample.delay);
  const limit = least + Math.min(GOOD_DELAY_MARGIN_MS, Math.max(least, 0)) + 0.001;
  const good = samples.filter((sample) => sample.delay <= limit);
  if (good.length < DRIFT_MIN_SAMPLES || good[good.length - 1].at - good[0].at < DRIFT_MIN_SPAN_MS) return undefined;
  // Centred on the mean time, so the sums stay small and exact.
  let meanAt = 0;
  let meanOffset = 0;
  for (const sample of good) {
    meanAt += sample.at / good.length;
    meanOffset += sample.offset / good.length;
  }
  let covariance = 0;
  let variance = 0;
  for (const sample of good) {
    covariance += (sample.at - meanAt) * (sample.offset - meanOffset);
    variance += (sample.at - meanAt) ** 2;
  }
  const drift = covariance / variance;
  if (!Number.isFinite(drift) || Math.abs(drift) > MAX_DRIFT) return undefined;
  let squares = 0;
  for (const sample of good) squares += (sample.offset - meanOffset - drift * (sample.at - meanAt)) ** 2;
  if (Math.sqrt(squares / good.length) > MAX_RESIDUAL_MS) return undefined;
  return { origin: meanAt, offsetAtOrigin: meanOffset, drift };
}

interface TimingClientOptions {
  readonly intervalMs?: number;
  /**
   * The first this-many requests go `burstIntervalMs` apart, then every intervalMs (NTP's iburst,
   * RFC 5905 13): a stream that starts at once needs a good estimate at once, and the first
   * exchange of a fresh process is often slow (its delay, and so its error, large).
   */
  readonly burst?: number;
  readonly burstIntervalMs?: number;
  /** Samples the filter takes the best of. */
  readonly filterSize?: number;
}

/**
 * The receiver's timing client, sans-I/O: `pollTimeout()` says when the next request is due,
 * `handleTimeout(now)` makes it, `pollTransmit()` hands it out (the owner sends it to the
 * sender's timing port), `receive(bytes, now)` takes an answer. The first request goes at once.
 */
export class TimingClient {
  private nextAt: number;
  private readonly intervalMs: number;
  private readonly burst: number;
  private readonly burstIntervalMs: number;
  private pending: Uint8Array | undefined;
  /** The request waiting for its answer: its transmit timestamp's bytes and its local time. */
  private outstanding: { readonly transmit: Uint8Array; readonly sentAt: number } | undefined;
  readonly filter: ClockFilter;
  requestsSent = 0;

  constructor(
    readonly format: TimingFormat,
    now: number,
    options: TimingClientOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? REQUEST_INTERVAL_MS;
    this.burst = options.burst ?? 1;
    this.burstIntervalMs = options.burstIntervalMs ?? BURST_INTERVAL_MS;
    this.filter = new ClockFilter(options.filterSize ?? 8);
    this.nextAt = now;
  }

  pollTimeout(): number {
    return this.nextAt;
  }

  handleTimeout(now: number): void {
    if (now < this.nextAt) return;
    const request = this.format.request(now);
    const at = this.format.requestTransmitAt;
    this.pending = request;
    this.outstanding = { transmit: request.slice(at, at + 8), sentAt: now };
    this.requestsSent++;
    // Every interval from the first request, not from a late timer: no drift in the schedule.
    const interval = this.requestsSent < this.burst ? this.burstIntervalMs : this.intervalMs;
    this.nextAt += interval;
    if (this.nextAt <= now) this.nextAt = now + interval;
  }

  pollTransmit(): Uint8Array | undefined {
    const request = this.pending;
    this.pending = undefined;
    return request;
  }

  /**
   * Takes a datagram from the sender's port; returns the sample, or why the datagram was not
   * one (not an answer, not to our outstanding request: RFC 5905 8's bogus checks).
   */
  receive(packet: Uint8Array, now: number): TimingSample | string {
    const answer = this.format.readAnswer(packet);
    if (typeof answer === 'string') return answer;
    const { name } = this.format;
    const outstanding = this.outstanding;
    if (!outstanding) return `${name} answer with no request outstanding (a duplicate or a late one)`;
    for (let i = 0; i < 8; i++) {
      if (answer.origin[i] !== outstanding.transmit[i]) return `${name} answer to another request (origin timestamp differs)`;
    }
    this.outstanding = undefined;
    const { offset, delay } = offsetAndDelay(outstanding.sentAt, answer.receive, answer.transmit, now);
    if (!Number.isFinite(offset) || delay < 0) return `${name} answer with a negative delay (${delay.toFixed(3)} ms): the server's timestamps are inconsistent`;
    const sample = { offset, delay, at: now };
    this.filter.add(sample);
    return sample;
  }
}

/**
 * Maps the sender's clock to the receiver's (spec 4.5 "clock recovery"): local = sender - offset,
 * with the filter's offset at that moment. Before the first answer, the first timestamp seen is
 * taken to be now (the best guess there is); the measured offset replaces the guess once it comes.
 */
export class ClockRecovery {
  private guess: number | undefined;

  constructor(private readonly filter: ClockFilter) {}

  /** The offset of the best recent sample (sender = local + offset), or the guess, if any yet. */
  get offset(): number | undefined {
    return this.filter.best()?.offset ?? this.guess;
  }

  get synchronised(): boolean {
    return this.filter.count > 0;
  }

  /** Local monotonic ms of the sender's time `senderMs`, seen at local time `now`. */
  toLocal(senderMs: number, now: number): number {
    const offset = this.filter.offsetAt(now);
    if (offset !== undefined) return senderMs - offset;
    if (this.guess === undefined) this.guess = senderMs - now;
    return senderMs - this.guess;
  }
}
