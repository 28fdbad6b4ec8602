// Thin wrappers of the curve, hash and cipher primitives pairing uses (Ed25519, X25519, SHA-512,
// SHA-1, ChaCha20-Poly1305, AES-128-CTR), with checked inputs and PairingErrors, so the
// pair-setup and pair-verify flows import their cryptography from one place. The curves and
// SHA-512 run on the CryptoKernels passed in (the host's pick: the portable @noble build or natives).

import { aes128Ctr as smallAes128Ctr } from './aes128-ctr';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { sha1 as nobleSha1 } from '@noble/hashes/legacy.js';
import type { CryptoKernels } from './crypto-kernels';
import { PairingError } from './errors';
import { TLV_ERROR } from './tlv-types';
import { checkBytes } from './_util';

export {
  PAIRING_HKDF,
  PAIRING_NONCE,
  chachaOpenWithNonceLabel,
  chachaSealWithNonceLabel,
  derivePairingKey,
  hkdfSha512,
  nonceFromLabel,
} from './hkdf';

export interface KeyPair {
  /** 32 bytes; wipe with fill(0) when done. */
  secretKey: Uint8Array;
  /** 32 bytes. */
  publicKey: Uint8Array;
}

// ---------------------------------------------------------------------------------------------
// Ed25519 (RFC 8032 5.1): long-term keys of pair-setup M5/M6 and the signatures of pair-verify.

/** The public key of an Ed25519 secret key (the 32-byte seed, RFC 8032 5.1.5). */
export function ed25519PublicKey(secretKey: Uint8Array, crypto: CryptoKernels): Uint8Array {
  checkBytes(secretKey, 'Ed25519 secret key', 32);
  return crypto.ed25519PublicKey(secretKey);
}

/** A new Ed25519 key pair from 32 bytes of `random`. */
export function ed25519KeyPair(random: (n: number) => Uint8Array, crypto: CryptoKernels): KeyPair {
  const secretKey = random(32);
  return { secretKey, publicKey: ed25519PublicKey(secretKey, crypto) };
}

/** The 64-byte Ed25519 signature of `message` (RFC 8032 5.1.6). */
export function ed25519Sign(secretKey: Uint8Array, message: Uint8Array, crypto: CryptoKernels): Uint8Array {
  checkBytes(secretKey, 'Ed25519 secret key', 32);
  checkBytes(message, 'Ed25519 message');
  return crypto.ed25519Sign(secretKey, message);
}

/** True when `signature` is a valid Ed25519 signature of `message` by `publicKey` (RFC 8032 5.1.7). */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, crypto: CryptoKernels): boolean {
  checkBytes(message, 'Ed25519 message');
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return false;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return false;
  return crypto.ed25519Verify(publicKey, message, signature);
}

// ---------------------------------------------------------------------------------------------
// X25519 (RFC 7748 5, 6.1): the ephemeral agreement of pair-verify and auth-setup.

/** The public key of an X25519 secret key. */
export function x25519PublicKey(secretKey: Uint8Array, crypto: CryptoKernels): Uint8Array {
  checkBytes(secretKey, 'X25519 secret key', 32);
  return crypto.x25519PublicKey(secretKey);
}

/** A new X25519 key pair from 32 bytes of `random`. */
export function x25519KeyPair(random: (n: number) => Uint8Array, crypto: CryptoKernels): KeyPair {
  const secretKey = random(32);
  checkBytes(secretKey, 'X25519 secret key', 32);
  return { secretKey, publicKey: crypto.x25519PublicKey(secretKey) };
}

/**
 * The 32-byte X25519 shared secret. A peer public key of a low-order point (all-zero result,
 * RFC 7748 6.1) or of the wrong length is a PairingError (Authentication).
 */
export function x25519Shared(secretKey: Uint8Array, peerPublicKey: Uint8Array, crypto: CryptoKernels): Uint8Array {
  checkBytes(secretKey, 'X25519 secret key', 32);
  if (!(peerPublicKey instanceof Uint8Array) || peerPublicKey.length !== 32) {
    throw new PairingError('X25519: the peer public key is not 32 bytes', TLV_ERROR.Authentication);
  }
  const shared = crypto.x25519Shared(secretKey, peerPublicKey);
  if (shared === undefined) throw new PairingError('X25519: the peer public key gives an all-zero shared secret', TLV_ERROR.Authentication);
  return shared;
}

// ---------------------------------------------------------------------------------------------
// Hashes and ciphers

/** SHA-512 (FIPS 180-4). */
export function sha512(data: Uint8Array, crypto: CryptoKernels): Uint8Array {
  return crypto.sha512([data]);
}

/** SHA-1 (FIPS 180-4): only where the protocol fixes it (auth-setup, device signatures). */
export function sha1(data: Uint8Array): Uint8Array {
  return nobleSha1(data);
}

/** ChaCha20-Poly1305 (RFC 8439 2.8) with an explicit 12-byte nonce: ciphertext || 16-byte tag. */
export function chachaSeal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): Uint8Array {
  checkBytes(key, 'ChaCha20-Poly1305 key', 32);
  checkBytes(nonce, 'ChaCha20-Poly1305 nonce', 12);
  return chacha20poly1305(key, nonce, aad).encrypt(plaintext);
}

/** Opens ciphertext || tag; a wrong tag is a PairingError (Authentication). */
export function chachaOpen(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array {
  checkBytes(key, 'ChaCha20-Poly1305 key', 32);
  checkBytes(nonce, 'ChaCha20-Poly1305 nonce', 12);
  if (sealed.length < 16) throw new PairingError(`sealed data of ${sealed.length} bytes is shorter than its tag`, TLV_ERROR.Authentication);
  try {
    return chacha20poly1305(key, nonce, aad).decrypt(sealed);
  } catch {
    throw new PairingError('ChaCha20-Poly1305: authentication tag does not match', TLV_ERROR.Authentication);
  }
}

/**
 * AES-128 in counter mode (NIST SP 800-38A 6.5, 128-bit big-endian counter block); its own
 * inverse. Our small AES (aes128-ctr.ts), not @noble/ciphers/aes, whose tables take 1.3 MB of
 * heap at load: more than a board has.
 */
export function aes128Ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  checkBytes(key, 'AES-128 key', 16);
  checkBytes(iv, 'AES-CTR counter block', 16);
  return smallAes128Ctr(key, iv, data);
}
