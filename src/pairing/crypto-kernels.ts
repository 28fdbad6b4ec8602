// The cryptographic kernels pairing and the control channel run on (DESIGN 5): one small
// contract and the builds a host picks and passes in through its ports (the portable build on
// @noble in portable-crypto-kernels.ts; the XS natives of modules/native on libsodium and
// mbedTLS; the WebAssembly frame kernel on Node). The core picks none itself: every function
// that runs cryptography takes the kernels it runs on, and nothing here imports @noble/curves,
// so a host with natives never loads it. Every build passes the vectors of test/vectors/.
//
// The contract names only the raw operations; the checks of their inputs and the PairingErrors pairing
// answers with stay in keys.ts, hkdf.ts and srp.ts, so every build behaves the same at the edges.

import type { FrameKernel } from './frame-kernel';

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
