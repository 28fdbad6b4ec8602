// UUID text from random bytes (RFC 9562 version 4); the randomness comes from the platform port.

import { BytesError, toHex } from './bytes';

/**
 * Formats 16 random bytes as a version 4 UUID (RFC 9562 section 5.4): the version nibble is
 * set to 4 and the variant bits to 10, the other 122 bits are taken from `bytes16`. The
 * input is not modified. Lower-case hex, as RFC 9562 section 4 asks of writers.
 */
export function uuidFromBytes(bytes16: Uint8Array): string {
  if (bytes16.length !== 16) throw new BytesError(`uuid: need 16 random bytes, got ${bytes16.length}`);
  const bytes = bytes16.slice();
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10 (RFC 9562)
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True for the 8-4-4-4-12 hex form of any UUID, either case (RFC 9562 section 4: case-insensitive on input). */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}
