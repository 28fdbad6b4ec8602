// An ALAC frame's elements (src/audio/alac/alac-frame.ts) on frames written by hand: verbatim
// single and pair elements, LFE as a single channel, the frame ending without END once every
// channel has its samples, and elements of one frame that disagree on their sample count.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALAC_ELEMENT, ALAC_FAULT, type AlacConfig } from '../../src/audio/alac';
import { AlacBitReader } from '../../src/audio/alac/alac-bit-reader';
import { AlacScratch, decodeAlacFrame } from '../../src/audio/alac/alac-frame';
import { escapeElement, packBits } from '../kernels/alac-vectors';

const MONO: AlacConfig = { frameLength: 8, compatibleVersion: 0, bitDepth: 16, pb: 40, mb: 10, kb: 14, numChannels: 1, maxRun: 255, maxFrameBytes: 0, avgBitRate: 0, sampleRate: 44100 };
const END = '111';

function decodeBits(config: AlacConfig, bits: string, output: Int16Array | Int32Array): number {
  const reader = new AlacBitReader();
  reader.load(packBits(bits));
  return decodeAlacFrame(config, reader, output, new AlacScratch());
}

test('a verbatim single channel element of 3 samples, then END: 3 frames', () => {
  const output = new Int16Array(8);
  assert.equal(decodeBits(MONO, escapeElement(ALAC_ELEMENT.sce, [[1, -2, 32767]], 16, true) + END, output), 3);
  assert.deepEqual([...output.subarray(0, 3)], [1, -2, 32767]);
});

test('a full frame needs no sample count, and the frame ends once every channel has its samples (END not read)', () => {
  const samples = [0, 1, 2, 3, 4, 5, 6, -7];
  const output = new Int16Array(8);
  assert.equal(decodeBits(MONO, escapeElement(ALAC_ELEMENT.lfe, [samples], 16, false), output), 8);
  assert.deepEqual([...output], samples);
});

test('a verbatim 24-bit pair interleaves left and right; an Int16Array output gets their top 16 bits', () => {
  const config = { ...MONO, bitDepth: 24, numChannels: 2 };
  const bits = escapeElement(ALAC_ELEMENT.cpe, [[0x123456, -1], [-0x800000, 0x7fffff]], 24, true) + END;
  const wide = new Int32Array(16);
  assert.equal(decodeBits(config, bits, wide), 2);
  assert.deepEqual([...wide.subarray(0, 4)], [0x123456, -0x800000, -1, 0x7fffff]);
  const narrow = new Int16Array(16);
  decodeBits(config, bits, narrow);
  assert.deepEqual([...narrow.subarray(0, 4)], [0x1234, -0x8000, -1, 0x7fff]);
});

test('two single channels of a stereo frame with different sample counts are refused', () => {
  const config = { ...MONO, numChannels: 2 };
  const bits = escapeElement(ALAC_ELEMENT.sce, [[1, 2]], 16, true) + escapeElement(ALAC_ELEMENT.sce, [[1, 2, 3]], 16, true) + END;
  assert.equal(decodeBits(config, bits, new Int16Array(16)), -ALAC_FAULT.sampleCountMismatch);
  const same = escapeElement(ALAC_ELEMENT.sce, [[1, 2]], 16, true) + escapeElement(ALAC_ELEMENT.sce, [[3, 4]], 16, true) + END;
  const output = new Int16Array(16);
  assert.equal(decodeBits(config, same, output), 2);
  assert.deepEqual([...output.subarray(0, 4)], [1, 3, 2, 4]);
});

test('an empty packet and a verbatim element cut short are truncated', () => {
  assert.equal(decodeBits(MONO, '', new Int16Array(8)), -ALAC_FAULT.truncated);
  const cut = escapeElement(ALAC_ELEMENT.sce, [[1, 2, 3]], 16, true).replace(/\s+/g, '').slice(0, -16);
  assert.equal(decodeBits(MONO, cut, new Int16Array(8)), -ALAC_FAULT.truncated);
});
