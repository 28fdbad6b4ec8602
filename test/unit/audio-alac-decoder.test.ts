// The ALAC decoder (src/audio/alac/alac-decoder.ts): 16-bit PCM per packet in a new array each
// time (the playout buffer keeps it), a partial frame's shorter array, configs refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex } from '../../src/bytes';
import { AudioDecodeError, alacConfigFromCookie, createAlacDecoder, type AlacKernel } from '../../src/audio/alac';
import { alacVectors, casePackets } from '../kernels/alac-vectors';

test('decode returns a new Int16Array per packet, frames x channels long, shorter for a partial frame', () => {
  const vector = alacVectors.cases[3]; // stereo, a full frame and a partial one
  const decoder = createAlacDecoder(alacConfigFromCookie(fromHex(vector.cookie)));
  const [full, partial] = casePackets(vector);
  const first = decoder.decode(full);
  const again = decoder.decode(full);
  assert.notEqual(first, again);
  assert.deepEqual(first, again);
  assert.equal(first.length, 4096 * 2);
  assert.equal(decoder.decode(partial).length, (vector.frames - 4096) * 2);
});

test('createAlacDecoder refuses a bit depth it cannot decode with an AudioDecodeError', () => {
  const { config } = alacVectors.cases[0];
  for (const bitDepth of [0, 8, 15, 32]) assert.throws(() => createAlacDecoder({ ...config, bitDepth }), AudioDecodeError, `bit depth ${bitDepth}`);
});

test('the decoder runs on the kernel it is given, with an output of a full frame of the right sample type', () => {
  const { config } = alacVectors.cases[0];
  const calls: string[] = [];
  const kernel: AlacKernel = {
    name: 'recording',
    decode(_config, packet, output) {
      calls.push(`${output.constructor.name} ${output.length} ${packet.length}`);
      return 10;
    },
  };
  const decoder = createAlacDecoder(config, kernel);
  assert.equal(decoder.decode(new Uint8Array(3)).length, 20);
  assert.equal(decoder.decodeSamples(new Uint8Array(4)).length, 20);
  assert.deepEqual(calls, ['Int16Array 8192 3', 'Int32Array 8192 4']);
});
