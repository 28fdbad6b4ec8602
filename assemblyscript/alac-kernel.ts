// The ALAC decoder's kernel (src/audio/alac/alac-kernel.ts) in WebAssembly: one packet (one ALAC
// frame) into 16- or 32-bit interleaved samples, given the stream's config. The same algorithm,
// step for step and fault for fault, as the TypeScript reference (alac-bit-reader.ts,
// alac-adaptive-golomb.ts, alac-predictor.ts, alac-frame.ts) and the C build
// (modules/native/vp-alac.c). The host copies the packet to INPUT, calls decode, and copies the
// samples out of OUTPUT (hosts/node/kernels/alac-kernel.ts). No allocator: INPUT starts at the
// heap base, then PADDING zero bytes, the work buffers and OUTPUT, and the memory grows to fit.

const PAGE: usize = 65536;
/** Zero bytes after the packet (alac-bit-reader.ts PADDING): the Golomb reads stay inside. */
const PADDING: usize = 16;

// Fault codes: ALAC_FAULT of alac-faults.ts.
const TRUNCATED: i32 = 1;
const UNSUPPORTED_ELEMENT: i32 = 2;
const TOO_MANY_CHANNELS: i32 = 3;
const TOO_MANY_SAMPLES: i32 = 4;
const NO_SAMPLES: i32 = 5;
const SAMPLE_COUNT_MISMATCH: i32 = 6;
const BAD_SHIFT: i32 = 7;
const RUN_PAST_FRAME: i32 = 8;
const MISSING_CHANNELS: i32 = 9;

// Element tags (ALAC_ELEMENT of alac-frame.ts).
const CPE: u32 = 1;
const CCE: u32 = 2;
const DSE: u32 = 4;
const PCE: u32 = 5;
const FIL: u32 = 6;
const END: u32 = 7;

const ESCAPE_PREFIX: u32 = 9;
const HISTORY_SHIFT: u32 = 9;
const RUN_HISTORY: u32 = 128;
const HISTORY_CLAMP: u32 = 0xffff;
const RUN_ESCAPE_BITS: u32 = 16;

// The stream's config, set by decode.
let frameLength: u32 = 0;
let bitDepth: u32 = 0;
let pb: u32 = 0;
let mb: u32 = 0;
let kb: u32 = 0;
let numChannels: u32 = 0;

// The bit reader: the packet at INPUT, positions in bits.
let bytes: usize = 0;
let pos: u32 = 0;
let end: u32 = 0;
let overrun: bool = false;

// The work buffers (i32 each): a channel, a pair's second, the shifted bits (two per sample).
let first: usize = 0;
let second: usize = 0;
let shifted: usize = 0;
/** Two channels' 32 predictor coefficients (i16). */
const COEFFICIENTS: usize = memory.data(2 * 32 * 2, 16);

// The element's parameters, from its header to its output.
let mixBits: u32 = 0;
let mixRes: i32 = 0;
let shiftBits: u32 = 0;
const modes = memory.data(2 * 4 * 4, 16);

/** Where the host copies the packet: the first byte after the static data, 16-aligned. */
export function inputRegion(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

function workRegion(packetLength: i32): usize {
  return (inputRegion() + <usize>packetLength + PADDING + 15) & ~(<usize>15);
}

/** Where decode writes the samples of a `packetLength`-byte packet of a stream of `length`-sample frames. */
export function outputRegion(packetLength: i32, length: i32): usize {
  return workRegion(packetLength) + 16 * <usize>length;
}

/**
 * Makes room for a packet of `packetLength` bytes and the work and output of frames of `length`
 * samples x `channels` at 4 bytes: 1, or 0 when the memory cannot grow.
 */
export function reserve(packetLength: i32, length: i32, channels: i32): i32 {
  if (packetLength < 0 || length < 1 || length > 16384 || channels < 1 || channels > 8) return 0;
  const needed = outputRegion(packetLength, length) + 4 * <usize>length * <usize>channels;
  const have = <usize>memory.size() * PAGE;
  if (needed <= have) return 1;
  return memory.grow(<i32>((needed - have + PAGE - 1) / PAGE)) >= 0 ? 1 : 0;
}

// @ts-ignore: decorator
@inline
function peek32(at: u32): u32 {
  const address = bytes + <usize>(at >> 3);
  const offset = at & 7;
  const word = bswap<u32>(load<u32>(address));
  return offset != 0 ? (word << offset) | (<u32>load<u8>(address, 4) >> (8 - offset)) : word;
}

function read(count: u32): u32 {
  if (count == 0) return 0;
  const value = peek32(pos) >> (32 - count);
  pos += count;
  if (pos > end) {
    overrun = true;
    pos = end;
  }
  return value;
}

function readSigned(count: u32): i32 {
  return <i32>(read(count) << (32 - count)) >> (32 - count);
}

function skip(count: u32): void {
  if (count > end - pos) {
    overrun = true;
    pos = end;
    return;
  }
  pos += count;
}

/** Where the Golomb decoder's position goes after each code (a second result). */
let codeEnd: u32 = 0;

// @ts-ignore: decorator
@inline
function golomb(at: u32, k: u32, escapeBits: u32): u32 {
  // The prefix (at most 8), its 0 and the k bits (k at most 23) lie in one 32-bit window.
  const window = peek32(at);
  const prefix = clz<u32>(~window);
  if (prefix >= ESCAPE_PREFIX) {
    codeEnd = at + ESCAPE_PREFIX + escapeBits;
    return peek32(at + ESCAPE_PREFIX) >> (32 - escapeBits);
  }
  let value = prefix * ((<u32>1 << k) - 1);
  const low = (window << (prefix + 1)) >> (32 - k);
  at += prefix + 1;
  if (low >= 2) {
    value += low - 1;
    at += k;
  } else {
    at += k - 1;
  }
  codeEnd = at;
  return value;
}

/** decodeResiduals of alac-adaptive-golomb.ts: 0 or a fault. */
function residuals(out: usize, count: u32, escapeBits: u32, multiplier: u32, kLimit: u32): i32 {
  let at = pos;
  let history = mb;
  let afterRun: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    if (at >= end) return TRUNCATED;
    let k: u32 = 31 - clz<u32>((history >> HISTORY_SHIFT) + 3);
    if (k > kLimit) k = kLimit;
    const value = golomb(at, k, escapeBits);
    at = codeEnd;
    const coded = value + afterRun;
    store<i32>(out + (<usize>i << 2), <i32>((coded >> 1) ^ (0 - (coded & 1))));
    afterRun = 0;
    history = value > HISTORY_CLAMP ? HISTORY_CLAMP : history + coded * multiplier - ((history * multiplier) >> HISTORY_SHIFT);
    if (history < RUN_HISTORY && i + 1 < count) {
      k = clz<u32>(history) - 24 + ((history + 16) >> 6);
      if (k > kLimit) k = kLimit;
      const run = golomb(at, k, RUN_ESCAPE_BITS);
      at = codeEnd;
      if (run > count - i - 1) return RUN_PAST_FRAME;
      memory.fill(out + ((<usize>i + 1) << 2), 0, <usize>run << 2);
      i += run;
      afterRun = run < 0xffff ? 1 : 0;
      history = 0;
    }
  }
  if (at > end) return TRUNCATED;
  pos = at;
  return 0;
}

// @ts-ignore: decorator
@inline
function wrap(value: u32, shift: u32): i32 {
  return <i32>(value << shift) >> shift;
}

/** unpredict of alac-predictor.ts, in place. */
function unpredict(samples: usize, count: u32, coefficients: usize, order: u32, sampleBits: u32, denShift: u32): void {
  if (order == 0 || count <= 1) return;
  const shift = 32 - sampleBits;
  if (order == 31) {
    let previous = load<i32>(samples);
    for (let j: u32 = 1; j < count; j++) {
      const at = samples + (<usize>j << 2);
      previous = wrap(<u32>load<i32>(at) + <u32>previous, shift);
      store<i32>(at, previous);
    }
    return;
  }
  const warm = order + 1 < count ? order + 1 : count;
  for (let j: u32 = 1; j < warm; j++) {
    const at = samples + (<usize>j << 2);
    store<i32>(at, wrap(<u32>load<i32>(at) + <u32>load<i32>(at - 4), shift));
  }
  const half: u32 = denShift != 0 ? <u32>1 << (denShift - 1) : 0;
  for (let j: u32 = order + 1; j < count; j++) {
    const at = samples + (<usize>j << 2);
    // previous[-k] = the sample k before j - 1.
    const previous = at - 4;
    const top = load<i32>(samples + (<usize>(j - order - 1) << 2));
    let sum: u32 = 0;
    for (let k: u32 = 0; k < order; k++) {
      sum += <u32>(<i32>load<i16>(coefficients + (<usize>k << 1))) * <u32>(load<i32>(previous - (<usize>k << 2)) - top);
    }
    const residual = load<i32>(at);
    store<i32>(at, wrap(<u32>residual + <u32>top + <u32>(<i32>(sum + half) >> denShift), shift));
    let error = residual;
    if (error > 0) {
      for (let k = <i32>order - 1; k >= 0; k--) {
        const difference = top - load<i32>(previous - (<usize>k << 2));
        const sign: i32 = <i32>(difference > 0) - <i32>(difference < 0);
        const c = coefficients + (<usize>k << 1);
        store<i16>(c, <i16>(load<i16>(c) - sign));
        error = <i32>(<u32>error - (order - <u32>k) * <u32>((sign * difference) >> denShift));
        if (error <= 0) break;
      }
    } else if (error < 0) {
      for (let k = <i32>order - 1; k >= 0; k--) {
        const difference = top - load<i32>(previous - (<usize>k << 2));
        const sign: i32 = <i32>(difference > 0) - <i32>(difference < 0);
        const c = coefficients + (<usize>k << 1);
        store<i16>(c, <i16>(load<i16>(c) + sign));
        error = <i32>(<u32>error - (order - <u32>k) * <u32>((-sign * difference) >> denShift));
        if (error >= 0) break;
      }
    }
  }
}

/** decodeElement of alac-frame.ts: samples per channel, or a fault negated. */
function element(pair: u32): i32 {
  skip(4 + 12);
  const partial = read(1);
  const bytesShifted = read(2);
  const escape = read(1);
  const samples = partial != 0 ? read(32) : frameLength;
  if (overrun) return -TRUNCATED;
  if (bytesShifted == 3) return -BAD_SHIFT;
  if (samples > frameLength) return -TOO_MANY_SAMPLES;
  if (samples == 0) return -NO_SAMPLES;
  if (escape != 0) {
    if (<u64>pos + <u64>samples * <u64>pair * <u64>bitDepth > <u64>end) return -TRUNCATED;
    for (let i: u32 = 0; i < samples; i++) {
      store<i32>(first + (<usize>i << 2), readSigned(bitDepth));
      if (pair == 2) store<i32>(second + (<usize>i << 2), readSigned(bitDepth));
    }
    mixBits = 0;
    mixRes = 0;
    shiftBits = 0;
    return <i32>samples;
  }
  mixBits = read(8);
  mixRes = readSigned(8);
  for (let channel: u32 = 0; channel < pair; channel++) {
    const header = read(8);
    const predictor = read(8);
    const m = modes + (<usize>channel << 4);
    store<u32>(m, header >> 4);
    store<u32>(m, header & 15, 4);
    store<u32>(m, predictor >> 5, 8);
    const order = predictor & 31;
    store<u32>(m, order, 12);
    const coefficients = COEFFICIENTS + (<usize>channel << 6);
    for (let k: u32 = 0; k < order; k++) store<i16>(coefficients + (<usize>k << 1), <i16>readSigned(16));
  }
  if (overrun) return -TRUNCATED;
  shiftBits = bytesShifted * 8;
  if (shiftBits != 0) {
    if (<u64>pos + <u64>samples * <u64>pair * <u64>shiftBits > <u64>end) return -TRUNCATED;
    for (let i: u32 = 0; i < samples * pair; i++) store<i32>(shifted + (<usize>i << 2), <i32>read(shiftBits));
  }
  const sampleBits = bitDepth - shiftBits + pair - 1;
  // kb 0 (ffmpeg's cookie of an all-verbatim stream): k is at least 1, as in the reference.
  const kLimit = kb != 0 ? kb : 1;
  for (let channel: u32 = 0; channel < pair; channel++) {
    const buffer = channel != 0 ? second : first;
    const m = modes + (<usize>channel << 4);
    const multiplier = (pb * load<u32>(m, 8)) >> 2;
    const fault = residuals(buffer, samples, sampleBits, multiplier, kLimit);
    if (fault != 0) return -fault;
    const coefficients = COEFFICIENTS + (<usize>channel << 6);
    if (load<u32>(m) != 0) unpredict(buffer, samples, coefficients, 31, sampleBits, 0);
    unpredict(buffer, samples, coefficients, load<u32>(m, 12), sampleBits, load<u32>(m, 4));
  }
  return <i32>samples;
}

/** writeElement of alac-frame.ts. */
function write(output: usize, sampleBytes: u32, samples: u32, pair: u32, channelIndex: u32, outShift: u32): void {
  const stride = numChannels;
  const mix = mixBits & 31;
  let at = channelIndex;
  for (let i: u32 = 0; i < samples; i++, at += stride) {
    let left = load<i32>(first + (<usize>i << 2));
    if (pair == 1) {
      if (shiftBits != 0) left = <i32>((<u32>left << shiftBits) | <u32>load<i32>(shifted + (<usize>i << 2)));
      if (sampleBytes == 2) store<i16>(output + (<usize>at << 1), <i16>(left >> outShift));
      else store<i32>(output + (<usize>at << 2), left);
      continue;
    }
    const side = load<i32>(second + (<usize>i << 2));
    let right = side;
    if (mixRes != 0) {
      left = <i32>(<u32>left + <u32>side - <u32>(<i32>(<u32>mixRes * <u32>side) >> mix));
      right = <i32>(<u32>left - <u32>side);
    }
    if (shiftBits != 0) {
      left = <i32>((<u32>left << shiftBits) | <u32>load<i32>(shifted + (<usize>(2 * i) << 2)));
      right = <i32>((<u32>right << shiftBits) | <u32>load<i32>(shifted + (<usize>(2 * i + 1) << 2)));
    }
    if (sampleBytes == 2) {
      store<i16>(output + (<usize>at << 1), <i16>(left >> outShift));
      store<i16>(output + (<usize>at << 1), <i16>(right >> outShift), 2);
    } else {
      store<i32>(output + (<usize>at << 2), left);
      store<i32>(output + (<usize>at << 2), right, 4);
    }
  }
}

/**
 * Decodes the `packetLength`-byte packet at INPUT (after reserve) into outputRegion(packetLength,
 * length): 16-bit samples (their top 16 bits) when sampleBytes is 2, else 32-bit, interleaved.
 * The config: frame `length`, `depth` (16, 20 or 24), the Golomb parameters `historyMultiplier`
 * (pb), `initialHistory` (mb) and `kLimit` (kb), `channels`. Returns the samples per channel, a
 * fault of alac-faults.ts negated, or -100 for a config or memory the call cannot take.
 */
export function decode(packetLength: i32, sampleBytes: i32, length: i32, depth: i32, historyMultiplier: i32, initialHistory: i32, kLimit: i32, channels: i32): i32 {
  if (depth != 16 && depth != 20 && depth != 24) return -100;
  if (sampleBytes != 2 && sampleBytes != 4) return -100;
  if (packetLength < 0 || length < 1 || length > 16384 || channels < 1 || channels > 8) return -100;
  const output = outputRegion(packetLength, length);
  if (output + 4 * <usize>length * <usize>channels > <usize>memory.size() * PAGE) return -100;
  frameLength = <u32>length;
  bitDepth = <u32>depth;
  pb = <u32>historyMultiplier;
  mb = <u32>initialHistory;
  kb = <u32>kLimit;
  numChannels = <u32>channels;
  bytes = inputRegion();
  memory.fill(bytes + <usize>packetLength, 0, PADDING);
  pos = 0;
  end = <u32>packetLength * 8;
  overrun = false;
  first = workRegion(packetLength);
  second = first + 4 * <usize>length;
  shifted = second + 4 * <usize>length;
  const outShift: u32 = sampleBytes == 2 ? bitDepth - 16 : 0;
  let channelIndex: u32 = 0;
  let frameSamples: i32 = -1;
  while (channelIndex < numChannels) {
    const tag = read(3);
    if (overrun) return -TRUNCATED;
    if (tag == END) break;
    if (tag == FIL) {
      let count = read(4);
      if (count == 15) count += read(8) - 1;
      skip(count * 8);
      if (overrun) return -TRUNCATED;
      continue;
    }
    if (tag == DSE) {
      skip(4);
      const aligned = read(1);
      let count = read(8);
      if (count == 255) count += read(8);
      if (aligned != 0) skip((8 - (pos & 7)) & 7);
      skip(count * 8);
      if (overrun) return -TRUNCATED;
      continue;
    }
    if (tag == CCE || tag == PCE) return -UNSUPPORTED_ELEMENT;
    const pair: u32 = tag == CPE ? 2 : 1;
    const samples = element(pair);
    if (samples < 0) return samples;
    if (frameSamples >= 0 && samples != frameSamples) return -SAMPLE_COUNT_MISMATCH;
    frameSamples = samples;
    if (channelIndex + pair > numChannels) return -TOO_MANY_CHANNELS;
    write(output, <u32>sampleBytes, <u32>samples, pair, channelIndex, outShift);
    channelIndex += pair;
  }
  if (channelIndex < numChannels) return -MISSING_CHANNELS;
  return frameSamples;
}
