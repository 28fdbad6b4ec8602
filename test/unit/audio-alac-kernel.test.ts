// The ALAC kernel's portable build (src/audio/alac/alac-kernel.ts) on the shared vectors
// (test/vectors/alac.json, made by ffmpeg's encoder: every sample compared) and its refusals.
// Runs on Node and inside XS (test/xs); the WebAssembly and C builds run the same vectors
// (test/kernels/alac-kernel.test.ts, test/kernels/xs-host-suite.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { portableAlacKernel } from '../../src/audio/alac';
import { alacVectors, registerAlacVectorTests } from '../kernels/alac-vectors';

registerAlacVectorTests(portableAlacKernel);

test('the portable kernel refuses an output too small for a frame with a RangeError', () => {
  const { config } = alacVectors.cases[1];
  assert.throws(() => portableAlacKernel.decode(config, new Uint8Array(8), new Int16Array(config.frameLength - 1)), /output of 4095 samples: a frame needs 4096/);
});
