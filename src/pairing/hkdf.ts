// Pairing's key schedule: HKDF-SHA-512 (RFC 5869) under the wire salt/info strings, and
// ChaCha20-Poly1305 (RFC 8439) sealing of TLV sub-messages under the wire nonce labels.
// The two tables below are the only place those strings are written.

import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import type { CryptoKernels } from './crypto-kernels';
import { PairingError } from './errors';
import { TLV_ERROR } from './tlv-types';
import { asciiBytes, checkBytes } from './_util';

/** The HKDF salt and info strings of pairing, exactly as they go into HKDF (ASCII). */
export const PAIRING_HKDF = {
  /** Pair-setup M5/M6 EncryptedData key, from the SRP session key. */
  PairSetupEncrypt: { salt: 'Pair-Setup-Encrypt-Salt', info: 'Pair-Setup-Encrypt-Info' },
  /** Pair-setup M5: the sender's signed iOSDeviceX, from the SRP session key. */
  PairSetupControllerSign: { salt: 'Pair-Setup-Controller-Sign-Salt', info: 'Pair-Setup-Controller-Sign-Info' },
  /** Pair-setup M6: the receiver's signed AccessoryX, from the SRP session key. */
  PairSetupAccessorySign: { salt: 'Pair-Setup-Accessory-Sign-Salt', info: 'Pair-Setup-Accessory-Sign-Info' },
  /** Pair-verify M2/M3 EncryptedData key, from the X25519 shared secret. */
  PairVerifyEncrypt: { salt: 'Pair-Verify-Encrypt-Salt', info: 'Pair-Verify-Encrypt-Info' },
  /** spec 5.4: sender-to-receiver frames, from the EncryptionKey. */
  ControlWrite: { salt: 'Control-Salt', info: 'Control-Write-Encryption-Key' },
  /** spec 5.4: receiver-to-sender frames, from the EncryptionKey. */
  ControlRead: { salt: 'Control-Salt', info: 'Control-Read-Encryption-Key' },
  /**
   * A session's event channel (the TCP connection a sender opens to the SETUP answer's
   * eventPort), from the same EncryptionKey: not in the spec; as senders in the field derive it.
   * See EVENT_CHANNEL_KEYS (channel.ts) for which direction uses which.
   */
  EventsRead: { salt: 'Events-Salt', info: 'Events-Read-Encryption-Key' },
  EventsWrite: { salt: 'Events-Salt', info: 'Events-Write-Encryption-Key' },
  /**
   * spec 5.5: the 32 bytes the device certificate's RSA key signs in pair-setup with auth. The
   * specification writes a vendor-auth name; the wire salt is this one.
   */
  MfiPairSetup: { salt: 'MFi-Pair-Setup-Salt', info: 'MFi-Pair-Setup-Info' },
} as const;
type PairingHkdfLabel = (typeof PAIRING_HKDF)[keyof typeof PAIRING_HKDF];

/** The 8-character nonce labels of the encrypted TLV sub-messages (12-byte nonce = 4 zero bytes + label). */
export const PAIRING_NONCE = {
  PairSetupM4: 'PS-Msg04',
  PairSetupM5: 'PS-Msg05',
  PairSetupM6: 'PS-Msg06',
  PairVerifyM2: 'PV-Msg02',
  PairVerifyM3: 'PV-Msg03',
} as const;
export type PairingNonceLabel = (typeof PAIRING_NONCE)[keyof typeof PAIRING_NONCE];

/** SHA-512's output length, HKDF's HashLen (RFC 5869 2.3). */
const HASH_LENGTH = 64;

/**
 * HKDF-SHA-512 (RFC 5869 2.2 extract, 2.3 expand) of `ikm`, with `salt` and `info` given as the
 * exact ASCII wire strings, on the HMAC of `crypto`. `length` defaults to the 32 bytes of a
 * ChaCha20 or Ed25519 key.
 */
export function hkdfSha512(ikm: Uint8Array, salt: string, info: string, length: number, crypto: CryptoKernels): Uint8Array {
  checkBytes(ikm, 'HKDF input key');
  if (!Number.isInteger(length) || length < 1 || length > 255 * HASH_LENGTH) throw new PairingError(`HKDF output of ${length} bytes (1 to ${255 * HASH_LENGTH})`);
  const prk = crypto.hmacSha512(asciiBytes(salt), ikm);
  const infoBytes = asciiBytes(info);
  const out = new Uint8Array(length);
  // T(i) = HMAC(PRK, T(i-1) | info | i); the input buffer holds T(i-1) | info | i.
  const input = new Uint8Array(HASH_LENGTH + infoBytes.length + 1);
  let previous = 0;
  for (let i = 1, offset = 0; offset < length; i++) {
    input.set(infoBytes, previous);
    input[previous + infoBytes.length] = i;
    const block = crypto.hmacSha512(prk, input.subarray(0, previous + infoBytes.length + 1));
    out.set(block.subarray(0, Math.min(HASH_LENGTH, length - offset)), offset);
    offset += HASH_LENGTH;
    input.set(block, 0);
    previous = HASH_LENGTH;
    block.fill(0);
  }
  prk.fill(0);
  input.fill(0);
  return out;
}

/** HKDF-SHA-512 with one row of PAIRING_HKDF. */
export function derivePairingKey(ikm: Uint8Array, label: PairingHkdfLabel, length: number, crypto: CryptoKernels): Uint8Array {
  return hkdfSha512(ikm, label.salt, label.info, length, crypto);
}

/** The 12-byte nonce of a label: 4 zero bytes, then the 8 ASCII characters. */
export function nonceFromLabel(label: string): Uint8Array {
  if (label.length !== 8) throw new PairingError(`nonce label ${JSON.stringify(label)} is not 8 characters`);
  const nonce = new Uint8Array(12);
  nonce.set(asciiBytes(label), 4);
  return nonce;
}

/** ChaCha20-Poly1305 (RFC 8439 2.8) of a TLV sub-message: ciphertext followed by the 16-byte tag. */
export function chachaSealWithNonceLabel(key: Uint8Array, label: string, plaintext: Uint8Array, aad?: Uint8Array): Uint8Array {
  checkBytes(key, 'ChaCha20-Poly1305 key', 32);
  return chacha20poly1305(key, nonceFromLabel(label), aad).encrypt(plaintext);
}

/**
 * Opens ciphertext followed by its tag; a wrong tag (or input shorter than a tag) is a
 * PairingError with tlvError Authentication.
 */
export function chachaOpenWithNonceLabel(key: Uint8Array, label: string, sealed: Uint8Array, aad?: Uint8Array): Uint8Array {
  checkBytes(key, 'ChaCha20-Poly1305 key', 32);
  checkBytes(sealed, 'sealed data');
  if (sealed.length < 16) throw new PairingError(`sealed data of ${sealed.length} bytes is shorter than its tag`, TLV_ERROR.Authentication);
  try {
    return chacha20poly1305(key, nonceFromLabel(label), aad).decrypt(sealed);
  } catch {
    throw new PairingError(`${label}: authentication tag does not match`, TLV_ERROR.Authentication);
  }
}
