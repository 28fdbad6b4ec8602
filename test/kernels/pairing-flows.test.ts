// Pairing end to end through a Receiver on the portable CryptoKernels, on Node (pairing-flows.ts,
// where the assertions are); the XS test host runs the same flows on the portable build and the
// C natives.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { registerPairingFlowTests } from './pairing-flows';

test('the portable kernels the flows run on are the noble build, with a frame kernel', () => {
  assert.equal(portableCryptoKernels.name, 'noble');
  assert.equal(typeof portableCryptoKernels.frame.open, 'function');
  assert.equal(typeof portableCryptoKernels.frame.seal, 'function');
});

registerPairingFlowTests(portableCryptoKernels);
