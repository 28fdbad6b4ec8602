// The receiver's side of POST /pair-verify (spec 5.3, normal pairing): a paired sender proves
// it holds the key it paired with, both sides agree an X25519 secret, and the connection is
// encrypted with it (spec 5.4).
//
//   M1 State 1, PublicKey: the sender's ephemeral X25519 key
//   M2 State 2, PublicKey: the receiver's, EncryptedData PV-Msg02 under
//      HKDF(shared, Pair-Verify-Encrypt): Identifier, Signature = Ed25519(receiver LTSK,
//      receiver X25519 || receiver identifier || sender X25519)
//   M3 State 3, EncryptedData PV-Msg03: the sender's Identifier, Signature = Ed25519(sender
//      LTSK, sender X25519 || sender identifier || receiver X25519)
//   M4 State 4; the X25519 shared secret is the EncryptionKey from the next byte on
//
// The sender must be a stored pairing (pair-setup M5): an unknown identifier or a signature
// that its stored key does not verify is Authentication. (A connection encrypted by transient
// pair-setup needs no pair-verify at all.)

import { concat, utf8Decode, utf8Encode } from '../bytes';
import type { Logger, RandomSource } from '../platform';
import { StateKey, type ConnectionState } from '../connection-state';
import { ENCRYPTION_KEY, createControlChannel } from './channel';
import type { CryptoKernels } from './crypto-kernels';
import { PairingError, stepFailure } from './errors';
import { chachaOpenWithNonceLabel, chachaSealWithNonceLabel, derivePairingKey, PAIRING_HKDF, PAIRING_NONCE } from './hkdf';
import { ed25519Sign, ed25519Verify, x25519KeyPair, x25519Shared } from './keys';
import { decodeSubTlv } from './pair-setup';
import { MAX_PEER_ID_BYTES, type PeerStore } from './peers';
import { encodeTlv8, encodeTlvUint } from './tlv8';
import { PAIR_STATE, TLV, TLV_ERROR } from './tlv-types';
import { errorReply, readItem, readRequest, type PairingReply } from './_reply';

interface PairVerifyOptions {
  /** The receiver's pairing identifier (the one pair-setup M6 sent). */
  readonly identifier: string;
  readonly identity: { readonly secretKey: Uint8Array; readonly publicKey: Uint8Array };
  readonly peers: PeerStore;
  readonly random: RandomSource;
  readonly log: Logger;
  /**
   * Why the sender naming itself `identifier` is refused (the receiver's access lists), or
   * undefined: asked once its identifier is read, before it is paired or verified.
   */
  readonly refusesPeer?: (identifier: string, session: ConnectionState) => string | undefined;
  /** The curves, HKDF and the channel run on these (the host's pick: DESIGN 5). */
  readonly crypto: CryptoKernels;
}

interface VerifyProgress {
  readonly senderKey: Uint8Array;
  readonly receiverKey: Uint8Array;
  readonly sharedSecret: Uint8Array;
  readonly encryptKey: Uint8Array;
}

const PROGRESS = new StateKey<VerifyProgress>('pair-verify');

export class PairVerify {
  private readonly crypto: CryptoKernels;

  constructor(private readonly options: PairVerifyOptions) {
    this.crypto = options.crypto;
  }

  /** One request of a connection's pair-verify. Throws a PairingError without tlvError for a malformed body (400). */
  handle(body: Uint8Array, session: ConnectionState): PairingReply {
    const { items, state } = readRequest(body);
    try {
      if (state === PAIR_STATE.M1) return this.m1(items, session);
      if (state === PAIR_STATE.M3) return this.m3(items, session);
      throw new PairingError(`pair-verify State ${state} is not a request step (1 or 3)`, TLV_ERROR.Unknown);
    } catch (caught) {
      const error = stepFailure(caught, `pair-verify M${state}`, this.options.log);
      this.forget(session);
      return errorReply(Math.min(state + 1, 255), error.tlvError, error.message);
    }
  }

  private m1(items: Map<number, Uint8Array>, session: ConnectionState): PairingReply {
    const { identifier, identity, random } = this.options;
    this.forget(session);
    const senderKey = readItem(items, TLV.PublicKey, 'PublicKey (sender X25519)', TLV_ERROR.Authentication, { min: 32, max: 32 }).slice();
    const { crypto } = this;
    const pair = x25519KeyPair(random, crypto);
    const sharedSecret = x25519Shared(pair.secretKey, senderKey, crypto);
    pair.secretKey.fill(0);
    const encryptKey = derivePairingKey(sharedSecret, PAIRING_HKDF.PairVerifyEncrypt, 32, crypto);
    const receiverId = utf8Encode(identifier);
    const signature = ed25519Sign(identity.secretKey, concat(pair.publicKey, receiverId, senderKey), crypto);
    const sealed = chachaSealWithNonceLabel(
      encryptKey,
      PAIRING_NONCE.PairVerifyM2,
      encodeTlv8([
        [TLV.Identifier, receiverId],
        [TLV.Signature, signature],
      ]),
    );
    session.set(PROGRESS, { senderKey, receiverKey: pair.publicKey, sharedSecret, encryptKey });
    return {
      body: encodeTlv8([
        [TLV.State, encodeTlvUint(PAIR_STATE.M2)],
        [TLV.PublicKey, pair.publicKey],
        [TLV.EncryptedData, sealed],
      ]),
    };
  }

  private m3(items: Map<number, Uint8Array>, session: ConnectionState): PairingReply {
    const progress = session.get(PROGRESS);
    if (!progress) throw new PairingError('pair-verify M3 without M1 on this connection', TLV_ERROR.Unknown);
    const sealed = readItem(items, TLV.EncryptedData, 'EncryptedData', TLV_ERROR.Authentication, { min: 16, max: 1024 });
    const sub = decodeSubTlv(chachaOpenWithNonceLabel(progress.encryptKey, PAIRING_NONCE.PairVerifyM3, sealed));
    const idBytes = readItem(sub, TLV.Identifier, 'sender Identifier', TLV_ERROR.Authentication, { min: 1, max: MAX_PEER_ID_BYTES });
    const signature = readItem(sub, TLV.Signature, 'sender Signature', TLV_ERROR.Authentication, { min: 64, max: 64 });
    let id: string;
    try {
      id = utf8Decode(idBytes);
    } catch {
      throw new PairingError('M3: the sender Identifier is not UTF-8', TLV_ERROR.Authentication);
    }
    const refusal = this.options.refusesPeer?.(id, session);
    if (refusal) throw new PairingError(`M3: ${refusal}`, TLV_ERROR.Authentication);
    const peer = this.options.peers.get(id);
    if (!peer) throw new PairingError(`M3: sender ${id} is not paired`, TLV_ERROR.Authentication);
    if (!ed25519Verify(peer.publicKey, concat(progress.senderKey, idBytes, progress.receiverKey), signature, this.crypto)) {
      throw new PairingError(`M3: the signature of sender ${id} does not verify with its paired key`, TLV_ERROR.Authentication);
    }
    const channel = createControlChannel(progress.sharedSecret, this.crypto);
    session.set(ENCRYPTION_KEY, progress.sharedSecret.slice());
    this.forget(session);
    session.peerId = id;
    this.options.log('info', `pair-verify done: sender ${id}, the connection is encrypted`);
    return { body: encodeTlv8([[TLV.State, encodeTlvUint(PAIR_STATE.M4)]]), secure: channel };
  }

  private forget(session: ConnectionState): void {
    const progress = session.get(PROGRESS);
    if (!progress) return;
    progress.sharedSecret.fill(0);
    progress.encryptKey.fill(0);
    session.delete(PROGRESS);
  }
}
