// ALAC's entropy coder, encoding side: the prediction residuals as adaptive Golomb-Rice codes
// (Apple's ag_enc), the mirror of decodeResiduals in src/audio/alac/adaptive-golomb.ts. The Rice
// parameter k follows a running mean of the values (the history); when the history falls low the
// next code is the length of a run of zeros, and the value after a run is coded less one.
// Encoder and decoder must step the history identically, so every rule here is the decoder's.

import type { AlacBitWriter } from './alac-bit-writer';

/** A prefix of this many 1 bits is an escape: the value follows in full. */
const ESCAPE_PREFIX = 9;
/** The history is in units of 1/512. */
const HISTORY_SHIFT = 9;
/** Below this history the next code is a run length of zeros. */
const RUN_HISTORY = 128;
/** A value above this sets the history to it. */
const HISTORY_CLAMP = 0xffff;
/** Escaped run lengths are 16 bits. */
const RUN_ESCAPE_BITS = 16;

/**
 * Writes `value` (0 or more) with Rice parameter k: its quotient by 2^k - 1 in unary (that many
 * 1 bits and a 0), then the remainder r as r + 1 in k bits, or as k - 1 zero bits when r is 0 (the
 * decoder reads k bits and takes 0 and 1 alike as "no remainder", giving the last bit back). A
 * quotient of 9 or more is sent as the escape: nine 1 bits and the value in `escapeBits` bits.
 */
export function writeGolomb(writer: AlacBitWriter, value: number, k: number, escapeBits: number): void {
  const divisor = (1 << k) - 1;
  const quotient = Math.floor(value / divisor);
  if (quotient >= ESCAPE_PREFIX) {
    writer.write(ESCAPE_PREFIX, (1 << ESCAPE_PREFIX) - 1);
    writer.write(escapeBits, value);
    return;
  }
  // quotient ones, then the terminating zero.
  writer.write(quotient + 1, ((1 << quotient) - 1) << 1);
  if (k === 1) return;
  const remainder = value - quotient * divisor;
  if (remainder === 0) writer.write(k - 1, 0);
  else writer.write(k, remainder + 1);
}

/** Residual to code: 0, -1, 1, -2, 2... as 0, 1, 2, 3, 4... */
export function foldSign(residual: number): number {
  return residual >= 0 ? 2 * residual : -2 * residual - 1;
}

/**
 * Writes residuals[0, count) with escapes of `escapeBits` bits (the element's sample width), the
 * history multiplier `multiplier` (pb * pbFactor / 4), `initialHistory` (mb) and the limit on k
 * (kb). Returns false, having written a useless tail, in the one case decoders step differently:
 * a value of exactly 0xFFFF right after a run (Apple's decoder clamps on the value as sent, ffmpeg's
 * on the value plus one); the caller then sends the frame another way.
 */
export function encodeResiduals(writer: AlacBitWriter, residuals: Int32Array, count: number, escapeBits: number, multiplier: number, initialHistory: number, kLimit: number): boolean {
  let history = initialHistory;
  let afterRun = 0;
  let i = 0;
  while (i < count) {
    let k = 31 - Math.clz32((history >>> HISTORY_SHIFT) + 3);
    if (k > kLimit) k = kLimit;
    const coded = foldSign(residuals[i]);
    // After a run the value is never 0 (the run would have gone on), so it is sent less one.
    const value = coded - afterRun;
    if (afterRun === 1 && value === HISTORY_CLAMP) return false;
    writeGolomb(writer, value, k, escapeBits);
    i++;
    history = value > HISTORY_CLAMP ? HISTORY_CLAMP : (history + Math.imul(coded, multiplier) - (Math.imul(history, multiplier) >>> HISTORY_SHIFT)) >>> 0;
    afterRun = 0;
    if (history < RUN_HISTORY && i < count) {
      k = Math.clz32(history) - 24 + ((history + 16) >> 6);
      if (k > kLimit) k = kLimit;
      let run = 0;
      while (i < count && residuals[i] === 0) {
        run++;
        i++;
      }
      writeGolomb(writer, run, k, RUN_ESCAPE_BITS);
      afterRun = run < 0xffff ? 1 : 0;
      history = 0;
    }
  }
  return true;
}
