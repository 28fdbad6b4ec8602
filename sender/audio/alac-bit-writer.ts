// Writes an ALAC frame's bits, most significant first (the order Apple's BitBuffer and the
// decoders in src/audio/alac read them), into a buffer sized for the largest frame.

export class AlacBitWriter {
  readonly bytes: Uint8Array;
  /** Bits written so far. */
  bitLength = 0;
  /** Up to 32 pending bits, the oldest highest, not yet in `bytes`. */
  private pending = 0;
  private pendingBits = 0;
  private at = 0;

  constructor(capacityBytes: number) {
    this.bytes = new Uint8Array(capacityBytes);
  }

  /** Starts again at bit 0 (the buffer is reused). */
  reset(): void {
    this.bitLength = 0;
    this.pending = 0;
    this.pendingBits = 0;
    this.at = 0;
  }

  /** Appends the low `count` bits of `value` (0 to 32; a negative value is written as two's complement). */
  write(count: number, value: number): void {
    if (count === 0) return;
    if (count > 24) {
      // Two steps keep the pending word within 32 bits.
      this.write(count - 16, Math.floor(value / 65536));
      this.write(16, value & 0xffff);
      return;
    }
    this.pending = ((this.pending << count) | (value & ((1 << count) - 1))) >>> 0;
    this.pendingBits += count;
    this.bitLength += count;
    while (this.pendingBits >= 8) {
      this.pendingBits -= 8;
      if (this.at >= this.bytes.length) throw new RangeError(`ALAC frame longer than its ${this.bytes.length}-byte buffer`);
      this.bytes[this.at++] = this.pending >>> this.pendingBits;
    }
    this.pending &= (1 << this.pendingBits) - 1;
  }

  /** The bits written, the last byte filled with zeros; a view into the buffer. */
  finish(): Uint8Array {
    if (this.pendingBits > 0) {
      const length = this.bitLength;
      this.write(8 - this.pendingBits, 0);
      this.bitLength = length;
    }
    return this.bytes.subarray(0, this.at);
  }
}
