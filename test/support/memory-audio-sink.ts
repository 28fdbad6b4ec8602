// An AudioSink that keeps what it is given, for tests (portable: runs in XS too): every frame
// written, in order, with each write's presentation time; the volume set; flushes and ends.

import type { AudioFormat, AudioSink } from '../../src/platform';

export class MemoryAudioSink implements AudioSink {
  readonly latencyMs: number;
  format: AudioFormat | undefined;
  /** Each write: its first frame's presentation time and its frames (interleaved). */
  readonly writes: { readonly at: number; readonly pcm: Int16Array }[] = [];
  volumeDb: number | undefined;
  flushes = 0;
  ends = 0;
  /** Makes configure() refuse with this reason. */
  refuse: string | undefined;

  constructor(latencyMs = 0) {
    this.latencyMs = latencyMs;
  }

  configure(format: AudioFormat): string | undefined {
    if (this.refuse !== undefined) return this.refuse;
    this.format = format;
    return undefined;
  }

  write(pcm: Int16Array, presentationTime: number): void {
    this.writes.push({ at: presentationTime, pcm: pcm.slice() });
  }

  setVolume(db: number): void {
    this.volumeDb = db;
  }

  flush(): void {
    this.flushes++;
  }

  end(): void {
    this.ends++;
  }

  /** Every sample written, in order. */
  samples(): Int16Array {
    const total = this.writes.reduce((sum, write) => sum + write.pcm.length, 0);
    const all = new Int16Array(total);
    let at = 0;
    for (const write of this.writes) {
      all.set(write.pcm, at);
      at += write.pcm.length;
    }
    return all;
  }
}
