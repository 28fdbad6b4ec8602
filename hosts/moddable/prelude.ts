// What must exist before the core's libraries load; main.ts imports this module first.
//
// - The random source (random.ts), and `crypto.getRandomValues` over it. @noble/curves takes the
//   Web Crypto RNG once, when a curve is created at module load, for scalar blinding of secret
//   multiplications (abstract/curve.js probeRandomBytes); without the global it runs unblinded.
//   XS on Moddable has no `crypto`.
// - TextEncoder and TextDecoder: @noble/curves/ed25519 encodes its FROST and hash-to-curve tags
//   with `new TextEncoder()` at load. Moddable has them only as the modules `text/encoder` and
//   `text/decoder`. The core itself uses neither (src/bytes.ts has its own UTF-8).

import manifest from 'mc/config';
import TextDecoder from 'text/decoder';
import TextEncoder from 'text/encoder';
import Time from 'time';
import type { RandomSource } from '../../src/platform';
import { getRandomValuesFrom, mixedWithSeed, randomFromUniform } from './random';

/**
 * Whether Math.random reads a hardware generator: manifest.json sets randomSource "hardware"
 * for esp32 (esp_random) and "simulator" for lin, mac and win (libc rand, never seeded).
 */
export const hardwareRandom = manifest.randomSource === 'hardware';

export const hostRandom: RandomSource = hardwareRandom
  ? randomFromUniform(Math.random)
  : mixedWithSeed(randomFromUniform(Math.random), Date.now() + Time.ticks);

const global = globalThis as { crypto?: { getRandomValues?: unknown }; TextEncoder?: unknown; TextDecoder?: unknown };
if (!global.crypto?.getRandomValues) global.crypto = { getRandomValues: getRandomValuesFrom(hostRandom) };
global.TextEncoder ??= TextEncoder;
global.TextDecoder ??= TextDecoder;
