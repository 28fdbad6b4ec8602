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
