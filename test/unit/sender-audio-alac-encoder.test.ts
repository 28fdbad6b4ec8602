// The sender's ALAC encoder (sender/audio/alac-*.ts): its bit writer and Golomb-Rice codes bit
// for bit, and whole frames read back exactly by the receiver's decoder (src/audio/alac) for
// signals that reach every branch: silence (runs of zeros), tones, noise, full-scale steps
// (escapes, the verbatim fallback), partial frames, one channel. ffmpeg's reading of the same
// frames is test/oracle/alac-encoder.oracle.test.ts. Runs on Node and inside XS (test/xs).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAlacDecoder } from '../../src/audio/alac';
import { AlacBitWriter } from '../../sender/audio/alac-bit-writer';
import { encodeResiduals, foldSign, writeGolomb } from '../../sender/audio/alac-golomb-encoder';
import { FIRST_ORDER, predict } from '../../sender/audio/alac-predictor-encoder';
import { RAOP_ALAC_CONFIG, createAlacEncoder } from '../../sender/audio/alac-encoder';
import { makeRng } from '../support/arbitrary';

const bits = (writer: AlacBitWriter): string =>
  Array.from(writer.finish(), (byte) => byte.toString(2).padStart(8, '0'))
    .join('')
    .slice(0, writer.bitLength);

test('the bit writer puts bits most significant first, across bytes, and 32-bit fields whole', () => {
  const writer = new AlacBitWriter(16);
  writer.write(3, 1);
  writer.write(4, 0);
  writer.write(1, 1);
  writer.write(32, 352);
  writer.write(16, -2);
  assert.equal(bits(writer), '001' + '0000' + '1' + (352).toString(2).padStart(32, '0') + '1111111111111110');
  assert.deepEqual(Array.from(writer.finish()), [0x21, 0, 0, 0x01, 0x60, 0xff, 0xfe]);
  writer.reset();
  writer.write(3, 7);
  assert.deepEqual(Array.from(writer.finish()), [0xe0]);
  assert.throws(() => new AlacBitWriter(1).write(16, 0), RangeError);
});

test('Golomb-Rice codes: unary quotient by 2^k - 1, remainder r + 1 in k bits or k - 1 zeros, escape after nine 1s', () => {
  const code = (value: number, k: number, escapeBits = 17) => {
    const writer = new AlacBitWriter(16);
    writeGolomb(writer, value, k, escapeBits);
    return bits(writer);
  };
  assert.equal(code(0, 1), '0');
  assert.equal(code(3, 1), '1110');
  assert.equal(code(0, 3), '0' + '00'); // remainder 0: k - 1 zero bits
  assert.equal(code(1, 3), '0' + '010'); // remainder 1 sent as 2 in 3 bits
  assert.equal(code(6, 3), '0' + '111');
  assert.equal(code(7, 3), '10' + '00'); // 7 = 1 * (2^3 - 1) + 0
  assert.equal(code(9, 3), '10' + '011');
  assert.equal(code(8 * 7 + 6, 3), '111111110' + '111'); // quotient 8: the longest prefix
  assert.equal(code(9 * 7, 3), '111111111' + (63).toString(2).padStart(17, '0')); // quotient 9: escape
  assert.equal(code(9, 1, 16), '111111111' + '0000000000001001');
});

test('foldSign sends 0, -1, 1, -2, 2 as 0, 1, 2, 3, 4', () => {
  assert.deepEqual([0, -1, 1, -2, 2, -65536, 65535].map(foldSign), [0, 1, 2, 3, 4, 131071, 131070]);
});

test('after a run of zeros the next value is sent less one, and the history restarts at 0', () => {
  // History 10 (< 128) after the first value: a run length follows it at once.
  const writer = new AlacBitWriter(64);
  assert.equal(encodeResiduals(writer, Int32Array.from([0, 0, 0, 1]), 4, 17, 40, 10, 14), true);
  // value 0 at k 1: '0'; history 10 -> run k = clz32(10) - 24 + 0 = 4, the run of 2 as '0' and
  // 3 in 4 bits; then 1 (folded 2) less one = 1 at k = floor(log2(0 + 3)) = 1: '10'.
  assert.equal(bits(writer), '0' + '0' + '0011' + '10');
});

test('encodeResiduals refuses the one value decoders step differently on: 0xFFFF right after a run', () => {
  const writer = new AlacBitWriter(64);
  // -32768 folds to 65535 and is sent as 65534 after a run: fine. 32768 folds to 65536, sent as 65535.
  assert.equal(encodeResiduals(writer, Int32Array.from([0, 0, -32768]), 3, 17, 40, 10, 14), true);
  writer.reset();
  assert.equal(encodeResiduals(writer, Int32Array.from([0, 0, 32768]), 3, 17, 40, 10, 14), false);
});

test('the first-order predictor sends differences, wrapped to the sample width', () => {
  const samples = Int32Array.from([100, 90, -32768, 32767]);
  const residuals = new Int32Array(4);
  predict(samples, residuals, 4, new Int16Array(32), FIRST_ORDER, 16, 0);
  assert.deepEqual(Array.from(residuals), [100, -10, -32768 - 90 + 65536, -1]);
  predict(samples, residuals, 4, new Int16Array(32), FIRST_ORDER, 17, 0);
  assert.deepEqual(Array.from(residuals), [100, -10, -32858, 65535]);
});

test('an adaptive predictor started as 2x[n-1] - x[n-2] predicts a ramp exactly after its warm-up', () => {
  const samples = Int32Array.from({ length: 20 }, (_, i) => 100 + 7 * i);
  const residuals = new Int32Array(20);
  predict(samples, residuals, 20, Int16Array.from([1024, -512]), 2, 17, 9);
  assert.deepEqual(Array.from(residuals.subarray(0, 3)), [100, 7, 7]);
  assert.ok(residuals.subarray(3).every((residual) => residual === 0), String(residuals));
});

/** Interleaved 16-bit test signals of `frames` frames, `channels` channels. */
function signal(kind: string, frames: number, channels: number, seed = 1): Int16Array {
  const rng = makeRng(seed);
  const pcm = new Int16Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      let value = 0;
      if (kind === 'tone') value = Math.round(12000 * Math.sin((2 * Math.PI * 440 * i) / 44100 + c) + 3000 * Math.sin((2 * Math.PI * 1250 * i) / 44100));
      else if (kind === 'noise') value = rng.int(-32768, 32767);
      else if (kind === 'quiet noise') value = rng.int(-3, 3);
      else if (kind === 'square') value = Math.floor(i / 17) % 2 === 0 ? 32767 : -32768;
      else if (kind === 'step after silence') value = i < 200 ? 0 : c === 0 ? 32767 : -32768;
      else if (kind === 'sparse clicks') value = i % 50 === 49 ? (c === 0 ? 32767 : -32768) : 0;
      else if (kind === 'same both sides') value = Math.round(9000 * Math.sin((2 * Math.PI * 300 * i) / 44100));
      pcm[i * channels + c] = value;
    }
  }
  return pcm;
}

const KINDS = ['silence', 'tone', 'noise', 'quiet noise', 'square', 'step after silence', 'sparse clicks', 'same both sides'];

for (const channels of [2, 1]) {
  const config = { ...RAOP_ALAC_CONFIG, numChannels: channels };
  for (const kind of KINDS) {
    test(`${channels}-channel ${kind}: the receiver's decoder reads back every sample, full and partial frames`, () => {
      const encoder = createAlacEncoder(config);
      const decoder = createAlacDecoder(config);
      for (const frames of [352, 351, 100, 1]) {
        const pcm = signal(kind, frames, channels);
        const frame = encoder.encode(pcm, frames);
        assert.deepEqual(decoder.decode(frame), pcm, `${frames} frames`);
      }
    });
  }
}

/** A seeded frame of random segments: silence, DC, noise of a random size, tones, squares, a random walk; the right channel related to the left at random. */
function randomFrame(seed: number, frames: number): Int16Array {
  const rng = makeRng(seed);
  const pcm = new Int16Array(frames * 2);
  const clamp = (value: number) => Math.max(-32768, Math.min(32767, Math.round(value)));
  let walk = 0;
  for (let i = 0; i < frames; ) {
    const length = Math.min(frames - i, rng.int(1, 120));
    const kind = rng.int(0, 5);
    const amplitude = 2 ** rng.int(0, 15);
    const period = rng.int(2, 200);
    const level = rng.int(-32768, 32767);
    const right = rng.int(0, 3);
    for (let j = 0; j < length; j++, i++) {
      let left = 0;
      if (kind === 1) left = level;
      else if (kind === 2) left = rng.int(-amplitude, amplitude - 1);
      else if (kind === 3) left = amplitude * Math.sin((2 * Math.PI * i) / period);
      else if (kind === 4) left = Math.floor(i / period) % 2 === 0 ? amplitude - 1 : -amplitude;
      else if (kind === 5) left = walk = clamp(walk + rng.int(-amplitude, amplitude) / 8);
      pcm[2 * i] = clamp(left);
      pcm[2 * i + 1] = right === 0 ? pcm[2 * i] : right === 1 ? clamp(-left) : right === 2 ? clamp(left / 2 + rng.int(-3, 3)) : rng.int(-32768, 32767);
    }
  }
  return pcm;
}

test('300 seeded frames of random segments, full and partial: the receiver\'s decoder reads back every sample', () => {
  const encoder = createAlacEncoder();
  const decoder = createAlacDecoder(RAOP_ALAC_CONFIG);
  for (let seed = 1; seed <= 300; seed++) {
    const frames = seed % 5 === 0 ? 1 + (seed % 352) : 352;
    const pcm = randomFrame(seed, frames);
    assert.deepEqual(decoder.decode(encoder.encode(pcm, frames)), pcm, `seed ${seed}`);
  }
});

test('frames are compressed where the signal allows, and never larger than verbatim', () => {
  const encoder = createAlacEncoder();
  const verbatimBytes = Math.ceil((23 + 352 * 2 * 16 + 3) / 8);
  assert.ok(encoder.encode(signal('silence', 352, 2), 352).length < 20);
  assert.ok(encoder.encode(signal('tone', 352, 2), 352).length < 0.6 * verbatimBytes);
  assert.ok(encoder.encode(signal('same both sides', 352, 2), 352).length < 0.4 * verbatimBytes);
  assert.equal(encoder.encode(signal('noise', 352, 2), 352).length, verbatimBytes);
});

test('the encoder refuses a frame count outside 1 to frameLength and a depth or channel count it does not encode', () => {
  const encoder = createAlacEncoder();
  assert.throws(() => encoder.encode(new Int16Array(706), 353), RangeError);
  assert.throws(() => encoder.encode(new Int16Array(706), 0), RangeError);
  assert.throws(() => encoder.encode(new Int16Array(10), 352), RangeError);
  assert.throws(() => createAlacEncoder({ ...RAOP_ALAC_CONFIG, bitDepth: 24 }), RangeError);
  assert.throws(() => createAlacEncoder({ ...RAOP_ALAC_CONFIG, numChannels: 3 }), RangeError);
});
