// The shared vectors of test/vectors/alac.json against one AlacKernel build: the portable build
// in test/unit (on Node and in XS), the WebAssembly build on Node (test/kernels/alac-kernel.test.ts),
// the C native in the XS test host (test/kernels/xs-host-suite.ts). Portable: src/ and JSON only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromBase64, fromHex } from '../../src/bytes';
import { ALAC_FAULT, AudioDecodeError, alacConfigFromCookie, alacFaultError, createAlacDecoder, type AlacConfig, type AlacKernel } from '../../src/audio/alac';
import vectors from '../vectors/alac.json' with { type: 'json' };

export { vectors as alacVectors };
export type AlacVectorCase = (typeof vectors.cases)[number];

/** The case's expected PCM as 32-bit samples (s16le or s24le, sign-extended). */
export function expectedSamples(vector: AlacVectorCase): Int32Array {
  const bytes = fromBase64(vector.pcm);
  const width = vector.pcmFormat === 's16le' ? 2 : 3;
  const samples = new Int32Array(bytes.length / width);
  for (let i = 0, at = 0; i < samples.length; i++, at += width) {
    const value = width === 2 ? bytes[at] | (bytes[at + 1] << 8) : bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16);
    samples[i] = (value << (32 - 8 * width)) >> (32 - 8 * width);
  }
  return samples;
}

export function casePackets(vector: AlacVectorCase): Uint8Array[] {
  return vector.packets.map((packet) => fromBase64(packet));
}

/** Index of the first differing sample, or -1. */
function firstDifference(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  const length = Math.min(actual.length, expected.length);
  for (let i = 0; i < length; i++) if (actual[i] !== expected[i]) return i;
  return actual.length === expected.length ? -1 : length;
}

/** Asserts `run` throws the AudioDecodeError of fault `code` for a packet of `bytes` bytes. */
export function assertFault(run: () => unknown, code: number, bytes: number, what: string): void {
  const expected = alacFaultError(code, bytes).message;
  assert.throws(run, (error: unknown) => error instanceof AudioDecodeError && error.message === expected, `${what}: expected "${expected}"`);
}

/** The last packet of a case (a partial frame) with its sample count (bits 23 to 54) set to `samples`. */
export function withPartialCount(packet: Uint8Array, samples: number): Uint8Array {
  const copy = packet.slice();
  for (let bit = 0; bit < 32; bit++) {
    const at = 23 + bit;
    const value = (samples >>> (31 - bit)) & 1;
    copy[at >> 3] = (copy[at >> 3] & ~(0x80 >> (at & 7))) | (value << (7 - (at & 7)));
  }
  return copy;
}

/** Registers the vector tests of `kernel`, named after it. */
export function registerAlacVectorTests(kernel: AlacKernel): void {
  const name = (what: string) => `${kernel.name}: ${what}`;

  test(name('every ALAC vector decodes to its PCM exactly, sample by sample (16 and 24 bit, mono and stereo, full, partial and escape frames)'), () => {
    for (const vector of vectors.cases) {
      const config = alacConfigFromCookie(fromHex(vector.cookie));
      assert.deepEqual(config, vector.config, `${vector.name}: the config from the cookie`);
      const decoder = createAlacDecoder(config, kernel);
      const expected = expectedSamples(vector);
      const decoded = new Int32Array(expected.length);
      let at = 0;
      const packets = casePackets(vector);
      packets.forEach((packet, index) => {
        const samples = decoder.decodeSamples(packet);
        const frames = index < packets.length - 1 ? config.frameLength : vector.frames - index * config.frameLength;
        assert.equal(samples.length, frames * config.numChannels, `${vector.name}: packet ${index} samples`);
        decoded.set(samples, at);
        at += samples.length;
      });
      assert.equal(at, expected.length, `${vector.name}: total samples`);
      const difference = firstDifference(decoded, expected);
      assert.equal(difference, -1, `${vector.name}: sample ${difference} is ${decoded[difference]}, expected ${expected[difference]}`);
    }
  });

  test(name('decode() gives 16-bit PCM: the samples of 16-bit streams, the top 16 bits of 24-bit ones'), () => {
    for (const vector of vectors.cases) {
      const config = alacConfigFromCookie(fromHex(vector.cookie));
      const decoder = createAlacDecoder(config, kernel);
      const expected = expectedSamples(vector);
      const shift = config.bitDepth - 16;
      let at = 0;
      for (const packet of casePackets(vector)) {
        const pcm = decoder.decode(packet);
        assert.ok(pcm instanceof Int16Array);
        for (let i = 0; i < pcm.length; i++) {
          if (pcm[i] !== expected[at + i] >> shift) assert.fail(`${vector.name}: 16-bit sample ${at + i} is ${pcm[i]}, expected ${expected[at + i] >> shift}`);
        }
        at += pcm.length;
      }
      assert.equal(at, expected.length, vector.name);
    }
  });

  test(name('packets that are views at an offset in a larger buffer decode the same'), () => {
    const vector = vectors.cases[3];
    const config = alacConfigFromCookie(fromHex(vector.cookie));
    const decoder = createAlacDecoder(config, kernel);
    const packet = casePackets(vector)[0];
    const backing = new Uint8Array(packet.length + 13).fill(0xff);
    backing.set(packet, 5);
    assert.deepEqual(decoder.decodeSamples(backing.subarray(5, 5 + packet.length)), decoder.decodeSamples(packet));
  });

  test(name('a packet cut anywhere is refused as truncated (an AudioDecodeError), never decoded or thrown otherwise'), () => {
    for (const vector of vectors.cases) {
      const config = alacConfigFromCookie(fromHex(vector.cookie));
      const decoder = createAlacDecoder(config, kernel);
      const packet = casePackets(vector).at(-1)!;
      // Every cut of the last byte's worth would be slow for big packets: cuts spread over the packet.
      const step = Math.max(1, Math.floor(packet.length / 40));
      for (let length = 0; length < packet.length - 1; length += step) {
        assertFault(() => decoder.decodeSamples(packet.subarray(0, length)), ALAC_FAULT.truncated, length, `${vector.name} cut to ${length} bytes`);
      }
    }
  });

  test(name('refuses a coupling or program element, more samples than the frame length, a partial frame of none, and a shift of 3 bytes'), () => {
    const vector = vectors.cases[4]; // sweep, stereo 16-bit: one partial frame
    const config = alacConfigFromCookie(fromHex(vector.cookie));
    const decoder = createAlacDecoder(config, kernel);
    const packet = casePackets(vector)[0];
    for (const tag of [2, 5]) {
      const wrong = packet.slice();
      wrong[0] = (wrong[0] & 0x1f) | (tag << 5);
      assertFault(() => decoder.decodeSamples(wrong), ALAC_FAULT.unsupportedElement, wrong.length, `element ${tag}`);
    }
    assertFault(() => decoder.decodeSamples(withPartialCount(packet, config.frameLength + 1)), ALAC_FAULT.tooManySamples, packet.length, 'frameLength + 1 samples');
    assertFault(() => decoder.decodeSamples(withPartialCount(packet, 0)), ALAC_FAULT.noSamples, packet.length, 'no samples');
    const shifted = packet.slice();
    shifted[2] |= 0x0c; // bits 20 and 21: bytes shifted = 3
    assertFault(() => decoder.decodeSamples(shifted), ALAC_FAULT.badShift, packet.length, 'a shift of 3 bytes');
  });

  test(name('refuses elements for more channels than the config has, and a frame that ends before every channel'), () => {
    const stereo = vectors.cases[4];
    const mono = vectors.cases[1];
    const monoConfig: AlacConfig = { ...stereo.config, numChannels: 1 };
    const stereoPacket = casePackets(stereo)[0];
    assertFault(() => createAlacDecoder(monoConfig, kernel).decodeSamples(stereoPacket), ALAC_FAULT.tooManyChannels, stereoPacket.length, 'a pair in a mono stream');
    const monoPacket = casePackets(mono)[0];
    const stereoConfig: AlacConfig = { ...mono.config, numChannels: 2 };
    assertFault(() => createAlacDecoder(stereoConfig, kernel).decodeSamples(monoPacket), ALAC_FAULT.missingChannels, monoPacket.length, 'one channel in a stereo stream');
    const end = Uint8Array.of(0xe0);
    assertFault(() => createAlacDecoder(stereoConfig, kernel).decodeSamples(end), ALAC_FAULT.missingChannels, 1, 'only END');
  });

  test(name('fill and data stream elements before the audio are skipped'), () => {
    const vector = vectors.cases[1]; // clicks, mono 16-bit
    const config = alacConfigFromCookie(fromHex(vector.cookie));
    const decoder = createAlacDecoder(config, kernel);
    const packet = casePackets(vector)[0];
    const reference = decoder.decodeSamples(packet);
    // FIL of 2 bytes (tag 6, count 2), then DSE of 1 byte, byte-aligned (tag 4, instance 0,
    // aligned 1, count 1, then zeros to the byte boundary): 48 bits, so the packet follows whole.
    const head = packBits('110 0010 10101011 11001101  100 0000 1 00000001 0  01011010');
    assert.equal(head.length, 6);
    const framed = new Uint8Array(head.length + packet.length);
    framed.set(head);
    framed.set(packet, head.length);
    assert.deepEqual(decoder.decodeSamples(framed), reference);
  });
}

/** Bytes from a string of 0s and 1s (spaces ignored), first bit highest, the last byte zero-padded. */
export function packBits(text: string): Uint8Array {
  const bits = text.replace(/\s+/g, '');
  const bytes = new Uint8Array(Math.ceil(bits.length / 8));
  for (let i = 0; i < bits.length; i++) if (bits[i] === '1') bytes[i >> 3] |= 0x80 >> (i & 7);
  return bytes;
}

/** `value` as `width` bits (two's complement for negatives). */
export function bitsOf(value: number, width: number): string {
  let text = '';
  for (let bit = width - 1; bit >= 0; bit--) text += Math.floor(value / 2 ** bit) & 1 ? '1' : '0';
  return text;
}

/**
 * An escape (verbatim) element by hand: tag, instance 0, 12 unused bits, partial-frame flag,
 * no shift, escape flag, the sample count when partial, then the samples (pairs interleaved).
 */
export function escapeElement(tag: number, samples: readonly number[][], bitDepth: number, partial: boolean): string {
  let text = `${bitsOf(tag, 3)} 0000 000000000000 ${partial ? 1 : 0} 00 1 `;
  if (partial) text += `${bitsOf(samples[0].length, 32)} `;
  for (let i = 0; i < samples[0].length; i++) for (const channel of samples) text += bitsOf(channel[i] >>> 0, bitDepth);
  return text;
}

/** What a kernel made of a packet: its samples, or the words of its error. */
function outcome(kernel: AlacKernel, config: AlacConfig, packet: Uint8Array): string {
  const output = new Int32Array(config.frameLength * config.numChannels);
  try {
    const frames = kernel.decode(config, packet, output);
    let sum = 0;
    for (let i = 0; i < frames * config.numChannels; i++) sum = (Math.imul(sum, 31) + output[i]) | 0;
    return `${frames} frames, checksum ${sum}`;
  } catch (error) {
    if (!(error instanceof AudioDecodeError)) throw error;
    return error.message;
  }
}

/**
 * Registers a test that `kernel` and the portable build agree on `count` damaged packets (the
 * vectors' packets with bits flipped, bytes cut or a byte changed, from `seed`): the same samples
 * or the same AudioDecodeError, so every build refuses what the reference refuses, alike.
 */
export function registerAlacAgreementTest(kernel: AlacKernel, seed: number, count: number, reference: AlacKernel): void {
  test(`${kernel.name}: agrees with the portable build on ${count} damaged packets (seed ${seed})`, () => {
    let state = seed >>> 0;
    const next = (limit: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return Math.floor((state / 2 ** 32) * limit);
    };
    // The smaller packets: the damage lands near the headers more often.
    const cases = vectors.cases.filter((vector) => vector.packets.every((packet) => packet.length < 8000));
    for (let i = 0; i < count; i++) {
      const vector = cases[next(cases.length)];
      const config = alacConfigFromCookie(fromHex(vector.cookie));
      const packets = casePackets(vector);
      const packet = packets[next(packets.length)].slice();
      const damage = next(3);
      let damaged = packet;
      if (damage === 0) for (let flips = 1 + next(4); flips > 0; flips--) packet[next(Math.min(packet.length, 64))] ^= 1 << next(8);
      if (damage === 1) damaged = packet.subarray(0, next(packet.length));
      if (damage === 2) packet[next(packet.length)] = next(256);
      const expected = outcome(reference, config, damaged);
      assert.equal(outcome(kernel, config, damaged), expected, `damaged packet ${i} of ${vector.name}`);
    }
  });
}
