// An ALAC encoder for realtime audio: 16-bit PCM frames of 352 (or any config's frameLength) into
// ALAC frames the receiver's decoder (src/audio/alac), Apple's and ffmpeg's read. ffmpeg's own
// encoder cannot do this: it fixes every frame at 4096 samples (alacenc.c sets
// avctx->frame_size = DEFAULT_FRAME_SIZE; `-frame_size 352` is ignored), and RAOP streams are
// 352 frames per packet. So the sender encodes its own, compressed as the format allows:
// - a stereo pair is sent as left/right, mid/side or left/side (mixBits, mixRes), whichever is smaller;
// - each channel's predictor is the one of PREDICTORS that codes smallest (the decoder adapts
//   the coefficients as it goes, and so does predict() here);
// - residuals in adaptive Golomb-Rice codes (alac-golomb-encoder.ts);
// - a frame that would come out larger than its samples is sent verbatim (the escape flag).

import { ALAC_ELEMENT, realtimeAlacConfig, type AlacConfig } from '../../src/audio/alac';
import { AlacBitWriter } from './alac-bit-writer';
import { encodeResiduals } from './alac-golomb-encoder';
import { predict } from './alac-predictor-encoder';

/** RAOP's ALAC stream: 352 frames of 16-bit stereo at 44100 Hz (the fmtp of every sender: `352 0 16 40 10 14 2 255 0 0 44100`). */
export const RAOP_ALAC_CONFIG: AlacConfig = realtimeAlacConfig(352, 44100, 2);

/** pbFactor 4: the history multiplier is pb * 4 / 4 = pb, as Apple's encoder sends. */
const PB_FACTOR = 4;
/** Predictor mode 0: the predictor runs once (mode 15 would run the first-order one before it). */
const MODE_PLAIN = 0;

/**
 * The predictors tried per channel (coefficients in units of 2^-denShift): none (silence, noise),
 * and adaptive ones starting as x[n-1] and as 2x[n-1] - x[n-2], some with more taps the adaptation
 * may grow into. Not order 31 (the fixed first-order one): decoders read 31 coefficients with it,
 * 62 bytes per channel per frame for nothing.
 */
const PREDICTORS: readonly { readonly order: number; readonly denShift: number; readonly start: readonly number[] }[] = [
  // ffmpeg refuses a denShift of 0 even where no coefficient uses it.
  { order: 0, denShift: 9, start: [] },
  { order: 1, denShift: 9, start: [512] },
  { order: 2, denShift: 9, start: [1024, -512] },
  { order: 4, denShift: 9, start: [1024, -512, 0, 0] },
  { order: 8, denShift: 9, start: [1024, -512, 0, 0, 0, 0, 0, 0] },
];

/** Stereo mixes tried (decoder: left = u + v - (mixRes * v >> mixBits), right = left - v). */
const MIXES: readonly { readonly mixBits: number; readonly mixRes: number }[] = [
  { mixBits: 0, mixRes: 0 }, // left, right
  { mixBits: 1, mixRes: 1 }, // mid (l + r) >> 1, side l - r
  { mixBits: 1, mixRes: 2 }, // left, side
];

export interface AlacEncoder {
  readonly config: AlacConfig;
  /**
   * One ALAC frame of `frames` frames (1 to frameLength) of interleaved 16-bit samples; fewer
   * than frameLength say their count in the frame. The result is a new array.
   */
  encode(pcm: Int16Array, frames: number): Uint8Array;
}

interface ChannelChoice {
  predictor: number;
  bits: number;
}

/** An encoder for 16-bit streams of one or two channels. */
export function createAlacEncoder(config: AlacConfig = RAOP_ALAC_CONFIG): AlacEncoder {
  const { frameLength, numChannels: channels } = config;
  if (config.bitDepth !== 16) throw new RangeError(`ALAC encoder: bit depth ${config.bitDepth}; it encodes 16-bit PCM`);
  if (channels !== 1 && channels !== 2) throw new RangeError(`ALAC encoder: ${channels} channels; it encodes 1 or 2`);
  const multiplier = (config.pb * PB_FACTOR) >> 2;
  // Header (at most 23 bits, 32 more for a count), the predictors' parameters, the samples
  // verbatim, the end tag: a verbatim frame always fits, and trial encodings stop being useful past it.
  const verbatimBits = 3 + 4 + 12 + 4 + 32 + frameLength * channels * 16 + 3;
  const capacity = Math.ceil(verbatimBits / 8) + 2 * (2 + 2 + 16 * 2) + 64;
  const out = new AlacBitWriter(capacity);
  // One channel's residuals on trial: at most an escaped value (9 + 17 bits) and an escaped run
  // (9 + 16) per sample, however badly a predictor does.
  const trial = new AlacBitWriter(Math.ceil((frameLength * 51) / 8) + 8);
  const input = [new Int32Array(frameLength), new Int32Array(frameLength)];
  const mixed = [new Int32Array(frameLength), new Int32Array(frameLength)];
  const residuals = new Int32Array(frameLength);
  const coefficients = new Int16Array(32);

  /** Residuals of `samples` under predictor `index`, with its starting coefficients (adapted into `coefficients`). */
  const runPredictor = (samples: Int32Array, frames: number, index: number, sampleBits: number): void => {
    const { order, denShift, start } = PREDICTORS[index];
    coefficients.fill(0);
    coefficients.set(start);
    predict(samples, residuals, frames, coefficients, order, sampleBits, denShift);
  };

  /** The smallest predictor for one channel, and its bits (Infinity when none can be sent). */
  const bestPredictor = (samples: Int32Array, frames: number, sampleBits: number): ChannelChoice => {
    let best: ChannelChoice = { predictor: 0, bits: Infinity };
    for (let index = 0; index < PREDICTORS.length; index++) {
      runPredictor(samples, frames, index, sampleBits);
      trial.reset();
      if (!encodeResiduals(trial, residuals, frames, sampleBits, multiplier, config.mb, config.kb)) continue;
      const bits = trial.bitLength + 16 + 16 * PREDICTORS[index].order;
      if (bits < best.bits) best = { predictor: index, bits };
    }
    return best;
  };

  const writeHeader = (frames: number, escape: boolean): void => {
    out.write(3, channels === 2 ? ALAC_ELEMENT.cpe : ALAC_ELEMENT.sce);
    out.write(4, 0); // element instance tag
    out.write(12, 0); // unused
    const partial = frames !== frameLength;
    out.write(1, partial ? 1 : 0);
    out.write(2, 0); // bytes shifted: none for 16-bit samples
    out.write(1, escape ? 1 : 0);
    if (partial) out.write(32, frames);
  };

  const writeVerbatim = (pcm: Int16Array, frames: number): Uint8Array => {
    out.reset();
    writeHeader(frames, true);
    for (let i = 0; i < frames * channels; i++) out.write(16, pcm[i]);
    out.write(3, ALAC_ELEMENT.end);
    return out.finish().slice();
  };

  return {
    config,
    encode(pcm, frames) {
      if (!Number.isInteger(frames) || frames < 1 || frames > frameLength) throw new RangeError(`ALAC encoder: ${frames} frames; 1 to ${frameLength}`);
      if (pcm.length < frames * channels) throw new RangeError(`ALAC encoder: ${pcm.length} samples for ${frames} frames of ${channels} channels`);
      for (let c = 0; c < channels; c++) for (let i = 0; i < frames; i++) input[c][i] = pcm[i * channels + c];

      // A pair's second channel (a difference) needs one bit more than the samples; decoders
      // size both channels of a pair so.
      const sampleBits = 16 + channels - 1;
      let mix = MIXES[0];
      let choices: ChannelChoice[] = [];
      let total = Infinity;
      for (const candidate of channels === 2 ? MIXES : MIXES.slice(0, 1)) {
        mixChannels(input, mixed, frames, candidate.mixBits, candidate.mixRes, channels);
        const picked = mixed.slice(0, channels).map((samples) => bestPredictor(samples, frames, sampleBits));
        const bits = picked.reduce((sum, choice) => sum + choice.bits, 0);
        if (bits < total) {
          total = bits;
          mix = candidate;
          choices = picked;
        }
      }
      if (!(total + 64 < frames * channels * 16)) return writeVerbatim(pcm, frames);

      mixChannels(input, mixed, frames, mix.mixBits, mix.mixRes, channels);
      out.reset();
      writeHeader(frames, false);
      out.write(8, mix.mixBits);
      out.write(8, mix.mixRes);
      for (let c = 0; c < channels; c++) {
        const { order, denShift, start } = PREDICTORS[choices[c].predictor];
        out.write(4, MODE_PLAIN);
        out.write(4, denShift);
        out.write(3, PB_FACTOR);
        out.write(5, order);
        for (let k = 0; k < order; k++) out.write(16, start[k]);
      }
      for (let c = 0; c < channels; c++) {
        runPredictor(mixed[c], frames, choices[c].predictor, sampleBits);
        encodeResiduals(out, residuals, frames, sampleBits, multiplier, config.mb, config.kb);
      }
      out.write(3, ALAC_ELEMENT.end);
      return out.finish().slice();
    },
  };
}

/**
 * Mixes a pair as the decoder unmixes it: u = (mixRes * left + (2^mixBits - mixRes) * right) >> mixBits,
 * v = left - right; with mixRes 0 the channels stay as they are (one channel: copied).
 */
function mixChannels(input: Int32Array[], mixed: Int32Array[], frames: number, mixBits: number, mixRes: number, channels: number): void {
  const [left, right] = input;
  if (channels === 1 || mixRes === 0) {
    for (let c = 0; c < channels; c++) mixed[c].set(input[c].subarray(0, frames));
    return;
  }
  const rightWeight = (1 << mixBits) - mixRes;
  for (let i = 0; i < frames; i++) {
    mixed[0][i] = (mixRes * left[i] + rightWeight * right[i]) >> mixBits;
    mixed[1][i] = left[i] - right[i];
  }
}
