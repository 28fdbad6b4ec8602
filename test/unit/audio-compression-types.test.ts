// The compression types of a session's realtime stream (src/audio/compression-types.ts): the ct
// each codec is sent as and read back from, with the audioFormat senders pair it with.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMPRESSION_TYPES, compressionTypeOf } from '../../src/audio/compression-types';

test('PCM is ct 1 (audioFormat 0x800, as pyatv sends), ALAC ct 2 (0x40000); each codec reads back to its row', () => {
  assert.equal(compressionTypeOf('pcm'), 1);
  assert.equal(compressionTypeOf('alac'), 2);
  assert.equal(COMPRESSION_TYPES[1].audioFormat, 0x800);
  assert.equal(COMPRESSION_TYPES[2].audioFormat, 0x40000);
  for (const codec of ['pcm', 'alac', 'aac'] as const) assert.equal(COMPRESSION_TYPES[compressionTypeOf(codec)].codec, codec);
  assert.equal(COMPRESSION_TYPES[8].codec, undefined, 'AAC-ELD has no decoder here');
});
