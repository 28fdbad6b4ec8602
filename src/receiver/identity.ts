// The receiver's lasting identity: its Ed25519 long-term key pair and pairing identifiers.
// Made once from the random port, kept in the store, so senders see the same device after a
// restart (TXT pk, pi, psi; spec 2.1 and 2.11).

import { ed25519 } from '@noble/curves/ed25519.js';
import { fromHex, toHex, utf8Decode, utf8Encode } from '../bytes';
import type { Logger, RandomSource, Store } from '../platform';
import { uuidFromBytes } from '../uuid';

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

interface StoredIdentity {
  version: 1;
  secretKey: string;
  pairingId: string;
  systemPairingId: string;
}

/**
 * The stored identity, or a new one (stored at once) when there is none or the stored record
 * is unreadable. An unreadable record is logged and kept under another key rather than
 * silently lost, so a person can look at it.
 */
export function loadOrCreateIdentity(store: Store, random: RandomSource, log: Logger): ReceiverIdentity {
  const stored = store.get(IDENTITY_KEY);
  if (stored) {
    try {
      return fromStored(JSON.parse(utf8Decode(stored)) as StoredIdentity);
    } catch (error) {
      log('error', `stored identity is unreadable (${error instanceof Error ? error.message : String(error)}); kept as "identity.bad", making a new one`);
      store.put('identity.bad', stored);
    }
  }
  const secretKey = random(32);
  const record: StoredIdentity = {
    version: 1,
    secretKey: toHex(secretKey),
    pairingId: uuidFromBytes(random(16)),
    systemPairingId: uuidFromBytes(random(16)),
  };
  store.put(IDENTITY_KEY, utf8Encode(JSON.stringify(record)));
  log('info', `created a new receiver identity (pi ${record.pairingId})`);
  return fromStored(record);
}

function fromStored(record: StoredIdentity): ReceiverIdentity {
  if (record.version !== 1) throw new Error(`identity record version ${String(record.version)} is not 1`);
  const secretKey = fromHex(record.secretKey);
  if (secretKey.length !== 32) throw new Error(`identity secret key is ${secretKey.length} bytes, not 32`);
  if (typeof record.pairingId !== 'string' || typeof record.systemPairingId !== 'string') throw new Error('identity record lacks its pairing identifiers');
  return {
    secretKey,
    publicKey: ed25519.getPublicKey(secretKey),
    pairingId: record.pairingId,
    systemPairingId: record.systemPairingId,
  };
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
