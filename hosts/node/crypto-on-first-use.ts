// The receiver's cryptography on Node (ReceiverPorts.crypto): the portable build, with what a
// start does not need evaluated when first needed. @noble/curves builds its curves as its module
// is evaluated (field checks, and a probe of the random source that loads Node's Web Crypto):
// about 25 ms of a start that only serves /info. Its module (src/pairing/portable-crypto-kernels.ts)
// is evaluated at the first X25519 or Ed25519 operation (pair-setup, pair-verify, a new identity),
// and the channel's frame kernel is chosen (kernels/kernels.ts: loaded, self-tested, logged) at
// the first frame sealed or opened; on-first-use-modules.ts says how. SHA-512 and HMAC, which
// every start uses (the identity's key check), and modPow are there from the start.

import type { CryptoKernels, FrameKernel } from '../../src/pairing';
import { portableModPow } from '../../src/pairing/modexp';
import { portableHashKernels } from '../../src/pairing/portable-hash-kernels';
import type { Logger } from '../../src/platform';
import { FrameKernelChosenOnFirstUse, onFirstUse } from './kernels/on-first-use';
import { loadFrameKernels, loadPortableBuild } from './on-first-use-modules';

/** The debug line said when pairing first needs the curves. */
export const CURVES_LOADED = 'X25519 and Ed25519: @noble/curves, loaded at their first use';

/**
 * The portable build with its curves loaded and its frame kernel chosen on first use. `choose`
 * picks the frame kernel (default: the host's selectFrameKernel, which logs its choice).
 */
export function cryptoOnFirstUse(log: Logger, choose: () => FrameKernel = () => loadFrameKernels().selectFrameKernel(log).kernel): CryptoKernels {
  const curves = onFirstUse(() => {
    log('debug', CURVES_LOADED);
    return loadPortableBuild().portableCryptoKernels;
  });
  return {
    name: 'noble+frame kernel chosen on first use',
    frame: new FrameKernelChosenOnFirstUse(choose),
    x25519PublicKey: (secretKey) => curves().x25519PublicKey(secretKey),
    x25519Shared: (secretKey, peerPublicKey) => curves().x25519Shared(secretKey, peerPublicKey),
    ed25519PublicKey: (seed) => curves().ed25519PublicKey(seed),
    ed25519Sign: (seed, message) => curves().ed25519Sign(seed, message),
    ed25519Verify: (publicKey, message, signature) => curves().ed25519Verify(publicKey, message, signature),
    ...portableHashKernels,
    modPow: portableModPow,
  };
}
