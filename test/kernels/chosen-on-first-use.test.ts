// The Node host's kernels chosen when a feature first needs them (hosts/node/main.ts wires them
// so a start loads no WebAssembly): nothing is chosen when they are made, the choice is made once,
// and every call goes to the build chosen.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { alacConfigFromCookie, createAlacDecoder, portableAlacKernel } from '../../src/audio/alac';
import { portableFrameKernel } from '../../src/pairing/frame-kernel';
import { AlacKernelChosenOnFirstUse, WasmAlacKernel } from '../../hosts/node/kernels/alac-kernel';
import { createWasmFrameKernel, WasmChaCha20Poly1305 } from '../../hosts/node/kernels/kernels';
import { FrameKernelChosenOnFirstUse } from '../../hosts/node/kernels/on-first-use';
import { alacVectors, casePackets } from './alac-vectors';

test('FrameKernelChosenOnFirstUse: chooses at the first seal, once, and seals and opens with the build chosen', () => {
  const wasm = createWasmFrameKernel(WasmChaCha20Poly1305.fromFile());
  let choices = 0;
  const kernel = new FrameKernelChosenOnFirstUse(() => {
    choices++;
    return wasm;
  });
  assert.equal(choices, 0, 'nothing chosen when made');
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const aad = Uint8Array.of(0x05, 0x00);
  const plaintext = Uint8Array.from({ length: 5 }, (_, i) => 0x40 + i);
  const sealed = kernel.seal(key, 7n, aad, plaintext);
  assert.equal(choices, 1);
  assert.equal(toHex(sealed), toHex(portableFrameKernel.seal(key, 7n, aad, plaintext)));
  assert.equal(toHex(kernel.open(key, 7n, aad, sealed)), toHex(plaintext));
  assert.equal(choices, 1, 'chosen once');
});

test('FrameKernelChosenOnFirstUse: an open may be the first use', () => {
  let choices = 0;
  const kernel = new FrameKernelChosenOnFirstUse(() => {
    choices++;
    return portableFrameKernel;
  });
  const key = new Uint8Array(32).fill(9);
  const sealed = portableFrameKernel.seal(key, 0n, new Uint8Array(0), Uint8Array.of(1, 2, 3));
  assert.equal(toHex(kernel.open(key, 0n, new Uint8Array(0), sealed)), '010203');
  assert.equal(choices, 1);
});

test('AlacKernelChosenOnFirstUse: chooses at the first packet or when its name is asked, once, and decodes with the build chosen', () => {
  const wasm = WasmAlacKernel.fromFile();
  let choices = 0;
  const kernel = new AlacKernelChosenOnFirstUse(() => {
    choices++;
    return wasm;
  });
  assert.equal(choices, 0, 'nothing chosen when made');
  const vector = alacVectors.cases[0];
  const config = alacConfigFromCookie(fromHex(vector.cookie));
  const [packet] = casePackets(vector);
  const decoded = createAlacDecoder(config, kernel).decode(packet);
  assert.equal(choices, 1);
  assert.deepEqual(decoded, createAlacDecoder(config, portableAlacKernel).decode(packet));
  assert.equal(kernel.name, 'wasm');
  assert.equal(choices, 1, 'chosen once');
  const named = new AlacKernelChosenOnFirstUse(() => portableAlacKernel);
  assert.equal(named.name, 'portable');
});
