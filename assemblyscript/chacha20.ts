// ChaCha20 (RFC 8439 2.3 and 2.4): the block function and the stream cipher over linear memory,
// with the 96-bit nonce and 32-bit block counter of the IETF variant.

// "expand 32-byte k" as four little-endian words (RFC 8439 2.3).
const SIGMA0: u32 = 0x61707865;
const SIGMA1: u32 = 0x3320646e;
const SIGMA2: u32 = 0x79622d32;
const SIGMA3: u32 = 0x6b206574;

/** 256 zero bytes, never written: XORed with four blocks of key stream, they give the key stream itself. */
const ZERO_BLOCKS = memory.data(256, 16);

/**
 * The key stream itself: `length` bytes (at most 256) from block `counter` into `output`. With
 * `counter` 0 the first 32 bytes are the Poly1305 key of 2.6; a multiple of 64 bytes is whole
 * blocks of the block function (2.3).
 */
export function chacha20KeyStream(key: usize, nonce: usize, counter: u32, output: usize, length: usize, block: usize): void {
  chacha20Xor(key, nonce, counter, ZERO_BLOCKS, output, length, block);
}

/**
 * XORs `length` bytes at `input` with the ChaCha20 key stream of the 32-byte `key` and 12-byte
 * `nonce`, starting at block `counter` (RFC 8439 2.4), into `output` (may equal `input`).
 * `block` is 256 bytes of scratch for the last blocks.
 *
 * Groups of four blocks go through chacha20Xor4 (SIMD: a group costs about what one block costs
 * alone on V8, so the last two to four blocks are a group too, its key stream in `block`). One
 * block at a time otherwise (a last block, or a build without SIMD), with the state in 16 locals
 * and the 20 rounds written out (two lines per quarter round): WebAssembly has no way to pass
 * locals by reference, and an array of state words in memory would cost a load and a store per
 * operation.
 */
export function chacha20Xor(key: usize, nonce: usize, counter: u32, input: usize, output: usize, length: usize, block: usize): void {
  // A build without SIMD compiles these two out, and chacha20Xor4 with them.
  if (ASC_FEATURE_SIMD) {
    while (length >= 256) {
      chacha20Xor4(key, nonce, counter, input, output);
      input += 256;
      output += 256;
      length -= 256;
      counter += 4;
    }
    if (length > 64) {
      chacha20Xor4(key, nonce, counter, ZERO_BLOCKS, block);
      xorBytes(input, block, output, length);
      return;
    }
  }
  const k0 = load<u32>(key, 0);
  const k1 = load<u32>(key, 4);
  const k2 = load<u32>(key, 8);
  const k3 = load<u32>(key, 12);
  const k4 = load<u32>(key, 16);
  const k5 = load<u32>(key, 20);
  const k6 = load<u32>(key, 24);
  const k7 = load<u32>(key, 28);
  const n0 = load<u32>(nonce, 0);
  const n1 = load<u32>(nonce, 4);
  const n2 = load<u32>(nonce, 8);
  while (length > 0) {
    let x0 = SIGMA0, x1 = SIGMA1, x2 = SIGMA2, x3 = SIGMA3;
    let x4 = k0, x5 = k1, x6 = k2, x7 = k3;
    let x8 = k4, x9 = k5, x10 = k6, x11 = k7;
    let x12 = counter, x13 = n0, x14 = n1, x15 = n2;
    for (let i = 0; i < 10; i++) {
      // Column rounds: (0,4,8,12) (1,5,9,13) (2,6,10,14) (3,7,11,15).
      x0 += x4; x12 = rotl<u32>(x12 ^ x0, 16); x8 += x12; x4 = rotl<u32>(x4 ^ x8, 12);
      x0 += x4; x12 = rotl<u32>(x12 ^ x0, 8); x8 += x12; x4 = rotl<u32>(x4 ^ x8, 7);
      x1 += x5; x13 = rotl<u32>(x13 ^ x1, 16); x9 += x13; x5 = rotl<u32>(x5 ^ x9, 12);
      x1 += x5; x13 = rotl<u32>(x13 ^ x1, 8); x9 += x13; x5 = rotl<u32>(x5 ^ x9, 7);
      x2 += x6; x14 = rotl<u32>(x14 ^ x2, 16); x10 += x14; x6 = rotl<u32>(x6 ^ x10, 12);
      x2 += x6; x14 = rotl<u32>(x14 ^ x2, 8); x10 += x14; x6 = rotl<u32>(x6 ^ x10, 7);
      x3 += x7; x15 = rotl<u32>(x15 ^ x3, 16); x11 += x15; x7 = rotl<u32>(x7 ^ x11, 12);
      x3 += x7; x15 = rotl<u32>(x15 ^ x3, 8); x11 += x15; x7 = rotl<u32>(x7 ^ x11, 7);
      // Diagonal rounds: (0,5,10,15) (1,6,11,12) (2,7,8,13) (3,4,9,14).
      x0 += x5; x15 = rotl<u32>(x15 ^ x0, 16); x10 += x15; x5 = rotl<u32>(x5 ^ x10, 12);
      x0 += x5; x15 = rotl<u32>(x15 ^ x0, 8); x10 += x15; x5 = rotl<u32>(x5 ^ x10, 7);
      x1 += x6; x12 = rotl<u32>(x12 ^ x1, 16); x11 += x12; x6 = rotl<u32>(x6 ^ x11, 12);
      x1 += x6; x12 = rotl<u32>(x12 ^ x1, 8); x11 += x12; x6 = rotl<u32>(x6 ^ x11, 7);
      x2 += x7; x13 = rotl<u32>(x13 ^ x2, 16); x8 += x13; x7 = rotl<u32>(x7 ^ x8, 12);
      x2 += x7; x13 = rotl<u32>(x13 ^ x2, 8); x8 += x13; x7 = rotl<u32>(x7 ^ x8, 7);
      x3 += x4; x14 = rotl<u32>(x14 ^ x3, 16); x9 += x14; x4 = rotl<u32>(x4 ^ x9, 12);
      x3 += x4; x14 = rotl<u32>(x14 ^ x3, 8); x9 += x14; x4 = rotl<u32>(x4 ^ x9, 7);
    }
    // The block is the rounds' result plus the input state (2.3); WebAssembly memory is
    // little-endian, so word i lands as bytes 4i..4i+3 in the serialization of 2.3.
    x0 += SIGMA0; x1 += SIGMA1; x2 += SIGMA2; x3 += SIGMA3;
    x4 += k0; x5 += k1; x6 += k2; x7 += k3;
    x8 += k4; x9 += k5; x10 += k6; x11 += k7;
    x12 += counter; x13 += n0; x14 += n1; x15 += n2;
    if (length >= 64) {
      store<u32>(output, load<u32>(input, 0) ^ x0, 0);
      store<u32>(output, load<u32>(input, 4) ^ x1, 4);
      store<u32>(output, load<u32>(input, 8) ^ x2, 8);
      store<u32>(output, load<u32>(input, 12) ^ x3, 12);
      store<u32>(output, load<u32>(input, 16) ^ x4, 16);
      store<u32>(output, load<u32>(input, 20) ^ x5, 20);
      store<u32>(output, load<u32>(input, 24) ^ x6, 24);
      store<u32>(output, load<u32>(input, 28) ^ x7, 28);
      store<u32>(output, load<u32>(input, 32) ^ x8, 32);
      store<u32>(output, load<u32>(input, 36) ^ x9, 36);
      store<u32>(output, load<u32>(input, 40) ^ x10, 40);
      store<u32>(output, load<u32>(input, 44) ^ x11, 44);
      store<u32>(output, load<u32>(input, 48) ^ x12, 48);
      store<u32>(output, load<u32>(input, 52) ^ x13, 52);
      store<u32>(output, load<u32>(input, 56) ^ x14, 56);
      store<u32>(output, load<u32>(input, 60) ^ x15, 60);
      input += 64;
      output += 64;
      length -= 64;
    } else {
      // The last partial block: the key stream goes to scratch, then byte by byte.
      store<u32>(block, x0, 0);
      store<u32>(block, x1, 4);
      store<u32>(block, x2, 8);
      store<u32>(block, x3, 12);
      store<u32>(block, x4, 16);
      store<u32>(block, x5, 20);
      store<u32>(block, x6, 24);
      store<u32>(block, x7, 28);
      store<u32>(block, x8, 32);
      store<u32>(block, x9, 36);
      store<u32>(block, x10, 40);
      store<u32>(block, x11, 44);
      store<u32>(block, x12, 48);
      store<u32>(block, x13, 52);
      store<u32>(block, x14, 56);
      store<u32>(block, x15, 60);
      xorBytes(input, block, output, length);
      length = 0;
    }
    counter++;
  }
}

// Rotations of each 32-bit lane. By 16: a shuffle of 16-bit halves, which V8 on x64 emits as two
// instructions (pshuflw, pshufhw; a lane's bytes are little-endian, byte 0 the lowest). By 12, 8
// and 7: two shifts and an OR. A byte shuffle would rotate by 8 in one pshufb, but V8 builds its
// 16-byte mask in a register at every use (four more instructions, none hoisted out of the
// rounds' loop): the shifts take 10% off ChaCha20's time on 1 KB.
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function rotl16(x: v128): v128 {
  return i8x16.shuffle(x, x, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
}
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function rotl8(x: v128): v128 {
  return v128.or(i32x4.shl(x, 8), i32x4.shr_u(x, 24));
}
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function rotl12(x: v128): v128 {
  return v128.or(i32x4.shl(x, 12), i32x4.shr_u(x, 20));
}
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function rotl7(x: v128): v128 {
  return v128.or(i32x4.shl(x, 7), i32x4.shr_u(x, 25));
}

/**
 * Four consecutive blocks (`counter` to `counter` + 3) at once: lane j of vector i is state word
 * i of block j, so the rounds are the scalar ones on vectors. 256 bytes of `input` XORed into
 * `output`.
 */
function chacha20Xor4(key: usize, nonce: usize, counter: u32, input: usize, output: usize): void {
  const j4 = v128.load32_splat(key, 0);
  const j5 = v128.load32_splat(key, 4);
  const j6 = v128.load32_splat(key, 8);
  const j7 = v128.load32_splat(key, 12);
  const j8 = v128.load32_splat(key, 16);
  const j9 = v128.load32_splat(key, 20);
  const j10 = v128.load32_splat(key, 24);
  const j11 = v128.load32_splat(key, 28);
  const j12 = i32x4.add(i32x4.splat(counter), i32x4(0, 1, 2, 3));
  const j13 = v128.load32_splat(nonce, 0);
  const j14 = v128.load32_splat(nonce, 4);
  const j15 = v128.load32_splat(nonce, 8);
  let x0 = i32x4.splat(SIGMA0), x1 = i32x4.splat(SIGMA1), x2 = i32x4.splat(SIGMA2), x3 = i32x4.splat(SIGMA3);
  let x4 = j4, x5 = j5, x6 = j6, x7 = j7;
  let x8 = j8, x9 = j9, x10 = j10, x11 = j11;
  let x12 = j12, x13 = j13, x14 = j14, x15 = j15;
  for (let i = 0; i < 10; i++) {
    x0 = i32x4.add(x0, x4); x12 = rotl16(v128.xor(x12, x0)); x8 = i32x4.add(x8, x12); x4 = rotl12(v128.xor(x4, x8));
    x0 = i32x4.add(x0, x4); x12 = rotl8(v128.xor(x12, x0)); x8 = i32x4.add(x8, x12); x4 = rotl7(v128.xor(x4, x8));
    x1 = i32x4.add(x1, x5); x13 = rotl16(v128.xor(x13, x1)); x9 = i32x4.add(x9, x13); x5 = rotl12(v128.xor(x5, x9));
    x1 = i32x4.add(x1, x5); x13 = rotl8(v128.xor(x13, x1)); x9 = i32x4.add(x9, x13); x5 = rotl7(v128.xor(x5, x9));
    x2 = i32x4.add(x2, x6); x14 = rotl16(v128.xor(x14, x2)); x10 = i32x4.add(x10, x14); x6 = rotl12(v128.xor(x6, x10));
    x2 = i32x4.add(x2, x6); x14 = rotl8(v128.xor(x14, x2)); x10 = i32x4.add(x10, x14); x6 = rotl7(v128.xor(x6, x10));
    x3 = i32x4.add(x3, x7); x15 = rotl16(v128.xor(x15, x3)); x11 = i32x4.add(x11, x15); x7 = rotl12(v128.xor(x7, x11));
    x3 = i32x4.add(x3, x7); x15 = rotl8(v128.xor(x15, x3)); x11 = i32x4.add(x11, x15); x7 = rotl7(v128.xor(x7, x11));
    x0 = i32x4.add(x0, x5); x15 = rotl16(v128.xor(x15, x0)); x10 = i32x4.add(x10, x15); x5 = rotl12(v128.xor(x5, x10));
    x0 = i32x4.add(x0, x5); x15 = rotl8(v128.xor(x15, x0)); x10 = i32x4.add(x10, x15); x5 = rotl7(v128.xor(x5, x10));
    x1 = i32x4.add(x1, x6); x12 = rotl16(v128.xor(x12, x1)); x11 = i32x4.add(x11, x12); x6 = rotl12(v128.xor(x6, x11));
    x1 = i32x4.add(x1, x6); x12 = rotl8(v128.xor(x12, x1)); x11 = i32x4.add(x11, x12); x6 = rotl7(v128.xor(x6, x11));
    x2 = i32x4.add(x2, x7); x13 = rotl16(v128.xor(x13, x2)); x8 = i32x4.add(x8, x13); x7 = rotl12(v128.xor(x7, x8));
    x2 = i32x4.add(x2, x7); x13 = rotl8(v128.xor(x13, x2)); x8 = i32x4.add(x8, x13); x7 = rotl7(v128.xor(x7, x8));
    x3 = i32x4.add(x3, x4); x14 = rotl16(v128.xor(x14, x3)); x9 = i32x4.add(x9, x14); x4 = rotl12(v128.xor(x4, x9));
    x3 = i32x4.add(x3, x4); x14 = rotl8(v128.xor(x14, x3)); x9 = i32x4.add(x9, x14); x4 = rotl7(v128.xor(x4, x9));
  }
  xorWords(i32x4.add(x0, i32x4.splat(SIGMA0)), i32x4.add(x1, i32x4.splat(SIGMA1)), i32x4.add(x2, i32x4.splat(SIGMA2)), i32x4.add(x3, i32x4.splat(SIGMA3)), input, output);
  xorWords(i32x4.add(x4, j4), i32x4.add(x5, j5), i32x4.add(x6, j6), i32x4.add(x7, j7), input + 16, output + 16);
  xorWords(i32x4.add(x8, j8), i32x4.add(x9, j9), i32x4.add(x10, j10), i32x4.add(x11, j11), input + 32, output + 32);
  xorWords(i32x4.add(x12, j12), i32x4.add(x13, j13), i32x4.add(x14, j14), i32x4.add(x15, j15), input + 48, output + 48);
}

/**
 * Words i to i + 3 of the four blocks (vector k holds word i + k of blocks 0 to 3), transposed to
 * each block's 16 bytes and XORed at `input`/`output` + 64 * block.
 */
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function xorWords(a: v128, b: v128, c: v128, d: v128, input: usize, output: usize): void {
  const ab01 = i32x4.shuffle(a, b, 0, 4, 1, 5);
  const cd01 = i32x4.shuffle(c, d, 0, 4, 1, 5);
  const ab23 = i32x4.shuffle(a, b, 2, 6, 3, 7);
  const cd23 = i32x4.shuffle(c, d, 2, 6, 3, 7);
  v128.store(output, v128.xor(v128.load(input, 0, 1), i64x2.shuffle(ab01, cd01, 0, 2)), 0, 1);
  v128.store(output, v128.xor(v128.load(input, 64, 1), i64x2.shuffle(ab01, cd01, 1, 3)), 64, 1);
  v128.store(output, v128.xor(v128.load(input, 128, 1), i64x2.shuffle(ab23, cd23, 0, 2)), 128, 1);
  v128.store(output, v128.xor(v128.load(input, 192, 1), i64x2.shuffle(ab23, cd23, 1, 3)), 192, 1);
}

/** `output` = `input` XOR `stream`, `length` bytes: 16 at a time (SIMD) or 8, then one by one. */
export function xorBytes(input: usize, stream: usize, output: usize, length: usize): void {
  let i: usize = 0;
  if (ASC_FEATURE_SIMD) {
    for (; i + 16 <= length; i += 16) v128.store(output + i, v128.xor(v128.load(input + i, 0, 1), v128.load(stream + i, 0, 1)), 0, 1);
  } else {
    for (; i + 8 <= length; i += 8) store<u64>(output + i, load<u64>(input + i, 0, 1) ^ load<u64>(stream + i, 0, 1), 0, 1);
  }
  for (; i < length; i++) store<u8>(output + i, load<u8>(input + i) ^ load<u8>(stream + i));
}
