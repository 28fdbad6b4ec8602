// `--record FILE`: a VideoDecoder (src/platform.ts) that writes the mirrored stream to FILE as an
// H.264 Annex B byte stream (what `ffmpeg -f h264` reads) and passes every call on to the decoder
// that shows it, when there is one. Access units arrive with their parameter sets before each key
// frame (the core puts them there), so the file plays from its first key frame.

import { closeSync, openSync, writeSync } from 'node:fs';
import type { Logger, ScreenGeometry, VideoDecoder, VideoDecoderConfig } from '../../src/platform';
import { DEFAULT_MIRROR_GEOMETRY } from './screen/page-decoder';


export class StreamRecorder implements VideoDecoder {
  private fd: number | undefined;

  constructor(
    readonly file: string,
    private readonly log: Logger,
    private readonly inner?: VideoDecoder,
  ) {
    // Opened (and emptied) at start: a path that cannot be written is said at once.
    this.fd = openSync(file, 'w');
  }

  get geometry(): ScreenGeometry {
    // No screen to describe to GET /stream.xml: the page's default, 1080p at 60 Hz.
    return this.inner?.geometry ?? DEFAULT_MIRROR_GEOMETRY;
  }

  configure(config: VideoDecoderConfig): void {
    this.inner?.configure(config);
  }

  decode(accessUnit: Uint8Array, presentationTime: number, keyFrame: boolean): void {
    if (this.fd !== undefined) {
      try {
        // Synchronous: the file holds exactly the units handed over, in order, even if the
        // receiver is killed right after (tests read it then).
        writeSync(this.fd, accessUnit);
      } catch (error) {
        this.log('error', `--record ${this.file}: ${(error as Error).message}; recording stopped`);
        this.closeFile();
      }
    }
    this.inner?.decode(accessUnit, presentationTime, keyFrame);
  }

  reset(): void {
    this.inner?.reset();
  }

  closeFile(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
