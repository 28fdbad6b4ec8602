// Our ALAC decoder against ffmpeg's encoder on fresh random PCM (Node only; skipped where ffmpeg
// is not installed): random-walk and noise clips of random length, 16 and 24 bit, mono and
// stereo, at ffmpeg's compression levels 0 to 2, encoded to CAF and decoded packet by packet by
// the portable and WebAssembly builds; ALAC is lossless, so each must give the clip back exactly.
// The seed is in every failure message, so a failing clip can be made again.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { alacConfigFromCookie, createAlacDecoder, portableAlacKernel } from '../../src/audio/alac';
import { WasmAlacKernel } from '../../hosts/node/kernels/alac-kernel';
import { readCaf } from '../vectors/alac-caf';

const ffmpegMissing = spawnSync('ffmpeg', ['-version']).error !== undefined;

/** A deterministic generator from `seed`. */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** Interleaved samples: a random walk with a random step size (compresses) or white noise (escapes). */
function makeClip(seed: number, frames: number, channels: number, bitDepth: number): Int32Array {
  const next = rng(seed);
  const max = 2 ** (bitDepth - 1) - 1;
  const noise = next() < 0.2;
  const step = max * (0.0005 + 0.05 * next());
  const samples = new Int32Array(frames * channels);
  const level = new Array(channels).fill(0);
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      level[c] = noise ? (2 * next() - 1) * max : Math.max(-max, Math.min(max, level[c] * 0.999 + (2 * next() - 1) * step));
      samples[i * channels + c] = Math.round(level[c]);
    }
  }
  return samples;
}

function pcmBytes(samples: Int32Array, bitDepth: number): Buffer {
  const width = bitDepth / 8;
  const bytes = Buffer.alloc(samples.length * width);
  samples.forEach((value, i) => bytes.writeIntLE(value, i * width, width));
  return bytes;
}

test('ffmpeg-encoded random clips decode exactly on the portable and WebAssembly builds', { skip: ffmpegMissing && 'ffmpeg is not installed' }, () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'vendorplay-alac-oracle-'));
  const kernels = [portableAlacKernel, WasmAlacKernel.fromFile()];
  try {
    for (let round = 0; round < 8; round++) {
      const seed = randomInt(2 ** 31);
      const choose = rng(seed ^ 0x5a5a5a5a);
      const channels = choose() < 0.7 ? 2 : 1;
      const bitDepth = choose() < 0.7 ? 16 : 24;
      const frames = 1 + Math.floor(choose() * 9000);
      const level = Math.floor(choose() * 3);
      const what = `seed ${seed}: ${frames} frames, ${channels} channels, ${bitDepth}-bit, compression level ${level}`;
      const clip = makeClip(seed, frames, channels, bitDepth);
      const raw = path.join(directory, 'clip.raw');
      const caf = path.join(directory, 'clip.caf');
      writeFileSync(raw, pcmBytes(clip, bitDepth));
      execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', bitDepth === 16 ? 's16le' : 's24le', '-ar', '44100', '-ac', String(channels), '-i', raw, '-c:a', 'alac', '-compression_level', String(level), caf]);
      const { cookie, packets } = readCaf(readFileSync(caf));
      const config = alacConfigFromCookie(cookie);
      for (const kernel of kernels) {
        const decoder = createAlacDecoder(config, kernel);
        const decoded = new Int32Array(clip.length);
        let at = 0;
        for (const packet of packets) {
          const samples = decoder.decodeSamples(packet);
          decoded.set(samples, at);
          at += samples.length;
        }
        assert.equal(at, clip.length, `${kernel.name}, ${what}: samples`);
        const differs = decoded.findIndex((value, i) => value !== clip[i]);
        assert.equal(differs, -1, `${kernel.name}, ${what}: sample ${differs} is ${decoded[differs]}, expected ${clip[differs]}`);
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
