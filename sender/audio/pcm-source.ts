// The audio command's input: any file ffmpeg reads, decoded by ffmpeg to 44100 Hz 16-bit stereo
// PCM (s16le on a pipe), handed out a packet's worth of frames at a time. ffmpeg runs ahead only
// as far as the pipe lets it (the pipe's back-pressure paces it to the stream).

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SendError } from '../wire';

export const PCM_SAMPLE_RATE = 44100;
export const PCM_CHANNELS = 2;
const BYTES_PER_FRAME = 2 * PCM_CHANNELS;

export class PcmSource {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private stderr = '';
  /** Frames handed out so far. */
  framesRead = 0;

  private constructor(private readonly child: ChildProcessByStdio<null, Readable, Readable>, file: string) {
    child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      // Hold ffmpeg back once a few seconds are waiting.
      if (this.buffered > 4 * PCM_SAMPLE_RATE * BYTES_PER_FRAME) child.stdout.pause();
      this.notify();
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-2000)));
    child.on('error', (error: NodeJS.ErrnoException) => {
      this.failure = new SendError(error.code === 'ENOENT' ? 'the audio command needs ffmpeg (not found on PATH)' : `ffmpeg: ${error.message}`);
      this.notify();
    });
    child.on('close', (code) => {
      if (code !== 0 && code !== null && !this.failure) this.failure = new SendError(`ffmpeg cannot read ${file}: ${this.stderr.trim().split('\n').pop() ?? `exit status ${code}`}`);
      this.ended = true;
      this.notify();
    });
  }

  /**
   * Starts ffmpeg on `file` and waits for its first PCM (or its end): a file ffmpeg cannot read
   * is a SendError before anything is asked of the receiver.
   */
  static async open(file: string): Promise<PcmSource> {
    const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-vn', '-ac', String(PCM_CHANNELS), '-ar', String(PCM_SAMPLE_RATE), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'];
    const source = new PcmSource(spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] }), file);
    while (source.buffered === 0 && !source.ended && !source.failure) await new Promise<void>((resolve) => (source.wake = resolve));
    if (source.failure) throw source.failure;
    if (source.buffered === 0) throw new SendError(`${file} holds no audio ffmpeg can decode`);
    return source;
  }

  /**
   * The next `frames` frames as interleaved samples, fewer at the end of the file, undefined
   * after it; throws SendError when ffmpeg could not read the file.
   */
  async read(frames: number): Promise<Int16Array | undefined> {
    const want = frames * BYTES_PER_FRAME;
    while (this.buffered < want && !this.ended && !this.failure) {
      this.child.stdout.resume();
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    if (this.failure) throw this.failure;
    const take = Math.min(want, this.buffered - (this.buffered % BYTES_PER_FRAME));
    if (take === 0) return undefined;
    const bytes = new Uint8Array(take);
    let at = 0;
    while (at < take) {
      const chunk = this.chunks[0];
      const part = Math.min(chunk.length, take - at);
      bytes.set(chunk.subarray(0, part), at);
      at += part;
      if (part === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(part);
    }
    this.buffered -= take;
    this.framesRead += take / BYTES_PER_FRAME;
    // s16le: the host's order on every machine this runs on (little-endian).
    return new Int16Array(bytes.buffer, 0, take / 2);
  }

  /** Stops ffmpeg: its pipe closed first, since a paused pipe leaves it blocked in a write that SIGTERM does not end. */
  close(): void {
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    if (this.child.exitCode === null) this.child.kill();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
