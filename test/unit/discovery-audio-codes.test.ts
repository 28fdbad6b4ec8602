// The code tables of the audio service's TXT lists (src/discovery/audio-codes.ts, spec 2.2).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUDIO_CODECS, ENCRYPTION_TYPES, METADATA_TYPES, metadataTypesFor } from '../../src/discovery/audio-codes';
import { featureMask, FEATURE_BITS } from '../../src/discovery/features';

test('no metadata feature bits: an empty md list', () => {
  assert.deepEqual(metadataTypesFor(0n), []);
  assert.deepEqual(metadataTypesFor(featureMask(['Photo', 'Video', 'MetadataFeature4'])), []);
});

test('each metadata feature bit gives its md code, lowest first, whatever the bit order', () => {
  // Bits 17 (text, md 0), 15 (artwork, md 1), 16 (progress, md 2): the codes do not follow the bits.
  assert.deepEqual(metadataTypesFor(featureMask(['MetadataFeature2', 'MetadataFeature0'])), [0, 2]);
  assert.deepEqual(metadataTypesFor(featureMask(['MetadataFeature1'])), [1]);
  assert.deepEqual(metadataTypesFor(featureMask(['MetadataFeature0', 'MetadataFeature1', 'MetadataFeature2'])), [0, 1, 2]);
});

test('codes are unique and ascending in each table, and each md feature is a known bit', () => {
  for (const table of [AUDIO_CODECS, ENCRYPTION_TYPES, METADATA_TYPES]) {
    const codes = table.map((row) => row.code);
    assert.deepEqual(codes, [...new Set(codes)].sort((a, b) => a - b));
  }
  const names = FEATURE_BITS.map((bit) => bit.name as string);
  for (const type of METADATA_TYPES) assert.ok(names.includes(type.feature), type.feature);
});

test('encryption type 2 has no meaning in the spec and is not in the table', () => {
  assert.equal(ENCRYPTION_TYPES.some((row) => (row.code as number) === 2), false);
});
