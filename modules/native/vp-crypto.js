// The natives of vp-crypto.c as a Moddable module ("modules/native/vp-crypto"); their contract is
// vp-crypto.d.ts, and modules/native/kernels.ts wraps them into CryptoKernels.

function aeadSeal(key, nonce, aad, buffer, length) @ "xs_vp_aead_seal";
function aeadOpen(key, nonce, aad, sealed, output) @ "xs_vp_aead_open";
function x25519Base(out, secret) @ "xs_vp_x25519_base";
function x25519(out, secret, peer) @ "xs_vp_x25519";
function ed25519Public(out, seed) @ "xs_vp_ed25519_public";
function ed25519Sign(out, seed, message) @ "xs_vp_ed25519_sign";
function ed25519Verify(publicKey, message, signature) @ "xs_vp_ed25519_verify";
function sha512(out, data) @ "xs_vp_sha512";
function hmacSha512(out, key, message) @ "xs_vp_hmac_sha512";
function modexp(out, base, exponent, modulus) @ "xs_vp_modexp";

/** The natives are linked (vp-crypto-absent.js says false where they are not). */
export const available = true;

export { aeadSeal, aeadOpen, x25519Base, x25519, ed25519Public, ed25519Sign, ed25519Verify, sha512, hmacSha512, modexp };
