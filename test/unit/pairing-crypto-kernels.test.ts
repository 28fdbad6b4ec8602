// The helpers of the crypto kernels' contract (src/pairing/crypto-kernels.ts): the all-zero check
// the builds share and a build with its frame kernel replaced. The builds themselves are tested
// by name (pairing-portable-crypto-kernels.test.ts) and on shared vectors (test/kernels/).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAllZero, withFrameKernel } from '../../src/pairing/crypto-kernels';
import { portableFrameKernel } from '../../src/pairing/frame-kernel';
import { portableCryptoKernels as kernels } from '../../src/pairing/portable-crypto-kernels';

test('isAllZero is true for no bytes and zeros, false for any set bit', () => {
  assert.equal(isAllZero(new Uint8Array(0)), true);
  assert.equal(isAllZero(new Uint8Array(32)), true);
  const last = new Uint8Array(32);
  last[31] = 0x80;
  assert.equal(isAllZero(last), false);
});

test('withFrameKernel replaces the frame kernel only, and names the build', () => {
  const counting = { ...portableFrameKernel };
  const replaced = withFrameKernel(kernels, counting);
  assert.equal(replaced.frame, counting);
  assert.equal(replaced.name, 'noble+frame');
  assert.equal(replaced.sha512, kernels.sha512);
  assert.equal(withFrameKernel(kernels, counting, 'wasm').name, 'wasm');
  assert.equal(kernels.frame, portableFrameKernel, 'the base is not changed');
});
