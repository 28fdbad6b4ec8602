// The Node host's body arrays (hosts/node/io/body-arrays.ts): what the receiver frees goes to
// the next large body (or, the pool full, is given back at once) unless something holds it, then
// when the last hold ends; arrays it did not make, and small ones, are left to the garbage
// collector; an idle pool gives its memory back. The virtual screen holds what it shows, the
// screen server what it sends.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { BodyArrays, nodeBodyArrays } from '../../hosts/node/io/body-arrays';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { startScreenServer } from '../../hosts/node/screen/server';
import { PROMPT_MS, within } from '../e2e/receiver-process';

test('an array the receiver frees goes to the next large body: the same buffer, resized to that body, the whole of it', () => {
  const arrays = new BodyArrays({ minBytes: 1024 });
  const first = arrays.allocate(4096);
  assert.equal(first.length, 4096);
  assert.equal(first.buffer.byteLength, 4096, 'the whole of its buffer');
  arrays.free(first);
  assert.equal(arrays.pooled, 1);
  const next = arrays.allocate(3000);
  assert.equal(next.buffer, first.buffer, 'the pooled buffer');
  assert.equal(next.length, 3000);
  assert.equal(next.buffer.byteLength, 3000, 'resized to the body: still the whole of its buffer');
  assert.equal(arrays.pooled, 0);
  assert.notEqual(arrays.allocate(4096).buffer, first.buffer, 'the pool is empty: a new buffer');
});

test('the smallest pooled buffer that holds the body is taken; one too small is left for a smaller body', () => {
  const arrays = new BodyArrays({ minBytes: 1024, reservedBytes: 8192 });
  const small = arrays.allocate(4096); // reserves 8192
  const large = arrays.allocate(20_000); // reserves its own length
  arrays.free(large);
  arrays.free(small);
  assert.equal(arrays.allocate(10_000).buffer, large.buffer);
  assert.equal(arrays.allocate(30_000).buffer.byteLength, 30_000, 'none fits: a new buffer');
  assert.equal(arrays.allocate(8000).buffer, small.buffer, 'grown within its reservation');
});

test('an array freed when the pool is full is given back at once: it reads as empty', () => {
  const arrays = new BodyArrays({ minBytes: 1024, pooledArrays: 1 });
  const first = arrays.allocate(4096);
  const second = arrays.allocate(4096);
  arrays.free(first);
  arrays.free(second);
  assert.equal(arrays.pooled, 1);
  assert.equal(first.length, 4096, 'pooled');
  assert.equal(second.length, 0, 'detached');
  assert.equal(second.buffer.byteLength, 0);
  arrays.free(second); // a second free does nothing
  assert.equal(arrays.pooled, 1);
});

test('where the address space cannot be reserved, a large body is a plain array: given back when freed, never pooled', () => {
  // V8 refuses a reservation this large (over 4 GB) as it refuses one a 32-bit process has no room for.
  const arrays = new BodyArrays({ minBytes: 1024, reservedBytes: 2 ** 33 });
  const bytes = arrays.allocate(4096);
  assert.equal(bytes.length, 4096);
  assert.equal(bytes.buffer.byteLength, 4096, 'the whole of its buffer');
  assert.equal((bytes.buffer as { resizable?: boolean }).resizable, false);
  arrays.free(bytes);
  assert.equal(arrays.pooled, 0);
  assert.equal(bytes.length, 0, 'detached');
});

test('an array freed twice does not free the body its buffer went on to hold', () => {
  const arrays = new BodyArrays({ minBytes: 1024 });
  const first = arrays.allocate(4096);
  arrays.free(first);
  const next = arrays.allocate(4096);
  assert.equal(next.buffer, first.buffer);
  arrays.free(first);
  assert.equal(arrays.pooled, 0, 'the stale array is not the one the buffer was given out as');
  assert.notEqual(arrays.allocate(4096).buffer, next.buffer);
});

test('a held array stays readable until the last hold ends, then goes to the pool', () => {
  const arrays = new BodyArrays({ minBytes: 1024 });
  const bytes = arrays.allocate(4096);
  bytes.fill(7);
  const first = arrays.hold(bytes);
  const second = arrays.hold(bytes);
  arrays.free(bytes);
  first();
  first(); // once is enough; again does not end the other hold
  assert.equal(arrays.pooled, 0);
  assert.notEqual(arrays.allocate(4096).buffer, bytes.buffer, 'held: not given to another body');
  assert.equal(bytes[4095], 7);
  second();
  assert.equal(arrays.pooled, 1);
  assert.equal(arrays.allocate(4096).buffer, bytes.buffer);
});

test('a hold that ends before the free leaves the free to take it back', () => {
  const arrays = new BodyArrays({ minBytes: 1024 });
  const bytes = arrays.allocate(4096);
  arrays.hold(bytes)();
  assert.equal(arrays.pooled, 0, 'not freed: nothing takes it back');
  arrays.free(bytes);
  assert.equal(arrays.pooled, 1);
});

test('arrays it did not make, and arrays under its threshold, are never taken back', () => {
  const arrays = new BodyArrays({ minBytes: 1024 });
  const foreign = new Uint8Array(4096);
  const small = arrays.allocate(1000);
  arrays.free(foreign);
  arrays.free(small);
  assert.equal(foreign.length, 4096);
  assert.equal(small.length, 1000);
  assert.equal(arrays.pooled, 0);
  arrays.hold(foreign)();
  assert.equal(foreign.length, 4096);
});

test('a pool unused for poolIdleMs gives its memory back: its buffers shrink to nothing and leave it', async () => {
  const arrays = new BodyArrays({ minBytes: 1024, poolIdleMs: 10 });
  const bytes = arrays.allocate(4096);
  arrays.free(bytes);
  assert.equal(arrays.pooled, 1);
  await within(PROMPT_MS, 'the idle pool drained', (async () => {
    while (arrays.pooled > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  })());
  assert.equal(bytes.buffer.byteLength, 0, 'its pages given back');
  assert.equal(bytes.length, 0);
  assert.notEqual(arrays.allocate(4096).buffer, bytes.buffer);
});

test('the virtual screen holds the picture it shows, and lets go of it when the next is shown or it clears', () => {
  const screen = new VirtualScreen('Receiver');
  const first = nodeBodyArrays.allocate(256 * 1024);
  const second = nodeBodyArrays.allocate(256 * 1024);
  screen.showPhoto(first);
  nodeBodyArrays.free(first);
  assert.equal(first.length, 256 * 1024, 'shown: still readable, and served');
  assert.equal(screen.photoBytes(screen.snapshot().photo!.version), first);
  screen.showPhoto(second);
  assert.equal(nodeBodyArrays.pooled, 1, 'taken back once the screen moved on');
  nodeBodyArrays.free(second);
  assert.equal(nodeBodyArrays.pooled, 1, 'shown: held');
  screen.clear();
  assert.equal(nodeBodyArrays.pooled, 2);
  nodeBodyArrays.drain();
});

test('the screen server holds a picture while it sends it: the screen moving on and the receiver freeing it do not cut it', async () => {
  const screen = new VirtualScreen('Sending');
  const server = await startScreenServer({ screen, port: 0, log: () => {} });
  try {
    // Larger than loopback's socket buffers: the response is still being written when the screen moves on.
    const size = 32 * 1024 * 1024;
    const picture = nodeBodyArrays.allocate(size);
    for (let i = 0; i < size; i += 4096) picture[i] = (i >> 12) & 0xff;
    screen.showPhoto(picture);
    const response = await within(PROMPT_MS, 'the picture response head', new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: server.port, path: `/photo/${screen.snapshot().photo!.version}.jpg` }, resolve).on('error', reject);
    }));
    assert.equal(response.statusCode, 200);
    screen.showPhoto(nodeBodyArrays.allocate(1024));
    nodeBodyArrays.free(picture);
    assert.equal(nodeBodyArrays.pooled, 0, 'held by the response being sent');
    assert.notEqual(nodeBodyArrays.allocate(size).buffer, picture.buffer, 'not given to another body while sent');
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    assert.equal(body.length, size);
    for (let i = 0; i < size; i += 4096) assert.equal(body[i], (i >> 12) & 0xff, `byte ${i}`);
    // The response's end lets go of the last hold: the buffer is taken back.
    await within(PROMPT_MS, 'the picture taken back after its response', (async () => {
      while (nodeBodyArrays.pooled === 0) await new Promise((resolve) => setImmediate(resolve));
    })());
    assert.equal(nodeBodyArrays.allocate(size).buffer, picture.buffer);
  } finally {
    await server.close();
  }
});
