// Several AudioSinks as one (--audio-out and --record-audio together): each call goes to every
// part. The stream is heard from the slowest part, so latencyMs is the largest; a part with less
// (the WAV file, 0) takes the frames early, which costs it nothing. A stream one part refuses (a
// format the file cannot append) goes on in the others; only a stream every part refuses is refused.

import type { AudioFormat, AudioSink } from '../../../src/platform';

export class TeeAudioSink implements AudioSink {
  readonly latencyMs: number;
  /** The parts that took the stream now configured. */
  private taking: readonly AudioSink[] = [];

  constructor(private readonly parts: readonly AudioSink[]) {
    this.latencyMs = Math.max(0, ...parts.map((part) => part.latencyMs));
  }

  configure(format: AudioFormat): string | undefined {
    const refusals: string[] = [];
    const taking: AudioSink[] = [];
    for (const part of this.parts) {
      const refusal = part.configure(format);
      if (refusal === undefined) taking.push(part);
      else refusals.push(refusal);
    }
    this.taking = taking;
    return taking.length > 0 ? undefined : refusals.join('; ');
  }

  write(pcm: Int16Array, presentationTime: number): void {
    for (const part of this.taking) part.write(pcm, presentationTime);
  }

  setVolume(db: number): void {
    for (const part of this.parts) part.setVolume(db);
  }

  flush(): void {
    for (const part of this.taking) part.flush();
  }

  end(): void {
    for (const part of this.taking) part.end();
    this.taking = [];
  }
}
