// The NAL kernel of the mirroring stream (src/mirror/nal-kernel.ts) in WebAssembly: a video
// payload's length-prefixed H.264 NAL units (spec 2.14; ISO/IEC 14496-15 5.3.3) to Annex B start
// codes. The host copies the payload to INPUT, calls toAnnexB, and copies the result out
// (hosts/node/kernels/nal-kernel.ts). No allocator: INPUT starts at the heap base, OUTPUT after it, and
// the memory grows to fit the largest payload seen.

/** H.264 nal_unit_type of a slice of an IDR picture (ITU-T H.264 table 7-1). */
const NAL_TYPE_IDR: u32 = 5;
/** 00 00 00 01 as one little-endian store. */
const START_CODE: u32 = 0x01000000;
const PAGE: usize = 65536;

/** What the last call found, read by the host through the exports below. */
let lastKeyFrame: i32 = 0;
let lastFaultUnit: i32 = 0;
let lastFaultAt: i32 = 0;

/** Where the host copies the payload: the first byte after the static data, 16-aligned. */
export function inputRegion(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

/** Where toAnnexB writes the Annex B of a `length`-byte payload with 1- or 2-byte lengths. */
export function outputRegion(length: i32): usize {
  return (inputRegion() + <usize>length + 15) & ~(<usize>15);
}

/** Grows the memory (when needed) so that `end` bytes exist; false when it cannot grow. */
function fit(end: usize): bool {
  const have = <usize>memory.size() * PAGE;
  if (end <= have) return true;
  return memory.grow(<i32>((end - have + PAGE - 1) / PAGE)) >= 0;
}

/** Makes room for a payload of `length` bytes at INPUT: 1, or 0 when the memory cannot grow. */
export function reserveInput(length: i32): i32 {
  if (length < 0) return 0;
  return fit(inputRegion() + <usize>length) ? 1 : 0;
}

export function keyFrame(): i32 {
  return lastKeyFrame;
}
/** The unit whose length was bad in the last refused payload. */
export function faultUnit(): i32 {
  return lastFaultUnit;
}
/** The offset of that unit's length field. */
export function faultAt(): i32 {
  return lastFaultAt;
}

/** The big-endian length of `lengthSize` bytes at `at`. */
// @ts-ignore: decorator
@inline
function readLength(at: usize, lengthSize: i32): u64 {
  if (lengthSize == 4) return <u64>bswap<u32>(load<u32>(at));
  if (lengthSize == 2) return <u64>bswap<u16>(load<u16>(at));
  return <u64>load<u8>(at);
}

/**
 * Converts the `length`-byte payload at INPUT. Every length is checked first (nothing is written
 * when one is bad); then with 4-byte lengths the start codes overwrite them in place at INPUT,
 * and with 1 or 2 the Annex B goes to outputRegion(length), length + units * (4 - lengthSize)
 * bytes. Returns the number of units (keyFrame() says whether one is an IDR slice); -1 for a
 * bad length (faultUnit() and faultAt() say where); -2 for a lengthSize other than 1, 2 or 4 or
 * a length out of range; -3 when the memory cannot grow for the output.
 */
export function toAnnexB(length: i32, lengthSize: i32): i32 {
  if ((lengthSize != 1 && lengthSize != 2 && lengthSize != 4) || length < 0) return -2;
  const input = inputRegion();
  if (input + <usize>length > <usize>memory.size() * PAGE) return -2;
  const end = <u64>length;
  const size = <u64>lengthSize;
  let units: i32 = 0;
  let idr: i32 = 0;
  let at: u64 = 0;
  while (at < end) {
    const start = at + size;
    let nalLength: u64 = 0;
    if (start <= end) nalLength = readLength(input + <usize>at, lengthSize);
    if (start > end || nalLength == 0 || start + nalLength > end) {
      lastFaultUnit = units;
      lastFaultAt = <i32>at;
      lastKeyFrame = 0;
      return -1;
    }
    if ((<u32>load<u8>(input + <usize>start) & 0x1f) == NAL_TYPE_IDR) idr = 1;
    units++;
    at = start + nalLength;
  }
  lastKeyFrame = idr;
  if (lengthSize == 4) {
    let from: usize = input;
    const stop = input + <usize>length;
    while (from < stop) {
      const nalLength = <usize>bswap<u32>(load<u32>(from));
      store<u32>(from, START_CODE);
      from += 4 + nalLength;
    }
    return units;
  }
  const output = outputRegion(length);
  if (!fit(output + <usize>length + <usize>units * <usize>(4 - lengthSize))) return -3;
  let from: usize = input;
  let to: usize = output;
  const stop = input + <usize>length;
  while (from < stop) {
    const nalLength = <usize>readLength(from, lengthSize);
    store<u32>(to, START_CODE);
    memory.copy(to + 4, from + <usize>lengthSize, nalLength);
    to += 4 + nalLength;
    from += <usize>lengthSize + nalLength;
  }
  return units;
}
