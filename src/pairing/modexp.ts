// Modular exponentiation on BigInt for SRP and RSA: the portable build of CryptoKernels.modPow
// (crypto-kernels.ts; the XS native is mbedTLS's exp_mod).
// The portable version is left-to-right with a fixed 4-bit window (HAC 14.82): for the 256-bit
// SRP exponents that is 256 squarings and at most 64 + 14 multiplications. Not constant-time
// (no BigInt arithmetic is); the secrets it handles are ephemeral per pairing attempt.

/** `base ** exponent mod modulus` for a positive modulus and a non-negative exponent. */
type ModPow = (base: bigint, exponent: bigint, modulus: bigint) => bigint;

/** Exponents up to this many hex digits use plain square-and-multiply (the table would cost more). */
const SMALL_EXPONENT_DIGITS = 8;

/** The portable implementation, always available (also to check a replacement against). */
export function portableModPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  if (modulus <= 0n) throw new RangeError('modPow: the modulus must be positive');
  if (exponent < 0n) throw new RangeError('modPow: the exponent must not be negative');
  if (modulus === 1n) return 0n;
  let b = base % modulus;
  if (b < 0n) b += modulus;
  if (exponent === 0n) return 1n;
  const digits = exponent.toString(16);
  if (digits.length <= SMALL_EXPONENT_DIGITS) {
    let result = 1n;
    for (let bit = exponent.toString(2), i = 0; i < bit.length; i++) {
      result = (result * result) % modulus;
      if (bit.charCodeAt(i) === 49) result = (result * b) % modulus;
    }
    return result;
  }
  const table: bigint[] = [1n, b];
  for (let i = 2; i < 16; i++) table.push((table[i - 1] * b) % modulus);
  let result = table[hexDigit(digits.charCodeAt(0))];
  for (let i = 1; i < digits.length; i++) {
    result = (result * result) % modulus;
    result = (result * result) % modulus;
    result = (result * result) % modulus;
    result = (result * result) % modulus;
    const digit = hexDigit(digits.charCodeAt(i));
    if (digit !== 0) result = (result * table[digit]) % modulus;
  }
  return result;
}

function hexDigit(code: number): number {
  return code <= 57 ? code - 48 : code - 87; // '0'-'9', 'a'-'f' (toString(16) is lower case)
}

/** `base ** exponent mod modulus`, portable; a native build comes in as CryptoKernels.modPow. */
export const modPow: ModPow = portableModPow;
