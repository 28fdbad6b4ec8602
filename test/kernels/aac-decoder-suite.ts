// What aac-decoder-xs.test.ts runs inside the XS test host: the libavcodec AAC natives of
// modules/native/vp-aac.c (installed as globalThis.__vpAac) behind the AudioDecoder port
// (modules/native/vp-aac-decoder.ts), decoding clips ffmpeg made for the run
// (globalThis.__vpAacClips, hex): raw access units in, the same 16-bit samples as ffmpeg's own
// decode out; bad configs and damaged units refused with AudioDecodeError, never a crash.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex } from '../../src/bytes';
import { AudioDecodeError } from '../../src/audio/decoder';
import { aacConfigBytes } from '../../src/audio/aac-config';
import { aacConfigFromFmtp } from '../../src/audio/aac-fmtp';
import { readAuHeaders, writeAuHeaders } from '../../src/audio/aac-au-headers';
import { createNativeAacDecoder } from '../../modules/native/vp-aac-decoder';
import type { NativeAac } from '../../modules/native/natives';

/** One clip: its AudioSpecificConfig, raw access units, and ffmpeg's s16le decode of it (all hex). */
export interface AacClip {
  readonly config: string;
  readonly units: readonly string[];
  readonly sampleRate: number;
  readonly channels: number;
  readonly pcm: string;
}

const aac = (globalThis as { __vpAac?: NativeAac }).__vpAac;
const clips = (globalThis as { __vpAacClips?: { stereo: AacClip; mono: AacClip } }).__vpAacClips;
if (!aac || !clips) throw new Error('globalThis.__vpAac or __vpAacClips is missing: not the XS test host run of aac-decoder-xs.test.ts');
const natives = aac;
const { stereo, mono } = clips;

/** ffmpeg's s16le bytes as samples (little-endian). */
function expectedSamples(clip: AacClip): Int16Array {
  const bytes = fromHex(clip.pcm);
  const samples = new Int16Array(bytes.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = (bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16 >> 16;
  return samples;
}

/** Decodes every unit; checks each gives 1024 frames; the samples joined. */
function decodeClip(decoder: { decode(unit: Uint8Array): Int16Array }, units: readonly Uint8Array[], channels: number): Int16Array {
  const out = new Int16Array(units.length * 1024 * channels);
  units.forEach((unit, i) => {
    const samples = decoder.decode(unit);
    assert.equal(samples.length, 1024 * channels, `unit ${i}: 1024 frames`);
    out.set(samples, i * 1024 * channels);
  });
  return out;
}

/** How many samples differ, and the largest difference. */
function compare(actual: Int16Array, expected: Int16Array): { differing: number; largest: number; first: number } {
  let differing = 0;
  let largest = 0;
  let first = -1;
  for (let i = 0; i < expected.length; i++) {
    const difference = Math.abs(actual[i] - expected[i]);
    if (difference > 0 && first < 0) first = i;
    if (difference > 0) differing++;
    if (difference > largest) largest = difference;
  }
  return { differing, largest, first };
}

function assertSameAsFfmpeg(actual: Int16Array, clip: AacClip, what: string): void {
  const expected = expectedSamples(clip);
  assert.equal(actual.length, expected.length, `${what}: as many samples as ffmpeg's decode`);
  // Not silence: the clip's tone is there (a decoder writing zeros would not pass).
  assert.ok(expected.some((sample) => Math.abs(sample) > 10000), `${what}: ffmpeg's decode is loud`);
  const found = compare(actual, expected);
  assert.deepEqual(found, { differing: 0, largest: 0, first: -1 }, `${what}: sample for sample ffmpeg's decode (${JSON.stringify(found)})`);
}

const unitsOf = (clip: AacClip) => clip.units.map((hex) => fromHex(hex));

/** A seeded xorshift32: the fuzz inputs rebuild from (seed, index). */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

test('native AAC: a stereo 44.1 kHz AAC-LC clip decodes sample for sample as ffmpeg decodes it', () => {
  assert.equal(stereo.config, '1210');
  const decoder = createNativeAacDecoder(fromHex(stereo.config), 44100, 2, natives);
  assert.deepEqual(decoder.config, { objectType: 'lc', sampleRate: 44100, channels: 2, frameLength: 1024, lowDelaySbr: false });
  assertSameAsFfmpeg(decodeClip(decoder, unitsOf(stereo), 2), stereo, 'stereo');
  decoder.close();
});

test('native AAC: a mono 48 kHz clip sent as RFC 3640 AAC-hbr packets (config from the fmtp) decodes as ffmpeg does', () => {
  const config = aacConfigFromFmtp(`mode=AAC-hbr; config=${mono.config}; sizeLength=13; indexLength=3; indexDeltaLength=3`);
  const decoder = createNativeAacDecoder(config, 48000, 1, natives);
  const units = unitsOf(mono).map((unit) => {
    const found = readAuHeaders(writeAuHeaders([unit]));
    assert.equal(found.length, 1);
    return found[0];
  });
  assertSameAsFfmpeg(decodeClip(decoder, units, 1), mono, 'mono');
});

test('native AAC: after flush the clip decodes as from a fresh decoder; the first unit after a gap is no crash', () => {
  const decoder = createNativeAacDecoder(fromHex(stereo.config), 44100, 2, natives);
  const units = unitsOf(stereo);
  decoder.decode(units[5]);
  decoder.decode(units[9]);
  decoder.flush();
  assertSameAsFfmpeg(decodeClip(decoder, units, 2), stereo, 'after flush');
});

test('native AAC: AAC-ELD opens from its config (the one AirPlay senders imply), low-delay SBR is refused', () => {
  const eld = aacConfigBytes({ objectType: 'eld', sampleRate: 44100, channels: 2, frameLength: 480 });
  const decoder = createNativeAacDecoder(eld, 44100, 2, natives);
  assert.equal(decoder.config.frameLength, 480);
  // A unit of the wrong codec (an LC unit) is refused or decodes to at most 480 frames, never more.
  for (const unit of unitsOf(stereo).slice(0, 4)) {
    try {
      assert.ok(decoder.decode(unit).length <= 480 * 2);
    } catch (error) {
      assert.ok(error instanceof AudioDecodeError, `an LC unit to the ELD decoder: ${String(error)}`);
    }
  }
  decoder.close();
  // ldSbrPresentFlag set: the wrapper refuses it; libavcodec 5.1 refuses it too.
  assert.throws(() => createNativeAacDecoder(fromHex('f8e85100'), 44100, 2, natives), (error) => error instanceof AudioDecodeError && /low-delay SBR/.test(error.message));
  assert.throws(() => natives.aacOpen(fromHex('f8e85100'), 44100, 2), (error) => error instanceof Error && /aac decoder: opening with the config/.test(error.message));
});

test('native AAC: configs that are not the stream, not AAC-LC/ELD, or not a config are refused with AudioDecodeError', () => {
  const refused = (config: Uint8Array, rate: number, channels: number, pattern: RegExp) =>
    assert.throws(() => createNativeAacDecoder(config, rate, channels, natives), (error) => error instanceof AudioDecodeError && pattern.test(error.message), pattern.source);
  refused(fromHex('1210'), 48000, 2, /config says 44100 Hz, 2 channels; the stream is 48000 Hz, 2 channels/);
  refused(fromHex('1210'), 44100, 1, /the stream is 44100 Hz, 1 channels/);
  refused(fromHex('2b10'), 44100, 2, /object type 5/);
  refused(fromHex('12'), 44100, 2, /ends inside its fields/);
  // The natives themselves: a config libavcodec cannot open, or describing another stream.
  assert.throws(() => natives.aacOpen(fromHex('ffff'), 44100, 2), (error) => error instanceof Error && /aac decoder: opening with the config: /.test(error.message));
  assert.throws(() => natives.aacOpen(fromHex('1188'), 44100, 2), /aac decoder: the config describes 1 channels \(rate \d+\); the stream is 44100 Hz, 2 channels/);
  // The wrong config for the units: mono 48 kHz opened, stereo 44.1 kHz units sent.
  const wrong = createNativeAacDecoder(fromHex(mono.config), 48000, 1, natives);
  let refusedUnits = 0;
  for (const unit of unitsOf(stereo).slice(0, 6)) {
    try {
      assert.equal(wrong.decode(unit).length, 1024, 'a unit decoded under the wrong config is still the stream\'s shape');
    } catch (error) {
      assert.ok(error instanceof AudioDecodeError, String(error));
      refusedUnits++;
    }
  }
  assert.ok(refusedUnits > 0, 'stereo units under a mono config are refused');
});

test('native AAC: truncated, empty, oversized, garbage and (seeded) corrupted units give AudioDecodeError or a unit of the stream\'s shape, never a crash', () => {
  const decoder = createNativeAacDecoder(fromHex(stereo.config), 44100, 2, natives);
  const units = unitsOf(stereo);
  assert.throws(() => decoder.decode(new Uint8Array(0)), (error) => error instanceof AudioDecodeError && /0 bytes: 1 to 6144/.test(error.message));
  assert.throws(() => decoder.decode(new Uint8Array(6145)), /6145 bytes/);
  let refused = 0;
  let decoded = 0;
  const next = random(0x5eed);
  const count = 600;
  for (let index = 0; index < count; index++) {
    const base = units[index % units.length];
    let unit: Uint8Array;
    const kind = index % 4;
    if (kind === 0) unit = base.slice(0, 1 + (next() % Math.max(1, base.length - 1)));
    else if (kind === 1) {
      unit = base.slice();
      for (let flips = 1 + (next() % 8); flips > 0; flips--) unit[next() % unit.length] ^= 1 << (next() % 8);
    } else if (kind === 2) {
      unit = new Uint8Array(1 + (next() % 700));
      for (let i = 0; i < unit.length; i++) unit[i] = next() & 0xff;
    } else unit = base.slice(0, base.length).map((byte, i) => (i >= 2 && next() % 16 === 0 ? next() & 0xff : byte));
    try {
      const samples = decoder.decode(unit);
      assert.ok(samples.length === 1024 * 2 || samples.length === 0, `seed 0x5eed index ${index}: ${samples.length} samples`);
      decoded++;
    } catch (error) {
      assert.ok(error instanceof AudioDecodeError, `seed 0x5eed index ${index}: ${String(error)}`);
      assert.match(error.message, /^aac decoder: /);
      refused++;
    }
  }
  assert.equal(refused + decoded, count);
  assert.ok(refused > count / 4, `most damaged units are refused (${refused} of ${count})`);
  // The decoder still plays the clip after a flush.
  decoder.flush();
  assertSameAsFfmpeg(decodeClip(decoder, units, 2), stereo, 'after the fuzz');
});

test('native AAC: calls with too few arguments, out-of-range sizes and a closed decoder are refused, naming the call', () => {
  const call = natives as unknown as Record<string, (...args: unknown[]) => unknown>;
  assert.throws(() => call.aacOpen(fromHex('1210'), 44100), (error) => error instanceof TypeError && /aacOpen\(config, sampleRate, channels\): 3 arguments needed, 2 given$/.test(error.message));
  const decoder = natives.aacOpen(fromHex('1210'), 44100, 2);
  assert.throws(() => call.aacDecode(decoder, fromHex('00')), /aacDecode\(decoder, unit, output\): 3 arguments needed, 2 given/);
  assert.throws(() => call.aacFlush(), /aacFlush\(decoder\): 1 arguments needed, 0 given/);
  assert.throws(() => call.aacClose(), /aacClose\(decoder\): 1 arguments needed, 0 given/);
  assert.throws(() => natives.aacOpen(fromHex('1210'), 1000, 2), (error) => error instanceof RangeError && /sample rate 1000/.test(error.message));
  assert.throws(() => natives.aacOpen(fromHex('1210'), 44100, 9), (error) => error instanceof RangeError && /9 channels/.test(error.message));
  assert.throws(() => natives.aacOpen(new Uint8Array(1), 44100, 2), (error) => error instanceof RangeError && /config of 1 bytes/.test(error.message));
  assert.throws(() => natives.aacOpen(new Uint8Array(65), 44100, 2), (error) => error instanceof RangeError && /config of 65 bytes/.test(error.message));
  assert.throws(() => natives.aacDecode(decoder, new Uint8Array(0), new Uint8Array(4096)), (error) => error instanceof RangeError && /access unit of 0 bytes/.test(error.message));
  // An output too small for the unit's 1024 stereo frames: refused before a byte past it is written.
  const small = new Uint8Array(4096 + 16);
  assert.throws(() => natives.aacDecode(decoder, fromHex(stereo.units[1]), small.subarray(0, 4094)), /decodes to more than the output's 2047 samples/);
  assert.ok(small.subarray(4094).every((byte) => byte === 0), 'nothing written past the output');
  assert.equal(natives.aacDecode(decoder, fromHex(stereo.units[2]), new Uint8Array(4096)), 1024);
  natives.aacClose(decoder);
  assert.throws(() => natives.aacDecode(decoder, fromHex(stereo.units[3]), new Uint8Array(4096)), /aac decoder: closed/);
  assert.throws(() => natives.aacFlush(decoder), /aac decoder: closed/);
});
