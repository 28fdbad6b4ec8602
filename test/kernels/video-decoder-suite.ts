// What video-decoder-xs.test.ts runs inside the XS test host: the libavcodec natives of
// modules/native/video-decoder (installed as globalThis.__vpVideo) decoding clips ffmpeg made
// for the run (globalThis.__vpClips, hex), as the Moddable host's VideoDecoder port drives them:
// Annex B access units in, pictures scaled to fit the area, converted, out at their times.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex } from '../../src/bytes';
import { decoderInput } from '../../src/mirror/annexb-stream';
import type { NativePixelFormat, NativeVideoDecoder } from '../../modules/native/video-decoder/natives';

interface Clips {
  /** 320x180, four quadrants: red, green / blue, yellow (make-clip's picture without the square). */
  landscape: string;
  /** 180x320, the same four colours. */
  portrait: string;
}

const video = (globalThis as { __vpVideo?: NativeVideoDecoder }).__vpVideo;
const clips = (globalThis as { __vpClips?: Clips }).__vpClips;
if (!video || !clips) throw new Error('globalThis.__vpVideo or __vpClips is missing: not the XS test host run of video-decoder-xs.test.ts');
const natives = video;



/** The clip as the mirroring session hands it over: parameter sets, then access units with key-frame flags. */
function accessUnitsOf(hex: string): ReturnType<typeof decoderInput> {
  return decoderInput(fromHex(hex));
}

/** [r, g, b] in 0-255 of an RGB565 pixel (little or big endian). */
function rgb565(pixels: Uint8Array, width: number, x: number, y: number, bigEndian = false): [number, number, number] {
  const at = (y * width + x) * 2;
  const value = bigEndian ? (pixels[at] << 8) | pixels[at + 1] : pixels[at] | (pixels[at + 1] << 8);
  return [((value >> 11) & 0x1f) * 8, ((value >> 5) & 0x3f) * 4, (value & 0x1f) * 8];
}

function assertNear(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.ok(
    actual.every((value, i) => Math.abs(value - expected[i]) <= 24),
    `${what}: ${actual.join(',')} is not near ${expected.join(',')}`,
  );
}

const RED = [248, 0, 0];
const GREEN = [0, 252, 0];
const BLUE = [0, 0, 248];
const YELLOW = [248, 252, 0];

/** Decodes a whole clip reading each picture as it comes; returns [time, width, height] and the last pixels. */
function decodeAll(decoder: ReturnType<NativeVideoDecoder['open']>, hex: string, pixels: Uint8Array): { pictures: number[][]; pushed: number[] } {
  const { parameterSets, accessUnits } = accessUnitsOf(hex);
  natives.configure(decoder, parameterSets);
  const info = new ArrayBuffer(24);
  const view = new Float64Array(info);
  const pictures: number[][] = [];
  const pushed: number[] = [];
  const take = () => {
    while (natives.peek(decoder, info) > 0) {
      const entry = [view[0], view[1], view[2]];
      assert.equal(natives.read(decoder, pixels), entry[0]);
      pictures.push(entry);
    }
  };
  accessUnits.forEach((unit, i) => {
    const time = 5000 + i * 40;
    pushed.push(time);
    natives.push(decoder, unit.bytes, time);
    take();
  });
  take();
  return { pictures, pushed };
}

test('native video: the software decoder decodes every access unit at its time, scaled to fit the area, in RGB565LE', () => {
  const decoder = natives.open('h264', 160, 160, 'rgb565le', 4);
  assert.equal(natives.name(decoder), 'h264');
  const pixels = new Uint8Array(160 * 160 * 2);
  const { pictures, pushed } = decodeAll(decoder, clips.landscape, pixels);
  assert.equal(pictures.length, pushed.length, 'one picture per access unit');
  assert.deepEqual(pictures.map((entry) => entry[0]), pushed, 'each picture carries its access unit time');
  for (const [, width, height] of pictures) assert.deepEqual([width, height], [160, 90], '320x180 fits 160x160 as 160x90');
  assertNear(rgb565(pixels, 160, 40, 22), RED, 'top left');
  assertNear(rgb565(pixels, 160, 120, 22), GREEN, 'top right');
  assertNear(rgb565(pixels, 160, 40, 67), BLUE, 'bottom left');
  assertNear(rgb565(pixels, 160, 120, 67), YELLOW, 'bottom right');

  // A new stream of another shape: configure opens again; portrait fits as 90x160.
  const portrait = decodeAll(decoder, clips.portrait, pixels);
  assert.equal(portrait.pictures.length, portrait.pushed.length);
  for (const [, width, height] of portrait.pictures) assert.deepEqual([width, height], [90, 160]);
  assertNear(rgb565(pixels, 90, 22, 40), RED, 'portrait top left');
  assertNear(rgb565(pixels, 90, 67, 120), YELLOW, 'portrait bottom right');
  natives.close(decoder);
});

test('native video: at most `pending` pictures wait; a full ring refuses the next access unit until one is shown or dropped', () => {
  const decoder = natives.open('h264', 64, 64, 'rgb565le', 2);
  const { parameterSets, accessUnits } = accessUnitsOf(clips.landscape);
  natives.configure(decoder, parameterSets);
  const counts = accessUnits.slice(0, 2).map((unit, i) => natives.push(decoder, unit.bytes, i));
  assert.deepEqual(counts, [1, 2]);
  assert.throws(() => natives.push(decoder, accessUnits[2].bytes, 2), (error: unknown) => error instanceof RangeError && /2 pictures pending \(the most\): show or drop one first/.test(error.message));
  // Given 32 bytes, peek also tells the next picture's time (NaN: none).
  const info = new ArrayBuffer(32);
  assert.equal(natives.peek(decoder, info), 2);
  assert.deepEqual([new Float64Array(info)[0], new Float64Array(info)[3]], [0, 1]);
  natives.drop(decoder);
  assert.equal(natives.peek(decoder, info), 1);
  assert.equal(new Float64Array(info)[0], 1, 'the oldest went');
  assert.ok(Number.isNaN(new Float64Array(info)[3]), 'no picture after it');
  assert.equal(natives.push(decoder, accessUnits[2].bytes, 2), 2);
  natives.flush(decoder);
  assert.equal(natives.peek(decoder, info), 0, 'flush drops what is pending');
  natives.close(decoder);
});

test('native video: RGB565BE and Gray8 for the other screens', () => {
  const { parameterSets, accessUnits } = accessUnitsOf(clips.landscape);
  const info = new ArrayBuffer(24);
  const big = natives.open('h264', 32, 18, 'rgb565be', 1);
  natives.configure(big, parameterSets);
  natives.push(big, accessUnits[0].bytes, 0);
  assert.equal(natives.peek(big, info), 1);
  const bigPixels = new Uint8Array(32 * 18 * 2);
  natives.read(big, bigPixels);
  assertNear(rgb565(bigPixels, 32, 8, 4, true), RED, 'big endian top left');
  assertNear(rgb565(bigPixels, 32, 24, 13, true), YELLOW, 'big endian bottom right');
  natives.close(big);

  const gray = natives.open('h264', 32, 18, 'gray8', 1);
  natives.configure(gray, parameterSets);
  natives.push(gray, accessUnits[0].bytes, 0);
  const grayPixels = new Uint8Array(32 * 18);
  natives.read(gray, grayPixels);
  // Luma (BT.601, limited range as H.264 carries it, expanded by libswscale): blue darkest, yellow brightest.
  const [red, blue, yellow] = [grayPixels[4 * 32 + 8], grayPixels[13 * 32 + 8], grayPixels[13 * 32 + 24]];
  assert.ok(blue < red && red < yellow, `gray levels blue ${blue} < red ${red} < yellow ${yellow}`);
  natives.close(gray);
});

test('native video: refusals name their cause', () => {
  const refuses = (run: () => unknown, kind: ErrorConstructor, pattern: RegExp) =>
    assert.throws(run, (error: unknown) => error instanceof kind && pattern.test(error.message), `expected ${kind.name} ${pattern}`);
  refuses(() => natives.open('vp9', 64, 64, 'rgb565le', 2), Error, /libavcodec has no H\.264 decoder named vp9/);
  refuses(() => natives.open('hevc', 64, 64, 'rgb565le', 2), Error, /no H\.264 decoder named hevc/);
  refuses(() => natives.open('h264', 0, 64, 'rgb565le', 2), RangeError, /area 0x64/);
  refuses(() => natives.open('h264', 64, 64, 'rgb332' as NativePixelFormat, 2), RangeError, /pixel format rgb332 not supported/);
  refuses(() => natives.open('h264', 64, 64, 'rgb565le', 33), RangeError, /33 pictures pending \(1 to 32\)/);
  const decoder = natives.open('h264', 64, 64, 'rgb565le', 2);
  refuses(() => natives.push(decoder, new Uint8Array(0), 0), RangeError, /an access unit of 0 bytes/);
  refuses(() => natives.read(decoder, new Uint8Array(8)), Error, /no picture pending/);
  refuses(() => natives.drop(decoder), Error, /no picture pending/);
  const { parameterSets, accessUnits } = accessUnitsOf(clips.landscape);
  natives.configure(decoder, parameterSets);
  natives.push(decoder, accessUnits[0].bytes, 0);
  refuses(() => natives.peek(decoder, new ArrayBuffer(8)), RangeError, /info of 8 bytes, 24 needed/);
  refuses(() => natives.read(decoder, new Uint8Array(100)), RangeError, /pixels of 100 bytes, the picture takes 4608/);
  natives.close(decoder);
  refuses(() => natives.name(decoder), Error, /video decoder: closed/);
  refuses(() => natives.push(decoder, accessUnits[0].bytes, 0), Error, /video decoder: closed/);
  refuses(() => natives.name({} as ReturnType<NativeVideoDecoder['open']>), Error, /.+/);
});

test('native video: a call with too few arguments is a TypeError naming the call, before it reads any', () => {
  const calls: readonly [keyof NativeVideoDecoder, string, number][] = [
    ['open', 'open(codec, areaWidth, areaHeight, pixelFormat, pending)', 5],
    ['name', 'name(decoder)', 1],
    ['configure', 'configure(decoder, parameterSets)', 2],
    ['push', 'push(decoder, accessUnit, time)', 3],
    ['peek', 'peek(decoder, info)', 2],
    ['read', 'read(decoder, pixels)', 2],
    ['drop', 'drop(decoder)', 1],
    ['flush', 'flush(decoder)', 1],
    ['close', 'close(decoder)', 1],
  ];
  assert.deepEqual(calls.map(([name]) => name).sort(), Object.keys(natives).sort(), 'the table covers every native');
  const decoder = natives.open('h264', 64, 64, 'rgb565le', 2);
  for (const [name, call, count] of calls) {
    const native = natives[name] as (...args: unknown[]) => unknown;
    const args = name === 'open' ? ['h264', 64, 64, 'rgb565le'] : [decoder, new Uint8Array(64)].slice(0, count - 1);
    for (const given of [0, count - 1]) {
      assert.throws(
        () => native(...args.slice(0, given)),
        // A debugging XS (this host, mcsim) puts the C function's name first: `@xs_vp_video_open: `.
        (error: unknown) => error instanceof TypeError && error.message.endsWith(`video decoder: ${call}: ${count} arguments needed, ${given} given`),
        `${name} with ${given} arguments`,
      );
    }
  }
  assert.equal(natives.name(decoder), 'h264', 'the decoder is untouched');
  natives.close(decoder);
});

test('native video: a picture of odd width filling its area (321x181) is whole to its last pixel', () => {
  // libswscale's RGB565 output writes whole pixel pairs: the last row of a picture 321 wide ends
  // 2 bytes past its last byte, and a picture as tall as the area fills its ring slot, so those
  // bytes land in the slot's padding (video-decoder.c SWSCALE_PADDING; without it valgrind says
  // "Invalid write of size 2 ... 0 bytes after a block of size 116,202").
  const decoder = natives.open('h264', 321, 181, 'rgb565le', 2);
  const pixels = new Uint8Array(321 * 181 * 2);
  const { pictures } = decodeAll(decoder, clips.landscape, pixels);
  for (const [, width, height] of pictures) assert.deepEqual([width, height], [321, 181], '320x180 fits 321x181 whole');
  assertNear(rgb565(pixels, 321, 320, 45), GREEN, 'top right, last column');
  assertNear(rgb565(pixels, 321, 320, 180), YELLOW, 'bottom right, the last pixel');
  natives.close(decoder);
});

test('native video: h264_v4l2m2m opens only where the board has a V4L2 mem2mem decoder, and says why not', () => {
  // This machine (CI, the simulator's host) has no /dev/video* decoder: libavcodec's V4L2 wrapper
  // probes the devices in avcodec_open2 and fails; on a board with one it opens and decodes.
  let name: string | undefined;
  try {
    const decoder = natives.open('h264_v4l2m2m', 64, 64, 'rgb565le', 2);
    name = natives.name(decoder);
    natives.close(decoder);
  } catch (error) {
    assert.match((error as Error).message, /video decoder: (opening h264_v4l2m2m: .+|libavcodec has no H\.264 decoder named h264_v4l2m2m)/);
  }
  if (name !== undefined) assert.equal(name, 'h264_v4l2m2m');
});
