// Poly1305 (RFC 8439 2.5): the one-time authenticator, with the 130-bit accumulator and r in
// five 26-bit limbs so every product and every sum of five products fits an unsigned 64-bit
// integer (WebAssembly has no 64x64->128 multiply).

const MASK26: u64 = 0x3ffffff;

// r (clamped, 2.5: "r &= 0x0ffffffc0ffffffc0ffffffc0fffffff"), the accumulator h, and s
// (the second key half, added at the end) of the message being authenticated.
let r0: u64 = 0, r1: u64 = 0, r2: u64 = 0, r3: u64 = 0, r4: u64 = 0;
let h0: u64 = 0, h1: u64 = 0, h2: u64 = 0, h3: u64 = 0, h4: u64 = 0;
let s0: u32 = 0, s1: u32 = 0, s2: u32 = 0, s3: u32 = 0;

/** Starts a message under the 32-byte one-time `key` (r || s, 2.5). */
export function poly1305Init(key: usize): void {
  // Clamping and the split into 26-bit limbs in one step: each mask clears the bits 2.5
  // clears, shifted to the limb's position.
  r0 = <u64>(load<u32>(key, 0) & 0x3ffffff);
  r1 = <u64>((load<u32>(key, 3) >> 2) & 0x3ffff03);
  r2 = <u64>((load<u32>(key, 6) >> 4) & 0x3ffc0ff);
  r3 = <u64>((load<u32>(key, 9) >> 6) & 0x3f03fff);
  r4 = <u64>((load<u32>(key, 12) >> 8) & 0x00fffff);
  s0 = load<u32>(key, 16);
  s1 = load<u32>(key, 20);
  s2 = load<u32>(key, 24);
  s3 = load<u32>(key, 28);
  h0 = 0;
  h1 = 0;
  h2 = 0;
  h3 = 0;
  h4 = 0;
}

/**
 * Adds the 16-byte blocks of `length` bytes at `message` (a multiple of 16) to the accumulator
 * and multiplies by r modulo 2^130 - 5 after each. `high` is 1 << 24, the 2^128 bit that 2.5
 * appends to every full block, or 0 for a final short block that carries its own 0x01 byte.
 */
export function poly1305Blocks(message: usize, length: usize, high: u64): void {
  // A build without SIMD compiles this out, and poly1305BlocksInLanes with it.
  if (ASC_FEATURE_SIMD) {
    if (high != 0) {
      const taken = poly1305BlocksInLanes(message, length);
      message += taken;
      length -= taken;
    }
  }
  const r0_ = r0, r1_ = r1, r2_ = r2, r3_ = r3, r4_ = r4;
  // 2^130 = 5 (mod p): the parts of a product above 2^130 come back multiplied by 5.
  const f1 = r1_ * 5, f2 = r2_ * 5, f3 = r3_ * 5, f4 = r4_ * 5;
  let a0 = h0, a1 = h1, a2 = h2, a3 = h3, a4 = h4;
  while (length >= 16) {
    a0 += <u64>(load<u32>(message, 0) & 0x3ffffff);
    a1 += <u64>((load<u32>(message, 3) >> 2) & 0x3ffffff);
    a2 += <u64>((load<u32>(message, 6) >> 4) & 0x3ffffff);
    a3 += <u64>((load<u32>(message, 9) >> 6) & 0x3ffffff);
    a4 += <u64>(load<u32>(message, 12) >> 8) | high;
    // Limbs below 2^27 times r limbs below 2^26 (times 5: below 2^29), five terms: < 2^58.
    let d0 = a0 * r0_ + a1 * f4 + a2 * f3 + a3 * f2 + a4 * f1;
    let d1 = a0 * r1_ + a1 * r0_ + a2 * f4 + a3 * f3 + a4 * f2;
    let d2 = a0 * r2_ + a1 * r1_ + a2 * r0_ + a3 * f4 + a4 * f3;
    let d3 = a0 * r3_ + a1 * r2_ + a2 * r1_ + a3 * r0_ + a4 * f4;
    let d4 = a0 * r4_ + a1 * r3_ + a2 * r2_ + a3 * r1_ + a4 * r0_;
    // Partial reduction: limbs back to 26 bits (a1 may keep a carry bit).
    d1 += d0 >> 26;
    a0 = d0 & MASK26;
    d2 += d1 >> 26;
    a1 = d1 & MASK26;
    d3 += d2 >> 26;
    a2 = d2 & MASK26;
    d4 += d3 >> 26;
    a3 = d3 & MASK26;
    a0 += (d4 >> 26) * 5;
    a4 = d4 & MASK26;
    a1 += a0 >> 26;
    a0 &= MASK26;
    message += 16;
    length -= 16;
  }
  h0 = a0;
  h1 = a1;
  h2 = a2;
  h3 = a3;
  h4 = a4;
}

/** Finishes the message: writes the 16-byte tag (h mod p) + s mod 2^128 at `tag` (2.5). */
export function poly1305Finish(tag: usize): void {
  // Full carry, so each limb is below 2^26 and h below 2^130 + small.
  let a0 = h0, a1 = h1, a2 = h2, a3 = h3, a4 = h4;
  a2 += a1 >> 26;
  a1 &= MASK26;
  a3 += a2 >> 26;
  a2 &= MASK26;
  a4 += a3 >> 26;
  a3 &= MASK26;
  a0 += (a4 >> 26) * 5;
  a4 &= MASK26;
  a1 += a0 >> 26;
  a0 &= MASK26;
  // g = h + 5 - 2^130, i.e. h - p; when no borrow came out of the top, h >= p and g is h mod p.
  let g0 = a0 + 5;
  let g1 = a1 + (g0 >> 26);
  g0 &= MASK26;
  let g2 = a2 + (g1 >> 26);
  g1 &= MASK26;
  let g3 = a3 + (g2 >> 26);
  g2 &= MASK26;
  let g4 = a4 + (g3 >> 26) - (1 << 26);
  g3 &= MASK26;
  // Selected without a branch: all ones when g4 did not borrow (bit 63 clear).
  const useG = (g4 >> 63) - 1;
  const useH = ~useG;
  a0 = (a0 & useH) | (g0 & useG);
  a1 = (a1 & useH) | (g1 & useG);
  a2 = (a2 & useH) | (g2 & useG);
  a3 = (a3 & useH) | (g3 & useG);
  a4 = (a4 & useH) | (g4 & useG & MASK26);
  // h mod 2^128 + s, as four 32-bit words with carries. Limbs are summed, not ORed, since a1
  // may still hold 2^26 (a carry the last step left in it).
  let sum = a0 + (a1 << 26) + <u64>s0;
  store<u32>(tag, <u32>sum, 0);
  sum = (sum >> 32) + (a2 << 20) + <u64>s1;
  store<u32>(tag, <u32>sum, 4);
  sum = (sum >> 32) + (a3 << 14) + <u64>s2;
  store<u32>(tag, <u32>sum, 8);
  sum = (sum >> 32) + (a4 << 8) + <u64>s3;
  store<u32>(tag, <u32>sum, 12);
  poly1305Wipe();
}

/** Forgets the key and the accumulator. */
export function poly1305Wipe(): void {
  r0 = r1 = r2 = r3 = r4 = 0;
  h0 = h1 = h2 = h3 = h4 = 0;
  s0 = s1 = s2 = s3 = 0;
}

// Four blocks at a time (SIMD builds): lane j of each vector holds a limb of the running sum of
// blocks j, j + 4, j + 8, ..., each lane a Horner sum in r^4; at the end the lanes are multiplied
// by r^4, r^3, r^2 and r and added, which gives the h of block-by-block (2.5): block i of n is
// multiplied by r^(n - i + 1) either way. Products come from i64x2.extmul (32 x 32 -> 64 bits, two
// lanes at a time); the limbs stay below 2^27 and r's (times 5) below 2^29, so every sum of five
// products fits 64 bits as in the scalar code. V8 spends two shuffles on every extmul, so this is
// about 1.25 times as fast as block by block (a 1 KB seal 0.93 of the time, a 16 KB one 0.84), not 4.

/** The limbs of r^4, r^3, r^2 and r as lanes 0 to 3: limb k at 16 * k. */
const POWERS = memory.data(80, 16);
/** r^4's limbs, each in all four lanes (at 0 to 64), and those of 5 r^4 (limbs 1 to 4, at 80 to 128). */
const FOURTH = memory.data(144, 16);
/**
 * Fewest bytes for the four-lane path: r^2 to r^4 cost three block steps, and at 256 bytes the
 * lanes were still slower than block by block on V8.
 */
const LANES_FROM: usize = 512;

// p = p * r mod 2^130 - 5, partly reduced (the scalar step without a message block).
let p0: u64 = 0, p1: u64 = 0, p2: u64 = 0, p3: u64 = 0, p4: u64 = 0;

function powerTimesR(): void {
  const f1 = r1 * 5, f2 = r2 * 5, f3 = r3 * 5, f4 = r4 * 5;
  let d0 = p0 * r0 + p1 * f4 + p2 * f3 + p3 * f2 + p4 * f1;
  let d1 = p0 * r1 + p1 * r0 + p2 * f4 + p3 * f3 + p4 * f2;
  let d2 = p0 * r2 + p1 * r1 + p2 * r0 + p3 * f4 + p4 * f3;
  let d3 = p0 * r3 + p1 * r2 + p2 * r1 + p3 * r0 + p4 * f4;
  let d4 = p0 * r4 + p1 * r3 + p2 * r2 + p3 * r1 + p4 * r0;
  d1 += d0 >> 26;
  d2 += d1 >> 26;
  d3 += d2 >> 26;
  d4 += d3 >> 26;
  p0 = (d0 & MASK26) + (d4 >> 26) * 5;
  p1 = (d1 & MASK26) + (p0 >> 26);
  p0 &= MASK26;
  p2 = d2 & MASK26;
  p3 = d3 & MASK26;
  p4 = d4 & MASK26;
}

/** Writes p's limbs as lane `lane` of POWERS. */
function storePower(lane: usize): void {
  store<u32>(POWERS + lane * 4, <u32>p0, 0);
  store<u32>(POWERS + lane * 4, <u32>p1, 16);
  store<u32>(POWERS + lane * 4, <u32>p2, 32);
  store<u32>(POWERS + lane * 4, <u32>p3, 48);
  store<u32>(POWERS + lane * 4, <u32>p4, 64);
}

// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function mulLow(a: v128, b: v128): v128 {
  return i64x2.extmul_low_i32x4_u(a, b);
}
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function mulHigh(a: v128, b: v128): v128 {
  return i64x2.extmul_high_i32x4_u(a, b);
}
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function times5(x: v128): v128 {
  return i32x4.add(i32x4.shl(x, 2), x);
}
/** Two i64x2 of values below 2^32 as one i32x4 (lanes 0, 1 from `low`, 2, 3 from `high`). */
// @ts-ignore: TypeScript has no function decorators; asc inlines these
@inline function narrow(low: v128, high: v128): v128 {
  return i32x4.shuffle(low, high, 0, 2, 4, 6);
}

/**
 * Adds the full 16-byte blocks of the first multiple of 64 bytes of `length` at `message` (with the
 * 2^128 bit of 2.5) to the accumulator, four lanes at a time, and returns how many bytes it took:
 * 0 below LANES_FROM (the caller goes on block by block from where this stopped).
 */
export function poly1305BlocksInLanes(message: usize, length: usize): usize {
  if (length < LANES_FROM) return 0;
  const taken = length & ~63;
  p0 = r0; p1 = r1; p2 = r2; p3 = r3; p4 = r4;
  storePower(3);
  powerTimesR();
  storePower(2);
  powerTimesR();
  storePower(1);
  powerTimesR();
  storePower(0);
  const mask = i32x4.splat(0x3ffffff);
  const high = i32x4.splat(1 << 24);
  // In the loop every lane is multiplied by r^4.
  // Kept in memory and loaded at each use: in registers they would be spilled (16 on x64).
  v128.store(FOURTH, i32x4.splat(<i32>p0), 0);
  v128.store(FOURTH, i32x4.splat(<i32>p1), 16);
  v128.store(FOURTH, i32x4.splat(<i32>p2), 32);
  v128.store(FOURTH, i32x4.splat(<i32>p3), 48);
  v128.store(FOURTH, i32x4.splat(<i32>p4), 64);
  v128.store(FOURTH, i32x4.splat(<i32>(p1 * 5)), 80);
  v128.store(FOURTH, i32x4.splat(<i32>(p2 * 5)), 96);
  v128.store(FOURTH, i32x4.splat(<i32>(p3 * 5)), 112);
  v128.store(FOURTH, i32x4.splat(<i32>(p4 * 5)), 128);
  // The accumulator so far joins lane 0 (the block that will be multiplied by r^n).
  let a0 = i32x4.replace_lane(i32x4.splat(0), 0, <i32>h0);
  let a1 = i32x4.replace_lane(i32x4.splat(0), 0, <i32>h1);
  let a2 = i32x4.replace_lane(i32x4.splat(0), 0, <i32>h2);
  let a3 = i32x4.replace_lane(i32x4.splat(0), 0, <i32>h3);
  let a4 = i32x4.replace_lane(i32x4.splat(0), 0, <i32>h4);
  const end = message + taken;
  while (true) {
    // Four blocks, transposed: w_i holds word i of blocks 0 to 3.
    const b0 = v128.load(message, 0, 1), b1 = v128.load(message, 16, 1), b2 = v128.load(message, 32, 1), b3 = v128.load(message, 48, 1);
    const u01 = i32x4.shuffle(b0, b1, 0, 4, 1, 5), u23 = i32x4.shuffle(b2, b3, 0, 4, 1, 5);
    const v01 = i32x4.shuffle(b0, b1, 2, 6, 3, 7), v23 = i32x4.shuffle(b2, b3, 2, 6, 3, 7);
    const w0 = i64x2.shuffle(u01, u23, 0, 2), w1 = i64x2.shuffle(u01, u23, 1, 3);
    const w2 = i64x2.shuffle(v01, v23, 0, 2), w3 = i64x2.shuffle(v01, v23, 1, 3);
    a0 = i32x4.add(a0, v128.and(w0, mask));
    a1 = i32x4.add(a1, v128.and(v128.or(i32x4.shr_u(w0, 26), i32x4.shl(w1, 6)), mask));
    a2 = i32x4.add(a2, v128.and(v128.or(i32x4.shr_u(w1, 20), i32x4.shl(w2, 12)), mask));
    a3 = i32x4.add(a3, v128.and(v128.or(i32x4.shr_u(w2, 14), i32x4.shl(w3, 18)), mask));
    a4 = i32x4.add(a4, v128.or(i32x4.shr_u(w3, 8), high));
    message += 64;
    if (message == end) break;
    // a *= r^4 in every lane, partly reduced.
    let d0l = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulLow(a0, v128.load(FOURTH, 0)), mulLow(a1, v128.load(FOURTH, 128))), mulLow(a2, v128.load(FOURTH, 112))), mulLow(a3, v128.load(FOURTH, 96))), mulLow(a4, v128.load(FOURTH, 80)));
    let d0h = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulHigh(a0, v128.load(FOURTH, 0)), mulHigh(a1, v128.load(FOURTH, 128))), mulHigh(a2, v128.load(FOURTH, 112))), mulHigh(a3, v128.load(FOURTH, 96))), mulHigh(a4, v128.load(FOURTH, 80)));
    let d1l = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulLow(a0, v128.load(FOURTH, 16)), mulLow(a1, v128.load(FOURTH, 0))), mulLow(a2, v128.load(FOURTH, 128))), mulLow(a3, v128.load(FOURTH, 112))), mulLow(a4, v128.load(FOURTH, 96)));
    let d1h = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulHigh(a0, v128.load(FOURTH, 16)), mulHigh(a1, v128.load(FOURTH, 0))), mulHigh(a2, v128.load(FOURTH, 128))), mulHigh(a3, v128.load(FOURTH, 112))), mulHigh(a4, v128.load(FOURTH, 96)));
    let d2l = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulLow(a0, v128.load(FOURTH, 32)), mulLow(a1, v128.load(FOURTH, 16))), mulLow(a2, v128.load(FOURTH, 0))), mulLow(a3, v128.load(FOURTH, 128))), mulLow(a4, v128.load(FOURTH, 112)));
    let d2h = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulHigh(a0, v128.load(FOURTH, 32)), mulHigh(a1, v128.load(FOURTH, 16))), mulHigh(a2, v128.load(FOURTH, 0))), mulHigh(a3, v128.load(FOURTH, 128))), mulHigh(a4, v128.load(FOURTH, 112)));
    let d3l = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulLow(a0, v128.load(FOURTH, 48)), mulLow(a1, v128.load(FOURTH, 32))), mulLow(a2, v128.load(FOURTH, 16))), mulLow(a3, v128.load(FOURTH, 0))), mulLow(a4, v128.load(FOURTH, 128)));
    let d3h = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulHigh(a0, v128.load(FOURTH, 48)), mulHigh(a1, v128.load(FOURTH, 32))), mulHigh(a2, v128.load(FOURTH, 16))), mulHigh(a3, v128.load(FOURTH, 0))), mulHigh(a4, v128.load(FOURTH, 128)));
    let d4l = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulLow(a0, v128.load(FOURTH, 64)), mulLow(a1, v128.load(FOURTH, 48))), mulLow(a2, v128.load(FOURTH, 32))), mulLow(a3, v128.load(FOURTH, 16))), mulLow(a4, v128.load(FOURTH, 0)));
    let d4h = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulHigh(a0, v128.load(FOURTH, 64)), mulHigh(a1, v128.load(FOURTH, 48))), mulHigh(a2, v128.load(FOURTH, 32))), mulHigh(a3, v128.load(FOURTH, 16))), mulHigh(a4, v128.load(FOURTH, 0)));
    const mask64 = i64x2.splat(0x3ffffff);
    d1l = i64x2.add(d1l, i64x2.shr_u(d0l, 26));
    d1h = i64x2.add(d1h, i64x2.shr_u(d0h, 26));
    d2l = i64x2.add(d2l, i64x2.shr_u(d1l, 26));
    d2h = i64x2.add(d2h, i64x2.shr_u(d1h, 26));
    d3l = i64x2.add(d3l, i64x2.shr_u(d2l, 26));
    d3h = i64x2.add(d3h, i64x2.shr_u(d2h, 26));
    d4l = i64x2.add(d4l, i64x2.shr_u(d3l, 26));
    d4h = i64x2.add(d4h, i64x2.shr_u(d3h, 26));
    const c4l = i64x2.shr_u(d4l, 26), c4h = i64x2.shr_u(d4h, 26);
    let e0l = i64x2.add(v128.and(d0l, mask64), i64x2.add(i64x2.shl(c4l, 2), c4l));
    let e0h = i64x2.add(v128.and(d0h, mask64), i64x2.add(i64x2.shl(c4h, 2), c4h));
    const e1l = i64x2.add(v128.and(d1l, mask64), i64x2.shr_u(e0l, 26));
    const e1h = i64x2.add(v128.and(d1h, mask64), i64x2.shr_u(e0h, 26));
    e0l = v128.and(e0l, mask64);
    e0h = v128.and(e0h, mask64);
    a0 = narrow(e0l, e0h);
    a1 = narrow(e1l, e1h);
    a2 = narrow(v128.and(d2l, mask64), v128.and(d2h, mask64));
    a3 = narrow(v128.and(d3l, mask64), v128.and(d3h, mask64));
    a4 = narrow(v128.and(d4l, mask64), v128.and(d4h, mask64));
  }
  // Lane j times r^(4 - j), the lanes added, then the scalar partial reduction.
  const s0 = v128.load(POWERS, 0), s1 = v128.load(POWERS, 16), s2 = v128.load(POWERS, 32), s3 = v128.load(POWERS, 48), s4 = v128.load(POWERS, 64);
  const g1 = times5(s1), g2 = times5(s2), g3 = times5(s3), g4 = times5(s4);
  let d0 = laneSum(a0, s0, a1, g4, a2, g3, a3, g2, a4, g1);
  let d1 = laneSum(a0, s1, a1, s0, a2, g4, a3, g3, a4, g2);
  let d2 = laneSum(a0, s2, a1, s1, a2, s0, a3, g4, a4, g3);
  let d3 = laneSum(a0, s3, a1, s2, a2, s1, a3, s0, a4, g4);
  let d4 = laneSum(a0, s4, a1, s3, a2, s2, a3, s1, a4, s0);
  d1 += d0 >> 26;
  d2 += d1 >> 26;
  d3 += d2 >> 26;
  d4 += d3 >> 26;
  h0 = (d0 & MASK26) + (d4 >> 26) * 5;
  h1 = (d1 & MASK26) + (h0 >> 26);
  h0 &= MASK26;
  h2 = d2 & MASK26;
  h3 = d3 & MASK26;
  h4 = d4 & MASK26;
  p0 = p1 = p2 = p3 = p4 = 0;
  memory.fill(POWERS, 0, 80);
  memory.fill(FOURTH, 0, 144);
  return taken;
}

/** Sum over the four lanes of a*x + b*y + c*z + d*u + e*v (each product below 2^56). */
function laneSum(a: v128, x: v128, b: v128, y: v128, c: v128, z: v128, d: v128, u: v128, e: v128, v: v128): u64 {
  const low = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulLow(a, x), mulLow(b, y)), mulLow(c, z)), mulLow(d, u)), mulLow(e, v));
  const high = i64x2.add(i64x2.add(i64x2.add(i64x2.add(mulHigh(a, x), mulHigh(b, y)), mulHigh(c, z)), mulHigh(d, u)), mulHigh(e, v));
  const both = i64x2.add(low, high);
  return <u64>i64x2.extract_lane(both, 0) + <u64>i64x2.extract_lane(both, 1);
}
