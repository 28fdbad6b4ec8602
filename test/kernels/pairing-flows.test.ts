// Pairing end to end through a Receiver on the portable CryptoKernels, on Node (pairing-flows.ts);
// the XS test host runs the same flows on the portable build and the C natives.

import { portableCryptoKernels } from '../../src/pairing/crypto-kernels';
import { registerPairingFlowTests } from './pairing-flows';

registerPairingFlowTests(portableCryptoKernels);
