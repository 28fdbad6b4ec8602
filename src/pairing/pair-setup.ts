// The receiver's side of POST /pair-setup (spec 5.3, 5.5): HomeKit-style SRP pairing with the
// PIN, as the protocol's receivers use it, over HTTP or RTSP.
//
//   M1 State 1, Method 0 (Pair Setup) or 1 (with Auth), Flags (0x10 transient)
//   M2 State 2, Salt, PublicKey B                     SRP-6a, username Pair-Setup, the PIN
//   M3 State 3, PublicKey A, Proof M1
//   M4 State 4, Proof M2 [, EncryptedData PS-Msg04: Signature, Certificate  (Method 1)]
//      transient: done; the SRP session key K is the EncryptionKey and the connection is
//      encrypted from the next byte on (spec 5.3)
//   M5 State 5, EncryptedData PS-Msg05: Identifier, PublicKey (Ed25519 LTPK), Signature
//   M6 State 6, EncryptedData PS-Msg06: the receiver's Identifier, LTPK, Signature
//
// One pair-setup attempt at a time for the whole receiver (HAP 5.6.1), with a queue of the senders
// waiting (setup-lock.ts). The lock belongs to the attempt, not to its connection: an attempt
// starts with an M1 and holds the receiver until it pairs, fails, its connection closes, or its
// deadline passes: `timeoutMs` after its first M1, moved on only by a step that makes progress (a
// good M3). An M1 repeated on the holding connection before the deadline is a retry of the same
// attempt (a fresh SRP key, the same deadline, the same PIN), so re-sending M1 every few seconds
// does not hold the receiver for ever.
//
// The setup code (setup-code.ts): the password, the public 3939 for transient pairing on an open
// receiver (refused where a PIN is required), a random PIN per attempt, or the fixed PIN. Wrong
// proofs are counted by how guessable the code is:
//   public (3939)  not counted: it is no secret, and counting it let anyone disable pairing
//   random PIN     counted in the window (failure-window.ts) per sender and per address; the PIN
//                  is spent by the proof (the next attempt gets another), so it cannot be guessed
//                  in time and is never locked out
//   fixed PIN or   counted in the window, and in the stored count (the `pair-tries` record, 4
//   password       bytes big-endian) that survives restarts: at pairingMaxFailures pairing with
//                  it is refused (MaxTries, HAP 5.6.2) until a person resets the count
//                  (`pairings reset-tries`, the screen's reset, resetTries()); a successful proof
//                  clears it. A count the store cannot take is never dropped silently: it is
//                  logged, and every M1 that would count is answered Busy until the store takes it.
// A key of the window past pairingFailuresBeforeBackoff failures waits 2^(n - that) s per attempt
// (Backoff with RetryDelay), at most a minute; one failure leaks away per pairingFailureDecayMs.
//
// How a pair-setup ends, for whoever shows the PIN (onEnded): `paired` (M6, or M4 when
// transient), `failed` (a step answered with an error: wrong PIN, bad signature, timed out),
// or `abandoned` (its connection closed or its deadline passed, found at the next M1). A PIN
// shown stays up through an abandoned one: the user may still be typing it into the sender that
// comes next.
//
// Every failure of a step is a 200 with State n+1 and an Error item (HomeKit behaviour); a body
// that is not TLV8 or has no State is a PairingError without tlvError, which the route answers 400.

import { concat, utf8Decode, utf8Encode } from '../bytes';
import type { Clock, Logger, RandomSource, Store } from '../platform';
import { StateKey, type ConnectionState } from '../connection-state';
import { ENCRYPTION_KEY, createControlChannel } from './channel';
import type { CryptoKernels } from './crypto-kernels';
import { PairingError, stepFailure } from './errors';
import { chachaOpenWithNonceLabel, chachaSealWithNonceLabel, derivePairingKey, PAIRING_HKDF, PAIRING_NONCE } from './hkdf';
import { ed25519Sign, ed25519Verify } from './keys';
import { MAX_PEER_ID_BYTES, PERMISSION_ADMIN, type PeerStore } from './peers';
import type { AuthSetupDevice } from './auth-setup';
import { rsaSignSha1 } from './rsa';
import { SrpServer, SRP_PAIR_SETUP_USERNAME } from './srp';
import { decodeTlv8, encodeTlv8, encodeTlvUint } from './tlv8';
import { PAIR_FLAG, PAIR_METHOD, PAIR_STATE, TLV, TLV_ERROR } from './tlv-types';
import { errorReply, readItem, readRequest, readUint, type PairingReply } from './_reply';
import { describeError } from '../errors';
import { FailureWindow, type FailureWindowLimits } from './failure-window';
import type { SetupCodeKind, SetupCodeRule } from './setup-code';
import { PairSetupLock } from './setup-lock';

/** Store key of the stored failed-attempt count of a fixed code (4 bytes, big-endian). */
export const TRIES_KEY = 'pair-tries';

/** How a pair-setup ended (see the header). */
type PairSetupOutcome = 'paired' | 'failed' | 'abandoned';

/** Who sends a pair-setup request: what its failures are counted under. */
export interface PairingPeer {
  /** The remote address (one key of the failure window). */
  readonly address: string;
  /** The sender's identity where its request names one (DACP-ID, Client-Instance...): another key. */
  readonly identity?: string;
  /** For log lines: address and port. */
  readonly label: string;
}

/** The limits pair-setup keeps to (ReceiverLimits). */
interface PairSetupLimits extends FailureWindowLimits {
  /** Stored failures of a fixed code after which pairing with it is refused (HAP 5.6.2: 100). */
  readonly pairingMaxFailures: number;
}

interface PairSetupOptions {
  /** The receiver's pairing identifier (M6 Identifier; pair-verify M2 sends the same). */
  readonly identifier: string;
  /** The receiver's Ed25519 long-term key pair (TXT pk). */
  readonly identity: { readonly secretKey: Uint8Array; readonly publicKey: Uint8Array };
  /** The setup code's rule for a transient or a normal pair-setup (setupCodeFor); throws to refuse. */
  readonly setupCode: (transient: boolean) => SetupCodeRule;
  /** The random PIN of the attempt starting now, shown to the person (rule `random`); the same until spent. */
  readonly randomPin?: (peer: PairingPeer) => string;
  /** A proof used the random PIN (right or wrong): the next attempt gets another. */
  readonly pinSpent?: () => void;
  /** The device key and certificate of certificate authentication (spec 5.5), when configured. */
  readonly device: AuthSetupDevice | undefined;
  readonly peers: PeerStore;
  readonly store: Store;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly log: Logger;
  /** An attempt stops holding the receiver this long after its M1 or its last progress (see the header). */
  readonly timeoutMs: number;
  readonly limits: PairSetupLimits;
  /** Called when the pair-setup holding the receiver ends, with how (PairSetupOutcome). */
  readonly onEnded?: (outcome: PairSetupOutcome) => void;
  /**
   * Why the sender naming itself `identifier` is refused (the receiver's access lists), or
   * undefined: asked once its identifier is read, before it is paired or verified.
   */
  readonly refusesPeer?: (identifier: string, session: ConnectionState) => string | undefined;
  /** SRP, signatures and the channel run on these (the host's pick: DESIGN 5). */
  readonly crypto: CryptoKernels;
}

/** Per connection: how far its pair-setup got, and what its failures count under. */
type SetupProgress =
  | { readonly step: 'M2'; readonly srp: SrpServer; readonly method: number; readonly transient: boolean; readonly kind: SetupCodeKind; readonly keys: readonly string[] }
  | { readonly step: 'M4'; readonly sessionKey: Uint8Array };

const PROGRESS = new StateKey<SetupProgress>('pair-setup');

/** A request with no peer given (tests that drive PairSetup alone). */
const UNKNOWN_PEER: PairingPeer = { address: 'unknown', label: 'unknown' };

/** The keys a peer's failures count under in the window. */
function failureKeys(peer: PairingPeer): string[] {
  return peer.identity === undefined ? [`address ${peer.address}`] : [`address ${peer.address}`, `sender ${peer.identity}`];
}

export class PairSetup {
  private readonly lock: PairSetupLock<ConnectionState>;
  private readonly window: FailureWindow;
  /** Failed proofs of a fixed code since the last success or reset (stored). */
  private failures = 0;
  /**
   * Why the failed-attempt count is not in the store as it is in memory (a read or write
   * failed), or undefined when it is. Pairing with a fixed code is refused until the store takes it.
   */
  private triesUnsaved: string | undefined;
  private readonly crypto: CryptoKernels;

  constructor(private readonly options: PairSetupOptions) {
    this.crypto = options.crypto;
    this.lock = new PairSetupLock(options.timeoutMs, options.clock, (session) => this.end(session, 'abandoned'));
    this.window = new FailureWindow(options.limits, options.clock);
    this.failures = this.loadFailures();
  }

  /** Failed proofs of a fixed code since the last successful pair-setup or reset (stored). */
  get failedAttempts(): number {
    return this.failures;
  }

  /** The connections waiting for the pair-setup lock, first first. */
  get waiting(): readonly ConnectionState[] {
    return this.lock.queue;
  }

  /**
   * A person at the receiver resets the count (the screen's reset; `pairings reset-tries` does
   * the same to the store): the stored count and every key's window start afresh.
   */
  resetTries(): void {
    const before = this.failures;
    this.failures = 0;
    this.window.clearAll();
    this.saveFailures();
    this.options.log('info', `pair-setup: the failed-attempt count (${before}) was reset; pairing is allowed`);
  }

  /** One request of a connection's pair-setup. Throws a PairingError without tlvError for a malformed body (400). */
  handle(body: Uint8Array, session: ConnectionState, peer: PairingPeer = UNKNOWN_PEER): PairingReply {
    const { items, state } = readRequest(body);
    try {
      switch (state) {
        case PAIR_STATE.M1:
          return this.m1(items, session, peer);
        case PAIR_STATE.M3:
          return this.m3(items, session);
        case PAIR_STATE.M5:
          return this.m5(items, session);
        default:
          throw new PairingError(`pair-setup State ${state} is not a request step (1, 3 or 5)`, TLV_ERROR.Unknown);
      }
    } catch (caught) {
      const error = stepFailure(caught, `pair-setup M${state}`, this.options.log);
      // A failed step ends this connection's pair-setup; the next M1 starts afresh.
      this.end(session, 'failed');
      return errorReply(Math.min(state + 1, 255), error.tlvError, error.message);
    }
  }

  private m1(items: Map<number, Uint8Array>, session: ConnectionState, peer: PairingPeer): PairingReply {
    const method = readUint(items, TLV.Method, PAIR_METHOD.PairSetup);
    const flags = readUint(items, TLV.Flags, 0);
    const transient = (flags & PAIR_FLAG.Transient) !== 0;
    // Whatever this M1 leads to, the connection's earlier steps are void.
    this.forgetProgress(session);
    if (method !== PAIR_METHOD.PairSetup && method !== PAIR_METHOD.PairSetupWithAuth) {
      throw new PairingError(`pair-setup Method ${method} is neither Pair Setup (0) nor Pair Setup with Auth (1)`, TLV_ERROR.Unknown);
    }
    if (method === PAIR_METHOD.PairSetupWithAuth && !this.options.device) {
      // spec 5.5: certificate authentication needs the device key and certificate. Without them
      // the receiver does not advertise bit 51 and cannot do what the sender asks: HomeKit's
      // answer for "cannot do this now" is Unavailable, and the sender may fall back to Method 0.
      throw new PairingError('Pair Setup with Auth asked, but no device key and certificate are configured', TLV_ERROR.Unavailable);
    }
    // Refused here (a transient pairing where a PIN is required) before it can take the lock.
    const rule = this.options.setupCode(transient);
    const keys = failureKeys(peer);
    if (rule.kind === 'fixed') this.checkBudget();
    if (rule.kind !== 'public') {
      const wait = this.window.wait(keys);
      // Answered here rather than thrown: the reply carries RetryDelay.
      if (wait.seconds > 0) return errorReply(PAIR_STATE.M2, TLV_ERROR.Backoff, `${wait.failures} recent failed attempts from ${wait.key}: retry in ${wait.seconds} s`, wait.seconds);
    }
    const answer = this.lock.request(session, peer.address);
    if (answer.kind === 'busy') throw new PairingError(answer.reason, TLV_ERROR.Busy);
    // A retry of the holder's attempt keeps its deadline (and a random PIN stays until spent).
    const code = rule.kind === 'random' ? this.randomPin(peer) : rule.code;
    const srp = new SrpServer({ password: code, username: SRP_PAIR_SETUP_USERNAME, random: this.options.random, crypto: this.crypto });
    session.set(PROGRESS, { step: 'M2', srp, method, transient, kind: rule.kind, keys });
    return {
      body: encodeTlv8([
        [TLV.State, encodeTlvUint(PAIR_STATE.M2)],
        [TLV.Salt, srp.salt],
        [TLV.PublicKey, srp.publicKey],
      ]),
    };
  }

  /** A fixed code past its budget, or a count the store cannot take, is refused before any work. */
  private checkBudget(): void {
    if (!this.triesSaved()) {
      throw new PairingError(`the failed-attempt count cannot be stored (${this.triesUnsaved}); pairing is refused until it can`, TLV_ERROR.Busy);
    }
    // A person may have reset the count in the store meanwhile (`pairings reset-tries`).
    if (this.failures > 0) this.failures = this.loadFailures();
    const max = this.options.limits.pairingMaxFailures;
    if (this.failures >= max) {
      throw new PairingError(`${this.failures} failed attempts with the configured PIN or password (at most ${max}); reset with \`pairings reset-tries\` or at the receiver's screen`, TLV_ERROR.MaxTries);
    }
  }

  private randomPin(peer: PairingPeer): string {
    const { randomPin } = this.options;
    if (!randomPin) throw new PairingError('a random PIN is configured but nothing shows it', TLV_ERROR.Unavailable);
    return randomPin(peer);
  }

  private m3(items: Map<number, Uint8Array>, session: ConnectionState): PairingReply {
    const progress = this.progressOf(session, 'M2');
    const { srp, method, transient, kind, keys } = progress;
    const clientKey = readItem(items, TLV.PublicKey, 'PublicKey (A)', TLV_ERROR.Authentication, { min: 1, max: 384 });
    const proof = readItem(items, TLV.Proof, 'Proof (M1)', TLV_ERROR.Authentication, { min: 1, max: 64 });
    let serverProof: Uint8Array;
    try {
      srp.computeSharedSecret(clientKey);
      serverProof = srp.verifyClientProof(proof);
    } catch (error) {
      if (error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication) this.recordFailure(kind, keys);
      throw error;
    }
    const sessionKey = srp.sessionKey.slice();
    srp.dispose();
    const reply: [number, Uint8Array][] = [
      [TLV.State, encodeTlvUint(PAIR_STATE.M4)],
      [TLV.Proof, serverProof],
    ];
    if (method === PAIR_METHOD.PairSetupWithAuth) reply.push([TLV.EncryptedData, this.deviceProof(sessionKey)]);
    this.recordSuccess(kind, keys);
    if (transient) {
      // spec 5.3: transient pairing ends here; K is the EncryptionKey.
      this.end(session, 'paired');
      this.options.log('info', 'transient pair-setup done: the connection is encrypted');
      session.set(ENCRYPTION_KEY, sessionKey.slice());
      return { body: encodeTlv8(reply), secure: createControlChannel(sessionKey, this.crypto), transient: true };
    }
    session.set(PROGRESS, { step: 'M4', sessionKey });
    this.lock.progressed(session);
    return { body: encodeTlv8(reply) };
  }

  /** spec 5.5: the M4 EncryptedData of Pair Setup with Auth: the device's RSA signature and certificate. */
  private deviceProof(sessionKey: Uint8Array): Uint8Array {
    const device = this.options.device!;
    const challenge = derivePairingKey(sessionKey, PAIRING_HKDF.MfiPairSetup, 32, this.crypto);
    const signature = rsaSignSha1(device.privateKey, challenge, this.crypto);
    const plaintext = encodeTlv8([
      [TLV.Signature, signature],
      [TLV.Certificate, device.certificate],
    ]);
    return chachaSealWithNonceLabel(derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupEncrypt, 32, this.crypto), PAIRING_NONCE.PairSetupM4, plaintext);
  }

  private m5(items: Map<number, Uint8Array>, session: ConnectionState): PairingReply {
    const { sessionKey } = this.progressOf(session, 'M4');
    const { identity, identifier, peers, log } = this.options;
    const { crypto } = this;
    const encryptKey = derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupEncrypt, 32, crypto);
    const sealed = readItem(items, TLV.EncryptedData, 'EncryptedData', TLV_ERROR.Authentication, { min: 16, max: 1024 });
    const sub = decodeSubTlv(chachaOpenWithNonceLabel(encryptKey, PAIRING_NONCE.PairSetupM5, sealed));
    const idBytes = readItem(sub, TLV.Identifier, 'sender Identifier', TLV_ERROR.Authentication, { min: 1, max: MAX_PEER_ID_BYTES });
    const ltpk = readItem(sub, TLV.PublicKey, 'sender PublicKey (LTPK)', TLV_ERROR.Authentication, { min: 32, max: 32 });
    const signature = readItem(sub, TLV.Signature, 'sender Signature', TLV_ERROR.Authentication, { min: 64, max: 64 });
    const senderX = derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupControllerSign, 32, crypto);
    if (!ed25519Verify(ltpk, concat(senderX, idBytes, ltpk), signature, crypto)) {
      throw new PairingError('M5: the sender signature does not verify', TLV_ERROR.Authentication);
    }
    let id: string;
    try {
      id = utf8Decode(idBytes);
    } catch {
      throw new PairingError('M5: the sender Identifier is not UTF-8', TLV_ERROR.Authentication);
    }
    const refusal = this.options.refusesPeer?.(id, session);
    if (refusal) throw new PairingError(`M5: ${refusal}`, TLV_ERROR.Authentication);
    const saved = peers.save({ id, publicKey: ltpk.slice(), permissions: PERMISSION_ADMIN });
    if (saved === 'full') throw new PairingError(`M5: ${peers.size} senders are paired already`, TLV_ERROR.MaxPeers);
    log('info', `pair-setup done: sender ${id} ${saved === 'added' ? 'paired' : 'paired again (key replaced)'}`);

    const receiverId = utf8Encode(identifier);
    const receiverX = derivePairingKey(sessionKey, PAIRING_HKDF.PairSetupAccessorySign, 32, crypto);
    const receiverSignature = ed25519Sign(identity.secretKey, concat(receiverX, receiverId, identity.publicKey), crypto);
    const plaintext = encodeTlv8([
      [TLV.Identifier, receiverId],
      [TLV.PublicKey, identity.publicKey],
      [TLV.Signature, receiverSignature],
    ]);
    const sealedReply = chachaSealWithNonceLabel(encryptKey, PAIRING_NONCE.PairSetupM6, plaintext);
    sessionKey.fill(0);
    this.end(session, 'paired');
    return {
      body: encodeTlv8([
        [TLV.State, encodeTlvUint(PAIR_STATE.M6)],
        [TLV.EncryptedData, sealedReply],
      ]),
    };
  }

  /** The connection's progress if it is at `step` and its attempt still holds the receiver; else the step fails with Unknown. */
  private progressOf<S extends SetupProgress['step']>(session: ConnectionState, step: S): Extract<SetupProgress, { step: S }> {
    const progress = session.get(PROGRESS);
    if (!progress || progress.step !== step) {
      throw new PairingError(`pair-setup step out of order: expected the reply to ${step}${progress ? `, connection is after ${progress.step}` : ', no pair-setup started'}`, TLV_ERROR.Unknown);
    }
    if (!this.lock.heldBy(session)) {
      throw new PairingError(`pair-setup timed out (${this.options.timeoutMs} ms without progress) and another sender started one`, TLV_ERROR.Unknown);
    }
    if (!this.lock.holds(session)) {
      throw new PairingError(`pair-setup timed out (${this.options.timeoutMs} ms without progress)`, TLV_ERROR.Unknown);
    }
    return progress as Extract<SetupProgress, { step: S }>;
  }

  /** Drops the connection's keys and step, leaving the attempt (if it holds one) in place. */
  private forgetProgress(session: ConnectionState): void {
    const progress = session.get(PROGRESS);
    if (!progress) return;
    if (progress.step === 'M2') progress.srp.dispose();
    else progress.sessionKey.fill(0);
    session.delete(PROGRESS);
  }

  /** Forgets the connection's pair-setup and ends its attempt if it holds one (the lock tells of abandoned ones). */
  private end(session: ConnectionState, outcome: PairSetupOutcome): void {
    this.forgetProgress(session);
    if (outcome === 'abandoned' || this.lock.release(session)) this.options.onEnded?.(outcome);
  }

  private recordFailure(kind: SetupCodeKind, keys: readonly string[]): void {
    // A public code is no secret: a wrong proof with it is a broken sender, not a guess.
    if (kind === 'public') return;
    this.window.record(keys);
    if (kind === 'random') {
      // The PIN is spent: guessing it again is no use.
      this.options.pinSpent?.();
      this.options.log('warn', `pair-setup proof failed (wrong PIN?) from ${keys.join(', ')}; the next attempt gets another PIN`);
      return;
    }
    this.failures++;
    this.saveFailures();
    this.options.log('warn', `pair-setup proof failed (wrong PIN?) from ${keys.join(', ')}: ${this.failures} failed attempts (at most ${this.options.limits.pairingMaxFailures})`);
  }

  private recordSuccess(kind: SetupCodeKind, keys: readonly string[]): void {
    if (kind === 'public') return;
    this.window.clear(keys);
    if (kind === 'random') {
      this.options.pinSpent?.();
      return;
    }
    if (this.failures === 0 && this.triesUnsaved === undefined) return;
    this.failures = 0;
    this.saveFailures();
  }

  private loadFailures(): number {
    let bytes: Uint8Array | undefined;
    try {
      bytes = this.options.store.get(TRIES_KEY);
    } catch (error) {
      this.storeFailed('read', error);
      return this.failures;
    }
    if (!bytes || bytes.length !== 4) return 0;
    return ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
  }

  /**
   * True when the store holds the count memory has; else tries once more to make it so (a
   * count that could not be read is read again, and the larger one kept).
   */
  private triesSaved(): boolean {
    if (this.triesUnsaved === undefined) return true;
    if (this.triesUnsaved.startsWith('read')) {
      const before = this.triesUnsaved;
      this.triesUnsaved = undefined;
      const stored = this.loadFailures();
      if (this.triesUnsaved !== undefined) return false;
      this.triesUnsaved = before;
      this.failures = Math.max(this.failures, stored);
    }
    this.saveFailures();
    return this.triesUnsaved === undefined;
  }

  private saveFailures(): void {
    const { store, log } = this.options;
    const n = this.failures;
    try {
      if (n === 0) store.delete(TRIES_KEY);
      else store.put(TRIES_KEY, new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]));
    } catch (error) {
      this.storeFailed('write', error);
      return;
    }
    if (this.triesUnsaved !== undefined) log('info', `the failed-attempt count (${n}) is stored again; pairing is allowed`);
    this.triesUnsaved = undefined;
  }

  /** Logs a store failure of the count once per failure streak and refuses pairing until it is stored. */
  private storeFailed(action: 'read' | 'write', error: unknown): void {
    const cause = describeError(error);
    if (this.triesUnsaved === undefined) {
      this.options.log('error', `cannot ${action} the failed-attempt count ("${TRIES_KEY}" record: ${cause}); pair-setup is refused (Busy) until the store takes it`);
    }
    this.triesUnsaved = `${action} failed: ${cause}`;
  }
}

/** The TLV8 inside a decrypted EncryptedData; unreadable is an Authentication failure (it decrypted, so the sender wrote it). */
export function decodeSubTlv(plaintext: Uint8Array): Map<number, Uint8Array> {
  try {
    return decodeTlv8(plaintext);
  } catch (error) {
    throw new PairingError(`encrypted sub-TLV unreadable: ${describeError(error)}`, TLV_ERROR.Authentication);
  }
}
