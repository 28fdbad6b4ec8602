// The sender's side of pairing, message by message (HomeKit-style pairing as the protocol uses
// it, spec 5.3-5.4; SRP-6a of RFC 5054 with SHA-512 and the 3072-bit group, HKDF labels,
// Ed25519/X25519), on the primitives of src/pairing. No I/O here: pairing.ts sends the messages.
// An answer that carries an Error item becomes a PairingRefused naming it. (The tests drive
// receivers with their own client, test/support/pairing-client.ts, which can also misbehave:
// transient flags, other keys; this one checks every answer and does what a sender should.)

import { concat, utf8Decode, utf8Encode } from '../src/bytes';
import { createSenderChannel, type ControlChannel } from '../src/pairing/channel';
import { chachaOpenWithNonceLabel, chachaSealWithNonceLabel, derivePairingKey, PAIRING_HKDF, PAIRING_NONCE } from '../src/pairing/hkdf';
import { ed25519Sign, ed25519Verify, x25519KeyPair, x25519Shared, type KeyPair } from '../src/pairing/keys';
import { SRP_GROUP_3072, srpClientProof } from '../src/pairing/srp';
import { decodeTlv8, decodeTlv8Groups, decodeTlvUint, encodeTlv8, encodeTlvUint } from '../src/pairing/tlv8';
import { PAIR_METHOD, TLV } from '../src/pairing/tlv-types';
import { tlvErrorName } from '../src/pairing';
import { bytesToBigInt, constantTimeEqual } from '../src/pairing/_util';
import type { CryptoKernels } from '../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../src/pairing/portable-crypto-kernels';

/**
 * The kernels the sender's pairing and channel run on (the core picks none: DESIGN 5). The tool
 * runs on Node, once per command: the portable build is fast enough, and needs nothing built.
 */
export const SENDER_CRYPTO: CryptoKernels = portableCryptoKernels;

/** Random bytes (node:crypto's in the command). */
export type Random = (length: number) => Uint8Array;

/** The sender's lasting identity: its pairing identifier and Ed25519 long-term key pair. */
export interface SenderIdentity {
  readonly id: string;
  readonly keys: KeyPair;
}

/** A receiver paired with: its identifier and Ed25519 long-term public key, from pair-setup M6. */
export interface PairedReceiver {
  readonly id: string;
  readonly publicKey: Uint8Array;
}

/** The receiver answered a pairing step with an Error item: its code, name and RetryDelay (s). */
export class PairingRefused extends Error {
  override name = 'PairingRefused';
  constructor(
    readonly step: string,
    readonly code: number,
    readonly retryDelaySeconds: number | undefined,
  ) {
    super(`${step}: the receiver answered ${tlvErrorName(code)}${retryDelaySeconds !== undefined ? ` (retry in ${retryDelaySeconds} s)` : ''}`);
  }
}

/** A pairing answer that is not what the step expects (wrong state, a signature that fails...). */
export class PairingBroken extends Error {
  override name = 'PairingBroken';
}

const state = (n: number): [number, Uint8Array] => [TLV.State, new Uint8Array([n])];

/** The items of the answer to `step`, checked for its State `expected`; an Error item throws PairingRefused. */
export function answerItems(step: string, body: Uint8Array, expected: number): Map<number, Uint8Array> {
  let items: Map<number, Uint8Array>;
  try {
    items = decodeTlv8(body);
  } catch (error) {
    throw new PairingBroken(`${step}: the answer is not TLV8 (${(error as Error).message})`);
  }
  const error = items.get(TLV.Error);
  if (error !== undefined) {
    const delay = items.get(TLV.RetryDelay);
    throw new PairingRefused(step, decodeTlvUint(error), delay === undefined ? undefined : decodeTlvUint(delay));
  }
  const got = items.get(TLV.State)?.[0];
  if (got !== expected) throw new PairingBroken(`${step}: the answer has State ${got ?? 'none'}, not ${expected}`);
  return items;
}

function required(items: Map<number, Uint8Array>, type: number, step: string, name: string): Uint8Array {
  const value = items.get(type);
  if (value === undefined) throw new PairingBroken(`${step}: the answer has no ${name}`);
  return value;
}

// --- pair-setup (spec 5.3) -----------------------------------------------------------------------

/** Pair-setup M1: a lasting pairing (Method PairSetup, no Transient flag). */
export function pairSetupM1(): Uint8Array {
  return encodeTlv8([state(1), [TLV.Method, encodeTlvUint(PAIR_METHOD.PairSetup)]]);
}


/** The SRP client's step: M3 from M2 and the PIN, and what M4 must prove. */
export interface SrpClientStep {
  /** Pair-setup M3: State 3, PublicKey A, Proof M1. */
  readonly m3: Uint8Array;
  /** The proof the receiver's M4 must carry. */
  readonly expectedProof: Uint8Array;
  /** K = H(PAD(S)): M5 and M6 are sealed under keys from it. */
  readonly sessionKey: Uint8Array;
}

/** The SRP client (src/pairing/srp.ts srpClientProof) on the receiver's M2: M3 and what M4 must prove. */
export function srpClientStep(m2: Uint8Array, pin: string, random: Random): SrpClientStep {
  const items = answerItems('pair-setup M2', m2, 2);
  const salt = required(items, TLV.Salt, 'pair-setup M2', 'Salt');
  const serverKey = required(items, TLV.PublicKey, 'pair-setup M2', 'PublicKey');
  if (bytesToBigInt(serverKey) % SRP_GROUP_3072.N === 0n) throw new PairingBroken('pair-setup M2: the receiver\'s public key is 0 mod N');
  const client = srpClientProof({ crypto: SENDER_CRYPTO, salt, serverKey, password: pin, privateKey: bytesToBigInt(random(32)) });
  return { m3: encodeTlv8([state(3), [TLV.PublicKey, client.publicKey], [TLV.Proof, client.proof]]), expectedProof: client.expectedProof, sessionKey: client.sessionKey };
}

/** Checks pair-setup M4's proof: the receiver knows the PIN too. */
export function checkPairSetupM4(m4: Uint8Array, step: SrpClientStep): void {
  const proof = required(answerItems('pair-setup M4', m4, 4), TLV.Proof, 'pair-setup M4', 'Proof');
  if (!constantTimeEqual(proof, step.expectedProof)) throw new PairingBroken('pair-setup M4: the receiver\'s proof is wrong');
}

/** Pair-setup M5: the sender's identifier, long-term public key and signature, sealed with PS-Msg05. */
export function pairSetupM5(sessionKey: Uint8Array, sender: SenderIdentity): Uint8Array {
  const id = utf8Encode(sender.id);
  const senderX = derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupControllerSign, 32, SENDER_CRYPTO);
  const signature = ed25519Sign(sender.keys.secretKey, concat(senderX, id, sender.keys.publicKey), SENDER_CRYPTO);
  const sub = encodeTlv8([
    [TLV.Identifier, id],
    [TLV.PublicKey, sender.keys.publicKey],
    [TLV.Signature, signature],
  ]);
  const sealed = chachaSealWithNonceLabel(derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupEncrypt, 32, SENDER_CRYPTO), PAIRING_NONCE.PairSetupM5, sub);
  return encodeTlv8([state(5), [TLV.EncryptedData, sealed]]);
}

/** Opens pair-setup M6 and checks the receiver's signature: the receiver to remember. */
export function openPairSetupM6(sessionKey: Uint8Array, m6: Uint8Array): PairedReceiver {
  const step = 'pair-setup M6';
  const sealed = required(answerItems(step, m6, 6), TLV.EncryptedData, step, 'EncryptedData');
  let sub: Map<number, Uint8Array>;
  try {
    sub = decodeTlv8(chachaOpenWithNonceLabel(derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupEncrypt, 32, SENDER_CRYPTO), PAIRING_NONCE.PairSetupM6, sealed));
  } catch (error) {
    throw new PairingBroken(`${step}: cannot open its EncryptedData (${(error as Error).message})`);
  }
  const id = required(sub, TLV.Identifier, step, 'Identifier');
  const publicKey = required(sub, TLV.PublicKey, step, 'PublicKey');
  const signature = required(sub, TLV.Signature, step, 'Signature');
  const receiverX = derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupAccessorySign, 32, SENDER_CRYPTO);
  if (!ed25519Verify(publicKey, concat(receiverX, id, publicKey), signature, SENDER_CRYPTO)) throw new PairingBroken(`${step}: the receiver's signature does not verify`);
  return { id: utf8Decode(id), publicKey };
}

// --- pairing management (HomeKit's List and Remove Pairing, on a pair-verified connection) --------

/** List Pairings M1. */
export function listPairingsM1(): Uint8Array {
  return encodeTlv8([state(1), [TLV.Method, encodeTlvUint(PAIR_METHOD.ListPairings)]]);
}

/** Remove Pairing M1 for the sender `id`. */
export function removePairingM1(id: string): Uint8Array {
  return encodeTlv8([state(1), [TLV.Method, encodeTlvUint(PAIR_METHOD.RemovePairing)], [TLV.Identifier, utf8Encode(id)]]);
}

/** A List Pairings M2: each pairing's identifier and whether it is an admin (Permissions 1). */
export function readPairingList(m2: Uint8Array): { id: string; admin: boolean }[] {
  answerItems('list pairings M2', m2, 2);
  let groups: Map<number, Uint8Array>[];
  try {
    groups = decodeTlv8Groups(m2);
  } catch (error) {
    throw new PairingBroken(`list pairings M2: ${(error as Error).message}`);
  }
  return groups
    .filter((group) => group.has(TLV.Identifier))
    .map((group) => ({ id: utf8Decode(group.get(TLV.Identifier)!), admin: group.get(TLV.Permissions)?.[0] === 1 }));
}

// --- pair-verify (spec 5.3-5.4) ------------------------------------------------------------------

/** The sender's pair-verify: M1, then M3 from M2 (checking it is the paired receiver), then the channel. */
export class PairVerifyClient {
  private readonly ephemeral: KeyPair;
  private shared: Uint8Array | undefined;

  constructor(
    private readonly sender: SenderIdentity,
    private readonly receiver: PairedReceiver,
    random: Random,
  ) {
    this.ephemeral = x25519KeyPair(random, SENDER_CRYPTO);
  }

  m1(): Uint8Array {
    return encodeTlv8([state(1), [TLV.PublicKey, this.ephemeral.publicKey]]);
  }

  /** M3 from M2; throws PairingBroken when M2 is not signed by the paired receiver. */
  m3(m2: Uint8Array): Uint8Array {
    const step = 'pair-verify M2';
    const items = answerItems(step, m2, 2);
    const receiverKey = required(items, TLV.PublicKey, step, 'PublicKey');
    const shared = x25519Shared(this.ephemeral.secretKey, receiverKey, SENDER_CRYPTO);
    const key = derivePairingKey(shared, PAIRING_HKDF.PairVerifyEncrypt, 32, SENDER_CRYPTO);
    let sub: Map<number, Uint8Array>;
    try {
      sub = decodeTlv8(chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairVerifyM2, required(items, TLV.EncryptedData, step, 'EncryptedData')));
    } catch (error) {
      throw new PairingBroken(`${step}: cannot open its EncryptedData (${(error as Error).message})`);
    }
    const receiverId = required(sub, TLV.Identifier, step, 'Identifier');
    if (utf8Decode(receiverId) !== this.receiver.id) throw new PairingBroken(`${step}: the receiver is ${utf8Decode(receiverId)}, not the paired ${this.receiver.id}`);
    if (!ed25519Verify(this.receiver.publicKey, concat(receiverKey, receiverId, this.ephemeral.publicKey), required(sub, TLV.Signature, step, 'Signature'), SENDER_CRYPTO)) {
      throw new PairingBroken(`${step}: the receiver's signature does not verify with the paired key`);
    }
    this.shared = shared;
    const id = utf8Encode(this.sender.id);
    const signature = ed25519Sign(this.sender.keys.secretKey, concat(this.ephemeral.publicKey, id, receiverKey), SENDER_CRYPTO);
    const sealed = chachaSealWithNonceLabel(key, PAIRING_NONCE.PairVerifyM3, encodeTlv8([[TLV.Identifier, id], [TLV.Signature, signature]]));
    return encodeTlv8([state(3), [TLV.EncryptedData, sealed]]);
  }

  /** After M4: the EncryptionKey (pair-verify's shared secret) and the sender's control channel (spec 5.4). */
  finish(m4: Uint8Array): { encryptionKey: Uint8Array; channel: ControlChannel } {
    answerItems('pair-verify M4', m4, 4);
    if (!this.shared) throw new PairingBroken('pair-verify: M4 before M2');
    return { encryptionKey: this.shared, channel: createSenderChannel(this.shared, SENDER_CRYPTO) };
  }
}
