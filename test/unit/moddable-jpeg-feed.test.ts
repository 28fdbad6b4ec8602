// The Moddable display's feed of a picture arriving in pieces (hosts/moddable/jpeg-feed.ts):
// pieces copied into whole blocks for commodetto's picojpeg wrapper, the last one cut to size
// and the end pushed, what is held, and when a block may be decoded. Portable (runs in XS).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat } from '../../src/bytes';
import { JpegFeed, type PushDecoder } from '../../hosts/moddable/jpeg-feed';

/** Keeps what is pushed as the wrapper does (its `buffers`), until the test reads past it. */
class StandInDecoder implements PushDecoder {
  readonly buffers: ArrayBuffer[] = [];
  readonly pushed: ArrayBuffer[] = [];
  endPushed = false;
  push(buffer?: ArrayBuffer): void {
    if (buffer === undefined) {
      this.endPushed = true;
      return;
    }
    this.buffers.push(buffer);
    this.pushed.push(buffer);
  }
  /** picojpeg read past the first buffer. */
  readPast(): void {
    this.buffers.shift();
  }
}

function bytes(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (index * 7 + seed) & 0xff);
}

test('pieces are copied into whole blocks, pushed when full; the end pushes the rest cut to size, then the end', () => {
  const decoder = new StandInDecoder();
  const feed = new JpegFeed(decoder, 100);
  const all = bytes(250, 1);
  const piece = all.slice(0, 30);
  feed.write(piece);
  piece.fill(0); // a view the core reuses: what was written is a copy
  for (let at = 30; at < 250; at += 45) feed.write(all.subarray(at, Math.min(250, at + 45)));
  assert.deepEqual(decoder.pushed.map((buffer) => buffer.byteLength), [100, 100]);
  assert.equal(decoder.endPushed, false);
  feed.end();
  assert.deepEqual(decoder.pushed.map((buffer) => buffer.byteLength), [100, 100, 50]);
  assert.equal(decoder.endPushed, true);
  assert.deepEqual(concat(...decoder.pushed.map((buffer) => new Uint8Array(buffer))), all);
});

test('what a feed holds is the block being filled and the blocks the decoder has not read past', () => {
  const decoder = new StandInDecoder();
  const feed = new JpegFeed(decoder, 100);
  feed.write(bytes(230, 2));
  assert.equal(feed.heldBytes, 230);
  decoder.readPast();
  assert.equal(feed.heldBytes, 130);
});

test('a block is decoded only while a whole block beyond the one being read is there, or the end has come', () => {
  const decoder = new StandInDecoder();
  const feed = new JpegFeed(decoder, 100);
  feed.write(bytes(150, 3));
  assert.equal(feed.hasMargin, false, 'one block: an MCU could run past its end');
  feed.write(bytes(50, 4));
  assert.equal(feed.hasMargin, true);
  decoder.readPast();
  assert.equal(feed.hasMargin, false);
  feed.end();
  assert.equal(feed.hasMargin, true);
  assert.equal(feed.ended, true);
});
