// The frame kernel of the control channel (spec 5.4) and of audio packets in WebAssembly: ChaCha20-Poly1305
// (RFC 8439 2.8) over fixed regions of linear memory, one frame at a time. The host copies the
// key, nonce, AAD and input into their regions, calls an export, and copies the output out
// (hosts/node/kernels/kernels.ts). No allocator: every region is static data, laid out at compile time.

import { chacha20KeyStream, chacha20Xor, xorBytes } from './chacha20';
import { poly1305Blocks, poly1305Finish, poly1305Init, poly1305Wipe } from './poly1305';

/**
 * Most plaintext bytes in one call: a realtime audio packet's payload (up to 4096 frames of
 * 16-bit stereo, src/audio/rtp-packets.ts MAX_AUDIO_PACKET_BYTES); a control channel frame
 * (spec 5.4) holds at most 1024.
 */
const MAX_FRAME: i32 = 16384 + 64;
const TAG: i32 = 16;
/** Most AAD bytes (frames use 2, the length bytes; the RFC 8439 2.8.2 vector 12). */
const MAX_AAD: i32 = 64;
/** 2^128: the bit 2.5 appends to each full 16-byte block, in the top 26-bit limb. */
const FULL_BLOCK: u64 = 1 << 24;

// The regions the host reads and writes.
const KEY = memory.data(32, 16);
const NONCE = memory.data(16, 16);
const AAD = memory.data(MAX_AAD, 16);
const INPUT = memory.data(MAX_FRAME + TAG, 16);
const OUTPUT = memory.data(MAX_FRAME + TAG, 16);
// Scratch: the key stream of blocks 0 to 3 (with SIMD; block 0 alone without), whose first 32
// bytes are the Poly1305 key (2.6), then of a frame's last blocks; one padded Poly1305 block; the
// computed tag.
const STREAM = memory.data(256, 16);
const PAD = memory.data(16, 16);
const EXPECTED = memory.data(16, 16);

export function keyRegion(): usize {
  return KEY;
}
export function nonceRegion(): usize {
  return NONCE;
}
export function aadRegion(): usize {
  return AAD;
}
export function inputRegion(): usize {
  return INPUT;
}
export function outputRegion(): usize {
  return OUTPUT;
}
export function maxAad(): i32 {
  return MAX_AAD;
}
export function maxFrame(): i32 {
  return MAX_FRAME;
}

/** Sets NONCE to the frame nonce of spec 5.4: 4 zero bytes || 64-bit little-endian `counter`. */
export function setFrameCounter(counter: u64): void {
  store<u32>(NONCE, 0, 0);
  store<u64>(NONCE, counter, 4);
}

/**
 * AEAD seal (RFC 8439 2.8): encrypts `length` bytes of INPUT under KEY and NONCE with the
 * `aadLength` bytes of AAD, writing ciphertext || tag (length + 16 bytes) to OUTPUT.
 * Returns 0, or -1 when a length is out of range (nothing is written).
 */
export function seal(aadLength: i32, length: i32): i32 {
  if (aadLength < 0 || aadLength > MAX_AAD || length < 0 || length > MAX_FRAME) return -1;
  oneTimeKey();
  encrypt(<usize>length);
  authenticate(aadLength, OUTPUT, length, OUTPUT + <usize>length);
  wipe();
  return 0;
}

/**
 * AEAD open (RFC 8439 2.8): INPUT holds `length` bytes of ciphertext || tag. The tag is checked
 * first, in constant time; only when it matches is the plaintext (length - 16 bytes) written to
 * OUTPUT and 1 returned. 0: the tag does not match; -1: a length is out of range. In both
 * cases OUTPUT is not touched.
 */
export function open(aadLength: i32, length: i32): i32 {
  if (aadLength < 0 || aadLength > MAX_AAD || length < TAG || length > MAX_FRAME + TAG) return -1;
  const textLength = length - TAG;
  oneTimeKey();
  authenticate(aadLength, INPUT, textLength, EXPECTED);
  const received = INPUT + <usize>textLength;
  // Every byte is compared whatever the earlier ones held: no early exit on a mismatch.
  const difference =
    (load<u64>(EXPECTED, 0) ^ load<u64>(received, 0, 1)) | (load<u64>(EXPECTED, 8) ^ load<u64>(received, 8, 1));
  let result: i32 = 0;
  if (difference == 0) {
    encrypt(<usize>textLength);
    result = 1;
  }
  wipe();
  return result;
}

/** The ChaCha20 block function (RFC 8439 2.3): KEY, NONCE and `counter` to 64 bytes at OUTPUT. */
export function chacha20Block(counter: u32): void {
  memory.fill(INPUT, 0, 64);
  chacha20Xor(KEY, NONCE, counter, INPUT, OUTPUT, 64, STREAM);
  wipe();
}

/** ChaCha20 encryption (RFC 8439 2.4): `length` bytes of INPUT to OUTPUT from block `counter`. */
export function chacha20(counter: u32, length: i32): i32 {
  if (length < 0 || length > MAX_FRAME + TAG) return -1;
  chacha20Xor(KEY, NONCE, counter, INPUT, OUTPUT, <usize>length, STREAM);
  wipe();
  return 0;
}

/** Poly1305 (RFC 8439 2.5) of `length` bytes of INPUT under the 32-byte KEY; tag to OUTPUT. */
export function poly1305(length: i32): i32 {
  if (length < 0 || length > MAX_FRAME + TAG) return -1;
  poly1305Init(KEY);
  const full = <usize>(length & ~15);
  poly1305Blocks(INPUT, full, FULL_BLOCK);
  const rest = <usize>length - full;
  if (rest > 0) {
    // A short last block: its bytes, then 0x01, then zeros; no 2^128 bit (2.5).
    memory.fill(PAD, 0, 16);
    memory.copy(PAD, INPUT + full, rest);
    store<u8>(PAD + rest, 1);
    poly1305Blocks(PAD, 16, 0);
  }
  poly1305Finish(OUTPUT);
  wipe();
  return 0;
}

/**
 * Bytes of a frame the key stream of oneTimeKey() covers: with SIMD, blocks 0 to 3 are one group
 * (about the cost of block 0 alone), so blocks 1 to 3 come with the key: a frame of up to 192
 * bytes takes one group in all.
 */
const HEAD_BLOCKS: u32 = ASC_FEATURE_SIMD ? 3 : 0;
const HEAD: usize = <usize>HEAD_BLOCKS * 64;

/** The Poly1305 key for this nonce: the first half of the block at counter 0 (2.6), in STREAM. */
function oneTimeKey(): void {
  chacha20KeyStream(KEY, NONCE, 0, STREAM, 64 + HEAD, STREAM);
  poly1305Init(STREAM);
}

/** ChaCha20 of `length` bytes of INPUT into OUTPUT from block 1 (2.8), after oneTimeKey(). */
function encrypt(length: usize): void {
  const head = min(length, HEAD);
  xorBytes(INPUT, STREAM + 64, OUTPUT, head);
  if (length > head) chacha20Xor(KEY, NONCE, 1 + HEAD_BLOCKS, INPUT + head, OUTPUT + head, length - head, STREAM);
}

/**
 * The tag of 2.8 into `tag`: Poly1305 of AAD || pad16 || text || pad16 || le64(AAD length) ||
 * le64(text length), under the key oneTimeKey() set.
 */
function authenticate(aadLength: i32, text: usize, textLength: i32, tag: usize): void {
  absorbPadded(AAD, <usize>aadLength);
  absorbPadded(text, <usize>textLength);
  store<u64>(PAD, <u64>aadLength, 0);
  store<u64>(PAD, <u64>textLength, 8);
  poly1305Blocks(PAD, 16, FULL_BLOCK);
  poly1305Finish(tag);
}

/** `length` bytes, zero-padded to a multiple of 16: every block is a full one (2.8). */
function absorbPadded(data: usize, length: usize): void {
  const full = length & ~15;
  poly1305Blocks(data, full, FULL_BLOCK);
  const rest = length - full;
  if (rest > 0) {
    memory.fill(PAD, 0, 16);
    memory.copy(PAD, data + full, rest);
    poly1305Blocks(PAD, 16, FULL_BLOCK);
  }
}

/** Forgets the key, the key stream and the authenticator state (the host's copies are its own). */
function wipe(): void {
  memory.fill(KEY, 0, 32);
  memory.fill(STREAM, 0, 256);
  memory.fill(PAD, 0, 16);
  memory.fill(EXPECTED, 0, 16);
  poly1305Wipe();
}
