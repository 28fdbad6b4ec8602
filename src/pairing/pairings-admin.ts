// Pairing management (issue 15): an admin sender adds, removes and lists the paired senders, as
// HomeKit controllers do (HAP "Add Pairing", "Remove Pairing", "List Pairings"), so a full table
// can be made room in without touching files. The routes (POST /pair-add, /pair-remove,
// /pair-list and the HomeKit-style /pairings) check that the connection is encrypted by
// pair-verify; this module checks the rest and answers.
//
//   M1 State 1, Method 3 (Add Pairing), Identifier, PublicKey (Ed25519 LTPK), Permissions
//      State 1, Method 4 (Remove Pairing), Identifier
//      State 1, Method 5 (List Pairings)
//   M2 State 2 [, Error]; List: then Identifier, PublicKey, Permissions per pairing, a
//      Separator between two pairings
//
// Only an admin (Permissions 1) may manage pairings: anyone else is answered Authentication,
// as HAP says. Adding an identifier that is paired already with another key is Unknown (HAP: a
// key is never replaced this way; remove it first); with the same key its permissions change.
// Removing an identifier that is not paired succeeds (the result is what was asked). When the
// last admin is removed, every pairing goes (HAP), since nobody could manage them any more.
// A store that fails is Unknown and an error line in the log.

import { utf8Decode, utf8Encode } from '../bytes';
import type { Logger } from '../platform';
import { PairingError, stepFailure } from './errors';
import { MAX_PEER_ID_BYTES, PERMISSION_ADMIN, type Peer, type PeerStore } from './peers';
import { encodeTlv8, encodeTlvUint, type Tlv8Item } from './tlv8';
import { PAIR_METHOD, PAIR_STATE, TLV, TLV_ERROR } from './tlv-types';
import { errorReply, readItem, readRequest, readUint, type PairingReply } from './_reply';

/** A management reply, and whether the connection closes after it (its own pairing was removed). */
interface ManagementReply extends PairingReply {
  readonly close?: boolean;
}

export class PairingsAdmin {
  constructor(
    private readonly peers: PeerStore,
    private readonly log: Logger,
  ) {}

  /**
   * One management request from the paired sender `requester` (the connection's pair-verify
   * identifier; undefined for a connection encrypted by transient pair-setup). Throws a
   * PairingError without tlvError for a body that is not TLV8 or has no State (400).
   */
  handle(body: Uint8Array, requester: string | undefined): ManagementReply {
    const { items, state } = readRequest(body);
    try {
      if (state !== PAIR_STATE.M1) throw new PairingError(`pairing management State ${state} is not a request (1)`, TLV_ERROR.Unknown);
      const method = readUint(items, TLV.Method, -1);
      const admin = requester === undefined ? undefined : this.peers.get(requester);
      if (!admin || admin.permissions !== PERMISSION_ADMIN) {
        const who = requester === undefined ? 'a transiently paired sender' : admin ? `sender ${requester} (not an admin)` : `sender ${requester} (no longer paired)`;
        throw new PairingError(`${who} may not manage pairings`, TLV_ERROR.Authentication);
      }
      switch (method) {
        case PAIR_METHOD.AddPairing:
          return this.add(items, requester!);
        case PAIR_METHOD.RemovePairing:
          return this.remove(items, requester!);
        case PAIR_METHOD.ListPairings:
          return this.list();
        default:
          throw new PairingError(`pairing management Method ${method < 0 ? '(missing)' : method} is not Add (3), Remove (4) or List (5) Pairing(s)`, TLV_ERROR.Unknown);
      }
    } catch (caught) {
      const error = stepFailure(caught, 'pairing management', this.log);
      return errorReply(PAIR_STATE.M2, error.tlvError, error.message);
    }
  }

  private add(items: Map<number, Uint8Array>, requester: string): ManagementReply {
    const id = readIdentifier(items);
    const publicKey = readItem(items, TLV.PublicKey, 'PublicKey (LTPK)', TLV_ERROR.Unknown, { min: 32, max: 32 }).slice();
    const permissions = readUint(items, TLV.Permissions, -1);
    if (permissions !== 0 && permissions !== PERMISSION_ADMIN) throw new PairingError(`Permissions ${permissions < 0 ? '(missing)' : permissions} is neither 0 (user) nor 1 (admin)`, TLV_ERROR.Unknown);
    const existing = this.peers.get(id);
    if (existing && !sameBytes(existing.publicKey, publicKey)) {
      throw new PairingError(`${id} is paired with another key; remove it first`, TLV_ERROR.Unknown);
    }
    const saved = this.peers.save({ id, publicKey, permissions });
    if (saved === 'full') throw new PairingError(`${this.peers.size} senders are paired already (limits.maxPairings ${this.peers.maxPeers})`, TLV_ERROR.MaxPeers);
    this.log('info', `pairing management: ${requester} ${saved === 'added' ? 'added' : 'changed the permissions of'} ${id} (${permissionName(permissions)})`);
    return { body: encodeTlv8([[TLV.State, encodeTlvUint(PAIR_STATE.M2)]]) };
  }

  private remove(items: Map<number, Uint8Array>, requester: string): ManagementReply {
    const id = readIdentifier(items);
    const removed = this.peers.remove(id);
    let everything = false;
    if (removed && this.peers.size > 0 && !this.peers.all().some((peer) => peer.permissions === PERMISSION_ADMIN)) {
      // HAP: with the last admin gone nobody could manage the rest; they all go.
      everything = this.peers.clear() > 0;
    }
    this.log('info', `pairing management: ${requester} removed ${id}${removed ? '' : ' (was not paired)'}${everything ? '; it was the last admin, so every pairing was removed' : ''}`);
    return { body: encodeTlv8([[TLV.State, encodeTlvUint(PAIR_STATE.M2)]]), close: removed && (id === requester || everything) };
  }

  private list(): ManagementReply {
    const items: Tlv8Item[] = [[TLV.State, encodeTlvUint(PAIR_STATE.M2)]];
    this.peers.all().forEach((peer: Peer, index) => {
      if (index > 0) items.push([TLV.Separator, new Uint8Array(0)]);
      items.push([TLV.Identifier, utf8Encode(peer.id)], [TLV.PublicKey, peer.publicKey], [TLV.Permissions, encodeTlvUint(peer.permissions)]);
    });
    return { body: encodeTlv8(items) };
  }
}

function readIdentifier(items: Map<number, Uint8Array>): string {
  const bytes = readItem(items, TLV.Identifier, 'Identifier', TLV_ERROR.Unknown, { min: 1, max: MAX_PEER_ID_BYTES });
  try {
    return utf8Decode(bytes);
  } catch {
    throw new PairingError('Identifier is not UTF-8', TLV_ERROR.Unknown);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** How a permissions byte reads in log lines and the host's `pairings list`. */
export function permissionName(permissions: number): string {
  return permissions === PERMISSION_ADMIN ? 'admin' : 'user';
}
