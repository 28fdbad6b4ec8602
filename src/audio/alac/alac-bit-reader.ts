// The ALAC bitstream's reader: big-endian, most significant bit first. The packet is copied into
// a buffer with PADDING zero bytes after it, so the adaptive Golomb decoder's 32-bit window never
// leaves the buffer; reads that pass the packet's end set `overrun` (they return zeros from the
// padding), which the frame decoder checks at fixed points (every build checks at the same ones).

/** Zero bytes after the packet: the Golomb decoder reads up to 41 bits past a sample's start, then a run length's 25. */
export const PADDING = 16;

export class AlacBitReader {
  /** The packet, then PADDING zero bytes. */
  bytes = new Uint8Array(0);
  /** Where the next read starts, in bits. */
  pos = 0;
  /** The packet's length in bits. */
  end = 0;
  /** Whether a read went past the packet's end. */
  overrun = false;

  /** Starts reading `packet` (copied: the buffer grows to fit and is reused). */
  load(packet: Uint8Array): void {
    const size = packet.length + PADDING;
    if (this.bytes.length < size) this.bytes = new Uint8Array(Math.max(size, 2 * this.bytes.length));
    this.bytes.set(packet);
    this.bytes.fill(0, packet.length, size);
    this.pos = 0;
    this.end = packet.length * 8;
    this.overrun = false;
  }

  /** `bits` (0 to 32) bits as an unsigned number. */
  read(bits: number): number {
    if (bits === 0) return 0;
    const value = peek32(this.bytes, this.pos) >>> (32 - bits);
    this.pos += bits;
    if (this.pos > this.end) {
      this.overrun = true;
      this.pos = this.end;
    }
    return value;
  }

  /** `bits` (1 to 32) bits as a two's complement number. */
  readSigned(bits: number): number {
    return (this.read(bits) << (32 - bits)) >> (32 - bits);
  }

  skip(bits: number): void {
    this.pos += bits;
    if (this.pos > this.end) {
      this.overrun = true;
      this.pos = this.end;
    }
  }

  /** To the next byte boundary. */
  align(): void {
    this.skip((8 - (this.pos & 7)) & 7);
  }
}

/** The 32 bits from bit `pos` of `bytes` as an int32, first bit highest (`pos` at most 8 * (bytes.length - 5)). */
export function peek32(bytes: Uint8Array, pos: number): number {
  const at = pos >>> 3;
  const offset = pos & 7;
  const word = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
  // A shift by 8 - 0 = 8 of one byte is 0: nothing comes from the fifth byte when aligned.
  return (word << offset) | (bytes[at + 4] >>> (8 - offset));
}
