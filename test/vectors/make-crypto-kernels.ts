// Writes crypto-kernels.json: the vectors every CryptoKernels build passes (portable @noble, the
// XS natives on libsodium/mbedTLS; test/kernels/crypto-vectors.ts), computed with Node's OpenSSL:
// SHA-512, HMAC-SHA-512, X25519 (public keys, shared secrets, low-order peers), Ed25519 (keys,
// signatures, and signatures that must not verify), modPow at SRP's and RSA's sizes. Run once;
// the JSON is committed:
//   node --import tsx test/vectors/make-crypto-kernels.ts

import { createHash, createHmac, createPrivateKey, createPublicKey, diffieHellman, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { SRP_GROUP_3072 } from '../../src/pairing/srp';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
/** Deterministic bytes (a simple LCG): the inputs need not be random, only varied. */
function bytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

// PKCS#8 / SPKI wrappers of raw 32-byte X25519 and Ed25519 keys (RFC 8410).
const PKCS8_PREFIX = { x25519: '302e020100300506032b656e04220420', ed25519: '302e020100300506032b657004220420' };
const SPKI_PREFIX = { x25519: '302a300506032b656e032100', ed25519: '302a300506032b6570032100' };
const privateKey = (kind: 'x25519' | 'ed25519', raw: Buffer) =>
  createPrivateKey({ key: Buffer.concat([Buffer.from(PKCS8_PREFIX[kind], 'hex'), raw]), format: 'der', type: 'pkcs8' });
const publicKey = (kind: 'x25519' | 'ed25519', raw: Buffer) =>
  createPublicKey({ key: Buffer.concat([Buffer.from(SPKI_PREFIX[kind], 'hex'), raw]), format: 'der', type: 'spki' });
const rawPublic = (key: ReturnType<typeof createPrivateKey>) => createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32);

const lengths = [0, 1, 111, 112, 127, 128, 129, 1000];
const sha512 = lengths.map((length, i) => {
  const data = bytes(length, 100 + i);
  return { data: hex(data), digest: createHash('sha512').update(data).digest('hex') };
});
const hmacSha512 = [
  [0, 0],
  [20, 8],
  [64, 50],
  [128, 200], // a key longer than the block is hashed first (RFC 2104 2)
  [131, 1],
].map(([keyLength, length], i) => {
  const key = bytes(keyLength, 200 + i);
  const data = bytes(length, 300 + i);
  return { key: hex(key), data: hex(data), mac: createHmac('sha512', key).update(data).digest('hex') };
});

const x25519 = [1, 2, 3, 4].map((seed) => {
  const secret = bytes(32, 400 + seed);
  const peerSecret = bytes(32, 500 + seed);
  const peer = rawPublic(privateKey('x25519', peerSecret));
  const shared = diffieHellman({ privateKey: privateKey('x25519', secret), publicKey: publicKey('x25519', peer) });
  return { secret: hex(secret), public: hex(rawPublic(privateKey('x25519', secret))), peer: hex(peer), shared: hex(shared) };
});
// Peer keys whose shared secret is all zero (RFC 7748 6.1): u = 0, u = 1, and u = p (0 mod p).
const x25519LowOrder = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];

const ED25519_ORDER = (1n << 252n) + 27742317777372353535851937790883648493n;
const ed25519 = [0, 1, 2, 200].map((length, i) => {
  const seed = bytes(32, 600 + i);
  const message = bytes(length, 700 + i);
  const key = privateKey('ed25519', seed);
  return { seed: hex(seed), public: hex(rawPublic(key)), message: hex(message), signature: hex(sign(null, message, key)) };
});
const first = ed25519[1];
const flip = (text: string, index: number) => {
  const out = Buffer.from(text, 'hex');
  out[index] ^= 0x01;
  return hex(out);
};
// S + L: the same point equation holds, but RFC 8032 5.1.7 requires S < L (strict decoding).
const signature = Buffer.from(first.signature, 'hex');
let s = 0n;
for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(signature[32 + i]);
s += ED25519_ORDER;
const malleable = Buffer.from(signature);
for (let i = 0; i < 32; i++) malleable[32 + i] = Number((s >> BigInt(8 * i)) & 0xffn);
const ed25519Invalid = [
  { why: 'another message', public: first.public, message: flip(first.message, 0), signature: first.signature },
  { why: 'a bit of R flipped', public: first.public, message: first.message, signature: flip(first.signature, 3) },
  { why: 'a bit of S flipped', public: first.public, message: first.message, signature: flip(first.signature, 40) },
  { why: 'another public key', public: ed25519[0].public, message: first.message, signature: first.signature },
  { why: 'S + L (non-canonical S)', public: first.public, message: first.message, signature: hex(malleable) },
  // y = 2 is not the y of any curve point.
  { why: 'a public key that is not a point', public: '02' + '00'.repeat(31), message: first.message, signature: first.signature },
];

/** Right-to-left square-and-multiply, independent of both builds under test. */
function reference(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n % modulus;
  let b = ((base % modulus) + modulus) % modulus;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
  }
  return result;
}
const big = (buffer: Buffer) => BigInt('0x' + (buffer.length ? buffer.toString('hex') : '0'));
const { N } = SRP_GROUP_3072;
const rsaLike = big(bytes(64, 800)) | 1n | (1n << 511n); // an odd 512-bit modulus, as RSA's p and q are
const modPow = [
  { base: 5n, exponent: big(bytes(32, 801)), modulus: N }, // g^b, SRP's B
  { base: big(bytes(384, 802)), exponent: big(bytes(32, 803)), modulus: N }, // S = (A v^u)^b
  { base: big(bytes(384, 804)), exponent: big(bytes(64, 805)), modulus: N }, // v^u with a 512-bit u
  { base: N + 7n, exponent: 65537n, modulus: N }, // a base above the modulus
  { base: big(bytes(64, 806)), exponent: big(bytes(64, 807)), modulus: rsaLike },
  { base: 0n, exponent: 5n, modulus: N },
  { base: 123n, exponent: 0n, modulus: N },
  { base: 10n, exponent: 3n, modulus: 1000n }, // an even modulus (the natives take it on the portable path)
  { base: -2n, exponent: 3n, modulus: 7n }, // a negative base: (-8) mod 7
].map(({ base, exponent, modulus }) => ({
  base: base.toString(16),
  exponent: exponent.toString(16),
  modulus: modulus.toString(16),
  result: reference(base, exponent, modulus).toString(16),
}));

const vectors = {
  description:
    'CryptoKernels vectors (src/pairing/crypto-kernels.ts) from Node OpenSSL by make-crypto-kernels.ts: hex bytes; modPow values are hex BigInts (base may be negative); x25519LowOrder peers give an all-zero secret; ed25519Invalid must not verify.',
  sha512,
  hmacSha512,
  x25519,
  x25519LowOrder,
  ed25519,
  ed25519Invalid,
  modPow,
};
writeFileSync(new URL('./crypto-kernels.json', import.meta.url), JSON.stringify(vectors, null, 2) + '\n');
