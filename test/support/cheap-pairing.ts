// Pairing cheap enough to run a million times: crypto kernels whose modPow remembers its answers,
// a random source that gives the same bytes every time, and the sender's SRP step on that modPow.
// With fixed randomness every SRP exponentiation of a campaign (g^b, g^x, A v^u, ...) has the same
// operands, so each 3072-bit modPow is computed once and then looked up: an M1 or an M3 costs
// hashes and a few bigint multiplications instead of tens of milliseconds. What the receiver does
// with the results (the lock, the budget, the answers) is unchanged. Portable (runs in XS too).

import { concat, latin1Encode } from '../../src/bytes';
import type { CryptoKernels } from '../../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { SRP_GROUP_3072, srpClientProof } from '../../src/pairing/srp';
import { decodeTlv8, encodeTlv8 } from '../../src/pairing/tlv8';
import { TLV } from '../../src/pairing/tlv-types';
import type { RandomSource } from '../../src/platform';
import { state } from './pairing-client';

/** Answers kept at most; past it the table starts afresh (a campaign needs a handful). */
const MAX_REMEMBERED = 256;

/** modPow that remembers `base ** exponent mod modulus` by its operands (bigints compare by value in a Map). */
export function rememberingModPow(modPow: CryptoKernels['modPow'] = portableCryptoKernels.modPow): CryptoKernels['modPow'] {
  const byBase = new Map<bigint, Map<bigint, Map<bigint, bigint>>>();
  let size = 0;
  return (base, exponent, modulus) => {
    let byExponent = byBase.get(base);
    const known = byExponent?.get(exponent)?.get(modulus);
    if (known !== undefined) return known;
    if (size >= MAX_REMEMBERED) {
      byBase.clear();
      size = 0;
      byExponent = undefined;
    }
    const value = modPow(base, exponent, modulus);
    if (!byExponent) byBase.set(base, (byExponent = new Map()));
    let byModulus = byExponent.get(exponent);
    if (!byModulus) byExponent.set(exponent, (byModulus = new Map()));
    byModulus.set(modulus, value);
    size++;
    return value;
  };
}

/** The portable kernels with a remembering modPow. */
export function rememberingCryptoKernels(): CryptoKernels {
  return { ...portableCryptoKernels, name: 'noble, modPow remembered', modPow: rememberingModPow() };
}

/** The same bytes every call (0x11 each: also a valid random PIN draw, below its rejection limit). */
export const fixedRandom: RandomSource = (length) => new Uint8Array(length).fill(0x11);

const { length: N_BYTES } = SRP_GROUP_3072;

/** The sender's pair-setup M3 for the M2 body `m2` and `pin` (srpClientProof), on `kernels` and the fixed private key `a`. */
export function cheapM3(m2: Uint8Array, pin: string, kernels: CryptoKernels, a = 0x2222n): Uint8Array {
  const items = decodeTlv8(m2);
  const salt = items.get(TLV.Salt);
  const serverKey = items.get(TLV.PublicKey);
  if (!salt || !serverKey) throw new Error(`M2 without Salt or PublicKey: items ${[...items.keys()].join(',')}`);
  const client = srpClientProof({ salt, serverKey, password: pin, privateKey: a, crypto: kernels });
  return encodeTlv8([state(3), [TLV.PublicKey, client.publicKey], [TLV.Proof, client.proof]]);
}

/** An M3 whose proof is wrong (a wrong PIN), without any exponentiation. */
export function wrongM3(): Uint8Array {
  return encodeTlv8([state(3), [TLV.PublicKey, concat(new Uint8Array([1]), new Uint8Array(N_BYTES - 1))], [TLV.Proof, new Uint8Array(64).fill(7)]]);
}

/** POST /pair-setup carrying `body` (HTTP/1.1, as senders send it). */
export function pairSetupRequest(body: Uint8Array): Uint8Array {
  return concat(latin1Encode(`POST /pair-setup HTTP/1.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`), body);
}
