// `--audio-out DEVICE`: an AudioSink (src/platform.ts) that plays through ALSA by running `aplay`
// (alsa-utils) with raw PCM on its stdin, one process per stream.
//
// Why aplay and not an npm package: the packages that reach ALSA (speaker, naudiodon...) are
// native addons, built against the machine's headers at install and several left unmaintained;
// aplay is on every desktop Linux with sound, takes any ALSA device name (`default`, `hw:0`,
// `plughw:1,0`, a PulseAudio or PipeWire bridge), and a stuck sound device blocks its process,
// never the receiver's event loop.
//
// Timing: frames are held here until their presentation time less the ALSA buffer, then handed
// to aplay. aplay starts the device once its buffer (--buffer-time) is full, so the first frame is
// heard at its presentation time and each later one back to back; latencyMs is that buffer.
// Holding frames here (not in aplay) is also what makes flush() work: it drops what is held, and
// at most one buffer already in ALSA plays out.
//
// Volume is applied here (the sender's dB as a linear gain on the samples, -144 muted) when frames
// are handed over, so a change is heard within one buffer. Without a sound device (aplay cannot
// open it) or without aplay, the receiver goes on: one warning line, the stream's frames dropped.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { AudioFormat, AudioSink, Logger } from '../../../src/platform';
import { littleEndianBytes } from './wav-file';

/** The ALSA buffer asked of aplay when not told: room for a late timer, short enough to follow a pause. */
export const DEFAULT_ALSA_BUFFER_MS = 100;
/** Longest held here before it is due (the streams' largest latency, latencyMax 88200 frames, is 2 s). */
const MAX_HELD_MS = 4000;
/** The sender's volume at or below which nothing is heard (spec 2.2). */
const MUTED_DB = -144;

export interface AplaySinkOptions {
  /** The ALSA device (aplay -D): `default`, `hw:0`... */
  readonly device: string;
  readonly log: Logger;
  /** The host's monotonic clock, ms (presentation times are on it). */
  readonly now: () => number;
  readonly bufferMs?: number;
  /** The program (default `aplay` on PATH). */
  readonly command?: string;
  /** Its environment (tests point ALSA_CONFIG_PATH at a file plugin). */
  readonly env?: NodeJS.ProcessEnv;
}

interface HeldFrames {
  readonly pcm: Int16Array;
  /** When its first frame is handed to aplay: its presentation time less the buffer. */
  readonly due: number;
}

/** The sender's dB as the factor on samples: -144 (and below) muted, 0 dB unchanged. */
export function volumeGain(db: number): number {
  if (!(db > MUTED_DB)) return 0;
  return Math.min(1, Math.pow(10, db / 20));
}

export class AplaySink implements AudioSink {
  readonly latencyMs: number;
  private readonly options: AplaySinkOptions;
  private child: ChildProcessWithoutNullStreams | undefined;
  private format: AudioFormat | undefined;
  private held: HeldFrames[] = [];
  private heldFrames = 0;
  private timer: NodeJS.Timeout | undefined;
  private gain = 1;
  /** end() was called: once what is held is handed over, aplay's input is closed. */
  private ending = false;
  /** The last failure said at warn: the same one again (the next stream, no device still) is said at debug. */
  private lastFailure: string | undefined;
  /** aplay could not be started at all (not installed): not tried again. */
  private noProgram = false;
  /** Counts configure() calls: a stream waiting to start knows a newer one took over. */
  private streams = 0;
  /** The stream's aplay is not started yet (the previous one still holds the device): frames wait here. */
  private starting = false;
  /** Resolves when the newest stream's aplay has exited (or never started). */
  private exited: Promise<void> = Promise.resolve();

  constructor(options: AplaySinkOptions) {
    this.options = options;
    this.latencyMs = options.bufferMs ?? DEFAULT_ALSA_BUFFER_MS;
  }

  configure(format: AudioFormat): string | undefined {
    // A stream that ended plays out its last buffer; one cut short by this one stops now.
    if (!this.ending) this.stopChild();
    this.dropHeld();
    this.ending = false;
    this.format = format;
    if (this.noProgram) return undefined;
    const stream = ++this.streams;
    const previousExit = this.exited;
    let exited!: () => void;
    this.exited = new Promise((resolve) => (exited = resolve));
    this.starting = true;
    // A device such as hw:0 opens for one program at a time: the previous aplay lets go of it first.
    void previousExit.then(() => {
      if (stream !== this.streams) return exited();
      this.starting = false;
      this.start(format, exited);
      this.release();
    });
    return undefined;
  }

  /** Runs this stream's aplay; `exited` is called once it has exited (or could not start). */
  private start(format: AudioFormat, exited: () => void): void {
    const { device, command = 'aplay', env } = this.options;
    const args = ['-q', '-D', device, '-t', 'raw', '-f', 'S16_LE', '-r', String(format.sampleRate), '-c', String(format.channels), `--buffer-time=${this.latencyMs * 1000}`];
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: env ?? process.env });
    this.child = child;
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < 4096) stderr += text;
    });
    child.stdout.resume();
    // Its input closed under a write (aplay failed): said by the exit below.
    child.stdin.on('error', () => {});
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (this.child === child) this.child = undefined;
      if (error.code === 'ENOENT') {
        this.noProgram = true;
        this.fail(`${command} not found (install alsa-utils): no sound`);
      } else this.fail(`${command}: ${error.message}: no sound this stream`);
      exited();
    });
    child.on('close', (code, signal) => {
      const ours = this.child === child;
      if (ours) this.child = undefined;
      // A child stopped by us (a newer stream, close) or that played out is no news.
      if (ours && code !== 0 && signal === null) {
        const line = stderr.trim().split('\n').pop() ?? `exit ${code}`;
        this.fail(`${line}: no sound this stream (the receiver goes on)`);
      }
      exited();
    });
  }

  write(pcm: Int16Array, presentationTime: number): void {
    if (!this.format || this.ending) return;
    const channels = this.format.channels;
    // A copy: the core may reuse its buffer, and these frames wait here until due.
    this.held.push({ pcm: pcm.slice(), due: presentationTime - this.latencyMs });
    this.heldFrames += pcm.length / channels;
    const limit = (MAX_HELD_MS * this.format.sampleRate) / 1000;
    while (this.heldFrames > limit && this.held.length > 1) {
      // Written far ahead of its time: the oldest goes (the engine paces writes; this only bounds memory).
      const dropped = this.held.shift()!;
      this.heldFrames -= dropped.pcm.length / channels;
    }
    this.release();
  }

  setVolume(db: number): void {
    this.gain = volumeGain(db);
  }

  flush(): void {
    this.dropHeld();
  }

  end(): void {
    this.ending = true;
    this.release();
  }

  /** Resolves once the stream's aplay has exited (after end(): played out). */
  idle(): Promise<void> {
    return this.exited;
  }

  /** At exit: aplay is stopped, what is held dropped. */
  async close(): Promise<void> {
    this.streams++;
    this.dropHeld();
    this.stopChild();
    await this.exited;
  }

  /** Hands aplay every frame that is due, then waits for the next. */
  private release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // Its aplay starts soon, and calls this again.
    if (this.starting) return;
    const now = this.options.now();
    while (this.held.length > 0 && this.held[0].due <= now) {
      const frames = this.held.shift()!;
      this.heldFrames -= frames.pcm.length / (this.format?.channels ?? 1);
      this.play(frames.pcm);
    }
    if (this.held.length > 0) {
      this.timer = setTimeout(() => this.release(), Math.max(1, Math.ceil(this.held[0].due - now)));
    } else if (this.ending) {
      // Played out: aplay drains ALSA's buffer and exits.
      this.child?.stdin.end();
    }
  }

  private play(pcm: Int16Array): void {
    const child = this.child;
    if (!child || !child.stdin.writable) return;
    if (this.gain !== 1) {
      for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(pcm[i] * this.gain);
    }
    child.stdin.write(littleEndianBytes(pcm));
  }

  private dropHeld(): void {
    this.held = [];
    this.heldFrames = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private stopChild(): void {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill('SIGTERM');
  }

  private fail(message: string): void {
    const line = `--audio-out ${this.options.device}: ${message}`;
    this.options.log(line === this.lastFailure ? 'debug' : 'warn', line);
    this.lastFailure = line;
  }
}
