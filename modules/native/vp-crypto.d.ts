// Types of the Moddable module "modules/native/vp-crypto" (vp-crypto.js, bound by xsc to
// vp-crypto.c); each function is described in natives.ts.
import type { NativeCrypto } from './natives';

/** False on the platforms whose manifest links no natives (vp-crypto-absent.js); the functions are then missing. */
export declare const available: boolean;

export declare const aeadSeal: NativeCrypto['aeadSeal'];
export declare const aeadOpen: NativeCrypto['aeadOpen'];
export declare const x25519Base: NativeCrypto['x25519Base'];
export declare const x25519: NativeCrypto['x25519'];
export declare const ed25519Public: NativeCrypto['ed25519Public'];
export declare const ed25519Sign: NativeCrypto['ed25519Sign'];
export declare const ed25519Verify: NativeCrypto['ed25519Verify'];
export declare const sha512: NativeCrypto['sha512'];
export declare const hmacSha512: NativeCrypto['hmacSha512'];
export declare const modexp: NativeCrypto['modexp'];
