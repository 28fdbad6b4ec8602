// AES-128 in counter mode (FIPS 197, NIST SP 800-38A 6.5), small: POST /auth-setup encrypts one
// signature of 128 bytes with it (spec 5.6), so memory matters and speed does not.
//
// A table-driven AES (as @noble/ciphers builds at load) holds about 1.3 MB of lookup tables, more
// than a board's whole heap. This one keeps the 256-byte S-box and computes MixColumns on the fly.
// CTR mode needs only the forward cipher.

const SBOX = buildSbox();

/** FIPS 197 5.1.1: the S-box, from the multiplicative inverse in GF(2^8) and the affine map. */
function buildSbox(): Uint8Array {
  const sbox = new Uint8Array(256);
  // Walk the field with generator 3 (p) and its inverse (q) together: p * q = 1 throughout.
  let p = 1;
  let q = 1;
  do {
    p = p ^ ((p << 1) & 0xff) ^ (p & 0x80 ? 0x1b : 0);
    q ^= q << 1;
    q ^= q << 2;
    q ^= q << 4;
    q &= 0xff;
    if (q & 0x80) q ^= 0x09;
    const rotated = q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4);
    sbox[p] = (rotated ^ 0x63) & 0xff;
  } while (p !== 1);
  sbox[0] = 0x63; // 0 has no inverse
  return sbox;
}

function rotl8(x: number, shift: number): number {
  return ((x << shift) | (x >> (8 - shift))) & 0xff;
}

/** Multiplication by x in GF(2^8) (FIPS 197 4.2.1, xtime). */
function xtime(x: number): number {
  return ((x << 1) ^ (x & 0x80 ? 0x1b : 0)) & 0xff;
}

/** FIPS 197 5.2: the 11 round keys of AES-128, 176 bytes. */
function expandKey(key: Uint8Array): Uint8Array {
  if (key.length !== 16) throw new RangeError(`AES-128 key must be 16 bytes, got ${key.length}`);
  const w = new Uint8Array(176);
  w.set(key);
  let rcon = 1;
  for (let i = 16; i < 176; i += 4) {
    let t0 = w[i - 4];
    let t1 = w[i - 3];
    let t2 = w[i - 2];
    let t3 = w[i - 1];
    if (i % 16 === 0) {
      // RotWord, SubWord, Rcon
      const first = t0;
      t0 = SBOX[t1] ^ rcon;
      t1 = SBOX[t2];
      t2 = SBOX[t3];
      t3 = SBOX[first];
      rcon = xtime(rcon);
    }
    w[i] = w[i - 16] ^ t0;
    w[i + 1] = w[i - 15] ^ t1;
    w[i + 2] = w[i - 14] ^ t2;
    w[i + 3] = w[i - 13] ^ t3;
  }
  return w;
}

/** FIPS 197 5.1: encrypts one 16-byte block in place with expanded round keys. */
function encryptBlock(state: Uint8Array, roundKeys: Uint8Array): void {
  for (let i = 0; i < 16; i++) state[i] ^= roundKeys[i];
  const tmp = new Uint8Array(16);
  for (let round = 1; round <= 10; round++) {
    // SubBytes and ShiftRows together: byte (row r, column c) comes from column c + r.
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 4; r++) tmp[4 * c + r] = SBOX[state[4 * ((c + r) % 4) + r]];
    }
    if (round < 10) {
      // MixColumns (FIPS 197 5.1.3)
      for (let c = 0; c < 4; c++) {
        const a0 = tmp[4 * c];
        const a1 = tmp[4 * c + 1];
        const a2 = tmp[4 * c + 2];
        const a3 = tmp[4 * c + 3];
        const all = a0 ^ a1 ^ a2 ^ a3;
        state[4 * c] = a0 ^ all ^ xtime(a0 ^ a1);
        state[4 * c + 1] = a1 ^ all ^ xtime(a1 ^ a2);
        state[4 * c + 2] = a2 ^ all ^ xtime(a2 ^ a3);
        state[4 * c + 3] = a3 ^ all ^ xtime(a3 ^ a0);
      }
    } else {
      state.set(tmp);
    }
    const offset = 16 * round;
    for (let i = 0; i < 16; i++) state[i] ^= roundKeys[offset + i];
  }
  tmp.fill(0);
}

/** AES-128 encryption of one block (FIPS 197), for test vectors. */
export function aes128EncryptBlock(key: Uint8Array, block: Uint8Array): Uint8Array {
  if (block.length !== 16) throw new RangeError(`AES block must be 16 bytes, got ${block.length}`);
  const roundKeys = expandKey(key);
  const state = block.slice();
  encryptBlock(state, roundKeys);
  roundKeys.fill(0);
  return state;
}

/**
 * AES-128-CTR (SP 800-38A 6.5): `data` XOR the key stream from the 16-byte initial counter
 * block `iv`, incremented as a 128-bit big-endian integer. Encryption and decryption are the same.
 */
export function aes128Ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  if (iv.length !== 16) throw new RangeError(`AES-CTR counter block must be 16 bytes, got ${iv.length}`);
  const roundKeys = expandKey(key);
  const counter = iv.slice();
  const stream = new Uint8Array(16);
  const out = new Uint8Array(data.length);
  for (let offset = 0; offset < data.length; offset += 16) {
    stream.set(counter);
    encryptBlock(stream, roundKeys);
    const end = Math.min(16, data.length - offset);
    for (let i = 0; i < end; i++) out[offset + i] = data[offset + i] ^ stream[i];
    for (let i = 15; i >= 0; i--) {
      counter[i] = (counter[i] + 1) & 0xff;
      if (counter[i] !== 0) break;
    }
  }
  roundKeys.fill(0);
  stream.fill(0);
  return out;
}
