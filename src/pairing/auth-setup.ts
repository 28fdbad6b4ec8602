// POST /auth-setup (spec 5.6) as a pure function: the receiver proves its device certificate by
// signing both X25519 public keys with the certificate's RSA key and sending the signature
// AES-128-CTR encrypted under keys derived from the X25519 shared secret.

import { concat } from '../bytes';
import type { CryptoKernels } from './crypto-kernels';
import { PairingError } from './errors';
import { aes128Ctr, sha1, x25519KeyPair, x25519Shared } from './keys';
import { rsaSignSha1, type RsaPrivateKey } from './rsa';
import { asciiBytes } from './_util';

/** spec 5.6: request body = 1 byte encryption type + 32-byte sender public key. */
export const AUTH_SETUP_BODY_BYTES = 33;

/** spec 5.6: values of the encryption type byte (0x00 is invalid). */
export const AUTH_SETUP_TYPE = {
  Unencrypted: 0x01,
  EncryptedAesKey: 0x10,
} as const;

/** spec 5.6: the texts hashed with the shared secret into the AES key and IV. */
const AUTH_SETUP_LABEL = {
  AesKey: 'AES-KEY',
  AesIv: 'AES-IV',
} as const;

/** The device credentials the configuration provides. */
export interface AuthSetupDevice {
  privateKey: RsaPrivateKey;
  /** DER of the PKCS#7 or X.509 certificate, sent as is. */
  certificate: Uint8Array;
}

/**
 * spec 5.6: AES key = first 16 bytes of SHA-1("AES-KEY" || shared), IV = first 16 bytes of
 * SHA-1("AES-IV" || shared).
 */
export function authSetupCipherKeys(shared: Uint8Array): { key: Uint8Array; iv: Uint8Array } {
  const keyDigest = sha1(concat(asciiBytes(AUTH_SETUP_LABEL.AesKey), shared));
  const ivDigest = sha1(concat(asciiBytes(AUTH_SETUP_LABEL.AesIv), shared));
  const keys = { key: keyDigest.slice(0, 16), iv: ivDigest.slice(0, 16) };
  keyDigest.fill(0);
  ivDigest.fill(0);
  return keys;
}

/**
 * The reply body of POST /auth-setup: own public key (32) || u32be(certificate length) ||
 * certificate || u32be(signature length) || AES-128-CTR(RSA-SHA1 signature of own public key
 * || sender public key). A body that is not 33 bytes with type 0x01 or 0x10 is a PairingError
 * (the route answers 400), as is a sender key that is a low-order point.
 */
export function authSetupReply(
  body: Uint8Array,
  device: { privateKey: RsaPrivateKey; certificate: Uint8Array },
  random: (n: number) => Uint8Array,
  crypto: CryptoKernels,
): Uint8Array {
  if (!(body instanceof Uint8Array) || body.length !== AUTH_SETUP_BODY_BYTES) {
    throw new PairingError(`auth-setup: body of ${body instanceof Uint8Array ? body.length : 0} bytes, expected ${AUTH_SETUP_BODY_BYTES}`);
  }
  const type = body[0];
  if (type !== AUTH_SETUP_TYPE.Unencrypted && type !== AUTH_SETUP_TYPE.EncryptedAesKey) {
    throw new PairingError(`auth-setup: encryption type 0x${type.toString(16).padStart(2, '0')} (0x01 or 0x10 expected)`);
  }
  const senderPublicKey = body.subarray(1);
  const own = x25519KeyPair(random, crypto);
  const shared = x25519Shared(own.secretKey, senderPublicKey, crypto);
  own.secretKey.fill(0);
  const signature = rsaSignSha1(device.privateKey, concat(own.publicKey, senderPublicKey), crypto);
  const { key, iv } = authSetupCipherKeys(shared);
  shared.fill(0);
  const encryptedSignature = aes128Ctr(key, iv, signature);
  key.fill(0);
  iv.fill(0);
  signature.fill(0);

  const certificate = device.certificate;
  const reply = new Uint8Array(32 + 4 + certificate.length + 4 + encryptedSignature.length);
  const view = new DataView(reply.buffer);
  reply.set(own.publicKey, 0);
  view.setUint32(32, certificate.length);
  reply.set(certificate, 36);
  view.setUint32(36 + certificate.length, encryptedSignature.length);
  reply.set(encryptedSignature, 40 + certificate.length);
  return reply;
}
