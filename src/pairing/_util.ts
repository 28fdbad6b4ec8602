// Internal helpers of the pairing primitives: big-endian BigInt conversion, constant-time
// comparison and the boundary checks of their inputs.

import { fromHex, toHex } from '../bytes';
import { PairingError } from './errors';

/** The unsigned big-endian integer of `bytes` (OS2IP, RFC 8017 4.2); 0n for no bytes. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + toHex(bytes));
}

/**
 * `value` as unsigned big-endian bytes (I2OSP, RFC 8017 4.1): exactly `length` bytes, zero
 * padded on the left, or the fewest bytes (at least one) when no length is given.
 */
export function bigIntToBytes(value: bigint, length?: number): Uint8Array {
  if (value < 0n) throw new RangeError('bigIntToBytes: negative value');
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = '0' + hex;
  const minimal = fromHex(hex);
  if (length === undefined) return minimal;
  if (minimal.length > length) throw new RangeError(`bigIntToBytes: value needs ${minimal.length} bytes, more than ${length}`);
  if (minimal.length === length) return minimal;
  const out = new Uint8Array(length);
  out.set(minimal, length - minimal.length);
  return out;
}

/** `bytes` without its leading zero bytes (a view). */
export function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

/** `bytes` left-padded with zeros to `length` (the same array when already that long). */
export function padLeft(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.length === length) return bytes;
  if (bytes.length > length) throw new RangeError(`padLeft: ${bytes.length} bytes exceed ${length}`);
  const out = new Uint8Array(length);
  out.set(bytes, length - bytes.length);
  return out;
}

/** Equality whose time depends only on the lengths, for comparing proofs and tags. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

/** Throws a PairingError unless `value` is a Uint8Array of `length` bytes (any length when omitted). */
export function checkBytes(value: unknown, name: string, length?: number): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new PairingError(`${name}: expected bytes`);
  if (length !== undefined && value.length !== length) {
    throw new PairingError(`${name}: ${value.length} bytes, expected ${length}`);
  }
}

/** ASCII text as bytes (the wire labels of pairing are ASCII). */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new PairingError(`label ${JSON.stringify(text)} is not ASCII`);
    out[i] = code;
  }
  return out;
}
