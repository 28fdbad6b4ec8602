// The ALAC faults (src/audio/alac/alac-faults.ts): every build's codes become the same words.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALAC_FAULT, AudioDecodeError, alacFaultError } from '../../src/audio/alac';

test('each fault code has its own words, in an AudioDecodeError naming the packet size', () => {
  const messages = Object.values(ALAC_FAULT).map((code) => alacFaultError(code, 77).message);
  assert.equal(new Set(messages).size, messages.length);
  assert.equal(alacFaultError(ALAC_FAULT.truncated, 77).message, 'ALAC packet of 77 bytes: the packet ends inside the frame');
  assert.ok(alacFaultError(ALAC_FAULT.badShift, 1) instanceof AudioDecodeError);
  assert.equal(alacFaultError(99, 5).message, 'ALAC packet of 5 bytes: fault 99');
});
