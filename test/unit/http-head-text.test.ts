// The text of request-head pieces: kept and handed out again by their bytes (src/http/_head-text.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Encode } from '../../src/bytes';
import { headText } from '../../src/http/_head-text';

/** The text of `piece` placed at an offset inside other bytes, as it sits in a received head. */
function textOf(piece: string, before = 'GET ', after = ' HTTP/1.1'): string {
  const bytes = latin1Encode(before + piece + after);
  return headText(bytes, before.length, before.length + piece.length);
}

test('gives the text of the bytes, the same string again for the same bytes', () => {
  const first = textOf('/server-info');
  assert.equal(first, '/server-info');
  assert.equal(textOf('/server-info', 'POST ', '?'), '/server-info');
  assert.equal(textOf(''), '');
  assert.equal(textOf('caf\u00e9 \u00ff'), 'caf\u00e9 \u00ff');
});

test('pieces that share a slot each come out as their own text', () => {
  // 4000 distinct pieces over 128 slots: every slot is taken over many times, and every answer
  // must still be the text of the bytes asked for, whichever piece the slot held.
  const pieces = Array.from({ length: 4000 }, (_, i) => `/p${i.toString(36)}`);
  for (let round = 0; round < 3; round++) {
    for (const piece of pieces) assert.equal(textOf(piece), piece);
  }
  // Same length, same bytes but one: never confused.
  assert.equal(textOf('abcdefgh'), 'abcdefgh');
  assert.equal(textOf('abcdefgi'), 'abcdefgi');
  assert.equal(textOf('abcdefgh'), 'abcdefgh');
});

test('long pieces are decoded whole', () => {
  const long = `/${'x'.repeat(300)}\u00e9`;
  assert.equal(textOf(long), long);
  assert.equal(textOf(long), long);
});
