// ALAC's entropy coder: adaptive Golomb-Rice codes of the prediction residuals (Apple's ag_dec),
// with the Rice parameter k following a running mean (history) of the values, and runs of zeros
// coded by their length when the mean falls low. Parameters from the config (mb: the initial
// history, kb: the limit on k) and the element (pb * pbFactor / 4: how fast the history moves).

import { peek32, type AlacBitReader } from './alac-bit-reader';
import { ALAC_FAULT } from './alac-faults';

/** A prefix of this many 1 bits is an escape: the value follows in full (MAX_PREFIX). */
const ESCAPE_PREFIX = 9;
/** The history is in units of 1/512 (QBSHIFT 9). */
const HISTORY_SHIFT = 9;
/** Below this history the next code is a run length of zeros. */
const RUN_HISTORY = 128;
/** A value above this sets the history to it (N_MAX_MEAN_CLAMP). */
const HISTORY_CLAMP = 0xffff;
/** Escaped run lengths are 16 bits. */
const RUN_ESCAPE_BITS = 16;

/**
 * Decodes `count` residuals into `out` from the reader's position, values escaped with
 * `escapeBits` bits (the element's sample width), history multiplier `multiplier`. Returns 0,
 * or a fault: ALAC_FAULT.truncated when a value starts at the packet's end or the last one ends
 * past it, ALAC_FAULT.runPastFrame for a run of zeros longer than the samples left.
 */
export function decodeResiduals(reader: AlacBitReader, out: Int32Array, count: number, escapeBits: number, multiplier: number, initialHistory: number, kLimit: number): number {
  const bytes = reader.bytes;
  const end = reader.end;
  let pos = reader.pos;
  let history = initialHistory;
  // 1 after a run of zeros: the value after a run is never 0, so it is coded less one.
  let afterRun = 0;
  for (let i = 0; i < count; i++) {
    if (pos >= end) return ALAC_FAULT.truncated;
    // k = floor(log2(history / 512 + 3)), at most kLimit.
    let k = 31 - Math.clz32((history >>> HISTORY_SHIFT) + 3);
    if (k > kLimit) k = kLimit;
    let word = peek32(bytes, pos);
    let prefix = Math.clz32(~word);
    let value: number;
    if (prefix >= ESCAPE_PREFIX) {
      value = peek32(bytes, pos + ESCAPE_PREFIX) >>> (32 - escapeBits);
      pos += ESCAPE_PREFIX + escapeBits;
    } else {
      pos += prefix + 1;
      value = prefix * ((1 << k) - 1);
      // k bits follow, except that values 0 and 1 of them are sent in k - 1 bits (k = 1: none).
      // They are in the same window: k is at most 23 (history < 2^32) and the prefix at most 8.
      const low = (word << (prefix + 1)) >>> (32 - k);
      if (low >= 2) {
        value += low - 1;
        pos += k;
      } else {
        pos += k - 1;
      }
    }
    const coded = value + afterRun;
    // Even codes are positive, odd negative: 0, -1, 1, -2, 2...
    out[i] = (coded >>> 1) ^ -(coded & 1);
    afterRun = 0;
    history = value > HISTORY_CLAMP ? HISTORY_CLAMP : (history + Math.imul(coded, multiplier) - (Math.imul(history, multiplier) >>> HISTORY_SHIFT)) >>> 0;

    if (history < RUN_HISTORY && i + 1 < count) {
      // A run length, k from the history (Apple: lead(history) - 24 + (history + 16) >> 6).
      k = Math.clz32(history) - 24 + ((history + 16) >> 6);
      if (k > kLimit) k = kLimit;
      word = peek32(bytes, pos);
      prefix = Math.clz32(~word);
      let run: number;
      if (prefix >= ESCAPE_PREFIX) {
        run = peek32(bytes, pos + ESCAPE_PREFIX) >>> (32 - RUN_ESCAPE_BITS);
        pos += ESCAPE_PREFIX + RUN_ESCAPE_BITS;
      } else {
        pos += prefix + 1;
        run = prefix * ((1 << k) - 1);
        const low = (word << (prefix + 1)) >>> (32 - k);
        if (low >= 2) {
          run += low - 1;
          pos += k;
        } else {
          pos += k - 1;
        }
      }
      if (run > count - i - 1) return ALAC_FAULT.runPastFrame;
      for (let j = 1; j <= run; j++) out[i + j] = 0;
      i += run;
      // A run of the longest escaped length may be followed by another zero.
      afterRun = run < 0xffff ? 1 : 0;
      history = 0;
    }
  }
  if (pos > end) return ALAC_FAULT.truncated;
  reader.pos = pos;
  return 0;
}
