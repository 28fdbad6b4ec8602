// The AU-headers section of an RFC 3640 packet (3.2.1, 3.3.6 mode AAC-hbr): a 16-bit
// AU-headers-length in bits, then one header per access unit (sizeLength bits of AU size, then
// indexLength bits of AU-Index for the first and indexDeltaLength bits of AU-Index-delta for the
// rest), padded to a whole byte; then the access units back to back. Classic RAOP AAC senders
// (mode=AAC-hbr: 13-bit sizes, 3-bit indexes) send one unit per packet. Session streams (AirPlay
// 2) carry a raw access unit with no such section: this reader is for mpeg4-generic streams only.

import { AudioDecodeError } from './decoder';

/** The widths, in bits, of an AU header's fields (the fmtp's sizeLength, indexLength, indexDeltaLength). */
export interface AuHeaderLayout {
  readonly sizeLength: number;
  readonly indexLength: number;
  readonly indexDeltaLength: number;
}

/** RFC 3640 3.3.6: mode=AAC-hbr's layout. */
export const AAC_HBR_LAYOUT: AuHeaderLayout = { sizeLength: 13, indexLength: 3, indexDeltaLength: 3 };

/** RFC 3640 3.2.1: the AU-headers-length field is 16 bits. */
const HEADERS_LENGTH_BYTES = 2;

/**
 * The access units of one packet, as views into it (no copy). Throws AudioDecodeError when the
 * headers do not fit the packet, a unit runs past its end, or bytes are left over after the
 * last unit. Interleaving (a non-zero AU-Index or delta) is refused: no AirPlay sender
 * interleaves, and playing units out of order would be noise.
 */
export function readAuHeaders(packet: Uint8Array, layout: AuHeaderLayout = AAC_HBR_LAYOUT): Uint8Array[] {
  if (layout.sizeLength < 1) throw new AudioDecodeError('AU headers without a size field (sizeLength 0): the units cannot be found');
  if (packet.length < HEADERS_LENGTH_BYTES) throw new AudioDecodeError(`AAC packet of ${packet.length} bytes: no AU-headers-length`);
  const headersBits = (packet[0] << 8) | packet[1];
  const headersBytes = Math.ceil(headersBits / 8);
  if (HEADERS_LENGTH_BYTES + headersBytes > packet.length) throw new AudioDecodeError(`AAC packet of ${packet.length} bytes: AU headers of ${headersBits} bits do not fit`);
  const sizes: number[] = [];
  let position = HEADERS_LENGTH_BYTES * 8;
  const end = position + headersBits;
  const read = (bits: number): number => {
    let value = 0;
    for (let i = 0; i < bits; i++, position++) value = value * 2 + ((packet[position >> 3] >> (7 - (position & 7))) & 1);
    return value;
  };
  while (position < end) {
    const indexBits = sizes.length === 0 ? layout.indexLength : layout.indexDeltaLength;
    if (end - position < layout.sizeLength + indexBits) throw new AudioDecodeError(`AAC packet: ${end - position} bits left of the AU headers, a header takes ${layout.sizeLength + indexBits}`);
    const size = read(layout.sizeLength);
    const index = read(indexBits);
    if (index !== 0) throw new AudioDecodeError(`AAC packet: AU ${sizes.length} has index ${index}; interleaved units are not played`);
    sizes.push(size);
  }
  if (sizes.length === 0) throw new AudioDecodeError('AAC packet without access units (AU-headers-length 0)');
  const units: Uint8Array[] = [];
  let at = HEADERS_LENGTH_BYTES + headersBytes;
  for (const size of sizes) {
    if (size === 0) throw new AudioDecodeError(`AAC packet: AU ${units.length} of 0 bytes`);
    if (at + size > packet.length) throw new AudioDecodeError(`AAC packet of ${packet.length} bytes: AU ${units.length} of ${size} bytes at ${at} runs past its end`);
    units.push(packet.subarray(at, at + size));
    at += size;
  }
  if (at !== packet.length) throw new AudioDecodeError(`AAC packet of ${packet.length} bytes: ${packet.length - at} bytes after its ${units.length} access units`);
  return units;
}

/** An RFC 3640 AAC-hbr packet of these access units (what a classic RAOP AAC sender sends; for tests and senders). */
export function writeAuHeaders(units: readonly Uint8Array[]): Uint8Array {
  const maxSize = 2 ** AAC_HBR_LAYOUT.sizeLength - 1;
  const headersBits = units.length * (AAC_HBR_LAYOUT.sizeLength + AAC_HBR_LAYOUT.indexLength);
  if (units.length === 0 || headersBits > 0xffff) throw new AudioDecodeError(`AAC packet of ${units.length} access units`);
  const headersBytes = Math.ceil(headersBits / 8);
  let total = HEADERS_LENGTH_BYTES + headersBytes;
  for (const unit of units) {
    if (unit.length === 0 || unit.length > maxSize) throw new AudioDecodeError(`AU of ${unit.length} bytes: 1 to ${maxSize} in AAC-hbr`);
    total += unit.length;
  }
  const packet = new Uint8Array(total);
  packet[0] = headersBits >> 8;
  packet[1] = headersBits & 0xff;
  let position = HEADERS_LENGTH_BYTES * 8;
  const write = (value: number, bits: number): void => {
    for (let i = bits - 1; i >= 0; i--, position++) packet[position >> 3] |= ((value >> i) & 1) << (7 - (position & 7));
  };
  // Every AU-Index and delta is 0: the units follow in order.
  for (const unit of units) {
    write(unit.length, AAC_HBR_LAYOUT.sizeLength);
    write(0, AAC_HBR_LAYOUT.indexLength);
  }
  let at = HEADERS_LENGTH_BYTES + headersBytes;
  for (const unit of units) {
    packet.set(unit, at);
    at += unit.length;
  }
  return packet;
}
