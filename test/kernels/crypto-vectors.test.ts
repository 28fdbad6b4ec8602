// The shared CryptoKernels vectors (crypto-vectors.ts) for the portable build on Node, and for
// the portable kernels with the WebAssembly frame kernel the Node host uses. The XS test host
// runs the same for the portable build and the C natives (xs-host.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withFrameKernel } from '../../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { createWasmFrameKernel, WasmChaCha20Poly1305 } from '../../hosts/node/kernels/kernels';
import { registerCryptoVectorTests } from './crypto-vectors';

// The vectors' assertions are in crypto-vectors.ts; here, that the second build really carries
// the WebAssembly frame kernel (not the portable one under another name).
const withWasm = withFrameKernel(portableCryptoKernels, createWasmFrameKernel(WasmChaCha20Poly1305.fromFile()), 'noble+ours-wasm');

test('the WebAssembly build replaces only the frame kernel', () => {
  assert.notEqual(withWasm.frame, portableCryptoKernels.frame);
  assert.equal(withWasm.sha512, portableCryptoKernels.sha512);
});

registerCryptoVectorTests(portableCryptoKernels);
registerCryptoVectorTests(withWasm);
