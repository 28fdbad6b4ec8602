// The Node host's body arrays (hosts/node/io/body-arrays.ts): what the receiver frees is given
// back at once unless something holds it, then when the last hold ends; arrays it did not make,
// and small ones, are left to the garbage collector. The virtual screen holds what it shows, the
// screen server what it sends.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { BodyArrays, nodeBodyArrays } from '../../hosts/node/io/body-arrays';
import { VirtualScreen } from '../../hosts/node/screen/display';
import { startScreenServer } from '../../hosts/node/screen/server';
import { PROMPT_MS, within } from '../e2e/receiver-process';

test('an array the receiver frees is given back at once: it reads as empty', () => {
  const arrays = new BodyArrays(1024);
  const bytes = arrays.allocate(4096);
  assert.equal(bytes.length, 4096);
  assert.equal(bytes.buffer.byteLength, 4096, 'the whole of its buffer');
  arrays.free(bytes);
  assert.equal(bytes.length, 0);
  assert.equal(bytes.buffer.byteLength, 0);
  arrays.free(bytes); // a second free does nothing
});

test('a held array stays readable until the last hold ends, then goes', () => {
  const arrays = new BodyArrays(1024);
  const bytes = arrays.allocate(4096);
  bytes.fill(7);
  const first = arrays.hold(bytes);
  const second = arrays.hold(bytes);
  arrays.free(bytes);
  first();
  first(); // once is enough; again does not end the other hold
  assert.equal(bytes.length, 4096);
  assert.equal(bytes[4095], 7);
  second();
  assert.equal(bytes.length, 0);
});

test('a hold that ends before the free leaves the free to give it back', () => {
  const arrays = new BodyArrays(1024);
  const bytes = arrays.allocate(4096);
  arrays.hold(bytes)();
  assert.equal(bytes.length, 4096, 'not freed: nothing gives it back');
  arrays.free(bytes);
  assert.equal(bytes.length, 0);
});

test('arrays it did not make, and arrays under its threshold, are never detached', () => {
  const arrays = new BodyArrays(1024);
  const foreign = new Uint8Array(4096);
  const small = arrays.allocate(1000);
  arrays.free(foreign);
  arrays.free(small);
  assert.equal(foreign.length, 4096);
  assert.equal(small.length, 1000);
  arrays.hold(foreign)();
  assert.equal(foreign.length, 4096);
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
  assert.equal(first.length, 0, 'given back once the screen moved on');
  nodeBodyArrays.free(second);
  assert.equal(second.length, 256 * 1024);
  screen.clear();
  assert.equal(second.length, 0);
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
    assert.equal(picture.length, size, 'held by the response being sent');
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    assert.equal(body.length, size);
    for (let i = 0; i < size; i += 4096) assert.equal(body[i], (i >> 12) & 0xff, `byte ${i}`);
    // The response's end lets go of the last hold: the memory goes.
    await within(PROMPT_MS, 'the picture given back after its response', (async () => {
      while (picture.length > 0) await new Promise((resolve) => setImmediate(resolve));
    })());
  } finally {
    await server.close();
  }
});
