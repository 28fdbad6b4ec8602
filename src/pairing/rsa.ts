// RSA signatures with SHA-1 (RSASSA-PKCS1-v1_5, RFC 8017 8.2.1) by the device key of
// auth-setup (spec 5.6) and pair-setup with auth (spec 5.5), from a PKCS#1 or PKCS#8 private key.

import { sha1 } from '@noble/hashes/legacy.js';
import { PairingError } from './errors';
import { DER_TAG, derUnsignedInteger, pemLabel, pemToDer, readDerChildren, readDerExactly } from './der';
import type { CryptoKernels } from './crypto-kernels';
import { bigIntToBytes, bytesToBigInt, checkBytes } from './_util';

export { pemToDer } from './der';

/** An RSA private key with its CRT values (RFC 8017 3.2, second representation). */
export interface RsaPrivateKey {
  /** Modulus n. */
  n: bigint;
  /** Public exponent e. */
  e: bigint;
  /** Private exponent d. */
  d: bigint;
  /** Prime factors p and q, CRT exponents d mod (p-1) and d mod (q-1), and q^-1 mod p. */
  p: bigint;
  q: bigint;
  dp: bigint;
  dq: bigint;
  qinv: bigint;
  /** Bytes of the modulus: the length of every signature. */
  byteLength: number;
}

/** rsaEncryption, 1.2.840.113549.1.1.1, as DER contents octets. */
const RSA_ENCRYPTION_OID = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/** DigestInfo prefix of SHA-1 (RFC 8017 9.2 note 1), followed by the 20-byte digest. */
const SHA1_DIGEST_INFO_PREFIX = [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14];
const SHA1_BYTES = 20;

/**
 * Reads an RSA private key from PEM ('RSA PRIVATE KEY' = PKCS#1 RSAPrivateKey, RFC 8017 A.1.2;
 * 'PRIVATE KEY' = PKCS#8 PrivateKeyInfo, RFC 5208 5) or from the DER of either.
 */
export function parseRsaPrivateKey(pemOrDer: string | Uint8Array): RsaPrivateKey {
  let der: Uint8Array;
  if (typeof pemOrDer === 'string') {
    const label = pemLabel(pemOrDer);
    if (label !== 'RSA PRIVATE KEY' && label !== 'PRIVATE KEY') {
      throw new PairingError(`RSA key: PEM block "${label ?? 'none'}" is not RSA PRIVATE KEY or PRIVATE KEY`);
    }
    der = pemToDer(pemOrDer, label);
  } else {
    checkBytes(pemOrDer, 'RSA key');
    der = pemOrDer;
  }
  const fields = readDerChildren(readDerExactly(der, DER_TAG.Sequence, 'RSA key').value);
  if (fields.length >= 3 && fields[1].tag === DER_TAG.Sequence) return fromPkcs8(fields);
  return fromPkcs1(fields);
}

function fromPkcs8(fields: ReturnType<typeof readDerChildren>): RsaPrivateKey {
  const algorithm = readDerChildren(fields[1].value);
  const oid = algorithm[0];
  if (!oid || oid.tag !== DER_TAG.ObjectIdentifier || !sameBytes(oid.value, RSA_ENCRYPTION_OID)) {
    throw new PairingError('RSA key: PKCS#8 key algorithm is not rsaEncryption');
  }
  if (fields[2].tag !== DER_TAG.OctetString) throw new PairingError('RSA key: PKCS#8 privateKey is not an OCTET STRING');
  return fromPkcs1(readDerChildren(readDerExactly(fields[2].value, DER_TAG.Sequence, 'RSA key (PKCS#8 privateKey)').value));
}

function fromPkcs1(fields: ReturnType<typeof readDerChildren>): RsaPrivateKey {
  if (fields.length < 9) throw new PairingError(`RSA key: RSAPrivateKey has ${fields.length} fields, expected 9`);
  const version = derUnsignedInteger(fields[0], 'RSA key version');
  if (version !== 0n) throw new PairingError(`RSA key: version ${version} (multi-prime keys are not supported)`);
  const names = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qinv'] as const;
  const values = names.map((name, i) => derUnsignedInteger(fields[i + 1], `RSA key ${name}`));
  const [n, e, d, p, q, dp, dq, qinv] = values;
  if (n < 3n || e < 3n || p < 2n || q < 2n) throw new PairingError('RSA key: implausible modulus, exponent or primes');
  if (p * q !== n) throw new PairingError('RSA key: p * q does not equal n');
  return { n, e, d, p, q, dp, dq, qinv, byteLength: Math.ceil(n.toString(16).length / 2) };
}

function sameBytes(a: Uint8Array, b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * RSASSA-PKCS1-v1_5 signature with SHA-1 (RFC 8017 8.2.1): EMSA-PKCS1-v1_5 encoding (9.2),
 * then RSASP1 with the CRT (5.1.2 step 2b). The result is checked with the public exponent
 * before it is returned, so a fault (or a broken modPow replacement) never leaks a bad
 * signature, which would reveal a factor of n.
 */
export function rsaSignSha1(key: RsaPrivateKey, message: Uint8Array, crypto: CryptoKernels): Uint8Array {
  const { modPow } = crypto;
  checkBytes(message, 'RSA message');
  const k = key.byteLength;
  const tLength = SHA1_DIGEST_INFO_PREFIX.length + SHA1_BYTES;
  if (k < tLength + 11) throw new PairingError(`RSA key of ${k} bytes is too short for a SHA-1 signature`);
  // EM = 0x00 || 0x01 || PS (0xff, k - tLen - 3 bytes) || 0x00 || DigestInfo || H(M)
  const encoded = new Uint8Array(k);
  encoded[1] = 0x01;
  encoded.fill(0xff, 2, k - tLength - 1);
  encoded.set(SHA1_DIGEST_INFO_PREFIX, k - tLength);
  encoded.set(sha1(message), k - SHA1_BYTES);
  const m = bytesToBigInt(encoded);
  const m1 = modPow(m, key.dp, key.p);
  const m2 = modPow(m, key.dq, key.q);
  let h = (key.qinv * (m1 - m2)) % key.p;
  if (h < 0n) h += key.p;
  const s = m2 + key.q * h;
  if (modPow(s, key.e, key.n) !== m) throw new PairingError('RSA: signature check failed (inconsistent key or arithmetic fault)');
  return bigIntToBytes(s, k);
}
