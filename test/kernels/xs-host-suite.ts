// What the XS test host runs (xs-host.test.ts bundles this with the portable pairing suites of
// test/unit): the shared vectors and the pairing flows, for the portable build and for the C
// natives the host links (modules/native/vp-crypto.c, installed as globalThis.__vpNatives).

import { portableCryptoKernels } from '../../src/pairing/crypto-kernels';
import { createNativeCryptoKernels } from '../../modules/native/kernels';
import type { NativeCrypto } from '../../modules/native/natives';
import { registerCryptoVectorTests } from './crypto-vectors';
import { registerPairingFlowTests } from './pairing-flows';

const natives = (globalThis as { __vpNatives?: NativeCrypto }).__vpNatives;
if (natives === undefined) throw new Error('globalThis.__vpNatives is missing: not the XS test host (modules/native/xs-host)');
const native = createNativeCryptoKernels(natives);

registerCryptoVectorTests(portableCryptoKernels);
registerCryptoVectorTests(native);
registerPairingFlowTests(portableCryptoKernels);
registerPairingFlowTests(native);
