// `--record-audio FILE.wav`: an AudioSink (src/platform.ts) that writes exactly the frames written
// to it to a RIFF/WAVE file of 16-bit PCM, as the sender sent them (the volume is the listener's,
// not the recording's; the presentation times are the clock's, not the file's).
//
// One file per receiver run, every stream appended to it: what a person asks for with one option
// is what the receiver played while it ran, in one file any player opens (like --record's one
// video file), and a sender's streams are of one format in practice (44100 Hz stereo). A WAV has
// one format chunk, so a later stream of another format cannot join the file: configure() says so
// and that stream is not recorded (a speaker beside it still plays it).
//
// The header's two sizes are rewritten after every write, synchronously: the file is a valid WAV
// of everything written so far at any moment, read mid-stream or after the receiver was killed.
// Before the first stream it is a valid empty WAV of spec 2.2's format.

import { closeSync, openSync, writeSync } from 'node:fs';
import type { AudioFormat, AudioSink, Logger } from '../../../src/platform';
import { littleEndianBytes, sizeField, WAV_DATA_SIZE_OFFSET, WAV_HEADER_BYTES, WAV_MAX_DATA_BYTES, WAV_RIFF_SIZE_OFFSET, wavHeader } from './wav-file';

/** The file's format until a stream says otherwise (spec 2.2: 44100 Hz, 16 bit, stereo). */
const DEFAULT_FORMAT: AudioFormat = { sampleRate: 44100, channels: 2 };

export class WavFileSink implements AudioSink {
  /** Nothing is buffered: a frame is in the file when write() returns. */
  readonly latencyMs = 0;
  private fd: number | undefined;
  private format: AudioFormat = DEFAULT_FORMAT;
  private dataBytes = 0;
  /** The stream now configured is written (false: refused, or none since end()). */
  private recording = false;

  /** Opens (and empties) `file` at once: a path that cannot be written is said at start. */
  constructor(
    readonly file: string,
    private readonly log: Logger,
  ) {
    this.fd = openSync(file, 'w');
    writeSync(this.fd, wavHeader(this.format, 0), 0, WAV_HEADER_BYTES, 0);
  }

  configure(format: AudioFormat): string | undefined {
    this.recording = false;
    if (this.fd === undefined) return `--record-audio ${this.file}: recording stopped`;
    if (this.dataBytes === 0) {
      this.format = format;
      this.put(wavHeader(format, 0), 0);
    } else if (format.sampleRate !== this.format.sampleRate || format.channels !== this.format.channels) {
      const reason = `--record-audio ${this.file} holds ${describe(this.format)}; a stream of ${describe(format)} cannot be appended`;
      this.log('warn', `${reason}: not recorded`);
      return reason;
    }
    this.recording = this.fd !== undefined;
    return undefined;
  }

  /** The presentation time is the clock's, not the file's: frames are written back to back. */
  write(pcm: Int16Array, _presentationTime?: number): void {
    if (!this.recording || this.fd === undefined) return;
    let bytes = littleEndianBytes(pcm);
    const room = WAV_MAX_DATA_BYTES - this.dataBytes;
    if (bytes.length > room) {
      // A WAV's sizes are 32-bit: 4 GB, about 6.7 hours of 44100 Hz stereo.
      bytes = bytes.subarray(0, room - (room % (2 * this.format.channels)));
      this.log('warn', `--record-audio ${this.file}: a WAV file holds at most 4 GB; recording stopped`);
      this.recording = false;
    }
    this.put(bytes, WAV_HEADER_BYTES + this.dataBytes);
    this.dataBytes += bytes.length;
    this.put(sizeField(36 + this.dataBytes), WAV_RIFF_SIZE_OFFSET);
    this.put(sizeField(this.dataBytes), WAV_DATA_SIZE_OFFSET);
    if (!this.recording) this.closeFile();
  }

  /** A file records the stream as sent, at full scale. */
  setVolume(_db: number): void {}

  /** Everything written is in the file already (latency 0): nothing is left to drop. */
  flush(): void {}

  end(): void {
    this.recording = false;
  }

  /** Bytes of samples in the file. */
  get recordedBytes(): number {
    return this.dataBytes;
  }

  /** At exit: the header is current already; the descriptor is let go. */
  closeFile(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    this.recording = false;
  }

  /** Writes at `position`; a failure (a full disk) stops the recording, said once. */
  private put(bytes: Uint8Array, position: number): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, bytes, 0, bytes.length, position);
    } catch (error) {
      this.log('error', `--record-audio ${this.file}: ${(error as Error).message}; recording stopped`);
      this.closeFile();
    }
  }
}

function describe(format: AudioFormat): string {
  return `${format.sampleRate} Hz, ${format.channels} channel${format.channels === 1 ? '' : 's'}`;
}
