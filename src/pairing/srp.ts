// SRP-6a server (RFC 5054, RFC 2945) with the 3072-bit group and SHA-512, as pair-setup uses it.
//
// Formulas (H = SHA-512, PAD = left-pad with zeros to the 384 bytes of N, RFC 5054 2.1):
//   x = H(s | H(I | ":" | P))          v = g^x mod N              k = H(N | PAD(g))
//   B = (k*v + g^b) mod N              u = H(PAD(A) | PAD(B))     S = (A * v^u)^b mod N
//   K = H(PAD(S))                      M1 = H(H(N) xor H(g) | H(I) | s | A | B | K)
//   M2 = H(A | M1 | K)
// with N and g as their shortest big-endian bytes inside H(N) and H(g) (RFC 2945 3).
//
// What the server accepts from a client (senders differ in padding):
// - A of 1 to 384 bytes: shortened by stripped leading zero bytes or full length; u is always
//   computed over PAD(A). A mod N == 0 is refused (RFC 5054 2.5.4).
// - M1 in the standard form above with A and B as 384-byte PAD values (what HAP clients send)
//   and, failing that, with A as the client sent it or without leading zeros, with B without
//   leading zeros, and with K = H(S without leading zeros) when S starts with a zero byte. M2
//   uses the A form and K of the M1 that matched; `sessionKey` is that K.
// - The private exponent b is 256 bits (RFC 5054 2.5.3 asks for at least 256 bits of
//   randomness): the exponentiations stay short on a board.

import { utf8Encode } from '../bytes';
import type { CryptoKernels } from './crypto-kernels';
import { PairingError } from './errors';
import { TLV_ERROR } from './tlv-types';
import { bigIntToBytes, bytesToBigInt, checkBytes, constantTimeEqual, padLeft, stripLeadingZeros } from './_util';

/** The 3072-bit group of RFC 5054 appendix A (the same prime as RFC 3526 group 15), g = 5. */
export const SRP_GROUP_3072 = {
  N: BigInt(
    '0x' +
      'FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74' +
      '020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437' +
      '4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED' +
      'EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05' +
      '98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB' +
      '9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B' +
      'E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718' +
      '3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33' +
      'A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7' +
      'ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864' +
      'D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E2' +
      '08E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF',
  ),
  g: 5n,
  /** Bytes of N: the PAD length, and the length of B on the wire. */
  length: 384,
} as const;

/** The SRP username of pair-setup. */
export const SRP_PAIR_SETUP_USERNAME = 'Pair-Setup';
/** Salt bytes drawn when none is given (HAP uses 16). */
const SALT_BYTES = 16;
/** Bytes of the private exponent b. */
const PRIVATE_KEY_BYTES = 32;

const { N, g, length: N_BYTES } = SRP_GROUP_3072;

let groupConstants: { k: bigint; hNxorHg: Uint8Array } | undefined;

/** k and H(N) xor H(g), computed once (every build of SHA-512 gives the same). */
function constants(hash: (...parts: Uint8Array[]) => Uint8Array): { k: bigint; hNxorHg: Uint8Array } {
  if (!groupConstants) {
    const nBytes = bigIntToBytes(N, N_BYTES);
    const k = bytesToBigInt(hash(nBytes, bigIntToBytes(g, N_BYTES)));
    const hN = hash(nBytes);
    const hG = hash(bigIntToBytes(g));
    for (let i = 0; i < hN.length; i++) hN[i] ^= hG[i];
    groupConstants = { k, hNxorHg: hN };
  }
  return groupConstants;
}

interface SrpServerOptions {
  /** The setup code (spec 5.3: 3939 by default, or the configured PIN). */
  password: string;
  /** The SRP username I; pair-setup uses 'Pair-Setup'. */
  username?: string;
  /** The salt s; drawn from `random` (16 bytes) when omitted. */
  salt?: Uint8Array;
  /** The private exponent b as big-endian bytes (tests fix it); 32 random bytes when omitted. */
  privateKey?: Uint8Array;
  random: (n: number) => Uint8Array;
  /** SHA-512 and modPow (the host's pick: DESIGN 5). */
  crypto: CryptoKernels;
}

/** The receiver's side of one SRP-6a exchange (pair-setup M1 to M4). */
export class SrpServer {
  /** The salt s (pair-setup M2 Salt). */
  readonly salt: Uint8Array;
  /** B as 384 big-endian bytes (pair-setup M2 PublicKey). */
  readonly publicKey: Uint8Array;
  private readonly identityHash: Uint8Array;
  private readonly verifier: bigint;
  private readonly b: bigint;
  private clientKey: Uint8Array | undefined;
  private premaster: Uint8Array | undefined;
  private key: Uint8Array | undefined;
  private state: 'started' | 'shared' | 'verified' | 'failed' = 'started';
  private readonly crypto: CryptoKernels;
  /** H over the concatenation of `parts`. */
  private readonly hash = (...parts: Uint8Array[]): Uint8Array => this.crypto.sha512(parts);

  constructor(options: SrpServerOptions) {
    this.crypto = options.crypto;
    const { hash } = this;
    const modPow = this.crypto.modPow;
    const username = options.username ?? SRP_PAIR_SETUP_USERNAME;
    if (typeof options.password !== 'string') throw new PairingError('SRP: the password must be a string');
    this.salt = options.salt ? options.salt.slice() : options.random(SALT_BYTES);
    checkBytes(this.salt, 'SRP salt');
    if (this.salt.length === 0) throw new PairingError('SRP: empty salt');

    const identity = utf8Encode(username);
    const password = utf8Encode(options.password);
    const inner = hash(identity, utf8Encode(':'), password);
    const x = bytesToBigInt(hash(this.salt, inner));
    password.fill(0);
    inner.fill(0);
    this.verifier = modPow(g, x, N);
    this.identityHash = hash(identity);

    const secret = options.privateKey ?? options.random(PRIVATE_KEY_BYTES);
    checkBytes(secret, 'SRP private key');
    this.b = bytesToBigInt(secret) % N;
    if (!options.privateKey) secret.fill(0);
    if (this.b === 0n) throw new PairingError('SRP: the private key is zero');

    const B = (constants(hash).k * this.verifier + modPow(g, this.b, N)) % N;
    this.publicKey = bigIntToBytes(B, N_BYTES);
  }

  /**
   * Takes the client's A (pair-setup M3 PublicKey) and computes S and K. Throws a PairingError
   * (Authentication) when A is empty, longer than N, or A mod N == 0 (RFC 5054 2.5.4).
   */
  computeSharedSecret(clientPublicKey: Uint8Array): void {
    checkBytes(clientPublicKey, 'SRP client public key');
    if (this.state !== 'started') throw new PairingError('SRP: the shared secret was already computed', TLV_ERROR.Unknown);
    if (clientPublicKey.length === 0 || clientPublicKey.length > N_BYTES) {
      throw new PairingError(`SRP: client public key of ${clientPublicKey.length} bytes (1 to ${N_BYTES} expected)`, TLV_ERROR.Authentication);
    }
    const A = bytesToBigInt(clientPublicKey) % N;
    if (A === 0n) throw new PairingError('SRP: client public key A is 0 mod N', TLV_ERROR.Authentication);
    const { hash } = this;
    const modPow = this.crypto.modPow;
    const paddedA = padLeft(clientPublicKey, N_BYTES);
    const u = bytesToBigInt(hash(paddedA, this.publicKey));
    if (u === 0n) throw new PairingError('SRP: scrambling parameter u is 0', TLV_ERROR.Authentication);
    const S = modPow((A * modPow(this.verifier, u, N)) % N, this.b, N);
    this.clientKey = clientPublicKey.slice();
    this.premaster = bigIntToBytes(S, N_BYTES);
    this.key = hash(this.premaster);
    this.state = 'shared';
  }

  /**
   * Checks the client's proof M1 (pair-setup M3 Proof) and returns M2 (M4 Proof). Throws a
   * PairingError (Authentication) when it does not match, which is what a wrong setup code
   * gives; after that the exchange is over and further proofs are refused.
   */
  verifyClientProof(clientProof: Uint8Array): Uint8Array {
    checkBytes(clientProof, 'SRP client proof');
    if (this.state === 'started') throw new PairingError('SRP: client proof before the client public key', TLV_ERROR.Unknown);
    if (this.state !== 'shared') throw new PairingError(`SRP: the exchange is already ${this.state}`, TLV_ERROR.Authentication);
    const premaster = this.premaster!;
    const received = this.clientKey!;
    const { hash } = this;
    const { hNxorHg } = constants(hash);

    const keys = [this.key!];
    if (premaster[0] === 0) keys.push(hash(stripLeadingZeros(premaster)));
    const clientKeyForms = distinct([padLeft(received, N_BYTES), received, stripLeadingZeros(received)]);
    const serverKeyForms = distinct([this.publicKey, stripLeadingZeros(this.publicKey)]);

    for (const K of keys) {
      for (const A of clientKeyForms) {
        for (const B of serverKeyForms) {
          const expected = hash(hNxorHg, this.identityHash, this.salt, A, B, K);
          if (constantTimeEqual(expected, clientProof)) {
            for (const other of keys) if (other !== K) other.fill(0);
            this.key = K;
            this.state = 'verified';
            return hash(A, clientProof, K);
          }
        }
      }
    }
    this.state = 'failed';
    for (const K of keys) K.fill(0);
    this.key = undefined;
    premaster.fill(0);
    throw new PairingError('SRP: the client proof M1 does not match (wrong setup code?)', TLV_ERROR.Authentication);
  }

  /** K = H(S), 64 bytes: the EncryptionKey of transient pairing and the input of HKDF in pair-setup. */
  get sessionKey(): Uint8Array {
    if (!this.key) throw new PairingError(`SRP: no session key (exchange ${this.state})`);
    return this.key;
  }

  /** Wipes S and K; the server is unusable afterwards. */
  dispose(): void {
    this.premaster?.fill(0);
    this.key?.fill(0);
    this.premaster = undefined;
    this.key = undefined;
    this.state = 'failed';
  }
}

/** The arrays of `forms` with equal contents listed once, in order. */
function distinct(forms: Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const form of forms) if (!out.some((seen) => constantTimeEqual(seen, form))) out.push(form);
  return out;
}

/** The client's half of one exchange (the sender's pair-setup M3), from the server's s and B. */
export interface SrpClientProof {
  /** PAD(A), A = g^a. */
  readonly publicKey: Uint8Array;
  /** M1, the client's proof. */
  readonly proof: Uint8Array;
  /** M2 = H(A | M1 | K): what the server's answer must carry. */
  readonly expectedProof: Uint8Array;
  /** K = H(PAD(S)). */
  readonly sessionKey: Uint8Array;
}

interface SrpClientOptions {
  readonly salt: Uint8Array;
  /** B as the server sent it. */
  readonly serverKey: Uint8Array;
  readonly password: string;
  /** The client's private exponent a. */
  readonly privateKey: bigint;
  /** The SRP username I; pair-setup's when omitted. */
  readonly username?: string;
  /** SHA-512 and modPow. */
  readonly crypto: CryptoKernels;
}

/**
 * The client of the formulas above (S = (B - k g^x)^(a + u x) mod N), in the standard form HAP
 * clients send: A and B as 384-byte PAD values. The sender tool and the tests' clients pair with it.
 */
export function srpClientProof(options: SrpClientOptions): SrpClientProof {
  const crypto = options.crypto;
  const hash = (...parts: Uint8Array[]): Uint8Array => crypto.sha512(parts);
  const { salt, privateKey: a } = options;
  const pad = (value: bigint): Uint8Array => bigIntToBytes(value, N_BYTES);
  const identity = utf8Encode(options.username ?? SRP_PAIR_SETUP_USERNAME);
  const { k, hNxorHg } = constants(hash);
  const x = bytesToBigInt(hash(salt, hash(identity, utf8Encode(':'), utf8Encode(options.password))));
  const A = pad(crypto.modPow(g, a, N));
  const B = bytesToBigInt(options.serverKey);
  const u = bytesToBigInt(hash(A, pad(B)));
  let base = (B - ((k * crypto.modPow(g, x, N)) % N)) % N;
  if (base < 0n) base += N;
  const K = hash(pad(crypto.modPow(base, a + u * x, N)));
  const proof = hash(hNxorHg, hash(identity), salt, A, pad(B), K);
  return { publicKey: A, proof, expectedProof: hash(A, proof, K), sessionKey: K };
}
