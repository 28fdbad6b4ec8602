// The avcC record (spec 2.14 codec data; ISO/IEC 14496-15 5.3.3.1 AVCDecoderConfigurationRecord):
// read into what a decoder is configured with (RFC 6381 codec string, NAL length size, SPS and
// PPS as Annex B), and built from SPS and PPS (the sender tool).

import { NAL_TYPE, annexB, nalType } from './nal-kernel';

/** A codec data payload that is not an avcC record, said in words. */
export class AvcCError extends Error {
  override name = 'AvcCError';
}

interface AvcC {
  /** AVCProfileIndication, profile_compatibility, AVCLevelIndication. */
  readonly profile: number;
  readonly compatibility: number;
  readonly level: number;
  /** lengthSizeMinusOne + 1: the size of the lengths before each NAL unit of a video packet. */
  readonly lengthSize: 1 | 2 | 4;
  readonly sps: readonly Uint8Array[];
  readonly pps: readonly Uint8Array[];
}

function hex2(value: number): string {
  return value.toString(16).padStart(2, '0');
}

/** RFC 6381 3.3: `avc1.` and profile, compatibility and level as hex (`avc1.64001f`). */
export function codecString(avcC: Pick<AvcC, 'profile' | 'compatibility' | 'level'>): string {
  return `avc1.${hex2(avcC.profile)}${hex2(avcC.compatibility)}${hex2(avcC.level)}`;
}

/** The parameter sets behind start codes (SPS first), for decoders that take them in-band. */
export function parameterSetsAnnexB(avcC: Pick<AvcC, 'sps' | 'pps'>): Uint8Array {
  return annexB([...avcC.sps, ...avcC.pps]);
}

/**
 * Reads an avcC record. Checked: version 1, every length inside the record, at least one SPS and
 * one PPS, each of the right NAL type, and a length size of 1, 2 or 4 (3 is not valid, 14496-15).
 * Trailing bytes (the high-profile extension of 14496-15 5.3.3.1.2) are allowed and ignored.
 */
export function parseAvcC(bytes: Uint8Array): AvcC {
  if (bytes.length < 7) throw new AvcCError(`avcC is ${bytes.length} bytes; the record needs at least 7`);
  if (bytes[0] !== 1) throw new AvcCError(`avcC version is ${bytes[0]}; only version 1 exists`);
  const lengthSize = (bytes[4] & 0x03) + 1;
  if (lengthSize === 3) throw new AvcCError('avcC NAL unit length size is 3; it must be 1, 2 or 4');
  // Byte 5 counts the SPS; the sets follow it.
  let at = 6;
  const readSets = (count: number, what: string, expectedType: number): Uint8Array[] => {
    const sets: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      if (at + 2 > bytes.length) throw new AvcCError(`avcC ends inside the length of ${what} ${i + 1} of ${count}`);
      const length = (bytes[at] << 8) | bytes[at + 1];
      at += 2;
      if (length === 0) throw new AvcCError(`avcC ${what} ${i + 1} is empty`);
      if (at + length > bytes.length) throw new AvcCError(`avcC ${what} ${i + 1} is ${length} bytes; only ${bytes.length - at} are left`);
      const unit = bytes.slice(at, at + length);
      if (nalType(unit) !== expectedType) throw new AvcCError(`avcC ${what} ${i + 1} is NAL type ${nalType(unit)}, not ${expectedType}`);
      sets.push(unit);
      at += length;
    }
    return sets;
  };
  const sps = readSets(bytes[5] & 0x1f, 'SPS', NAL_TYPE.sps);
  if (sps.length === 0) throw new AvcCError('avcC has no sequence parameter set');
  if (at >= bytes.length) throw new AvcCError('avcC ends before its count of picture parameter sets');
  const ppsCount = bytes[at++];
  const pps = readSets(ppsCount, 'PPS', NAL_TYPE.pps);
  if (pps.length === 0) throw new AvcCError('avcC has no picture parameter set');
  return { profile: bytes[1], compatibility: bytes[2], level: bytes[3], lengthSize: lengthSize as 1 | 2 | 4, sps, pps };
}

/** An avcC record from SPS and PPS NAL units (without start codes), as a sender makes one. */
export function buildAvcC(sps: readonly Uint8Array[], pps: readonly Uint8Array[], lengthSize: 1 | 2 | 4 = 4): Uint8Array {
  if (sps.length === 0 || sps.length > 31) throw new RangeError(`avcC takes 1 to 31 SPS, got ${sps.length}`);
  if (pps.length === 0 || pps.length > 255) throw new RangeError(`avcC takes 1 to 255 PPS, got ${pps.length}`);
  const first = sps[0];
  if (first.length < 4) throw new RangeError(`an SPS of ${first.length} bytes has no profile and level`);
  let total = 7;
  for (const unit of [...sps, ...pps]) {
    if (unit.length > 0xffff) throw new RangeError(`a parameter set of ${unit.length} bytes does not fit avcC's 16-bit length`);
    total += 2 + unit.length;
  }
  const out = new Uint8Array(total);
  // 14496-15 5.3.3.1: profile, compatibility and level are the SPS's bytes 1 to 3.
  out.set([1, first[1], first[2], first[3], 0xfc | (lengthSize - 1), 0xe0 | sps.length]);
  let at = 6;
  const writeSets = (sets: readonly Uint8Array[]): void => {
    for (const unit of sets) {
      out[at] = unit.length >> 8;
      out[at + 1] = unit.length & 0xff;
      out.set(unit, at + 2);
      at += 2 + unit.length;
    }
  };
  writeSets(sps);
  out[at++] = pps.length;
  writeSets(pps);
  return out;
}
