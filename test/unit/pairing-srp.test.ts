// SRP-6a server of pair-setup against a client written here from the formulas (RFC 5054 with
// SHA-512 and the 3072-bit group): a standard exchange, a client that strips leading zeros,
// wrong codes, and refused public keys. Two client-side exchanges only: 3072-bit
// exponentiation is slow on XS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, fromHex, toHex, utf8Encode } from '../../src/bytes';
import { PairingError } from '../../src/pairing/errors';
import { sha512 } from '../../src/pairing/keys';
import { modPow } from '../../src/pairing/modexp';
import { SRP_GROUP_3072, SrpServer } from '../../src/pairing/srp';
import { TLV_ERROR } from '../../src/pairing/tlv-types';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const { N, g } = SRP_GROUP_3072;
const H = (...parts: Uint8Array[]) => sha512(concat(...parts), portableCryptoKernels);
const toBig = (bytes: Uint8Array) => BigInt('0x' + (toHex(bytes) || '0'));
const pad = (n: bigint) => fromHex(n.toString(16).padStart(768, '0'));
const minimal = (n: bigint) => {
  const hex = n.toString(16);
  return fromHex(hex.length % 2 ? '0' + hex : hex);
};
const exponentBytes = (n: bigint) => fromHex(n.toString(16).padStart(64, '0'));

const SALT = fromHex('5a17e0f2c1d3b4a5968778695a4b3c2d');
const noRandom = (): Uint8Array => {
  throw new Error('random source used although every input was given');
};
const isAuthentication = (error: unknown) => error instanceof PairingError && error.tlvError === TLV_ERROR.Authentication;

interface ClientResult {
  A: bigint;
  S: bigint;
  x: bigint;
}

/** The client's side from the formulas: A = g^a, S = (B - k*g^x)^(a + u*x). */
function client(password: string, salt: Uint8Array, a: bigint, serverPublicKey: Uint8Array): ClientResult {
  const x = toBig(H(salt, H(utf8Encode(`Pair-Setup:${password}`))));
  const k = toBig(H(pad(N), pad(g)));
  const A = modPow(g, a, N);
  const B = toBig(serverPublicKey);
  const u = toBig(H(pad(A), pad(B)));
  const base = (((B - k * modPow(g, x, N)) % N) + N) % N;
  return { A, S: modPow(base, a + u * x, N), x };
}

/** M1 = H(H(N) xor H(g) | H(I) | s | A | B | K) over the given byte forms. */
function proof(A: Uint8Array, B: Uint8Array, K: Uint8Array, salt = SALT): Uint8Array {
  const hN = H(minimal(N));
  const hG = H(minimal(g));
  for (let i = 0; i < hN.length; i++) hN[i] ^= hG[i];
  return H(hN, H(utf8Encode('Pair-Setup')), salt, A, B, K);
}

test('a standard exchange: M1 over padded A and B verifies, M2 and K match the client', () => {
  const b = toBig(fromHex('3d5e7f90a1b2c3d4e5f60718293a4b5c6d7e8f9001a2b3c4d5e6f708192a3b4c'));
  const server = new SrpServer({ crypto: portableCryptoKernels, password: '3939', salt: SALT, privateKey: exponentBytes(b), random: noRandom });
  assert.deepEqual(server.salt, SALT);
  assert.equal(server.publicKey.length, 384);

  const a = toBig(fromHex('60975527035cf2ad1989806f0407210bc81edc04e2762a56afd529ddda2d4393'));
  const { A, S, x } = client('3939', SALT, a, server.publicKey);
  // B = k*v + g^b, from the formula with the known b
  const k = toBig(H(pad(N), pad(g)));
  assert.equal(toBig(server.publicKey), (k * modPow(g, x, N) + modPow(g, b, N)) % N);

  server.computeSharedSecret(pad(A));
  const K = H(pad(S));
  assert.deepEqual(server.sessionKey, K);
  const M1 = proof(pad(A), server.publicKey, K);
  const M2 = server.verifyClientProof(M1);
  assert.deepEqual(M2, H(pad(A), M1, K));
  assert.deepEqual(server.sessionKey, K);
  assert.equal(server.sessionKey.length, 64);
  // the exchange is over: a second proof is refused
  assert.throws(() => server.verifyClientProof(M1), PairingError);
});

test('a client that strips leading zeros from A and S: accepted, M2 over its A form', () => {
  // a and b were searched so that A = g^a and S each start with a zero byte
  const a = (1n << 255n) + 68n;
  const b = (0xb0n << 248n) + 1082n;
  const options = { crypto: portableCryptoKernels, password: '3939', salt: SALT, privateKey: exponentBytes(b), random: noRandom };
  const server = new SrpServer(options);
  const { A, S } = client('3939', SALT, a, server.publicKey);
  const strippedA = minimal(A);
  const strippedS = minimal(S);
  assert.equal(strippedA.length, 383);
  assert.equal(strippedS.length, 383);

  // The sender strips A on the wire and pads nothing in M1 (K over the stripped S too).
  server.computeSharedSecret(strippedA);
  const strippedK = H(strippedS);
  const M1 = proof(strippedA, minimal(toBig(server.publicKey)), strippedK);
  assert.deepEqual(server.verifyClientProof(M1), H(strippedA, M1, strippedK));
  assert.deepEqual(server.sessionKey, strippedK);

  // A client that strips A on the wire but computes the standard padded M1 is accepted too.
  const standard = new SrpServer(options);
  standard.computeSharedSecret(strippedA);
  const K = H(pad(S));
  const standardM1 = proof(pad(A), standard.publicKey, K);
  assert.deepEqual(standard.verifyClientProof(standardM1), H(pad(A), standardM1, K));
  assert.deepEqual(standard.sessionKey, K);

  // A wrong setup code: the same client proof against a server with another password fails.
  const wrongCode = new SrpServer({ ...options, password: '1234' });
  wrongCode.computeSharedSecret(strippedA);
  assert.throws(() => wrongCode.verifyClientProof(standardM1), isAuthentication);
  // and after a failure the exchange is over
  assert.throws(() => wrongCode.verifyClientProof(standardM1), isAuthentication);
  assert.throws(() => wrongCode.sessionKey, PairingError);
});

test('client public keys that are 0 mod N, empty or longer than N are refused with Authentication', () => {
  const server = new SrpServer({ crypto: portableCryptoKernels, password: '3939', salt: SALT, privateKey: exponentBytes(12345n), random: noRandom });
  assert.throws(() => server.computeSharedSecret(pad(N)), (error: unknown) => isAuthentication(error) && /0 mod N/.test(String(error)));
  assert.throws(() => server.computeSharedSecret(new Uint8Array(384)), isAuthentication);
  assert.throws(() => server.computeSharedSecret(new Uint8Array(1)), isAuthentication);
  assert.throws(() => server.computeSharedSecret(new Uint8Array(0)), isAuthentication);
  assert.throws(() => server.computeSharedSecret(new Uint8Array(385).fill(1)), isAuthentication);
  // the refusals left the server usable
  server.computeSharedSecret(minimal(2n));
  assert.throws(() => server.computeSharedSecret(minimal(2n)), PairingError);
  assert.throws(() => server.verifyClientProof(new Uint8Array(64)), isAuthentication);
});

test('the order of calls is enforced', () => {
  const server = new SrpServer({ crypto: portableCryptoKernels, password: '3939', salt: SALT, privateKey: exponentBytes(777n), random: noRandom });
  assert.throws(() => server.verifyClientProof(new Uint8Array(64)), PairingError);
  assert.throws(() => server.sessionKey, PairingError);
  server.dispose();
  assert.throws(() => server.computeSharedSecret(minimal(2n)), PairingError);
});

test('salt and private key come from the random source when not given', () => {
  const requests: number[] = [];
  const random = (n: number) => {
    requests.push(n);
    return new Uint8Array(n).fill(0x11 * requests.length);
  };
  const server = new SrpServer({ crypto: portableCryptoKernels, password: '3939', random });
  assert.deepEqual(requests, [16, 32]);
  assert.deepEqual(server.salt, new Uint8Array(16).fill(0x11));
  const same = new SrpServer({ crypto: portableCryptoKernels, password: '3939', salt: server.salt, privateKey: new Uint8Array(32).fill(0x22), random: noRandom });
  assert.deepEqual(same.publicKey, server.publicKey);
  assert.throws(() => new SrpServer({ crypto: portableCryptoKernels, password: '3939', salt: new Uint8Array(0), random: noRandom }), PairingError);
  assert.throws(() => new SrpServer({ crypto: portableCryptoKernels, password: '3939', salt: SALT, privateKey: new Uint8Array(32), random: noRandom }), PairingError);
});
