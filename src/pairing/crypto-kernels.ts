// The cryptographic kernels pairing and the control channel run on (DESIGN 5): one small
// contract, the portable build on @noble (the default everywhere), and faster builds a host
// passes in through its ports (the XS natives of modules/native on libsodium and mbedTLS; the
// WebAssembly frame kernel on Node). Every build passes the vectors of test/vectors/.
//
// Only the raw operations are here; the checks of their inputs and the PairingErrors pairing
// answers with stay in keys.ts, hkdf.ts and srp.ts, so every build behaves the same at the edges.

import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { portableFrameKernel, type FrameKernel } from './frame-kernel';
import { portableModPow } from './modexp';

export interface CryptoKernels {
  /** What the log calls this build ('noble', 'native', ...). */
  readonly name: string;
  /** ChaCha20-Poly1305 of the control channel's frames (spec 5.4). */
  readonly frame: FrameKernel;
  /** X25519 (RFC 7748 6.1) public key of a 32-byte secret. */
  x25519PublicKey(secretKey: Uint8Array): Uint8Array;
  /** The 32-byte X25519 shared secret; undefined when it is all zero (a low-order peer key). */
  x25519Shared(secretKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array | undefined;
  /** Ed25519 (RFC 8032 5.1.5) public key of a 32-byte seed. */
  ed25519PublicKey(seed: Uint8Array): Uint8Array;
  /** The 64-byte Ed25519 signature (RFC 8032 5.1.6). */
  ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array;
  /**
   * RFC 8032 5.1.7 verification of 32-byte `publicKey` and 64-byte `signature`, encodings
   * checked strictly (a non-canonical S or point is false): false, never a throw, for any
   * signature or key that does not verify.
   */
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  /** SHA-512 (FIPS 180-4) of the concatenation of `parts`. */
  sha512(parts: readonly Uint8Array[]): Uint8Array;
  /** HMAC-SHA-512 (RFC 2104) with a key of any length. */
  hmacSha512(key: Uint8Array, message: Uint8Array): Uint8Array;
  /** `base ** exponent mod modulus` for a positive modulus and a non-negative exponent (SRP, RSA). */
  modPow(base: bigint, exponent: bigint, modulus: bigint): bigint;
}

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
  sha512(parts) {
    const h = sha512.create();
    for (const part of parts) h.update(part);
    return h.digest();
  },
  hmacSha512: (key, message) => hmac(sha512, key, message),
  modPow: portableModPow,
};

/** True when every byte is zero (constant time in the length). */
export function isAllZero(bytes: Uint8Array): boolean {
  let any = 0;
  for (let i = 0; i < bytes.length; i++) any |= bytes[i];
  return any === 0;
}

/** `base` with its frame kernel replaced (the Node host's WebAssembly kernel, a test's counting one). */
export function withFrameKernel(base: CryptoKernels, frame: FrameKernel, name = `${base.name}+frame`): CryptoKernels {
  return { ...base, name, frame };
}
