// The shared CryptoKernels vectors (crypto-vectors.ts) for the portable build on Node, and for
// the portable kernels with the WebAssembly frame kernel the Node host uses. The XS test host
// runs the same for the portable build and the C natives (xs-host.test.ts).

import { portableCryptoKernels, withFrameKernel } from '../../src/pairing/crypto-kernels';
import { createWasmFrameKernel, WasmChaCha20Poly1305 } from '../../hosts/node/kernels';
import { registerCryptoVectorTests } from './crypto-vectors';

registerCryptoVectorTests(portableCryptoKernels);
registerCryptoVectorTests(withFrameKernel(portableCryptoKernels, createWasmFrameKernel(WasmChaCha20Poly1305.fromFile()), 'noble+ours-wasm'));
