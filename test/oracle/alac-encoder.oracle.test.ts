// The sender's ALAC encoder (sender/audio/alac-encoder.ts) against ffmpeg's ALAC decoder: frames
// of 352 are wrapped in a CAF file (desc, kuki = the 24-byte ALACSpecificConfig, pakt = the
// packet sizes, data) and ffmpeg must decode them to the source PCM exactly. The sources: music-
// like audio ffmpeg makes (tones, pink noise, silence between), and edge signals written here
// (full-scale squares and steps for escapes and the verbatim fallback, clicks in silence for the
// runs of zeros, the one value after a run decoders read differently). Node only (runs ffmpeg).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { alacCookie, type AlacConfig } from '../../src/audio/alac';
import { RAOP_ALAC_CONFIG, createAlacEncoder } from '../../sender/audio/alac-encoder';

function run(command: string, args: string[], input?: Uint8Array): Uint8Array {
  const result = spawnSync(command, args, { input, maxBuffer: 256 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr.toString().slice(-2000)}`);
  return new Uint8Array(result.stdout);
}

/** ffmpeg's decoding of a CAF file, as interleaved 16-bit samples. */
function ffmpegDecode(caf: Uint8Array): Int16Array {
  const pcm = run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'caf', '-i', 'pipe:0', '-f', 's16le', 'pipe:1'], caf);
  return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
}

/** PCM made by ffmpeg from a lavfi graph: 44100 Hz, 16-bit, `channels` channels. */
function ffmpegPcm(graph: string, seconds: number, channels: number): Int16Array {
  const pcm = run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', graph, '-t', String(seconds), '-ac', String(channels), '-ar', '44100', '-f', 's16le', 'pipe:1']);
  return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength));
}

/** A CAF chunk: type, 64-bit size, body. */
function chunk(type: string, body: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(12 + body.length);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < 4; i++) bytes[i] = type.charCodeAt(i);
  view.setBigUint64(4, BigInt(body.length));
  bytes.set(body, 12);
  return bytes;
}

/** CAF's variable-length integer: 7 bits per byte, most significant first, the high bit on all but the last. */
function varint(value: number): number[] {
  const out = [value & 0x7f];
  for (value >>>= 7; value > 0; value >>>= 7) out.unshift(0x80 | (value & 0x7f));
  return out;
}

/** A CAF file of ALAC `packets` holding `frames` frames in all (Apple's CAF spec: desc, kuki, pakt, data). */
function caf(config: AlacConfig, packets: Uint8Array[], frames: number): Uint8Array {
  const desc = new Uint8Array(32);
  const descView = new DataView(desc.buffer);
  descView.setFloat64(0, config.sampleRate);
  desc.set([0x61, 0x6c, 0x61, 0x63], 8); // 'alac'
  descView.setUint32(12, 1); // kAppleLosslessFormatFlag_16BitSourceData
  descView.setUint32(16, 0); // bytes per packet: variable
  descView.setUint32(20, config.frameLength);
  descView.setUint32(24, config.numChannels);
  descView.setUint32(28, 0);
  const sizes = packets.flatMap((packet) => varint(packet.length));
  const pakt = new Uint8Array(24 + sizes.length);
  const paktView = new DataView(pakt.buffer);
  paktView.setBigInt64(0, BigInt(packets.length));
  paktView.setBigInt64(8, BigInt(frames));
  paktView.setInt32(16, 0); // priming frames
  paktView.setInt32(20, packets.length * config.frameLength - frames); // remainder frames
  pakt.set(sizes, 24);
  const data = new Uint8Array(4 + packets.reduce((sum, packet) => sum + packet.length, 0));
  let at = 4; // edit count 0
  for (const packet of packets) {
    data.set(packet, at);
    at += packet.length;
  }
  const parts = [Uint8Array.from([0x63, 0x61, 0x66, 0x66, 0, 1, 0, 0]), chunk('desc', desc), chunk('kuki', alacCookie(config)), chunk('pakt', pakt), chunk('data', data)];
  const file = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  at = 0;
  for (const part of parts) {
    file.set(part, at);
    at += part.length;
  }
  return file;
}

/** Encodes interleaved PCM in frames of frameLength (the last one partial). */
function encodeAll(config: AlacConfig, pcm: Int16Array): Uint8Array[] {
  const encoder = createAlacEncoder(config);
  const step = config.frameLength * config.numChannels;
  const packets: Uint8Array[] = [];
  for (let at = 0; at < pcm.length; at += step) {
    const piece = pcm.subarray(at, Math.min(at + step, pcm.length));
    packets.push(encoder.encode(piece, piece.length / config.numChannels));
  }
  return packets;
}

function assertRoundTrip(config: AlacConfig, pcm: Int16Array, what: string): Uint8Array[] {
  const packets = encodeAll(config, pcm);
  const decoded = ffmpegDecode(caf(config, packets, pcm.length / config.numChannels));
  assert.equal(decoded.length, pcm.length, `${what}: sample count`);
  const first = decoded.findIndex((sample, i) => sample !== pcm[i]);
  assert.equal(first, -1, `${what}: first difference at sample ${first} (frame ${Math.floor(first / config.numChannels / config.frameLength)})`);
  return packets;
}

const MUSIC = 'sine=frequency=220:sample_rate=44100,volume=0.6[a];anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=44100[b];sine=frequency=1375:sample_rate=44100,volume=0.2[c];[a][b][c]amix=inputs=3:normalize=0';

for (const channels of [2, 1]) {
  const config = { ...RAOP_ALAC_CONFIG, numChannels: channels };

  test(`${channels}-channel music-like audio (tones and pink noise, 3.3 s, a partial last frame): ffmpeg decodes our frames to the source exactly, compressed`, () => {
    const pcm = ffmpegPcm(MUSIC, 3.3, channels);
    assert.ok(pcm.length % (352 * channels) !== 0, 'the last frame is partial');
    const packets = assertRoundTrip(config, pcm, 'music');
    const bytes = packets.reduce((sum, packet) => sum + packet.length, 0);
    assert.ok(bytes < 0.8 * pcm.length * 2, `${bytes} bytes for ${pcm.length * 2} bytes of PCM`);
  });

  test(`${channels}-channel silence, clicks in silence, full-scale squares and steps, white noise: ffmpeg decodes them exactly`, () => {
    const frames = 352 * 14 + 77;
    const pcm = new Int16Array(frames * channels);
    let seed = 12345;
    for (let i = 0; i < frames; i++) {
      const part = Math.floor(i / 704);
      for (let c = 0; c < channels; c++) {
        let value = 0;
        if (part === 1) value = i % 61 === 0 ? (c === 0 ? 32767 : -32768) : 0;
        else if (part === 2) value = Math.floor(i / 9) % 2 === 0 ? 32767 : -32768;
        else if (part === 3) value = i % 704 < 350 ? 0 : c === 0 ? 32767 : -32768;
        else if (part === 4) {
          seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
          value = (seed >>> 16) - 32768;
        } else if (part === 5) value = i % 704 < 500 ? 0 : 32768 - 1 - (i % 3);
        // A side channel (left - right) of 32768 right after silence: folded, 0xFFFF after a run,
        // the one value decoders step differently on; the encoder must send it another way.
        else if (part === 6) value = i % 704 < 400 ? 0 : c === 0 ? 32767 : -1;
        pcm[i * channels + c] = value;
      }
    }
    assertRoundTrip(config, pcm, 'edges');
  });
}
