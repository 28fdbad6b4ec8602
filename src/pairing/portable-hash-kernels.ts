// The portable build's hashes (DESIGN 5): SHA-512 and HMAC-SHA-512 on @noble/hashes, in a module
// apart from the curves of portable-crypto-kernels.ts, which spreads them. A host can then take
// the hashes at start (every start checks the identity's key with SHA-512) and leave
// @noble/curves, whose module builds its curves as it is evaluated, for the first pairing.

import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import type { CryptoKernels } from './crypto-kernels';

/** SHA-512 and HMAC-SHA-512 of the portable build. */
export const portableHashKernels: Pick<CryptoKernels, 'sha512' | 'hmacSha512'> = {
  sha512(parts) {
    const h = sha512.create();
    for (const part of parts) h.update(part);
    return h.digest();
  },
  hmacSha512: (key, message) => hmac(sha512, key, message),
};
