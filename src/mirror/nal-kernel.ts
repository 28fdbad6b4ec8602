// The mirroring stream's hot loop (DESIGN 5): a video packet's payload (spec 2.14) is H.264 NAL
// units, each behind a big-endian length of avcC's lengthSize bytes (ISO/IEC 14496-15 5.3.3);
// decoders that read a byte stream want them behind start codes instead (H.264 Annex B).
// One contract, three builds: this portable reference, the AssemblyScript build
// (assemblyscript/) and the C native (modules/native/); all pass test/vectors/.

/** H.264 nal_unit_type of a slice of an IDR picture (ITU-T H.264 table 7-1). */
export const NAL_TYPE_IDR = 5;

/** The 4-byte start code Annex B puts before each NAL unit. */
export const START_CODE = Uint8Array.of(0, 0, 0, 1);

/** A malformed payload: a length that runs past the end of the payload, or a zero length. */
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
   * Throws NalError for a length past the end or a zero length (nothing is half-converted then:
   * the whole payload is checked before a byte is written).
   */
  toAnnexB(payload: Uint8Array, lengthSize: 1 | 2 | 4): AnnexBUnit;
}

function readLength(payload: Uint8Array, at: number, lengthSize: number): number {
  let length = 0;
  for (let i = 0; i < lengthSize; i++) length = length * 256 + payload[at + i];
  return length;
}

/** The portable build. */
export const portableNalKernel: NalKernel = {
  name: 'portable',
  toAnnexB(payload, lengthSize) {
    // Pass 1: check every length and count the units, so a bad payload is refused untouched.
    let count = 0;
    let keyFrame = false;
    let at = 0;
    while (at < payload.length) {
      if (at + lengthSize > payload.length) throw new NalError(`NAL unit ${count}: ${payload.length - at} bytes left, less than its ${lengthSize}-byte length`);
      const length = readLength(payload, at, lengthSize);
      if (length === 0) throw new NalError(`NAL unit ${count}: zero length`);
      const start = at + lengthSize;
      if (start + length > payload.length) throw new NalError(`NAL unit ${count}: length ${length} runs ${start + length - payload.length} bytes past the payload`);
      if ((payload[start] & 0x1f) === NAL_TYPE_IDR) keyFrame = true;
      count++;
      at = start + length;
    }
    // Pass 2: write the start codes (in place for 4-byte lengths).
    const output = lengthSize === 4 ? payload : new Uint8Array(payload.length + count * (4 - lengthSize));
    let from = 0;
    let to = 0;
    while (from < payload.length) {
      const length = readLength(payload, from, lengthSize);
      if (output === payload) {
        output.set(START_CODE, to);
      } else {
        output.set(START_CODE, to);
        output.set(payload.subarray(from + lengthSize, from + lengthSize + length), to + 4);
      }
      from += lengthSize + length;
      to += 4 + length;
    }
    return { accessUnit: output, keyFrame, nalCount: count };
  },
};
