// The RandomSource port (src/platform.ts) on Moddable, from `Math.random`. Pure: the generator
// is handed in, so the portable suites test how bytes are drawn from it.
//
// Moddable has no `crypto.getRandomValues`. On ESP32 its XS computes Math.random() as
// `(0x7fffffff & esp_random()) / INT32_MAX` (xs/platforms/esp/xsHost.h c_rand): every call reads
// the hardware random number generator, which ESP-IDF documents as a true RNG while Wi-Fi or
// Bluetooth runs (the receiver always has Wi-Fi up). Each call carries 31 bits; 24 of them are
// taken (3 bytes), far inside what a double recovers exactly.
//
// On the desktop simulators XS uses libc rand(), never seeded (xs/sources/xsMath.c leaves
// srand commented out): the same sequence on every start. The simulator is for development;
// main.ts says so in the log and mixes in the clock so two simulators differ.

import type { RandomSource } from '../../src/platform';

/** Largest value of the ESP32's c_rand() (INT32_MAX), which Math.random() divides by. */
const RAND_MAX = 0x7fffffff;

/** Bytes from a generator of uniform values in [0, 1) whose values are `n / 0x7fffffff`. */
export function randomFromUniform(uniform: () => number): RandomSource {
  return (length) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 3) {
      const bits = Math.round(uniform() * RAND_MAX);
      out[i] = bits;
      if (i + 1 < length) out[i + 1] = bits >>> 8;
      if (i + 2 < length) out[i + 2] = bits >>> 16;
    }
    return out;
  };
}

/**
 * A source whose every output is XORed with a keystream seeded from `seed` (the clock, on a
 * simulator whose Math.random is the same on each start). Not a cryptographic generator: it
 * only keeps two simulators apart. `mix32` is a 32-bit finaliser (splitmix-style).
 */
export function mixedWithSeed(source: RandomSource, seed: number): RandomSource {
  let state = (seed >>> 0) ^ Math.floor(seed / 0x100000000);
  return (length) => {
    const out = source(length);
    for (let i = 0; i < length; i++) {
      state = (state + 0x9e3779b9) >>> 0;
      out[i] ^= mix32(state);
    }
    return out;
  };
}

function mix32(value: number): number {
  let x = value;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) & 0xff;
}

/**
 * `crypto.getRandomValues` over a RandomSource, for libraries that call the Web Crypto global
 * (@noble's randomBytes does, for keys made without a seed; the core never asks it).
 */
export function getRandomValuesFrom(source: RandomSource): <T extends ArrayBufferView | null>(array: T) => T {
  return (array) => {
    if (array === null || !ArrayBuffer.isView(array)) throw new TypeError('getRandomValues: expected an integer typed array');
    if (array.byteLength > 65536) throw new RangeError(`getRandomValues: ${array.byteLength} bytes asked; at most 65536 (Web Crypto)`);
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(source(array.byteLength));
    return array;
  };
}
