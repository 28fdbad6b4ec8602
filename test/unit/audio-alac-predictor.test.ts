// ALAC's dynamic predictor (src/audio/alac/alac-predictor.ts): order 0 and 31, the warm-up, and
// the adaptive filter in place against a plain out-of-place reading of its definition.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unpredict } from '../../src/audio/alac/alac-predictor';

test('order 0 leaves the residuals; order 31 adds each to the sample before, wrapped to the sample width', () => {
  const samples = Int32Array.of(5, -3, 7);
  unpredict(samples, 3, new Int16Array(32), 0, 16, 9);
  assert.deepEqual([...samples], [5, -3, 7]);
  const summed = Int32Array.of(100, 1, 2, -3, 32767 - 100, 1);
  unpredict(summed, 6, new Int16Array(32), 31, 16, 0);
  assert.deepEqual([...summed], [100, 101, 103, 100, 32767, -32768]);
});

test('fewer samples than the order: all of them first-order', () => {
  const samples = Int32Array.of(10, 1, 1);
  unpredict(samples, 3, Int16Array.of(100, 100, 100, 100, 100, 100, 100, 100), 8, 16, 9);
  assert.deepEqual([...samples], [10, 11, 12]);
});

/** The predictor as defined (Apple's unpc_block): residuals in, samples out, separate arrays. */
function reference(residuals: number[], coefficients: number[], order: number, bits: number, denShift: number): { samples: number[]; coefficients: number[] } {
  const wrap = (value: number) => ((value << (32 - bits)) >> (32 - bits));
  const coefs = Int16Array.from(coefficients);
  const out: number[] = [residuals[0]];
  for (let j = 1; j <= order && j < residuals.length; j++) out[j] = wrap(residuals[j] + out[j - 1]);
  for (let j = order + 1; j < residuals.length; j++) {
    const top = out[j - order - 1];
    let sum = 0;
    for (let k = 0; k < order; k++) sum += coefs[k] * (out[j - 1 - k] - top);
    out[j] = wrap(residuals[j] + top + ((sum + (1 << (denShift - 1))) >> denShift));
    let error = residuals[j];
    const direction = Math.sign(error);
    for (let k = order - 1; k >= 0 && error !== 0; k--) {
      const difference = top - out[j - 1 - k];
      const sign = Math.sign(difference);
      coefs[k] -= direction * sign;
      error -= direction * (order - k) * ((sign * difference * direction) >> denShift) * direction;
      if (direction * error <= 0) break;
    }
  }
  return { samples: out, coefficients: [...coefs.subarray(0, order)] };
}

test('orders 4, 8 and 20 reconstruct and adapt as the definition does', () => {
  let seed = 12345;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) / 65536;
  for (const order of [4, 8, 20]) {
    const residuals = Array.from({ length: 300 }, () => Math.round((next() - 0.5) * 400));
    const coefficients = Array.from({ length: order }, () => Math.round((next() - 0.5) * 600));
    const expected = reference(residuals, coefficients, order, 17, 9);
    const samples = Int32Array.from(residuals);
    const coefs = new Int16Array(32);
    coefs.set(coefficients);
    unpredict(samples, samples.length, coefs, order, 17, 9);
    assert.deepEqual([...samples], expected.samples, `order ${order}: samples`);
    assert.deepEqual([...coefs.subarray(0, order)], expected.coefficients, `order ${order}: adapted coefficients`);
  }
});
