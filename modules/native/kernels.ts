// CryptoKernels (src/pairing/crypto-kernels.ts) on the XS natives of vp-crypto.c: libsodium for
// ChaCha20-Poly1305, X25519, Ed25519, SHA-512 and HMAC, mbedTLS for modexp. The checks and
// errors at the edges are the portable kernels' own, so callers see no difference but speed.
// The frame kernel seals in place on the frame buffer and opens into the output it is given:
// per frame it allocates nothing (spec 5.4 frames).

import { joinBytes } from '../../src/bytes';
import { PairingError, type CryptoKernels, setNonceCounter, type FrameKernel, portableModPow, bigIntToBytes, bytesToBigInt } from '../../src/pairing';
import type { NativeCrypto } from './natives';

const TAG_BYTES = 16;

function checkFrameKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new PairingError(`frame key of ${key instanceof Uint8Array ? key.length : 0} bytes, not 32`);
}

/** The frame kernel on the native AEAD; its nonce buffer is reused for every frame. */
export function createNativeFrameKernel(natives: NativeCrypto): FrameKernel {
  const nonce = new Uint8Array(12);
  return {
    seal(key, counter, aad, plaintext, output) {
      checkFrameKey(key);
      setNonceCounter(nonce, counter);
      const size = plaintext.length + TAG_BYTES;
      const target = output !== undefined && output.length === size ? output : new Uint8Array(size);
      // The channel hands the frame body as output: the plaintext is copied there and sealed in place.
      if (target.buffer !== plaintext.buffer || target.byteOffset !== plaintext.byteOffset) target.set(plaintext);
      natives.aeadSeal(key, nonce, aad, target, plaintext.length);
      return target;
    },
    open(key, counter, aad, sealed, output) {
      checkFrameKey(key);
      if (sealed.length < TAG_BYTES) throw new PairingError(`frame of ${sealed.length} bytes is shorter than its tag`);
      setNonceCounter(nonce, counter);
      const size = sealed.length - TAG_BYTES;
      const target = output !== undefined && output.length === size ? output : new Uint8Array(size);
      if (!natives.aeadOpen(key, nonce, aad, sealed, target)) throw new PairingError(`frame ${counter}: authentication tag does not match`);
      return target;
    },
  };
}

/**
 * `base ** exponent mod modulus` on mbedTLS for odd moduli (SRP's prime, RSA's p, q and n);
 * the same errors and edge results as portableModPow, which also takes the even moduli that
 * Montgomery multiplication cannot.
 */
function nativeModPow(natives: NativeCrypto, base: bigint, exponent: bigint, modulus: bigint): bigint {
  if (modulus <= 0n || exponent < 0n || modulus === 1n || (modulus & 1n) === 0n) return portableModPow(base, exponent, modulus);
  let b = base % modulus;
  if (b < 0n) b += modulus;
  const modulusBytes = bigIntToBytes(modulus);
  const out = new Uint8Array(modulusBytes.length);
  natives.modexp(out, bigIntToBytes(b), bigIntToBytes(exponent), modulusBytes);
  return bytesToBigInt(out);
}

/** CryptoKernels on `natives` (the module vp-crypto on Moddable, the test host's global object). */
export function createNativeCryptoKernels(natives: NativeCrypto): CryptoKernels {
  return {
    name: 'native',
    frame: createNativeFrameKernel(natives),
    x25519PublicKey(secretKey) {
      const out = new Uint8Array(32);
      natives.x25519Base(out, secretKey);
      return out;
    },
    x25519Shared(secretKey, peerPublicKey) {
      const out = new Uint8Array(32);
      return natives.x25519(out, secretKey, peerPublicKey) ? out : undefined;
    },
    ed25519PublicKey(seed) {
      const out = new Uint8Array(32);
      natives.ed25519Public(out, seed);
      return out;
    },
    ed25519Sign(seed, message) {
      const out = new Uint8Array(64);
      natives.ed25519Sign(out, seed, message);
      return out;
    },
    ed25519Verify: (publicKey, message, signature) => natives.ed25519Verify(publicKey, message, signature),
    sha512(parts) {
      const out = new Uint8Array(64);
      natives.sha512(out, joinBytes(parts));
      return out;
    },
    hmacSha512(key, message) {
      const out = new Uint8Array(64);
      natives.hmacSha512(out, key, message);
      return out;
    },
    modPow: (base, exponent, modulus) => nativeModPow(natives, base, exponent, modulus),
  };
}
