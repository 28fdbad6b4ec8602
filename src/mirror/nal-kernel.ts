// The mirroring stream's hot loop (DESIGN 5): a video packet's payload (spec 2.14) is H.264 NAL
// units, each behind a big-endian length of avcC's lengthSize bytes (ISO/IEC 14496-15 5.3.3);
// decoders that read a byte stream want them behind start codes instead (H.264 Annex B).
// One contract, three builds: this portable reference, the AssemblyScript build
// (assemblyscript/) and the C native (modules/native/); all pass test/vectors/.

/** H.264 nal_unit_type values the mirroring code reads (ITU-T H.264 table 7-1). */
export const NAL_TYPE = {
  sliceNonIdr: 1,
  sliceIdr: 5,
  sei: 6,
  sps: 7,
  pps: 8,
  accessUnitDelimiter: 9,
} as const;

/** The nal_unit_type of a NAL unit (the low 5 bits of its header byte). */
export function nalType(nal: Uint8Array): number {
  return nal[0] & 0x1f;
}

/** The 4-byte start code Annex B puts before each NAL unit. */
export const START_CODE = Uint8Array.of(0, 0, 0, 1);

/** NAL units behind 4-byte start codes: an Annex B access unit (or parameter sets) again. */
export function annexB(units: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const unit of units) total += START_CODE.length + unit.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const unit of units) {
    out.set(START_CODE, at);
    out.set(unit, at + START_CODE.length);
    at += START_CODE.length + unit.length;
  }
  return out;
}

/** A malformed payload: a length field cut short, a length that runs past the end, or a zero length. */
export class NalError extends Error {
  override name = 'NalError';
}

export interface AnnexBUnit {
  /** The access unit as Annex B: each NAL unit behind a 4-byte start code. */
  readonly accessUnit: Uint8Array;
  /** Whether a NAL unit of it is an IDR slice (a decoder can start here). */
  readonly keyFrame: boolean;
  readonly nalCount: number;
}

export interface NalKernel {
  /** What the log and benches call this build ('portable', 'wasm', 'native'). */
  readonly name: string;
  /**
   * Rewrites a length-prefixed payload as Annex B. With 4-byte lengths the payload is
   * rewritten in place and returned (the caller gives it away); with 1 or 2 a new array is made.
   * Throws NalError for a length field cut short, a length past the end or a zero length
   * (nothing is half-converted then: the whole payload is checked before a byte is written),
   * and a RangeError for a lengthSize other than 1, 2 or 4.
   */
  toAnnexB(payload: Uint8Array, lengthSize: 1 | 2 | 4): AnnexBUnit;
}

/** The NAL unit length sizes avcC can declare (ISO/IEC 14496-15 5.3.3.1.2: 1, 2 or 4; 3 is not allowed). */
export function isNalLengthSize(lengthSize: number): lengthSize is 1 | 2 | 4 {
  return lengthSize === 1 || lengthSize === 2 || lengthSize === 4;
}

/** A RangeError for a length size the contract does not take (every build refuses it alike). */
export function lengthSizeError(lengthSize: number): RangeError {
  return new RangeError(`NAL unit length size ${lengthSize}: avcC allows 1, 2 or 4`);
}

/** The big-endian length of `lengthSize` bytes at `at` (all present). */
export function readNalLength(payload: Uint8Array, at: number, lengthSize: number): number {
  if (lengthSize === 4) return payload[at] * 0x1000000 + ((payload[at + 1] << 16) | (payload[at + 2] << 8) | payload[at + 3]);
  if (lengthSize === 2) return (payload[at] << 8) | payload[at + 1];
  return payload[at];
}

/**
 * The NalError for a walk that stopped at unit `unit`, whose length field starts at `at`: which
 * fault it is follows from the payload itself, so every build (the WebAssembly and C ones report
 * only where they stopped) throws the same error with the same words.
 */
export function nalErrorAt(payload: Uint8Array, lengthSize: number, unit: number, at: number): NalError {
  if (at + lengthSize > payload.length) return new NalError(`NAL unit ${unit}: ${payload.length - at} bytes left, less than its ${lengthSize}-byte length`);
  const length = readNalLength(payload, at, lengthSize);
  if (length === 0) return new NalError(`NAL unit ${unit}: zero length`);
  return new NalError(`NAL unit ${unit}: length ${length} runs ${at + lengthSize + length - payload.length} bytes past the payload`);
}

/**
 * Below this many bytes a NAL unit is copied byte by byte: for SEI and parameter-set sized units
 * a subarray and set() cost more than the loop (on Node 20, units of 4 to 24 bytes copied about
 * twice as fast by the loop; from 48 bytes set() wins).
 */
const SHORT_UNIT = 32;

/** The portable build. */
export const portableNalKernel: NalKernel = {
  name: 'portable',
  toAnnexB(payload, lengthSize) {
    if (!isNalLengthSize(lengthSize)) throw lengthSizeError(lengthSize);
    const end = payload.length;
    // Pass 1: check every length and count the units, so a bad payload is refused untouched.
    let count = 0;
    let keyFrame = false;
    let at = 0;
    while (at < end) {
      const start = at + lengthSize;
      if (start > end) throw nalErrorAt(payload, lengthSize, count, at);
      const length = readNalLength(payload, at, lengthSize);
      if (length === 0 || start + length > end) throw nalErrorAt(payload, lengthSize, count, at);
      if ((payload[start] & 0x1f) === NAL_TYPE.sliceIdr) keyFrame = true;
      count++;
      at = start + length;
    }
    // Pass 2: the start codes. With 4-byte lengths they overwrite the lengths: in place.
    if (lengthSize === 4) {
      for (let from = 0; from < end; ) {
        const length = readNalLength(payload, from, 4);
        payload[from] = 0;
        payload[from + 1] = 0;
        payload[from + 2] = 0;
        payload[from + 3] = 1;
        from += 4 + length;
      }
      return { accessUnit: payload, keyFrame, nalCount: count };
    }
    // Shorter lengths: each unit moves up by the bytes its start code adds.
    const output = new Uint8Array(end + count * (4 - lengthSize));
    let to = 0;
    for (let from = 0; from < end; ) {
      const length = readNalLength(payload, from, lengthSize);
      const start = from + lengthSize;
      // A new array is zero: only the start code's last byte needs writing.
      output[to + 3] = 1;
      to += 4;
      if (length < SHORT_UNIT) {
        for (let i = 0; i < length; i++) output[to + i] = payload[start + i];
      } else {
        output.set(payload.subarray(start, start + length), to);
      }
      to += length;
      from = start + length;
    }
    return { accessUnit: output, keyFrame, nalCount: count };
  },
};
