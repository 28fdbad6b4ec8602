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
// It is worked on as bytes: a pair-verify looks its sender up by scanning the identifiers and
// takes that one key, and adding or removing a peer splices its entry, so a step costs the
// record's bytes and one peer, not a decoded object, string and key per paired sender (on a board
// that garbage, 16 peers' worth per step, was what each new pairing seemed to keep).
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
/** A record of no peers (never written: no peers is no record). */
const EMPTY_RECORD = new Uint8Array([RECORD_VERSION, 0]);

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

/**
 * Where each entry of a record starts, and the record's end last (count + 1 offsets), checking
 * the layout without decoding anything. Throws PeersRecordError naming the offset.
 */
function entryOffsets(bytes: Uint8Array): number[] {
  if (bytes.length < 2) throw new PeersRecordError(`record of ${bytes.length} bytes is shorter than its 2-byte header`);
  if (bytes[0] !== RECORD_VERSION) throw new PeersRecordError(`record version ${bytes[0]} is not ${RECORD_VERSION}`);
  const count = bytes[1];
  const offsets = [2];
  let offset = 2;
  for (let index = 0; index < count; index++) {
    const idLength = bytes[offset];
    if (idLength === undefined || idLength === 0 || idLength > MAX_PEER_ID_BYTES) throw new PeersRecordError(`offset ${offset}: bad identifier length ${String(idLength)}`);
    const end = offset + 1 + idLength + KEY_BYTES + 1;
    if (end > bytes.length) throw new PeersRecordError(`offset ${offset}: peer ${index} runs past the end of the record (${bytes.length} bytes)`);
    offsets.push(end);
    offset = end;
  }
  if (offset !== bytes.length) throw new PeersRecordError(`${bytes.length - offset} bytes after the last peer`);
  return offsets;
}

/** The peer whose entry starts at `offset` of a record checked by entryOffsets (its key copied). */
function peerAt(bytes: Uint8Array, offset: number): Peer {
  const idLength = bytes[offset];
  const keyAt = offset + 1 + idLength;
  return { id: utf8Decode(bytes.subarray(offset + 1, keyAt)), publicKey: bytes.slice(keyAt, keyAt + KEY_BYTES), permissions: bytes[keyAt + KEY_BYTES] };
}

/** Whether the entry at `offset` has the identifier `id` (UTF-8 bytes), compared without decoding. */
function entryHasId(bytes: Uint8Array, offset: number, id: Uint8Array): boolean {
  if (bytes[offset] !== id.length) return false;
  for (let i = 0; i < id.length; i++) if (bytes[offset + 1 + i] !== id[i]) return false;
  return true;
}

/** Index of the entry with identifier `id` among the entries at `offsets`, or -1. */
function indexOfId(bytes: Uint8Array, offsets: readonly number[], id: string): number {
  const idBytes = utf8Encode(id);
  for (let index = 0; index < offsets.length - 1; index++) if (entryHasId(bytes, offsets[index], idBytes)) return index;
  return -1;
}

/**
 * `bytes` (entries at `offsets`) with the entry at `index` replaced by `entry` (one encoded
 * entry, without a header), or removed when `entry` is undefined; `entry` is added at the end
 * when `index` is -1.
 */
function spliceRecord(bytes: Uint8Array, offsets: readonly number[], index: number, entry?: Uint8Array): Uint8Array {
  const from = index < 0 ? bytes.length : offsets[index];
  const to = index < 0 ? bytes.length : offsets[index + 1];
  const added = entry?.length ?? 0;
  const out = new Uint8Array(bytes.length - (to - from) + added);
  out.set(bytes.subarray(0, from), 0);
  if (entry) out.set(entry, from);
  out.set(bytes.subarray(to), from + added);
  out[0] = RECORD_VERSION;
  out[1] = offsets.length - 1 + (index < 0 ? 1 : 0) - (entry ? 0 : 1);
  return out;
}

export function decodePeers(bytes: Uint8Array): Peer[] {
  const offsets = entryOffsets(bytes);
  const peers: Peer[] = [];
  for (let index = 0; index < offsets.length - 1; index++) peers.push(peerAt(bytes, offsets[index]));
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

  /** The record's bytes and its entries' offsets (see entryOffsets); an empty record when there is none. */
  private load(): { readonly bytes: Uint8Array; readonly offsets: number[] } {
    let bytes: Uint8Array | undefined;
    try {
      bytes = this.store.get(PEERS_KEY);
    } catch (error) {
      throw storageError('read', PEERS_KEY, error);
    }
    if (bytes) {
      try {
        return { bytes, offsets: entryOffsets(bytes) };
      } catch (error) {
        this.log('error', `stored pairings are unreadable (${describeError(error)}); kept as "${BAD_PEERS_KEY}", starting with none`);
        this.write(BAD_PEERS_KEY, bytes);
        this.write(PEERS_KEY, undefined);
      }
    }
    return { bytes: EMPTY_RECORD, offsets: [2] };
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
    return this.load().offsets.length - 1;
  }

  all(): readonly Peer[] {
    const { bytes, offsets } = this.load();
    return offsets.slice(0, -1).map((offset) => peerAt(bytes, offset));
  }

  /** The peer with this identifier, found without decoding the others. */
  get(id: string): Peer | undefined {
    const { bytes, offsets } = this.load();
    const index = indexOfId(bytes, offsets, id);
    return index < 0 ? undefined : peerAt(bytes, offsets[index]);
  }

  /**
   * Adds a peer, or replaces the key and permissions of one with the same identifier (a sender
   * that lost its keys pairs again: it proved the PIN, so it may). 'full' when maxPeers are paired.
   */
  save(peer: Peer): SaveResult {
    const { bytes, offsets } = this.load();
    const index = indexOfId(bytes, offsets, peer.id);
    if (index < 0 && offsets.length - 1 >= this.maxPeers) return 'full';
    if (index < 0 && offsets.length - 1 >= RECORD_MAX_PEERS) throw new RangeError(`${offsets.length} peers, at most ${RECORD_MAX_PEERS}`);
    // One entry, encoded as a record of one peer without its header: a replaced peer keeps its place.
    this.write(PEERS_KEY, spliceRecord(bytes, offsets, index, encodePeers([peer]).subarray(2)));
    return index < 0 ? 'added' : 'replaced';
  }

  /** Removes a peer; false when there was none by that identifier. */
  remove(id: string): boolean {
    const { bytes, offsets } = this.load();
    const index = indexOfId(bytes, offsets, id);
    if (index < 0) return false;
    this.write(PEERS_KEY, offsets.length === 2 ? undefined : spliceRecord(bytes, offsets, index));
    return true;
  }

  /** Removes every peer; how many there were. */
  clear(): number {
    const count = this.size;
    this.write(PEERS_KEY, undefined);
    return count;
  }
}
