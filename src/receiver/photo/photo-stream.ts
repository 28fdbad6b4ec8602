// A PUT /photo drawn as it arrives: its body goes piece by piece to the screen's decoder
// (Display.openPhotoStream) and is never held whole, so a board shows pictures larger than it
// could hold (limits.maxStreamedPhotoBytes). photo.ts decides on the head which pictures stream:
// those shown at once and not cached.
//
//   header   the JPEG's segments up to the start of scan are collected (at most
//            limits.maxStreamedPhotoHeldBytes; more: 413) and checked as a whole picture's are
//            (media/jpeg.ts, then Display.cannotShow: 415); then the screen's sink is opened
//            (unless a newer request decided the screen) and handed them
//   image    each piece goes to the sink, up to the end-of-image marker; while the sink holds
//            more than maxStreamedPhotoHeldBytes the connection reads no more (BodyStream.full)
//   trailer  bytes after the end-of-image marker (camera data, a motion photo's video) are read
//            past: no decoder reads them, and a sink holding them would never drain
//   refused  the rest is read past; the answer, once the body has ended, says why
//
// The answer comes once the body has ended and the screen has finished the picture: 200, or 415
// naming what the decoder could not read (the sink's failure), as a picture refused whole would be.
// The picture budget holds maxStreamedPhotoHeldBytes for it until then, not its length.

import { describeError } from '../../errors';
import { STATUS } from '../../http';
import type { Display, JpegFrame, Logger, PhotoStreamSink } from '../../platform';
import { JpegError, cutShortError, endOfImage, readJpegHeader } from '../media/jpeg';
import type { ReceiverLimits } from '../limits';
import type { PictureBudget, PictureGrant } from '../media/picture-budget';
import { cannotShowReason, notJpegReason } from './photo-refusals';
import { LATER, refuse, type Admitted, type Answer, type BodyStream, type Response } from '../connection/router';

type Phase = 'header' | 'image' | 'trailer' | 'refused';

export interface PhotoStreamContext {
  readonly log: Logger;
  readonly display: Display;
  readonly limits: Pick<ReceiverLimits, 'maxStreamedPhotoHeldBytes'>;
  readonly pictures: PictureBudget;
  /**
   * The header has passed its checks: the screen's sink for the picture, or undefined when it is
   * not to be shown (a newer request decided the screen; it is still read and answered).
   */
  readonly open: (frame: JpegFrame) => PhotoStreamSink | undefined;
}

/** The smallest header array: most headers (JFIF, tables, a small Exif) fit it at once. */
const FIRST_HEADER_BYTES = 4 * 1024;

/** A streamed PUT /photo, admitted on its head: the body's stream, and what it holds in the picture budget. */
export class StreamedPhotoUpload implements Admitted, BodyStream {
  onDrained: () => void = () => {};
  private phase: Phase = 'header';
  /** The header so far (copied: pieces are views valid during write only). */
  private header: Uint8Array | undefined;
  private headerBytes = 0;
  private frame: JpegFrame | undefined;
  /** Where the scan's data begins, counted from the body's first byte. */
  private scanOffset = 0;
  private sink: PhotoStreamSink | undefined;
  /** Why the picture is refused, answered once the body has ended. */
  private refusal: Response | undefined;
  /** The piece before ended with FF (an end-of-image marker may be split). */
  private afterFF = false;
  private received = 0;
  /** The answer is decided (or the body lost): the grant goes with the sink's end. */
  private over = false;

  constructor(
    private readonly grant: PictureGrant,
    private readonly context: PhotoStreamContext,
    /** The request, for log lines: `127.0.0.1:50000 PUT /photo`. */
    readonly what: string,
  ) {}

  /** Admitted.body: the upload takes its own body. */
  get body(): BodyStream {
    return this;
  }

  get full(): boolean {
    return this.phase === 'image' && this.sink !== undefined && this.sink.heldBytes > this.context.limits.maxStreamedPhotoHeldBytes;
  }

  write(piece: Uint8Array): void {
    this.received += piece.length;
    if (this.phase === 'header') this.collectHeader(piece);
    else if (this.phase === 'image') this.passImage(piece, 0);
  }

  /**
   * The body has ended (the handler runs): the answer now, or LATER and `respond` once the screen
   * has finished the picture.
   */
  finish(respond: (response: Response) => void): Answer {
    this.over = true;
    const answer = this.decide();
    if (answer) {
      this.stop(answer.reason ?? 'refused');
      return answer;
    }
    const sink = this.sink;
    if (!sink) {
      this.context.pictures.release(this.grant);
      return { status: STATUS.ok };
    }
    let now: Response | undefined;
    let waiting = false;
    sink.end((failure) => {
      this.context.pictures.release(this.grant);
      const response = failure === undefined ? { status: STATUS.ok } : this.cannotShow(failure);
      if (waiting) respond(response);
      else now = response;
    });
    if (now) return now;
    waiting = true;
    return LATER;
  }

  /** Admitted.release: after finish nothing is left to do; before it, the body did not come whole. */
  release(): void {
    if (this.over) return;
    this.over = true;
    this.stop('the body did not arrive whole');
  }

  /** The refusal the body earned, if any, once it has ended. */
  private decide(): Response | undefined {
    if (this.refusal) return this.refusal;
    switch (this.phase) {
      case 'header':
        if (this.received === 0) return refuse(STATUS.badRequest, 'display without a picture in the body');
        return notJpeg(headerError(this.header!.subarray(0, this.headerBytes)));
      case 'image':
        return notJpeg(cutShortError(this.scanOffset).message);
      default:
        return undefined;
    }
  }

  private collectHeader(piece: Uint8Array): void {
    const bound = this.context.limits.maxStreamedPhotoHeldBytes;
    const taken = Math.min(piece.length, bound - this.headerBytes);
    this.growHeader(this.headerBytes + taken, bound);
    this.header!.set(taken === piece.length ? piece : piece.subarray(0, taken), this.headerBytes);
    this.headerBytes += taken;
    const bytes = this.header!.subarray(0, this.headerBytes);
    let header;
    try {
      header = readJpegHeader(bytes, true);
    } catch (error) {
      if (!(error instanceof JpegError)) throw error;
      return this.refuse(notJpeg(error.message));
    }
    if (!header) {
      if (this.headerBytes < bound) return;
      return this.refuse(
        refuse(STATUS.contentTooLarge, `the JPEG's header (its segments before the scan) runs past ${bound} bytes (limits.maxStreamedPhotoHeldBytes), what this screen holds of a picture it draws as it arrives`),
      );
    }
    const { frame, scanOffset } = header;
    const reason = this.context.display.cannotShow?.(frame);
    if (reason !== undefined) return this.refuse(this.cannotShow(reason, frame));
    this.frame = frame;
    this.scanOffset = scanOffset;
    this.header = undefined;
    this.phase = 'image';
    this.sink = this.context.open(frame);
    if (this.sink) this.sink.onDrained = () => this.onDrained();
    this.passImage(bytes, scanOffset);
    if (taken < piece.length && this.phase === 'image') this.passImage(piece.subarray(taken), 0);
  }

  /** The header array holds at least `needed` bytes (doubling, at most `bound`). */
  private growHeader(needed: number, bound: number): void {
    const header = this.header;
    if (header && header.length >= needed) return;
    const grown = new Uint8Array(Math.min(bound, Math.max(needed, FIRST_HEADER_BYTES, 2 * (header?.length ?? 0))));
    if (header) grown.set(header.subarray(0, this.headerBytes));
    this.header = grown;
  }

  /** A piece of the picture to the sink, up to its end-of-image marker (searched from `from`). */
  private passImage(piece: Uint8Array, from: number): void {
    const end = endOfImage(piece, from, this.afterFF);
    const image = end < 0 ? piece : piece.subarray(0, end);
    this.afterFF = end < 0 && piece.length > 0 && piece[piece.length - 1] === 0xff;
    if (end >= 0) this.phase = 'trailer';
    if (!this.sink || image.length === 0) return;
    try {
      this.sink.write(image);
    } catch (error) {
      // A decoder that throws on a piece cannot read the picture: refused at the end, the rest dropped.
      this.refuse(this.cannotShow(describeError(error)));
    }
  }

  private refuse(refusal: Response): void {
    this.phase = 'refused';
    this.refusal = refusal;
    this.header = undefined;
    this.stop(refusal.reason ?? 'refused');
  }

  /** The screen is told to stop (when it was drawing) and the budget given back. */
  private stop(reason: string): void {
    const sink = this.sink;
    this.sink = undefined;
    if (sink) {
      try {
        sink.abort(reason);
      } catch (error) {
        this.context.log('warn', `${this.what}: the screen failed to stop its picture: ${describeError(error)}`);
      }
    }
    if (this.over) this.context.pictures.release(this.grant);
  }

  private cannotShow(reason: string, frame = this.frame): Response {
    return refuse(STATUS.unsupportedMediaType, cannotShowReason(reason, frame));
  }
}

/** The 415 of a body that is not a JPEG, in the words of a picture read whole. */
function notJpeg(message: string): Response {
  return refuse(STATUS.unsupportedMediaType, notJpegReason(message));
}

/** Why a header that ended with the body is not a JPEG's. */
function headerError(bytes: Uint8Array): string {
  try {
    readJpegHeader(bytes, false);
  } catch (error) {
    if (error instanceof JpegError) return error.message;
    throw error;
  }
  return 'no end-of-image marker (FF D9)';
}
