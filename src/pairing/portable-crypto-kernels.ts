// The portable build of the cryptographic kernels (DESIGN 5): @noble/curves for X25519 and
// Ed25519, @noble/hashes for SHA-512 and HMAC (portable-hash-kernels.ts), the portable frame
// kernel and modPow. It runs everywhere, and it is what a host passes where it has no faster
// build. It lives in a module of its own so that a host with natives never loads @noble/curves:
// its code and the tables it builds cost a board more RAM than the rest of pairing.

import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { isAllZero, type CryptoKernels } from './crypto-kernels';
import { portableFrameKernel } from './frame-kernel';
import { portableHashKernels } from './portable-hash-kernels';
import { portableModPow } from './modexp';

/** What @noble/curves throws for a low-order X25519 peer key (and an all-zero result). */
const NOBLE_LOW_ORDER = 'invalid private or public key received';

/** The portable build: @noble/curves, @noble/hashes, the portable frame kernel and modPow. */
export const portableCryptoKernels: CryptoKernels = {
  name: 'noble',
  frame: portableFrameKernel,
  x25519PublicKey: (secretKey) => x25519.getPublicKey(secretKey),
  x25519Shared(secretKey, peerPublicKey) {
    let shared: Uint8Array;
    try {
      shared = x25519.getSharedSecret(secretKey, peerPublicKey);
    } catch (error) {
      // noble refuses a low-order peer key before the ladder (RFC 7748 6.1 allows either check).
      if (error instanceof Error && error.message === NOBLE_LOW_ORDER) return undefined;
      throw error;
    }
    return isAllZero(shared) ? undefined : shared;
  },
  ed25519PublicKey: (seed) => ed25519.getPublicKey(seed),
  ed25519Sign: (seed, message) => ed25519.sign(message, seed),
  ed25519Verify(publicKey, message, signature) {
    try {
      // zip215: false is RFC 8032's strict decoding, which libsodium applies too.
      return ed25519.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false; // a public key or R that is not a curve point
    }
  },
  ...portableHashKernels,
  modPow: portableModPow,
};

/**
 * Sets the window of @noble/curves' precomputed table of multiples of the Ed25519 base point,
 * before its first use. The default window (6) makes that table about 2000 points, 960 KB of
 * XS heap on the 64-bit simulator, far beyond a board's RAM; 1 keeps no table (slower signing,
 * still milliseconds). Hosts with natives never call this, and never load @noble/curves.
 */
export function setEd25519PrecomputeWindow(window: number): void {
  if (window > 0) ed25519.Point.BASE.precompute(window);
}
