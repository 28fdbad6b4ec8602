// An H.264 Annex B byte stream (what ffmpeg's `-f h264` writes, what `--record` keeps) split into
// NAL units and access units, and access units written length-prefixed as a mirroring sender
// sends them (spec 2.14: avcC's NAL unit length size). The sender tool and the tests use it; the
// receiver goes the other way with the NAL kernel (nal-kernel.ts).

import { NAL_TYPE, annexB, nalType } from './nal-kernel';

// The NAL unit types and annexB() live with the NAL kernel, the lowest of the mirroring modules
// (the receiver's avcc.ts uses them without this module); the sender tool and the tests find
// them here too.
export { NAL_TYPE, annexB, nalType };

/**
 * The NAL units of an Annex B stream, as views into it (start codes of 3 or 4 bytes removed;
 * trailing zero bytes before a start code belong to no unit, H.264 B.2). Bytes before the first
 * start code are not a NAL unit and are skipped.
 */
export function splitNalUnits(stream: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let start = -1;
  let i = 0;
  while (i + 2 < stream.length) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      if (start >= 0) units.push(trimTrailingZeros(stream, start, i));
      i += 3;
      start = i;
    } else {
      i++;
    }
  }
  if (start >= 0 && start < stream.length) units.push(trimTrailingZeros(stream, start, stream.length));
  return units.filter((unit) => unit.length > 0);
}

function trimTrailingZeros(stream: Uint8Array, start: number, end: number): Uint8Array {
  while (end > start && stream[end - 1] === 0) end--;
  return stream.subarray(start, end);
}

/** Whether a slice NAL unit starts a new picture: first_mb_in_slice is 0 (ue(v) `1` is 0, H.264 7.3.3). */
function firstSliceOfPicture(nal: Uint8Array): boolean {
  return nal.length > 1 && (nal[1] & 0x80) !== 0;
}

function isSlice(type: number): boolean {
  return type >= NAL_TYPE.sliceNonIdr && type <= NAL_TYPE.sliceIdr;
}

/** An access unit written as Annex B, and whether it holds a slice of an IDR picture (a key frame). */
export interface AnnexBAccessUnit {
  readonly bytes: Uint8Array;
  readonly keyFrame: boolean;
}

/**
 * An Annex B stream as the mirroring session hands it to a VideoDecoder: the stream's parameter
 * sets (every SPS and PPS, as Annex B) and its access units with their key-frame flags.
 */
export function decoderInput(stream: Uint8Array): { readonly parameterSets: Uint8Array; readonly accessUnits: AnnexBAccessUnit[] } {
  const units = splitNalUnits(stream);
  return {
    parameterSets: annexB(units.filter((unit) => nalType(unit) === NAL_TYPE.sps || nalType(unit) === NAL_TYPE.pps)),
    accessUnits: groupAccessUnits(units).map((group) => ({ bytes: annexB(group), keyFrame: group.some((unit) => nalType(unit) === NAL_TYPE.sliceIdr) })),
  };
}

/**
 * NAL units grouped into access units (H.264 7.4.1.2.3): a new one begins at an access unit
 * delimiter, SPS, PPS or SEI after a picture's slices, or at the first slice of another picture.
 */
export function groupAccessUnits(units: readonly Uint8Array[]): Uint8Array[][] {
  const accessUnits: Uint8Array[][] = [];
  let current: Uint8Array[] = [];
  let hasSlice = false;
  for (const unit of units) {
    const type = nalType(unit);
    const startsNew =
      hasSlice &&
      (type === NAL_TYPE.accessUnitDelimiter || type === NAL_TYPE.sps || type === NAL_TYPE.pps || type === NAL_TYPE.sei || (type >= 14 && type <= 18) || (isSlice(type) && firstSliceOfPicture(unit)));
    if (startsNew) {
      accessUnits.push(current);
      current = [];
      hasSlice = false;
    }
    current.push(unit);
    if (isSlice(type)) hasSlice = true;
  }
  if (current.length > 0) accessUnits.push(current);
  return accessUnits;
}

/** NAL units behind big-endian lengths of `lengthSize` bytes (a video packet's payload, spec 2.14). */
export function lengthPrefixed(units: readonly Uint8Array[], lengthSize: 1 | 2 | 4 = 4): Uint8Array {
  let total = 0;
  for (const unit of units) {
    if (unit.length >= 2 ** (8 * lengthSize)) throw new RangeError(`a NAL unit of ${unit.length} bytes does not fit a ${lengthSize}-byte length`);
    total += lengthSize + unit.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const unit of units) {
    for (let i = lengthSize - 1; i >= 0; i--) out[at + lengthSize - 1 - i] = Math.floor(unit.length / 2 ** (8 * i)) & 0xff;
    out.set(unit, at + lengthSize);
    at += lengthSize + unit.length;
  }
  return out;
}
