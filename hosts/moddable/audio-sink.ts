// AudioSink (src/platform.ts) on ECMA-419 `embedded:io/audio/out`: I2S on an ESP32, ALSA in the
// Linux simulator. Pure: the output's constructor is handed in (audio-out/audio-out.js where the
// manifest links one), so the portable suites run the sink against a fake output.
//
// The output pulls: it calls onWritable(bytes) whenever a buffer of its own is free, and what is
// not written then is played as silence (the Linux output zero-fills the rest of its buffer, the
// ESP32's DMA sends zeros when it has nothing). The core pushes: write() hands over frames as the
// playout engine releases them. Between the two sits one fixed ring of samples (`queueBytes`,
// allocated once: a board without PSRAM has 128 KB of chunk heap for everything), already in the
// output's channel count; when it is full, its oldest frames make room and are counted.
//
// The output is opened by configure() for the stream's rate and closed once an ended stream has
// played out (its buffers' worth of time after the ring ran dry): an idle speaker keeps neither
// the I2S clocks nor the simulator's ALSA thread running.

import type { AudioFormat, AudioSink, Clock, Logger, TimerHandle } from '../../src/platform';

/** What the sink needs of an `embedded:io/audio/out` instance (the SDK's lin and esp32 outputs). */
export interface AudioOut419 {
  start(): void;
  close(): void;
  /** Copies the bytes into the output's buffer; at most what onWritable offered. */
  write(samples: Uint8Array): unknown;
  /** 0 to 1, applied by the output (both SDK outputs have it: 256 steps). */
  volume?: number;
}

export interface AudioOut419Options {
  sampleRate: number;
  channels: number;
  bitsPerSample: 16;
  audioType: 'LPCM';
  onWritable(bytes: number): void;
}

export type AudioOut419Constructor = new (options: AudioOut419Options) => AudioOut419;

/**
 * How an SDK output buffers what it is given (modules/io/audioout in the SDK; hosts/moddable/README.md
 * "Realtime audio"), to say latencyMs. Per output, one row: `alsa` (lin) and `i2s` (esp32).
 */
export type AudioOutputKind = 'alsa' | 'i2s';

interface OutputBuffering {
  /** Bytes one onWritable offers at most (one of the output's buffers). */
  chunkBytes(sampleRate: number, channels: number): number;
  /** Bytes held downstream of the sink once written (the output's buffers and its driver's). */
  heldBytes(sampleRate: number, channels: number): number;
}

const BYTES_PER_SAMPLE = 2;

const OUTPUT_BUFFERING: Record<AudioOutputKind, OutputBuffering> = {
  // lin/audioout_.c: queueLength (2) buffers of bytesPerFrame x sampleRate / 32 bytes (1/32 s)
  // cycle between the main loop and an ALSA thread; ALSA's own buffer is two periods of
  // (buffer bytes / 2) frames: 1/32 s per channel, twice.
  alsa: {
    chunkBytes: (rate, channels) => Math.floor((BYTES_PER_SAMPLE * channels * rate) / 32),
    heldBytes: (rate, channels) => {
      const chunk = Math.floor((BYTES_PER_SAMPLE * channels * rate) / 32);
      return 2 * chunk + 2 * channels * chunk;
    },
  },
  // esp32/audioout-esp32.c: 6 DMA descriptors; the driver counts 4092 bytes per descriptor and
  // offers 5 of them (20,460 bytes) plus a 4092-byte staging buffer.
  i2s: {
    chunkBytes: () => 4092,
    heldBytes: () => 6 * 4092,
  },
};

/** The rates both SDK outputs accept (their constructors throw outside it). */
const MIN_RATE = 8000;
const MAX_RATE = 48000;
/** SET_PARAMETER volume: -144 is muted (spec 2.2). */
const MUTED_DB = -144;

export interface Ecma419AudioSinkOptions {
  AudioOut: AudioOut419Constructor;
  output: AudioOutputKind;
  /** Channels the output plays: the ESP32 boards' I2S slot mode is fixed when the app is built. */
  outputChannels: 1 | 2;
  /** The ring between write() and onWritable, in bytes (`audioQueueBytes`). */
  queueBytes: number;
  clock: Clock;
  log: Logger;
}

/** What one stream did, for the log line when its output closes. */
interface Counts {
  frames: number;
  dropped: number;
  underruns: number;
  padded: number;
}

export class Ecma419AudioSink implements AudioSink {
  private readonly ring: Int16Array;
  private readonly view: Uint8Array;
  private output: AudioOut419 | undefined;
  private format: AudioFormat | undefined;
  /** Ring positions and fill, in frames of the output's channel count. */
  private capacity = 0;
  private readAt = 0;
  private queued = 0;
  /** Whether the next write is the first of a run (after configure or flush): it may be padded to its time. */
  private aligned = false;
  /**
   * Whether the run has begun to play. A run begins only with a whole output buffer queued: the
   * first frames split by the output's zero fill would be a gap inside the sound, while waiting
   * one buffer more only starts it later (the first write's padding already put it on time).
   */
  private primed = false;
  private ending = false;
  private closeTimer: TimerHandle | undefined;
  /** Linear gain the sink applies itself, Q15 (only for an output without `volume`). */
  private gainQ15 = 32768;
  private gain = 1;
  private counts: Counts = { frames: 0, dropped: 0, underruns: 0, padded: 0 };

  constructor(private readonly options: Ecma419AudioSinkOptions) {
    const samples = Math.floor(options.queueBytes / BYTES_PER_SAMPLE);
    this.ring = new Int16Array(samples);
    this.view = new Uint8Array(this.ring.buffer);
  }

  get latencyMs(): number {
    const rate = this.format?.sampleRate ?? 44100;
    const buffering = OUTPUT_BUFFERING[this.options.output];
    const channels = this.options.outputChannels;
    // What the output holds, plus one of its buffers kept in the ring for the next onWritable.
    const bytes = buffering.heldBytes(rate, channels) + buffering.chunkBytes(rate, channels);
    return (bytes / (BYTES_PER_SAMPLE * channels) / rate) * 1000;
  }

  /** Frames waiting in the ring (for tests and the log). */
  get queuedFrames(): number {
    return this.queued;
  }

  configure(format: AudioFormat): string | undefined {
    const { sampleRate, channels } = format;
    if (!Number.isInteger(sampleRate) || sampleRate < MIN_RATE || sampleRate > MAX_RATE) return `the audio output plays ${MIN_RATE} to ${MAX_RATE} Hz, not ${sampleRate}`;
    if (channels !== 1 && channels !== 2) return `the audio output plays 1 or 2 channels, not ${channels}`;
    const outChannels = this.options.outputChannels;
    const chunk = OUTPUT_BUFFERING[this.options.output].chunkBytes(sampleRate, outChannels);
    if (this.ring.length * BYTES_PER_SAMPLE < 2 * chunk) return `audioQueueBytes ${this.ring.length * BYTES_PER_SAMPLE} holds less than two of the output's ${chunk}-byte buffers at ${sampleRate} Hz`;
    this.cancelClose();
    const reuse = this.output !== undefined && this.format?.sampleRate === sampleRate;
    if (!reuse) this.closeOutput();
    this.format = { sampleRate, channels };
    this.capacity = Math.floor(this.ring.length / outChannels);
    this.readAt = 0;
    this.queued = 0;
    this.aligned = false;
    this.primed = false;
    this.ending = false;
    if (reuse) return undefined;
    try {
      const output = new this.options.AudioOut({
        sampleRate,
        channels: outChannels,
        bitsPerSample: 16,
        audioType: 'LPCM',
        onWritable: (bytes: number) => this.writable(bytes),
      });
      this.output = output;
      this.applyVolume();
      output.start();
    } catch (error) {
      this.output = undefined;
      this.format = undefined;
      return `the audio output cannot open at ${sampleRate} Hz, ${outChannels} channel(s): ${error instanceof Error ? error.message : String(error)}`;
    }
    this.options.log('debug', `audio out: ${this.options.output} ${sampleRate} Hz, ${outChannels} channel(s) for a ${channels}-channel stream; ${this.ring.length * BYTES_PER_SAMPLE}-byte queue (${Math.round((this.capacity / sampleRate) * 1000)} ms), latency ${Math.round(this.latencyMs)} ms`);
    return undefined;
  }

  write(pcm: Int16Array, presentationTime: number): void {
    const format = this.format;
    if (!format || !this.output) return;
    if (this.ending) {
      // A write after end() belongs to no stream: the core configures first.
      this.counts.dropped += Math.floor(pcm.length / format.channels);
      return;
    }
    if (!this.aligned) {
      this.aligned = true;
      // The first frames of a run start at their time: silence before them, if they are early.
      const early = presentationTime - (this.options.clock.now() + this.latencyMs);
      if (early > 0) this.pad(Math.min(Math.round((early * format.sampleRate) / 1000), this.capacity - this.queued));
    }
    const inChannels = format.channels;
    const outChannels = this.options.outputChannels;
    const frames = Math.floor(pcm.length / inChannels);
    // A full queue gives up its oldest frames: they were due first, so they are the latest by now
    // (the engine writes a burst when it catches up), and the newest then play on their time.
    const skip = Math.max(0, frames - this.capacity);
    const taken = frames - skip;
    const overflow = Math.max(0, this.queued + taken - this.capacity);
    if (overflow > 0) {
      this.readAt = (this.readAt + overflow) % this.capacity;
      this.queued -= overflow;
    }
    this.counts.dropped += skip + overflow;
    const ring = this.ring;
    let at = (this.readAt + this.queued) % this.capacity;
    for (let frame = skip; frame < frames; frame++) {
      const from = frame * inChannels;
      const to = at * outChannels;
      if (inChannels === outChannels) {
        ring[to] = pcm[from];
        if (outChannels === 2) ring[to + 1] = pcm[from + 1];
      } else if (outChannels === 1) {
        ring[to] = (pcm[from] + pcm[from + 1]) >> 1;
      } else {
        ring[to] = pcm[from];
        ring[to + 1] = pcm[from];
      }
      if (++at === this.capacity) at = 0;
    }
    this.queued += taken;
  }

  setVolume(db: number): void {
    this.gain = !(db > MUTED_DB) ? 0 : Math.min(1, Math.pow(10, db / 20));
    this.applyVolume();
  }

  flush(): void {
    this.readAt = 0;
    this.queued = 0;
    this.aligned = false;
    this.primed = false;
  }

  end(): void {
    if (!this.output || this.ending) return;
    this.ending = true;
    if (this.queued === 0) this.closeAfterPlayout();
  }

  /** The output has a buffer free: as many whole frames as it takes, from the ring. */
  private writable(bytes: number): void {
    const output = this.output;
    if (!output) return;
    const outChannels = this.options.outputChannels;
    const frameBytes = BYTES_PER_SAMPLE * outChannels;
    const wanted = Math.floor(bytes / frameBytes);
    if (!this.primed) {
      const rate = this.format?.sampleRate ?? 44100;
      const chunk = Math.floor(OUTPUT_BUFFERING[this.options.output].chunkBytes(rate, outChannels) / frameBytes);
      if (this.queued < Math.min(wanted, chunk, this.capacity) && !this.ending) return;
      this.primed = true;
    }
    const frames = Math.min(wanted, this.queued);
    if (frames < wanted && !this.ending && this.counts.frames > 0) this.counts.underruns++;
    if (frames > 0) {
      const first = Math.min(frames, this.capacity - this.readAt);
      this.emit(output, this.readAt, first);
      if (frames > first) this.emit(output, 0, frames - first);
      this.readAt = (this.readAt + frames) % this.capacity;
      this.queued -= frames;
      this.counts.frames += frames;
    }
    if (this.ending && this.queued === 0 && this.closeTimer === undefined) this.closeAfterPlayout();
  }

  /** Hands `frames` frames of the ring from `at` to the output, scaled by the sink's own gain. */
  private emit(output: AudioOut419, at: number, frames: number): void {
    const outChannels = this.options.outputChannels;
    const start = at * outChannels;
    const end = start + frames * outChannels;
    if (this.gainQ15 !== 32768) {
      // The samples leave the ring now, so they are scaled in place.
      const ring = this.ring;
      const gain = this.gainQ15;
      for (let i = start; i < end; i++) ring[i] = (ring[i] * gain) >> 15;
    }
    output.write(this.view.subarray(start * BYTES_PER_SAMPLE, end * BYTES_PER_SAMPLE));
  }

  private pad(frames: number): void {
    if (frames <= 0) return;
    const outChannels = this.options.outputChannels;
    let at = (this.readAt + this.queued) % this.capacity;
    for (let frame = 0; frame < frames; frame++) {
      this.ring.fill(0, at * outChannels, (at + 1) * outChannels);
      if (++at === this.capacity) at = 0;
    }
    this.queued += frames;
    this.counts.padded += frames;
  }

  private applyVolume(): void {
    const output = this.output;
    if (output && typeof output.volume === 'number') {
      output.volume = this.gain;
      this.gainQ15 = 32768;
    } else {
      this.gainQ15 = Math.round(this.gain * 32768);
    }
  }

  /** The last frames are in the output: it closes once its own buffers have played them. */
  private closeAfterPlayout(): void {
    this.cancelClose();
    const rate = this.format?.sampleRate ?? 44100;
    const channels = this.options.outputChannels;
    const held = OUTPUT_BUFFERING[this.options.output].heldBytes(rate, channels);
    const ms = Math.ceil((held / (BYTES_PER_SAMPLE * channels) / rate) * 1000);
    this.closeTimer = this.options.clock.setTimer(ms, () => {
      this.closeTimer = undefined;
      this.closeOutput();
    });
  }

  private cancelClose(): void {
    if (this.closeTimer === undefined) return;
    this.options.clock.clearTimer(this.closeTimer);
    this.closeTimer = undefined;
  }

  private closeOutput(): void {
    const output = this.output;
    if (!output) return;
    this.output = undefined;
    const { frames, dropped, underruns, padded } = this.counts;
    this.counts = { frames: 0, dropped: 0, underruns: 0, padded: 0 };
    try {
      output.close();
    } catch (error) {
      this.options.log('warn', `audio out: closing: ${error instanceof Error ? error.message : String(error)}`);
    }
    const rate = this.format?.sampleRate ?? 44100;
    this.format = undefined;
    this.options.log('info', `audio out: closed after ${frames} frames (${(frames / rate).toFixed(2)} s), ${padded} frames of silence before a stream's first, ${underruns} underruns, ${dropped} frames dropped (queue full)`);
  }
}
