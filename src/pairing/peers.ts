// The paired senders (spec 5.3, normal pairing): identifier -> Ed25519 long-term public key and
// permissions, kept in ONE store record so that adding or removing a peer is one atomic write.
//
// Record `pairings` (8 characters: ESP32 NVS keys are at most 15), binary, of
// 2 + n * (1 + id bytes + 32 + 1) bytes; with the default limits.maxPairings (16) and the longest
// identifiers that is 1570 bytes (NVS blobs may hold 4000):
//   u8 version (1) | u8 count | count x ( u8 idLength | id (UTF-8) | 32-byte LTPK | u8 permissions )
// One record rather than one per peer: the store port is atomic per record, so a crash during
// a write leaves the old list or the new one, never a peer half added; and no key hashing is
// needed to fit identifiers (UUIDs, 36 characters) into 15-character keys.
//
// The record is read from the store on every use rather than kept in memory, so that the host's
// `pairings` command (hosts/node/pairings-command.ts) can change it while the receiver runs.
// A store that fails is a StorageError naming the record and the cause; the pairing steps answer
// it with a TLV error rather than letting it become an HTTP 500.

import { utf8Decode, utf8Encode } from '../bytes';
import type { Logger, Store } from '../platform';
import { StorageError } from './errors';
import { describeError } from '../errors';

/** Store key of the pairings record. */
export const PEERS_KEY = 'pairings';
/** Where an unreadable pairings record is kept for a person to look at. */
export const BAD_PEERS_KEY = 'pairings.bad';
/**
 * Most peers the record format holds (its count is one byte). How many a receiver keeps is
 * limits.maxPairings (at most this); past it a pair-setup answers MaxPeers (HAP 5.6.6.2).
 */
export const RECORD_MAX_PEERS = 255;
/** Longest sender identifier, in UTF-8 bytes (senders send a UUID string: 36). */
export const MAX_PEER_ID_BYTES = 64;

const RECORD_VERSION = 1;
const KEY_BYTES = 32;

/** HAP permissions byte: 1 admin (may add and remove pairings), 0 regular user. */
export const PERMISSION_ADMIN = 1;

export interface Peer {
  /** The sender's pairing identifier, as it sent it in pair-setup M5. */
  readonly id: string;
  /** Its Ed25519 long-term public key (LTPK). */
  readonly publicKey: Uint8Array;
  readonly permissions: number;
}

/** Thrown for a record that cannot be read; the message names the offset. */
class PeersRecordError extends Error {
  override name = 'PeersRecordError';
}

export function encodePeers(peers: readonly Peer[]): Uint8Array {
  if (peers.length > RECORD_MAX_PEERS) throw new RangeError(`${peers.length} peers, at most ${RECORD_MAX_PEERS}`);
  const ids = peers.map((peer) => utf8Encode(peer.id));
  let size = 2;
  for (const id of ids) size += 1 + id.length + KEY_BYTES + 1;
  const out = new Uint8Array(size);
  out[0] = RECORD_VERSION;
  out[1] = peers.length;
  let offset = 2;
  peers.forEach((peer, index) => {
    const id = ids[index];
    if (id.length === 0 || id.length > MAX_PEER_ID_BYTES) throw new RangeError(`peer identifier of ${id.length} bytes (1 to ${MAX_PEER_ID_BYTES})`);
    if (peer.publicKey.length !== KEY_BYTES) throw new RangeError(`peer key of ${peer.publicKey.length} bytes, not ${KEY_BYTES}`);
    out[offset++] = id.length;
    out.set(id, offset);
    offset += id.length;
    out.set(peer.publicKey, offset);
    offset += KEY_BYTES;
    out[offset++] = peer.permissions & 0xff;
  });
  return out;
}

export function decodePeers(bytes: Uint8Array): Peer[] {
  if (bytes.length < 2) throw new PeersRecordError(`record of ${bytes.length} bytes is shorter than its 2-byte header`);
  if (bytes[0] !== RECORD_VERSION) throw new PeersRecordError(`record version ${bytes[0]} is not ${RECORD_VERSION}`);
  const count = bytes[1];
    const peers: Peer[] = [];
  let offset = 2;
  for (let index = 0; index < count; index++) {
    const idLength = bytes[offset];
    if (idLength === undefined || idLength === 0 || idLength > MAX_PEER_ID_BYTES) throw new PeersRecordError(`offset ${offset}: bad identifier length ${String(idLength)}`);
    const end = offset + 1 + idLength + KEY_BYTES + 1;
    if (end > bytes.length) throw new PeersRecordError(`offset ${offset}: peer ${index} runs past the end of the record (${bytes.length} bytes)`);
    const id = utf8Decode(bytes.subarray(offset + 1, offset + 1 + idLength));
    const publicKey = bytes.slice(offset + 1 + idLength, offset + 1 + idLength + KEY_BYTES);
    peers.push({ id, publicKey, permissions: bytes[end - 1] });
    offset = end;
  }
  if (offset !== bytes.length) throw new PeersRecordError(`${bytes.length - offset} bytes after the last peer`);
  return peers;
}

/** What `PeerStore.save` did. */
type SaveResult = 'added' | 'replaced' | 'full';

/** What a store failure means, in one line: the record, what was done, and the cause. */
function storageError(action: 'read' | 'write' | 'delete', key: string, error: unknown): StorageError {
  return new StorageError(`cannot ${action} the "${key}" record: ${describeError(error)}`);
}

/**
 * The paired senders, read from the store on every use and written back whole on every change.
 * An unreadable record is logged and kept under `pairings.bad`, and the receiver goes on with no
 * peers (senders pair again) rather than refusing to start. A store that fails to read or write
 * is a StorageError; memory never runs ahead of the store.
 */
export class PeerStore {
  /**
   * @param maxPeers most peers kept (limits.maxPairings); a peer record already holding more
   * (the limit was lowered) keeps them all, and only new ones are refused.
   */
  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    readonly maxPeers = 16,
  ) {
    if (!Number.isInteger(maxPeers) || maxPeers < 1 || maxPeers > RECORD_MAX_PEERS) throw new RangeError(`maxPeers ${maxPeers}: 1 to ${RECORD_MAX_PEERS}`);
  }

  private load(): Peer[] {
    let bytes: Uint8Array | undefined;
    try {
      bytes = this.store.get(PEERS_KEY);
    } catch (error) {
      throw storageError('read', PEERS_KEY, error);
    }
    if (!bytes) return [];
    try {
      return decodePeers(bytes);
    } catch (error) {
      this.log('error', `stored pairings are unreadable (${describeError(error)}); kept as "${BAD_PEERS_KEY}", starting with none`);
      this.write(BAD_PEERS_KEY, bytes);
      this.write(PEERS_KEY, undefined);
      return [];
    }
  }

  private write(key: string, bytes: Uint8Array | undefined): void {
    try {
      if (bytes) this.store.put(key, bytes);
      else this.store.delete(key);
    } catch (error) {
      throw storageError(bytes ? 'write' : 'delete', key, error);
    }
  }

  get size(): number {
    return this.load().length;
  }

  all(): readonly Peer[] {
    return this.load();
  }

  get(id: string): Peer | undefined {
    return this.load().find((peer) => peer.id === id);
  }

  /**
   * Adds a peer, or replaces the key and permissions of one with the same identifier (a sender
   * that lost its keys pairs again: it proved the PIN, so it may). 'full' when maxPeers are paired.
   */
  save(peer: Peer): SaveResult {
    const peers = this.load();
    const index = peers.findIndex((candidate) => candidate.id === peer.id);
    if (index < 0 && peers.length >= this.maxPeers) return 'full';
    const next = index < 0 ? [...peers, peer] : peers.map((candidate, at) => (at === index ? peer : candidate));
    this.write(PEERS_KEY, encodePeers(next));
    return index < 0 ? 'added' : 'replaced';
  }

  /** Removes a peer; false when there was none by that identifier. */
  remove(id: string): boolean {
    const peers = this.load();
    const next = peers.filter((peer) => peer.id !== id);
    if (next.length === peers.length) return false;
    this.write(PEERS_KEY, next.length === 0 ? undefined : encodePeers(next));
    return true;
  }

  /** Removes every peer; how many there were. */
  clear(): number {
    const count = this.load().length;
    this.write(PEERS_KEY, undefined);
    return count;
  }
}
