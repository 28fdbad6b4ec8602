// ALAC's dynamic predictor (Apple's unpc_block): each sample is its residual plus a prediction
// from the `order` samples before it, an FIR filter whose coefficients adapt as it runs (sign-LMS:
// each step nudges every coefficient by one toward a smaller error). Order 31 is the special
// first-order predictor (each sample adds the previous one); order 0 leaves the residuals as they
// are. Works in place: a sample's residual is read just before the sample is written.

/**
 * Turns the residuals in samples[0, count) into samples of `sampleBits` bits, in place, with
 * `coefficients` (the first `order` are used, and adapted) and the quantisation `denShift`.
 */
export function unpredict(samples: Int32Array, count: number, coefficients: Int16Array, order: number, sampleBits: number, denShift: number): void {
  if (order === 0 || count <= 1) return;
  // Results are wrapped to sampleBits bits, as the encoder's were (shift up and back down).
  const shift = 32 - sampleBits;
  if (order === 31) {
    for (let j = 1; j < count; j++) samples[j] = ((samples[j] + samples[j - 1]) << shift) >> shift;
    return;
  }
  // The first `order` samples have too little history: first-order, like order 31.
  const warm = order + 1 < count ? order + 1 : count;
  for (let j = 1; j < warm; j++) samples[j] = ((samples[j] + samples[j - 1]) << shift) >> shift;
  const half = denShift === 0 ? 0 : 1 << (denShift - 1);
  for (let j = order + 1; j < count; j++) {
    // Predicted from differences to the sample before the window (`top`): the filter has no DC term.
    const top = samples[j - order - 1];
    let sum = 0;
    for (let k = 0; k < order; k++) sum = (sum + Math.imul(coefficients[k], samples[j - 1 - k] - top)) | 0;
    const residual = samples[j];
    samples[j] = ((residual + top + (((sum + half) | 0) >> denShift)) << shift) >> shift;
    adaptCoefficients(coefficients, samples, j, order, top, residual, denShift);
  }
}

/**
 * The predictor's adaptation after sample `j` (sign-LMS, as Apple's decoder runs it): from the
 * oldest tap to the newest, each coefficient nudged by one against its difference's sign until the
 * residual's sign is used up. The encoder (sender/audio) runs this same step on the same values to
 * know the prediction the decoder will make.
 */
export function adaptCoefficients(coefficients: Int16Array, samples: Int32Array, j: number, order: number, top: number, residual: number, denShift: number): void {
  let error = residual;
  if (error > 0) {
    for (let k = order - 1; k >= 0; k--) {
      const difference = top - samples[j - 1 - k];
      const sign = difference > 0 ? 1 : difference < 0 ? -1 : 0;
      coefficients[k] -= sign;
      error = (error - Math.imul(order - k, Math.imul(sign, difference) >> denShift)) | 0;
      if (error <= 0) break;
    }
  } else if (error < 0) {
    for (let k = order - 1; k >= 0; k--) {
      const difference = top - samples[j - 1 - k];
      const sign = difference > 0 ? 1 : difference < 0 ? -1 : 0;
      coefficients[k] += sign;
      error = (error - Math.imul(order - k, Math.imul(-sign, difference) >> denShift)) | 0;
      if (error >= 0) break;
    }
  }
}
