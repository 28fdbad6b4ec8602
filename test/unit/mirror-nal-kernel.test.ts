// The portable NAL kernel (src/mirror/nal-kernel.ts) against the shared vectors
// (test/vectors/nal-annexb.json), on Node and inside XS (test/xs/xs.test.ts runs this file), and
// the error it builds for each fault from where a walk stopped (the other builds report only that).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex } from '../../src/bytes';
import { NalError, nalErrorAt, portableNalKernel, readNalLength } from '../../src/mirror/nal-kernel';
import { nalVectors, registerNalVectorTests } from '../support/nal-vectors';

registerNalVectorTests(portableNalKernel);

test('nalErrorAt gives each refused vector its message from the unit index and length-field offset alone', () => {
  for (const vector of nalVectors.errors) {
    const error = nalErrorAt(fromHex(vector.payload), vector.lengthSize, vector.unit, vector.at);
    assert.ok(error instanceof NalError);
    assert.equal(error.message, vector.message, vector.name);
  }
});

test('readNalLength reads big-endian lengths of 1, 2 and 4 bytes, up to 2^32 - 1', () => {
  const bytes = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x01, 0x02);
  assert.equal(readNalLength(bytes, 0, 4), 0xffffffff);
  assert.equal(readNalLength(bytes, 3, 2), 0xff01);
  assert.equal(readNalLength(bytes, 5, 1), 2);
});
