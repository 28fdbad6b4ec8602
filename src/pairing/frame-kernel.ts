// The ChaCha20-Poly1305 frame kernel of the control channel (spec 5.4): its contract and the
// portable TypeScript build on @noble/ciphers. Faster builds (WebAssembly on Node, the XS
// native on boards; DESIGN 5) come in through CryptoKernels (crypto-kernels.ts). Every build
// passes test/vectors/control-channel.json.

import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { PairingError } from './errors';

/**
 * Seals and opens one frame body with ChaCha20-Poly1305 (RFC 8439 2.8) under the nonce
 * 4 zero bytes || 64-bit little-endian `counter`. `output`, when given, receives the result
 * (plaintext.length + 16 bytes for seal, sealed.length - 16 for open) and is returned; a build
 * may ignore it and return a new array. `open` throws when the tag does not match, and then
 * writes nothing into `output` that the caller may use.
 */
export interface FrameKernel {
  seal(key: Uint8Array, counter: bigint, aad: Uint8Array, plaintext: Uint8Array, output?: Uint8Array): Uint8Array;
  open(key: Uint8Array, counter: bigint, aad: Uint8Array, sealed: Uint8Array, output?: Uint8Array): Uint8Array;
}

const TWO_POW_32 = 2 ** 32;
const MAX_SAFE_COUNTER = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_COUNTER = (1n << 64n) - 1n;

/** Writes the frame nonce for `counter` into `nonce` (12 bytes, first 4 stay zero). */
export function setNonceCounter(nonce: Uint8Array, counter: bigint): void {
  let low: number;
  let high: number;
  if (counter >= 0n && counter <= MAX_SAFE_COUNTER) {
    // One conversion instead of two BigInt shifts: counters stay far below 2^53 in practice.
    const n = Number(counter);
    low = n >>> 0;
    high = Math.floor(n / TWO_POW_32);
  } else {
    if (counter < 0n || counter > MAX_COUNTER) throw new PairingError(`frame counter ${counter} is outside 0 to 2^64-1`);
    low = Number(counter & 0xffffffffn);
    high = Number(counter >> 32n);
  }
  nonce[4] = low;
  nonce[5] = low >>> 8;
  nonce[6] = low >>> 16;
  nonce[7] = low >>> 24;
  nonce[8] = high;
  nonce[9] = high >>> 8;
  nonce[10] = high >>> 16;
  nonce[11] = high >>> 24;
}

/**
 * Builds a portable kernel; each has its own nonce buffer, reused for every frame.
 *
 * It never hands `output` to @noble/ciphers: noble decides whether a cipher takes an output
 * from the arity of its inner functions (`encrypt.length === 2`), and an app linked by the
 * Moddable SDK's xsl has no function lengths (its generated defaults leave `newFunctionLength`
 * out), so every call with an output threw "cipher output not supported" there. The result is
 * copied into `output` instead, and the copy wiped.
 */
export function createPortableFrameKernel(): FrameKernel {
  const nonce = new Uint8Array(12);
  return {
    seal(key, counter, aad, plaintext, output) {
      checkKey(key);
      setNonceCounter(nonce, counter);
      return intoOutput(chacha20poly1305(key, nonce, aad).encrypt(plaintext), output);
    },
    open(key, counter, aad, sealed, output) {
      checkKey(key);
      if (sealed.length < 16) throw new PairingError(`frame of ${sealed.length} bytes is shorter than its tag`);
      setNonceCounter(nonce, counter);
      let plaintext: Uint8Array;
      try {
        plaintext = chacha20poly1305(key, nonce, aad).decrypt(sealed);
      } catch (error) {
        // Only noble's tag comparison is an authentication failure; anything else (a bug, an
        // engine without a feature noble needs) is reported as itself, never as a bad tag.
        if (error instanceof Error && error.message === NOBLE_TAG_MISMATCH) {
          throw new PairingError(`frame ${counter}: authentication tag does not match`);
        }
        throw error;
      }
      return intoOutput(plaintext, output);
    },
  };
}

/** The message @noble/ciphers' ChaCha20-Poly1305 throws when the tag does not match. */
const NOBLE_TAG_MISMATCH = 'invalid tag';

function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new PairingError(`frame key of ${key instanceof Uint8Array ? key.length : 0} bytes, not 32`);
}

/** `result` copied into `output` when that has its size (the copy is wiped), else `result`. */
function intoOutput(result: Uint8Array, output: Uint8Array | undefined): Uint8Array {
  if (output === undefined || output.length !== result.length) return result;
  output.set(result);
  result.fill(0);
  return output;
}

/** The portable TypeScript kernel (the reference every other build is checked against). */
export const portableFrameKernel: FrameKernel = createPortableFrameKernel();
