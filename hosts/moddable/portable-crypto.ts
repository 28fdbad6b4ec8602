// "hosts/moddable/portable-crypto" on the platforms whose manifest links no natives (mac, win,
// others: where modules/native maps vp-crypto to vp-crypto-absent): the portable kernels on
// @noble, the host's pick there. Where the natives are linked (lin, esp32) this module is
// portable-crypto-absent.js, so those builds never load @noble/curves: its code and tables cost
// a board more RAM than the rest of pairing (test/xs/crypto-reach.test.ts holds this).

import manifest from 'mc/config';
import type { CryptoKernels } from '../../src/pairing';
import { portableCryptoKernels, setEd25519PrecomputeWindow } from '../../src/pairing/portable-crypto-kernels';

/** False where the manifest links the natives instead (portable-crypto-absent.js). */
export const available: boolean = true;

/**
 * The portable kernels, with @noble/curves' table of Ed25519 base-point multiples set to the
 * manifest's `ed25519Window` before its first use (the identity's public key, at start): its
 * default window (6) is about 2000 points, 960 KB of XS heap on the 64-bit simulator, far beyond
 * a board's RAM; 1 keeps no table (slower signing, still milliseconds).
 */
export function createPortableCryptoKernels(): CryptoKernels {
  setEd25519PrecomputeWindow(Number(manifest.ed25519Window ?? 0));
  return portableCryptoKernels;
}
