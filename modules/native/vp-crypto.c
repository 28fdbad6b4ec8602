/*
 * XS natives of the receiver's cryptographic kernels (DESIGN 5): thin xsmc bindings of
 * libsodium (ChaCha20-Poly1305 IETF, X25519, Ed25519, SHA-512, HMAC-SHA-512) and mbedTLS (bignum
 * exp_mod, which ESP32 runs on its RSA/MPI accelerator). No cryptography of our own is here.
 *
 * Every function writes into arrays its caller passes (a Uint8Array, a view or an ArrayBuffer)
 * and allocates nothing in the XS heap, so the data pointers taken from the arguments stay valid
 * for the whole call (XS moves chunks only when it collects, and nothing here can make it
 * collect). The contract each one serves is CryptoKernels (src/pairing/crypto-kernels.ts);
 * modules/native/kernels.ts wraps them into it, and they pass the same vectors (test/vectors/).
 */

#include "xsmc.h"
#include "vp-args.h"

#include <string.h>

#include <sodium.h>
#include <mbedtls/bignum.h>

#define TAG_BYTES crypto_aead_chacha20poly1305_ietf_ABYTES
#define KEY_BYTES crypto_aead_chacha20poly1305_ietf_KEYBYTES
#define NONCE_BYTES crypto_aead_chacha20poly1305_ietf_NPUBBYTES

typedef struct {
	uint8_t *data;
	xsUnsignedValue length;
} vpBytes;

static void vpInit(xsMachine *the)
{
	static int ready = 0;
	if (ready)
		return;
	/* sodium_init picks the implementations for this CPU; it may be called more than once. */
	if (sodium_init() < 0)
		xsUnknownError("libsodium: sodium_init failed");
	ready = 1;
}

/* The bytes of argument `index`; a RangeError naming it unless it has `length` bytes (-1: any). */
static vpBytes vpArg(xsMachine *the, int index, const char *name, int length, int writable)
{
	vpBytes bytes;
	void *data;
	if (index >= xsmcArgc)
		xsTypeError("%s: missing", name);
	if (writable)
		xsmcGetBufferWritable(xsArg(index), &data, &bytes.length);
	else
		xsmcGetBufferReadable(xsArg(index), &data, &bytes.length);
	bytes.data = data;
	if ((length >= 0) && (bytes.length != (xsUnsignedValue)length))
		xsRangeError("%s: %u bytes, expected %d", name, (unsigned)bytes.length, length);
	return bytes;
}

/*
 * aeadSeal(key, nonce, aad, buffer, length): ChaCha20-Poly1305 (RFC 8439 2.8) of buffer[0, length)
 * in place, the 16-byte tag written at buffer[length]. The frame body is sealed where it lies.
 */
void xs_vp_aead_seal(xsMachine *the)
{
	xsIntegerValue length;
	vpBytes key, nonce, aad, buffer;
	vpNeedArgs(the, 5, "aeadSeal(key, nonce, aad, buffer, length)");
	length = xsmcToInteger(xsArg(4));
	vpInit(the);
	key = vpArg(the, 0, "key", KEY_BYTES, 0);
	nonce = vpArg(the, 1, "nonce", NONCE_BYTES, 0);
	aad = vpArg(the, 2, "aad", -1, 0);
	buffer = vpArg(the, 3, "buffer", -1, 1);
	if ((length < 0) || ((xsUnsignedValue)length + TAG_BYTES > buffer.length))
		xsRangeError("seal: %d bytes and a tag do not fit a buffer of %u", (int)length, (unsigned)buffer.length);
	crypto_aead_chacha20poly1305_ietf_encrypt_detached(buffer.data, buffer.data + length, NULL,
		buffer.data, (unsigned long long)length, aad.data, aad.length, NULL, nonce.data, key.data);
}

/*
 * aeadOpen(key, nonce, aad, sealed, output): true and the plaintext in output (sealed.length - 16
 * bytes; it may be sealed itself, to open in place) when the tag matches; false otherwise, and
 * then output holds zeros only (libsodium checks the tag before it decrypts anything).
 */
void xs_vp_aead_open(xsMachine *the)
{
	vpBytes key, nonce, aad, sealed, output;
	xsUnsignedValue length;
	int result;
	vpNeedArgs(the, 5, "aeadOpen(key, nonce, aad, sealed, output)");
	vpInit(the);
	key = vpArg(the, 0, "key", KEY_BYTES, 0);
	nonce = vpArg(the, 1, "nonce", NONCE_BYTES, 0);
	aad = vpArg(the, 2, "aad", -1, 0);
	sealed = vpArg(the, 3, "sealed", -1, 0);
	if (sealed.length < TAG_BYTES)
		xsRangeError("open: %u bytes are shorter than a tag", (unsigned)sealed.length);
	length = sealed.length - TAG_BYTES;
	output = vpArg(the, 4, "output", (int)length, 1);
	result = crypto_aead_chacha20poly1305_ietf_decrypt_detached(output.data, NULL, sealed.data, length,
		sealed.data + length, aad.data, aad.length, nonce.data, key.data);
	if (result != 0)
		sodium_memzero(output.data, length);
	xsmcSetBoolean(xsResult, result == 0);
}

/* x25519Base(out, secret): the X25519 public key (RFC 7748 6.1). */
void xs_vp_x25519_base(xsMachine *the)
{
	vpBytes out, secret;
	vpNeedArgs(the, 2, "x25519Base(out, secret)");
	vpInit(the);
	out = vpArg(the, 0, "public key", crypto_scalarmult_BYTES, 1);
	secret = vpArg(the, 1, "secret key", crypto_scalarmult_SCALARBYTES, 0);
	if (crypto_scalarmult_base(out.data, secret.data) != 0)
		xsUnknownError("X25519: crypto_scalarmult_base failed");
}

/* x25519(out, secret, peer): true and the shared secret, or false when it is all zero (a low-order peer key). */
void xs_vp_x25519(xsMachine *the)
{
	vpBytes out, secret, peer;
	int result;
	vpNeedArgs(the, 3, "x25519(out, secret, peer)");
	vpInit(the);
	out = vpArg(the, 0, "shared secret", crypto_scalarmult_BYTES, 1);
	secret = vpArg(the, 1, "secret key", crypto_scalarmult_SCALARBYTES, 0);
	peer = vpArg(the, 2, "peer public key", crypto_scalarmult_BYTES, 0);
	/* libsodium returns -1 exactly when the result is all zero. */
	result = crypto_scalarmult(out.data, secret.data, peer.data);
	if (result != 0)
		sodium_memzero(out.data, out.length);
	xsmcSetBoolean(xsResult, result == 0);
}

/* ed25519Public(out, seed): the Ed25519 public key of a 32-byte seed (RFC 8032 5.1.5). */
void xs_vp_ed25519_public(xsMachine *the)
{
	vpBytes out, seed;
	uint8_t secret[crypto_sign_SECRETKEYBYTES];
	vpNeedArgs(the, 2, "ed25519Public(out, seed)");
	vpInit(the);
	out = vpArg(the, 0, "public key", crypto_sign_PUBLICKEYBYTES, 1);
	seed = vpArg(the, 1, "seed", crypto_sign_SEEDBYTES, 0);
	crypto_sign_seed_keypair(out.data, secret, seed.data);
	sodium_memzero(secret, sizeof(secret));
}

/* ed25519Sign(out, seed, message): the 64-byte signature (RFC 8032 5.1.6). */
void xs_vp_ed25519_sign(xsMachine *the)
{
	vpBytes out, seed, message;
	uint8_t secret[crypto_sign_SECRETKEYBYTES];
	uint8_t publicKey[crypto_sign_PUBLICKEYBYTES];
	vpNeedArgs(the, 3, "ed25519Sign(out, seed, message)");
	vpInit(the);
	out = vpArg(the, 0, "signature", crypto_sign_BYTES, 1);
	seed = vpArg(the, 1, "seed", crypto_sign_SEEDBYTES, 0);
	message = vpArg(the, 2, "message", -1, 0);
	crypto_sign_seed_keypair(publicKey, secret, seed.data);
	crypto_sign_detached(out.data, NULL, message.data, message.length, secret);
	sodium_memzero(secret, sizeof(secret));
}

/* ed25519Verify(publicKey, message, signature): true when it verifies (RFC 8032 5.1.7, strict encodings). */
void xs_vp_ed25519_verify(xsMachine *the)
{
	vpBytes publicKey, message, signature;
	vpNeedArgs(the, 3, "ed25519Verify(publicKey, message, signature)");
	vpInit(the);
	publicKey = vpArg(the, 0, "public key", crypto_sign_PUBLICKEYBYTES, 0);
	message = vpArg(the, 1, "message", -1, 0);
	signature = vpArg(the, 2, "signature", crypto_sign_BYTES, 0);
	xsmcSetBoolean(xsResult, crypto_sign_verify_detached(signature.data, message.data, message.length, publicKey.data) == 0);
}

/* sha512(out, data): SHA-512 (FIPS 180-4). */
void xs_vp_sha512(xsMachine *the)
{
	vpBytes out, data;
	vpNeedArgs(the, 2, "sha512(out, data)");
	vpInit(the);
	out = vpArg(the, 0, "digest", crypto_hash_sha512_BYTES, 1);
	data = vpArg(the, 1, "data", -1, 0);
	crypto_hash_sha512(out.data, data.data, data.length);
}

/* hmacSha512(out, key, message): HMAC-SHA-512 (RFC 2104) with a key of any length. */
void xs_vp_hmac_sha512(xsMachine *the)
{
	vpBytes out, key, message;
	crypto_auth_hmacsha512_state state;
	vpNeedArgs(the, 3, "hmacSha512(out, key, message)");
	vpInit(the);
	out = vpArg(the, 0, "mac", crypto_auth_hmacsha512_BYTES, 1);
	key = vpArg(the, 1, "key", -1, 0);
	message = vpArg(the, 2, "message", -1, 0);
	crypto_auth_hmacsha512_init(&state, key.data, key.length);
	crypto_auth_hmacsha512_update(&state, message.data, message.length);
	crypto_auth_hmacsha512_final(&state, out.data);
	sodium_memzero(&state, sizeof(state));
}

/*
 * modexp(out, base, exponent, modulus): base ^ exponent mod modulus, all unsigned big-endian,
 * written into out (as long as the modulus, zero padded on the left). mbedTLS's exp_mod is a
 * Montgomery ladder: the modulus must be odd (SRP's prime, RSA's p, q and n are); the caller
 * keeps even moduli on the portable path.
 */
void xs_vp_modexp(xsMachine *the)
{
	vpBytes out, base, exponent, modulus;
	mbedtls_mpi A, E, N, X;
	int error;
	vpNeedArgs(the, 4, "modexp(out, base, exponent, modulus)");
	modulus = vpArg(the, 3, "modulus", -1, 0);
	out = vpArg(the, 0, "result", (int)modulus.length, 1);
	base = vpArg(the, 1, "base", -1, 0);
	exponent = vpArg(the, 2, "exponent", -1, 0);
	if ((modulus.length == 0) || !(modulus.data[modulus.length - 1] & 1))
		xsRangeError("modexp: the modulus must be odd");
	mbedtls_mpi_init(&A);
	mbedtls_mpi_init(&E);
	mbedtls_mpi_init(&N);
	mbedtls_mpi_init(&X);
	error = mbedtls_mpi_read_binary(&A, base.data, base.length);
	if (!error) error = mbedtls_mpi_read_binary(&E, exponent.data, exponent.length);
	if (!error) error = mbedtls_mpi_read_binary(&N, modulus.data, modulus.length);
	if (!error) error = mbedtls_mpi_exp_mod(&X, &A, &E, &N, NULL);
	if (!error) error = mbedtls_mpi_write_binary(&X, out.data, out.length);
	/* The exponents are secrets (SRP's b, RSA's d mod p-1): mbedtls_mpi_free zeroes each number before freeing it. */
	mbedtls_mpi_free(&A);
	mbedtls_mpi_free(&E);
	mbedtls_mpi_free(&N);
	mbedtls_mpi_free(&X);
	if (error)
		xsUnknownError("modexp: mbedTLS error -0x%04x", (unsigned)-error);
}
