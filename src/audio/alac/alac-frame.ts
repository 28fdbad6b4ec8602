// One ALAC frame (one packet of an ALAC stream) to PCM: its elements in order, each tagged with
// 3 bits (Apple's ALACDecoder::Decode): a single channel (SCE, or LFE), a channel pair (CPE),
// fill (FIL) and data (DSE) elements skipped, END closing the frame. An audio element is a
// header (partial frame, bytes shifted, escape), then either verbatim samples (escape) or, per
// channel, the predictor's parameters and the adaptive Golomb residuals; a pair is mid/side-like
// mixed (mixBits, mixRes) and 24-bit streams carry their low byte(s) apart (the shift buffer).

import type { AlacConfig } from './alac-config';
import { decodeResiduals } from './alac-adaptive-golomb';
import type { AlacBitReader } from './alac-bit-reader';
import { ALAC_FAULT } from './alac-faults';
import { unpredict } from './alac-predictor';

/** The 3-bit element tags (ALACAudioTypes.h). */
export const ALAC_ELEMENT = {
  /** Single channel element. */
  sce: 0,
  /** Channel pair element. */
  cpe: 1,
  /** Coupling channel element (never in ALAC). */
  cce: 2,
  /** Low-frequency element: a single channel. */
  lfe: 3,
  /** Data stream element: skipped. */
  dse: 4,
  /** Program config element (never in ALAC). */
  pce: 5,
  /** Fill element: skipped. */
  fil: 6,
  end: 7,
} as const;

/** Predictor mode 0 runs the predictor once; any other (15 in practice) first runs the first-order one. */
const MODE_PLAIN = 0;
const FIRST_ORDER = 31;

/** Buffers a frame is decoded through, sized for the config's frame length. */
export class AlacScratch {
  /** One channel's residuals, then its samples (a pair's first). */
  first = new Int32Array(0);
  /** A pair's second channel. */
  second = new Int32Array(0);
  /** The shifted-out low bits of each sample, interleaved per pair like the stream. */
  shifted = new Int32Array(0);
  readonly coefficients = [new Int16Array(32), new Int16Array(32)];
  /** Each channel's predictor parameters, read before any residual. */
  readonly modes = [0, 0];
  readonly denShifts = [0, 0];
  readonly pbFactors = [0, 0];
  readonly orders = [0, 0];
  /** The element's mixing and shift, from its header to its output. */
  mixBits = 0;
  mixRes = 0;
  shiftBits = 0;

  fit(frameLength: number): void {
    if (this.first.length >= frameLength) return;
    this.first = new Int32Array(frameLength);
    this.second = new Int32Array(frameLength);
    this.shifted = new Int32Array(2 * frameLength);
  }
}

/**
 * Decodes the frame loaded in `reader` into `output`, interleaved (frame by frame, each channel
 * at its index): an Int32Array gets the samples as they are, an Int16Array their top 16 bits.
 * `output` holds config.frameLength * config.numChannels samples. Returns the samples per channel
 * (frameLength, or fewer for a partial frame), or a fault of ALAC_FAULT negated.
 */
export function decodeAlacFrame(config: AlacConfig, reader: AlacBitReader, output: Int16Array | Int32Array, scratch: AlacScratch): number {
  const channels = config.numChannels;
  const outShift = output instanceof Int16Array ? config.bitDepth - 16 : 0;
  scratch.fit(config.frameLength);
  let channelIndex = 0;
  let frameSamples = -1;
  while (channelIndex < channels) {
    const tag = reader.read(3);
    if (reader.overrun) return -ALAC_FAULT.truncated;
    if (tag === ALAC_ELEMENT.end) break;
    if (tag === ALAC_ELEMENT.fil) {
      let count = reader.read(4);
      if (count === 15) count += reader.read(8) - 1;
      reader.skip(count * 8);
      if (reader.overrun) return -ALAC_FAULT.truncated;
      continue;
    }
    if (tag === ALAC_ELEMENT.dse) {
      reader.skip(4); // element instance tag
      const aligned = reader.read(1);
      let count = reader.read(8);
      if (count === 255) count += reader.read(8);
      if (aligned === 1) reader.align();
      reader.skip(count * 8);
      if (reader.overrun) return -ALAC_FAULT.truncated;
      continue;
    }
    if (tag === ALAC_ELEMENT.cce || tag === ALAC_ELEMENT.pce) return -ALAC_FAULT.unsupportedElement;
    const pair = tag === ALAC_ELEMENT.cpe ? 2 : 1;
    const samples = decodeElement(config, reader, pair, scratch);
    if (samples < 0) return samples;
    if (frameSamples >= 0 && samples !== frameSamples) return -ALAC_FAULT.sampleCountMismatch;
    frameSamples = samples;
    if (channelIndex + pair > channels) return -ALAC_FAULT.tooManyChannels;
    writeElement(scratch, output, samples, pair, channels, channelIndex, outShift);
    channelIndex += pair;
  }
  if (channelIndex < channels) return -ALAC_FAULT.missingChannels;
  return frameSamples;
}

/** Decodes one SCE (pair 1) or CPE (pair 2) into scratch; returns its samples per channel or a fault negated. */
function decodeElement(config: AlacConfig, reader: AlacBitReader, pair: number, scratch: AlacScratch): number {
  reader.skip(4 + 12); // element instance tag, 12 unused bits
  const partial = reader.read(1);
  const bytesShifted = reader.read(2);
  const escape = reader.read(1);
  const samples = partial === 1 ? reader.read(32) : config.frameLength;
  if (reader.overrun) return -ALAC_FAULT.truncated;
  if (bytesShifted === 3) return -ALAC_FAULT.badShift;
  if (samples > config.frameLength) return -ALAC_FAULT.tooManySamples;
  if (samples === 0) return -ALAC_FAULT.noSamples;
  const { first, second, modes, denShifts, pbFactors, orders } = scratch;
  if (escape === 1) {
    // Verbatim samples of the full depth, interleaved.
    const bits = config.bitDepth;
    if (reader.pos + samples * pair * bits > reader.end) return -ALAC_FAULT.truncated;
    for (let i = 0; i < samples; i++) {
      first[i] = reader.readSigned(bits);
      if (pair === 2) second[i] = reader.readSigned(bits);
    }
    scratch.mixBits = 0;
    scratch.mixRes = 0;
    scratch.shiftBits = 0;
    return samples;
  }
  scratch.mixBits = reader.read(8);
  scratch.mixRes = reader.readSigned(8);
  for (let channel = 0; channel < pair; channel++) {
    const header = reader.read(8);
    modes[channel] = header >>> 4;
    denShifts[channel] = header & 15;
    const predictor = reader.read(8);
    pbFactors[channel] = predictor >>> 5;
    orders[channel] = predictor & 31;
    const coefficients = scratch.coefficients[channel];
    for (let k = 0; k < orders[channel]; k++) coefficients[k] = reader.readSigned(16);
  }
  if (reader.overrun) return -ALAC_FAULT.truncated;
  const shiftBits = bytesShifted * 8;
  scratch.shiftBits = shiftBits;
  if (shiftBits > 0) {
    // The low bytes come first, one per sample and channel, then the residuals of the rest.
    if (reader.pos + samples * pair * shiftBits > reader.end) return -ALAC_FAULT.truncated;
    const shifted = scratch.shifted;
    for (let i = 0; i < samples * pair; i++) shifted[i] = reader.read(shiftBits);
  }
  // A pair's difference channel needs one bit more than the samples.
  const sampleBits = config.bitDepth - shiftBits + pair - 1;
  // ffmpeg writes kb = 0 (with pb and mb) in the cookie of streams it writes all verbatim
  // (compression level 0); a compressed element there would read Rice codes of k = 0, which no
  // decoder defines: k is at least 1.
  const kLimit = config.kb > 0 ? config.kb : 1;
  for (let channel = 0; channel < pair; channel++) {
    const buffer = channel === 0 ? first : second;
    const multiplier = (config.pb * pbFactors[channel]) >> 2;
    const fault = decodeResiduals(reader, buffer, samples, sampleBits, multiplier, config.mb, kLimit);
    if (fault !== 0) return -fault;
    if (modes[channel] !== MODE_PLAIN) unpredict(buffer, samples, scratch.coefficients[channel], FIRST_ORDER, sampleBits, 0);
    unpredict(buffer, samples, scratch.coefficients[channel], orders[channel], sampleBits, denShifts[channel]);
  }
  return samples;
}

/** Writes the element in scratch to output at channel `channelIndex`: unmixed, the shifted bits put back. */
function writeElement(scratch: AlacScratch, output: Int16Array | Int32Array, samples: number, pair: number, stride: number, channelIndex: number, outShift: number): void {
  const first = scratch.first;
  const second = scratch.second;
  const { shifted, mixBits, mixRes, shiftBits } = scratch;
  let at = channelIndex;
  if (pair === 1) {
    for (let i = 0; i < samples; i++, at += stride) {
      const value = shiftBits === 0 ? first[i] : (first[i] << shiftBits) | shifted[i];
      output[at] = value >> outShift;
    }
    return;
  }
  for (let i = 0; i < samples; i++, at += stride) {
    let left = first[i];
    let right = second[i];
    if (mixRes !== 0) {
      // first = a weighted mid, second = the difference: left = mid + diff - weight * diff.
      left = (first[i] + second[i] - (Math.imul(mixRes, second[i]) >> mixBits)) | 0;
      right = (left - second[i]) | 0;
    }
    if (shiftBits !== 0) {
      left = (left << shiftBits) | shifted[2 * i];
      right = (right << shiftBits) | shifted[2 * i + 1];
    }
    output[at] = left >> outShift;
    output[at + 1] = right >> outShift;
  }
}
