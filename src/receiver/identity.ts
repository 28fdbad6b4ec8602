// The receiver's lasting identity: its Ed25519 long-term key pair and pairing identifiers.
// Made once from the random port, kept in the store, so senders see the same device after a
// restart (TXT pk, pi, psi; spec 2.1 and 2.11).

import { equal, fromHex, toHex, utf8Decode, utf8Encode } from '../bytes';
import type { Logger, RandomSource, Store } from '../platform';
import type { CryptoKernels } from '../pairing';
import { uuidFromBytes } from '../uuid';
import { describeError } from '../errors';

export interface ReceiverIdentity {
  /** Ed25519 secret seed (32 bytes). Never leaves the device. */
  readonly secretKey: Uint8Array;
  /** Ed25519 public key (32 bytes): TXT pk, /info pk. */
  readonly publicKey: Uint8Array;
  /** Pairing identifier (TXT pi). */
  readonly pairingId: string;
  /** System pairing identifier (TXT psi). */
  readonly systemPairingId: string;
}

/** Store key of the identity record (ESP32 NVS keys are at most 15 characters). */
export const IDENTITY_KEY = 'identity';
/** Where an identity record that cannot be read is kept for a person to look at. */
export const BAD_IDENTITY_KEY = 'identity.bad';
/**
 * The records that hold the receiver's Ed25519 secret key: whoever reads one can pose as this
 * receiver to every paired sender, so a host keeps them from other users of the machine.
 */
export const SECRET_KEY_RECORDS: readonly string[] = [IDENTITY_KEY, BAD_IDENTITY_KEY];

interface StoredIdentity {
  version: 1;
  secretKey: string;
  pairingId: string;
  systemPairingId: string;
  /**
   * The public key of `secretKey`, kept so that a start does not derive it: that is an Ed25519
   * base-point multiplication, which on the portable build first builds @noble's table (about
   * 35 ms of every start on the desktop, far more on a microcontroller). Records written before
   * it lack it and get it on their first start.
   */
  publicKey?: string;
  /** KEY_CHECK_BYTES of SHA-512(secret key || public key): a damaged key is re-derived, never trusted. */
  keyCheck?: string;
}

const KEY_CHECK_BYTES = 8;

/**
 * The stored identity, or a new one (stored at once) when there is none or the stored record
 * is unreadable. An unreadable record is logged and kept under another key rather than
 * silently lost, so a person can look at it. The public key comes from the record when its
 * check holds; otherwise it is derived from the secret key and the record written again. The
 * key and its check are computed on `crypto`, the host's kernels.
 */
export function loadOrCreateIdentity(store: Store, random: RandomSource, log: Logger, crypto: CryptoKernels): ReceiverIdentity {
  const stored = store.get(IDENTITY_KEY);
  if (stored) {
    let record: StoredIdentity | undefined;
    let identity: Omit<ReceiverIdentity, 'publicKey'> | undefined;
    try {
      record = JSON.parse(utf8Decode(stored)) as StoredIdentity;
      identity = fromStored(record);
    } catch (error) {
      log('error', `stored identity is unreadable (${describeError(error)}); kept as "${BAD_IDENTITY_KEY}", making a new one`);
      store.put(BAD_IDENTITY_KEY, stored);
    }
    if (record && identity) {
      const kept = keptPublicKey(record, identity.secretKey, crypto);
      if (kept) return { ...identity, publicKey: kept };
      // Not kept yet (an older record), or damaged: derived from the secret, which decides.
      if (record.publicKey !== undefined) log('warn', 'stored identity: its public key does not match its check; derived again from the secret key');
      const publicKey = crypto.ed25519PublicKey(identity.secretKey);
      store.put(IDENTITY_KEY, encodeRecord({ ...record, ...keyFields(identity.secretKey, publicKey, crypto) }));
      return { ...identity, publicKey };
    }
  }
  const secretKey = random(32);
  const publicKey = crypto.ed25519PublicKey(secretKey);
  const record: StoredIdentity = {
    version: 1,
    secretKey: toHex(secretKey),
    pairingId: uuidFromBytes(random(16)),
    systemPairingId: uuidFromBytes(random(16)),
    ...keyFields(secretKey, publicKey, crypto),
  };
  store.put(IDENTITY_KEY, encodeRecord(record));
  log('info', `created a new receiver identity (pi ${record.pairingId})`);
  return { ...fromStored(record), publicKey };
}

function encodeRecord(record: StoredIdentity): Uint8Array {
  return utf8Encode(JSON.stringify(record));
}

/** The public key and its check, as a record keeps them. */
function keyFields(secretKey: Uint8Array, publicKey: Uint8Array, crypto: CryptoKernels): Pick<StoredIdentity, 'publicKey' | 'keyCheck'> {
  return { publicKey: toHex(publicKey), keyCheck: toHex(keyCheck(secretKey, publicKey, crypto)) };
}

function keyCheck(secretKey: Uint8Array, publicKey: Uint8Array, crypto: CryptoKernels): Uint8Array {
  return crypto.sha512([secretKey, publicKey]).subarray(0, KEY_CHECK_BYTES);
}

/** The record's public key when it is there, 32 bytes, and matches its check; otherwise undefined. */
function keptPublicKey(record: StoredIdentity, secretKey: Uint8Array, crypto: CryptoKernels): Uint8Array | undefined {
  if (typeof record.publicKey !== 'string' || typeof record.keyCheck !== 'string') return undefined;
  try {
    const publicKey = fromHex(record.publicKey);
    const check = fromHex(record.keyCheck);
    return publicKey.length === 32 && equal(check, keyCheck(secretKey, publicKey, crypto)) ? publicKey : undefined;
  } catch {
    return undefined; // not hex
  }
}

/** The secret and identifiers of a record (its public key is the caller's: kept or derived). */
function fromStored(record: StoredIdentity): Omit<ReceiverIdentity, 'publicKey'> {
  if (record.version !== 1) throw new Error(`identity record version ${String(record.version)} is not 1`);
  const secretKey = fromHex(record.secretKey);
  if (secretKey.length !== 32) throw new Error(`identity secret key is ${secretKey.length} bytes, not 32`);
  if (typeof record.pairingId !== 'string' || typeof record.systemPairingId !== 'string') throw new Error('identity record lacks its pairing identifiers');
  return { secretKey, pairingId: record.pairingId, systemPairingId: record.systemPairingId };
}

/** Store key of the device id made for a host without a MAC address of its own. */
export const DEVICE_ID_KEY = 'device-id';

/**
 * The device id (spec 2.1 deviceid) when the configuration names none: the host's MAC address
 * when it has one, else one made on first start and kept in the store: a random, locally
 * administered unicast MAC (IEEE 802: bit 1 of the first byte set, bit 0 clear), so two
 * receivers on one network never share one and a restart keeps it.
 */
export function loadOrCreateDeviceId(store: Store, random: RandomSource, hardwareMac?: string): string {
  if (hardwareMac) return hardwareMac;
  const stored = store.get(DEVICE_ID_KEY);
  if (stored && stored.length === 6) return toHex(stored, ':').toUpperCase();
  const made = random(6);
  made[0] = (made[0] & 0xfc) | 0x02;
  store.put(DEVICE_ID_KEY, made);
  return toHex(made, ':').toUpperCase();
}
