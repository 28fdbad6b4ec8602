// The jitter buffer: packets placed by 16-bit sequence number across the wrap, taken in order;
// late, outside-the-window and duplicate packets refused by name; a gap reported once, when the
// packet past it arrives.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JitterBuffer, sequenceAhead } from '../../src/audio/jitter-buffer';

test('sequence numbers wrap at 2^16', () => {
  assert.equal(sequenceAhead(2, 65534), 4);
  assert.equal(sequenceAhead(65534, 2), 65532);
  assert.equal(sequenceAhead(7, 7), 0);
});

test('packets come out in sequence order across the wrap, whatever order they went in (a ring of 100, which 65536 is no multiple of)', () => {
  const buffer = new JitterBuffer<number>(100);
  const order = [65530, 65532, 65531, 65535, 0, 65533, 65534, 3, 1, 2];
  const gaps: unknown[] = [];
  for (const seq of order) {
    const result = buffer.place(seq, seq);
    assert.ok(result.placed, `${seq}`);
    if (result.gap) gaps.push(result.gap);
  }
  assert.deepEqual(gaps, [{ firstSequence: 65531, count: 1 }, { firstSequence: 65533, count: 2 }, { firstSequence: 1, count: 2 }]);
  const out: (number | undefined)[] = [];
  while (buffer.size > 0) out.push(buffer.take());
  assert.deepEqual(out, [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3]);
  assert.equal(buffer.cursor, 4);
});

test('late, outside the window and duplicate packets are refused; a missing one is taken as undefined', () => {
  const buffer = new JitterBuffer<string>(4);
  buffer.start(10);
  assert.deepEqual(buffer.place(9, 'x'), { placed: false, refused: 'late' });
  assert.deepEqual(buffer.place(14, 'x'), { placed: false, refused: 'window' });
  assert.deepEqual(buffer.place(11, 'b'), { placed: true, gap: { firstSequence: 10, count: 1 } });
  assert.deepEqual(buffer.place(11, 'b'), { placed: false, refused: 'duplicate' });
  assert.equal(buffer.check(13), undefined);
  assert.equal(buffer.take(), undefined, '10 is missing');
  assert.equal(buffer.take(), 'b');
  assert.deepEqual(buffer.place(12, 'c'), { placed: true }, 'no gap: 12 follows 11');
  assert.deepEqual(buffer.place(10, 'late'), { placed: false, refused: 'late' });
  assert.equal(buffer.holdsAhead, true);
  buffer.clear();
  assert.equal(buffer.cursor, undefined);
  assert.deepEqual(buffer.place(500, 'new'), { placed: true }, 'after a clear, the next packet starts the stream');
});

test('a missing packet the cursor passed is not a gap again when the one after it comes', () => {
  const buffer = new JitterBuffer<number>(8);
  buffer.start(0);
  assert.equal(buffer.take(), undefined);
  assert.equal(buffer.take(), undefined);
  assert.deepEqual(buffer.place(2, 2), { placed: true });
  assert.deepEqual(buffer.place(4, 4), { placed: true, gap: { firstSequence: 3, count: 1 } });
});
