// ALAC's adaptive Golomb-Rice decoder (src/audio/alac/alac-adaptive-golomb.ts) on bitstreams
// written by hand: k from the history, the k - 1 bit short form, escapes, runs of zeros and the
// value after a run, and the faults.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALAC_FAULT } from '../../src/audio/alac';
import { decodeResiduals } from '../../src/audio/alac/alac-adaptive-golomb';
import { AlacBitReader } from '../../src/audio/alac/alac-bit-reader';
import { bitsOf, packBits } from '../kernels/alac-vectors';

/** Decodes `count` values from `bits` (initial history `history`, multiplier 40, kb 14, 16-bit escapes). */
function decode(bits: string, count: number, history = 10): { fault: number; values: number[]; pos: number } {
  const reader = new AlacBitReader();
  reader.load(packBits(bits));
  // The packet's true length in bits, not rounded up to bytes.
  reader.end = bits.replace(/\s+/g, '').length;
  const out = new Int32Array(count);
  const fault = decodeResiduals(reader, out, count, 16, 40, history, 14);
  return { fault, values: [...out], pos: reader.pos };
}

test('k = 1 at the initial history 10: a unary prefix alone; odd codes are negative', () => {
  assert.deepEqual(decode('1110', 1), { fault: 0, values: [-2], pos: 4 });
  assert.deepEqual(decode('110', 1), { fault: 0, values: [1], pos: 3 });
});

test('k = 3 (history 2560): k bits after the prefix, or k - 1 when they are 0 or 1', () => {
  // Prefix 1 (value 7), then 3 bits 101: 7 + 5 - 1 = 11, code 11 = -6.
  assert.deepEqual(decode('10 101', 1, 2560), { fault: 0, values: [-6], pos: 5 });
  // Prefix 1, then 00x: only 2 bits are the code's, value 7 = -4.
  assert.deepEqual(decode('10 00', 1, 2560), { fault: 0, values: [-4], pos: 4 });
});

test('nine 1 bits are an escape: the value follows in the escape width', () => {
  assert.deepEqual(decode(`111111111 ${bitsOf(0x1234, 16)}`, 1), { fault: 0, values: [0x1234 >> 1], pos: 25 });
});

test('a low history codes a run of zeros next, and the value after a run is coded less one', () => {
  // 0 (value 0; history stays 10 < 128), run with k = 4: prefix 0 then 0100 = 3 zeros, then
  // prefix 1 = 1, plus the one a run takes off: code 2 = +1.
  assert.deepEqual(decode('0 0 0100 10', 5), { fault: 0, values: [0, 0, 0, 0, 1], pos: 8 });
});

test('a run longer than the samples left is a fault; so is a value that starts at or ends past the packet end', () => {
  assert.equal(decode('0 0 0100', 3).fault, ALAC_FAULT.runPastFrame);
  assert.equal(decode('', 1).fault, ALAC_FAULT.truncated);
  assert.equal(decode('11111111', 1).fault, ALAC_FAULT.truncated);
  assert.equal(decode('110', 2).fault, ALAC_FAULT.truncated);
});
