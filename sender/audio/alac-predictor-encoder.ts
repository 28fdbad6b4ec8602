// ALAC's dynamic predictor, encoding side: the residuals that Apple's unpc_block (unpredict in
// src/audio/alac/alac-predictor.ts) turns back into the samples. The decoder adapts its coefficients
// after every sample (sign-LMS), so the encoder runs the very same adaptation on the very same
// values to know the prediction the decoder will make. Order 31 is the fixed first-order
// predictor (each residual the difference to the sample before); order 0 sends samples as they are.

import { adaptCoefficients } from '../../src/audio/alac/alac-predictor';

export const FIRST_ORDER = 31;

/**
 * Writes into `residuals` what turns back into samples[0, count) of `sampleBits` bits under
 * `coefficients` (the first `order`; adapted in place, as the decoder will) and `denShift`.
 */
export function predict(samples: Int32Array, residuals: Int32Array, count: number, coefficients: Int16Array, order: number, sampleBits: number, denShift: number): void {
  // The decoder wraps each sample to sampleBits bits, so a residual need only be right modulo 2^sampleBits.
  const shift = 32 - sampleBits;
  if (count > 0) residuals[0] = samples[0];
  if (order === 0) {
    for (let j = 1; j < count; j++) residuals[j] = samples[j];
    return;
  }
  // Order 31 throughout; other orders for the samples with too little history.
  const warm = order === FIRST_ORDER ? count : Math.min(order + 1, count);
  for (let j = 1; j < warm; j++) residuals[j] = ((samples[j] - samples[j - 1]) << shift) >> shift;
  const half = denShift === 0 ? 0 : 1 << (denShift - 1);
  for (let j = warm; j < count; j++) {
    // The filter works on differences to the sample before its window (`top`).
    const top = samples[j - order - 1];
    let sum = 0;
    for (let k = 0; k < order; k++) sum = (sum + Math.imul(coefficients[k], samples[j - 1 - k] - top)) | 0;
    const residual = ((samples[j] - top - (((sum + half) | 0) >> denShift)) << shift) >> shift;
    residuals[j] = residual;
    // The decoder's adaptation, on the same values: the next prediction is the decoder's.
    adaptCoefficients(coefficients, samples, j, order, top, residual, denShift);
  }
}
