// Feeds a JPEG that arrives in pieces to commodetto's picojpeg wrapper (`push`), copied into
// blocks of FEED_BLOCK_BYTES (pure: tested under Node and XS with a stand-in decoder).
//
// What the wrapper does with what it is pushed (modules/commodetto/commodettoReadJPEG.c, SDK 8.2.3):
// - It keeps each buffer as it is, in its `buffers` array, until picojpeg has read past it. The
//   pieces the core hands are views valid for one call, so they are copied, into blocks: a piece
//   of a few hundred bytes (an encrypted frame) would otherwise be one array entry each.
// - Until the frame header parses, every push reads the header again from the first buffer; from
//   then on buffers leave the array as they are read, so what it holds is what waits to decode.
// - `ready` asks for 256 bytes not yet read (or the end pushed), but one MCU of a high-quality
//   4:2:0 picture may take more than 2 KB, and an MCU whose bytes run out fails the whole decode
//   ("jpeg read failed"). So blocks are decoded only while a whole block beyond the one being read
//   is there (hasMargin), or the end has been pushed.

/** The part of commodetto/readJPEG (picojpeg) a feed uses. */
export interface PushDecoder {
  push(buffer?: ArrayBuffer): void;
  /** The wrapper's own list of the buffers pushed and not yet read past. */
  readonly buffers?: readonly ArrayBuffer[];
}

/** A block: a few MCUs' worth at the worst, small beside limits.maxStreamedPhotoHeldBytes. */
export const FEED_BLOCK_BYTES = 8 * 1024;

export class JpegFeed {
  private block: Uint8Array | undefined;
  private filled = 0;
  private isEnded = false;

  constructor(
    private readonly decoder: PushDecoder,
    private readonly blockBytes = FEED_BLOCK_BYTES,
  ) {}

  /** The next piece, copied: each block is pushed when full. */
  write(piece: Uint8Array): void {
    for (let at = 0; at < piece.length; ) {
      const block = (this.block ??= new Uint8Array(this.blockBytes));
      const count = Math.min(piece.length - at, this.blockBytes - this.filled);
      block.set(count === piece.length ? piece : piece.subarray(at, at + count), this.filled);
      this.filled += count;
      at += count;
      if (this.filled === this.blockBytes) {
        this.block = undefined;
        this.filled = 0;
        this.decoder.push(block.buffer as ArrayBuffer);
      }
    }
  }

  /** Every piece has come: the last block, however short, then the end. */
  end(): void {
    if (this.isEnded) return;
    this.isEnded = true;
    const block = this.block;
    this.block = undefined;
    if (block && this.filled > 0) this.decoder.push(block.slice(0, this.filled).buffer as ArrayBuffer);
    this.filled = 0;
    this.decoder.push();
  }

  /** The end has been pushed. */
  get ended(): boolean {
    return this.isEnded;
  }

  /** Bytes held: the block being filled, and the blocks the decoder has not read past. */
  get heldBytes(): number {
    let held = this.filled;
    for (const buffer of this.decoder.buffers ?? []) held += buffer.byteLength;
    return held;
  }

  /** Whether the decoder may read a block now without running out of bytes inside it. */
  get hasMargin(): boolean {
    return this.isEnded || (this.decoder.buffers?.length ?? 0) >= 2;
  }
}
