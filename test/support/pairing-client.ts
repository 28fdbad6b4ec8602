// A sender's side of pairing written from the formulas (spec 5.3-5.5, SRP-6a RFC 5054 with
// SHA-512, HKDF labels, Ed25519/X25519), on the primitives in src/pairing: the client the
// portable pairing suites and the e2e suite drive the receiver with, able to misbehave where the
// sender tool's own (sender/pairing-messages.ts) does what a sender should. Portable (runs in XS).

import { concat, utf8Encode } from '../../src/bytes';
import { createSenderChannel } from '../../src/pairing/channel';
import { chachaOpenWithNonceLabel, chachaSealWithNonceLabel, derivePairingKey, PAIRING_HKDF, PAIRING_NONCE } from '../../src/pairing/hkdf';
import { ed25519KeyPair, ed25519Sign, ed25519Verify, x25519KeyPair, x25519Shared, type KeyPair } from '../../src/pairing/keys';
import { srpClientProof } from '../../src/pairing/srp';
import { decodeTlv8, encodeTlv8, encodeTlvUint } from '../../src/pairing/tlv8';
import { PAIR_FLAG, PAIR_METHOD, TLV } from '../../src/pairing/tlv-types';
import { bytesToBigInt } from '../../src/pairing/_util';
import type { RandomSource } from '../../src/platform';
import type { SecureChannel } from '../../src/http';
import type { SenderIdentity } from '../../sender/pairing-messages';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

// A well-behaved sender's M5 and M6 are the sender tool's own.
export { openPairSetupM6, pairSetupM5 } from '../../sender/pairing-messages';
export type { SenderIdentity };

export const state = (n: number): [number, Uint8Array] => [TLV.State, new Uint8Array([n])];

/** Pair-setup M1 (spec 5.3): Method 0 or 1, Flags 0x10 when transient. */
export function pairSetupM1(options: { method?: number; transient?: boolean } = {}): Uint8Array {
  const items: [number, Uint8Array][] = [state(1), [TLV.Method, encodeTlvUint(options.method ?? PAIR_METHOD.PairSetup)]];
  if (options.transient) items.push([TLV.Flags, encodeTlvUint(PAIR_FLAG.Transient)]);
  return encodeTlv8(items);
}

/** The client's SRP step: M3 from M2, and what M4 must prove. */
export interface SrpClientStep {
  /** Pair-setup M3 body: State 3, PublicKey A, Proof M1. */
  readonly m3: Uint8Array;
  /** The proof M2 the receiver must answer with. */
  readonly expectedProof: Uint8Array;
  /** K = H(PAD(S)), 64 bytes: the EncryptionKey of transient pairing. */
  readonly sessionKey: Uint8Array;
}

/** The SRP client (src/pairing/srp.ts srpClientProof) on M2: M3, and what M4 must prove. */
export function srpClientStep(m2: Uint8Array, pin: string, random: RandomSource): SrpClientStep {
  const items = decodeTlv8(m2);
  const salt = items.get(TLV.Salt);
  const serverKey = items.get(TLV.PublicKey);
  if (!salt || !serverKey) throw new Error(`M2 without Salt or PublicKey: items ${[...items.keys()].join(',')}`);
  const client = srpClientProof({ crypto: portableCryptoKernels, salt, serverKey, password: pin, privateKey: bytesToBigInt(random(32)) });
  return {
    m3: encodeTlv8([state(3), [TLV.PublicKey, client.publicKey], [TLV.Proof, client.proof]]),
    expectedProof: client.expectedProof,
    sessionKey: client.sessionKey,
  };
}

/** A new sender identity: `id` and a fresh Ed25519 long-term key pair. */
export function newSenderIdentity(id: string, random: RandomSource): SenderIdentity {
  return { id, keys: ed25519KeyPair(random, portableCryptoKernels) };
}

/** The sender's pair-verify: M1, then M3 from M2 (checking the receiver), then the channel. */
export class PairVerifyClient {
  private readonly ephemeral: KeyPair;
  private shared: Uint8Array | undefined;

  constructor(
    private readonly sender: SenderIdentity,
    private readonly receiver: { id: string; publicKey: Uint8Array },
    random: RandomSource,
  ) {
    this.ephemeral = x25519KeyPair(random, portableCryptoKernels);
  }

  m1(): Uint8Array {
    return encodeTlv8([state(1), [TLV.PublicKey, this.ephemeral.publicKey]]);
  }

  /** M3 from M2; throws when the receiver's identifier or signature is not the paired one. */
  m3(m2: Uint8Array, options: { signWith?: KeyPair; id?: string } = {}): Uint8Array {
    const items = decodeTlv8(m2);
    const receiverKey = items.get(TLV.PublicKey)!;
    const shared = x25519Shared(this.ephemeral.secretKey, receiverKey, portableCryptoKernels);
    this.shared = shared;
    const key = derivePairingKey(shared, PAIRING_HKDF.PairVerifyEncrypt, 32, portableCryptoKernels);
    const sub = decodeTlv8(chachaOpenWithNonceLabel(key, PAIRING_NONCE.PairVerifyM2, items.get(TLV.EncryptedData)!));
    const receiverId = sub.get(TLV.Identifier)!;
    if (!equalBytes(receiverId, utf8Encode(this.receiver.id))) throw new Error('M2: not the paired receiver identifier');
    if (!ed25519Verify(this.receiver.publicKey, concat(receiverKey, receiverId, this.ephemeral.publicKey), sub.get(TLV.Signature)!, portableCryptoKernels)) {
      throw new Error('M2: receiver signature does not verify');
    }
    const id = utf8Encode(options.id ?? this.sender.id);
    const signature = ed25519Sign((options.signWith ?? this.sender.keys).secretKey, concat(this.ephemeral.publicKey, id, receiverKey), portableCryptoKernels);
    const sealed = chachaSealWithNonceLabel(key, PAIRING_NONCE.PairVerifyM3, encodeTlv8([[TLV.Identifier, id], [TLV.Signature, signature]]));
    return encodeTlv8([state(3), [TLV.EncryptedData, sealed]]);
  }

  /** The sender's channel after M4 (spec 5.4). */
  channel(): SecureChannel {
    if (!this.shared) throw new Error('no shared secret before M2');
    return createSenderChannel(this.shared, portableCryptoKernels);
  }
}

/** The items of a pairing reply as a plain object keyed by TLV type, for assertions. */
export function replyItems(body: Uint8Array): Map<number, Uint8Array> {
  return decodeTlv8(body);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
