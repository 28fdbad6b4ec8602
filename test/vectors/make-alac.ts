// Writes alac.json: PCM clips made here (silence, noise, tones, sweeps, clicks; 16 and 24 bit;
// mono and stereo), encoded by ffmpeg's ALAC encoder into CAF, each clip's packets read out of
// the CAF (its pakt chunk: one variable-length size per packet) with its magic cookie (kuki),
// and the PCM each must decode to: the clip itself, since ALAC is lossless (ffmpeg's own decoder
// is checked to give it back too). ffmpeg writes 4096-sample frames (it ignores -frame_size), so
// the clips are short: most are one partial frame, two hold a full frame and a partial one.
// Run once where ffmpeg is installed; the JSON is committed and checked by every build of the
// ALAC kernel (TypeScript, AssemblyScript, C):
//   node --import tsx test/vectors/make-alac.ts

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCaf } from './alac-caf';

const RATE = 44100;

/** A deterministic generator (no Math.random: rerunning gives the same file). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

type Signal = (frame: number, channel: number) => number;

interface Clip {
  name: string;
  what: string;
  channels: number;
  bitDepth: 16 | 24;
  frames: number;
  /** A sample in -1..1 (clipped to the depth). */
  signal: Signal;
  ffmpeg?: string[];
}

const sine = (hz: number, amplitude: number): Signal => (frame) => amplitude * Math.sin((2 * Math.PI * hz * frame) / RATE);
const noise = (seed: number, amplitude: number): Signal => {
  const next = [rng(seed), rng(seed + 1)];
  return (_frame, channel) => amplitude * (2 * next[channel]() - 1);
};
const sweep = (from: number, to: number, frames: number, amplitude: number): Signal => (frame, channel) => {
  // A linear chirp; the right channel a little behind the left (correlated: mid/side mixing pays).
  const t = (frame - channel * 3) / RATE;
  const span = frames / RATE;
  return amplitude * Math.sin(2 * Math.PI * (from * t + ((to - from) * t * t) / (2 * span)));
};
const clicks = (every: number): Signal => (frame) => (frame % every === 0 ? 0.6 : frame % every === 1 ? -0.3 : 0);

const CLIPS: Clip[] = [
  { name: 'silence, stereo 16-bit', what: 'zero runs all through', channels: 2, bitDepth: 16, frames: 600, signal: () => 0 },
  { name: 'clicks, mono 16-bit', what: 'runs of zeros between single values (the value after a run)', channels: 1, bitDepth: 16, frames: 1500, signal: clicks(97) },
  { name: 'white noise, mono 16-bit', what: 'full-scale noise: large Rice values and escapes', channels: 1, bitDepth: 16, frames: 1200, signal: noise(7, 0.99) },
  {
    name: 'sine 440 Hz / 660 Hz, stereo 16-bit, a full frame and a partial one',
    what: 'a full 4096-sample frame (no partial header), then a short last frame',
    channels: 2,
    bitDepth: 16,
    frames: 4096 + 352,
    signal: (frame, channel) => sine(channel === 0 ? 440 : 660, 0.5)(frame, channel),
  },
  { name: 'sweep 100 Hz to 15 kHz, stereo 16-bit', what: 'correlated channels: stereo mixing', channels: 2, bitDepth: 16, frames: 2000, signal: sweep(100, 15000, 2000, 0.7) },
  {
    name: 'sine left, quiet noise right, stereo 16-bit, prediction orders 20 to 30',
    what: 'long predictors',
    channels: 2,
    bitDepth: 16,
    frames: 1800,
    signal: (frame, channel) => (channel === 0 ? sine(1000, 0.8)(frame, 0) : noise(11, 0.01)(frame, 0)),
    ffmpeg: ['-min_prediction_order', '20', '-max_prediction_order', '30'],
  },
  {
    name: 'sine and noise, stereo 16-bit, compression level 0',
    what: 'ffmpeg level 0: verbatim (escape) frames',
    channels: 2,
    bitDepth: 16,
    frames: 900,
    signal: (frame, channel) => sine(300, 0.4)(frame, channel) + noise(3, 0.1)(frame, channel),
    ffmpeg: ['-compression_level', '0'],
  },
  { name: 'sine 1 kHz, mono 24-bit', what: '24-bit: the low byte in the shift buffer', channels: 1, bitDepth: 24, frames: 1500, signal: sine(1000, 0.9) },
  { name: 'white noise, stereo 24-bit', what: '24-bit full-scale noise: escape frames', channels: 2, bitDepth: 24, frames: 700, signal: noise(5, 0.99) },
  {
    name: 'sweep 50 Hz to 8 kHz, stereo 24-bit, a full frame and a partial one',
    what: '24-bit stereo: mixing and the shift buffer, full and partial frames',
    channels: 2,
    bitDepth: 24,
    frames: 4096 + 100,
    signal: sweep(50, 8000, 4196, 0.8),
  },
];

/** The clip as interleaved little-endian PCM (s16le or s24le). */
function makePcm(clip: Clip): Buffer {
  const bytes = clip.bitDepth / 8;
  const max = 2 ** (clip.bitDepth - 1) - 1;
  const pcm = Buffer.alloc(clip.frames * clip.channels * bytes);
  let at = 0;
  for (let frame = 0; frame < clip.frames; frame++) {
    for (let channel = 0; channel < clip.channels; channel++) {
      const value = Math.max(-max - 1, Math.min(max, Math.round(clip.signal(frame, channel) * max)));
      pcm.writeIntLE(value, at, bytes);
      at += bytes;
    }
  }
  return pcm;
}

/** The 24-byte ALACSpecificConfig inside a cookie (after 'frma' and 'alac' atoms when present). */
function configBytes(cookie: Buffer): Buffer {
  const alac = cookie.indexOf('alac', 0, 'latin1');
  // 'alac' as the format in a frma atom comes first; the atom header's 'alac' is the one 4 bytes after a size.
  const atom = cookie.indexOf('alac', alac + 1, 'latin1');
  const start = atom >= 0 ? atom + 8 : alac >= 0 ? alac + 8 : 0;
  return cookie.subarray(start, start + 24);
}

function configOf(bytes: Buffer) {
  return {
    frameLength: bytes.readUInt32BE(0),
    compatibleVersion: bytes[4],
    bitDepth: bytes[5],
    pb: bytes[6],
    mb: bytes[7],
    kb: bytes[8],
    numChannels: bytes[9],
    maxRun: bytes.readUInt16BE(10),
    maxFrameBytes: bytes.readUInt32BE(12),
    avgBitRate: bytes.readUInt32BE(16),
    sampleRate: bytes.readUInt32BE(20),
  };
}

/** Escape frames: the element header's escape bit (bit 23 of the frame after the 3-bit tag). */
function isEscape(packet: Buffer): boolean {
  const header = packet.readUInt32BE(0);
  return ((header >>> (32 - 3 - 4 - 12 - 4)) & 1) === 1;
}

const directory = mkdtempSync(path.join(tmpdir(), 'vendorplay-alac-'));
const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
const cases = [];
try {
  for (const clip of CLIPS) {
    const pcm = makePcm(clip);
    const format = clip.bitDepth === 16 ? 's16le' : 's24le';
    const raw = path.join(directory, 'clip.raw');
    const caf = path.join(directory, 'clip.caf');
    writeFileSync(raw, pcm);
    ffmpeg(['-f', format, '-ar', String(RATE), '-ac', String(clip.channels), '-i', raw, '-c:a', 'alac', ...(clip.ffmpeg ?? []), caf]);
    const file = readFileSync(caf);
    const { cookie, packets, framesPerPacket, validFrames } = readCaf(file);
    // ffmpeg's CAF muxer counts every packet as full in pakt (its valid frames say packets x 4096): not checked.
    void validFrames;
    // ffmpeg's own decoder gives the clip back (the expectation is the clip itself).
    const back = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', caf, '-f', clip.bitDepth === 16 ? 's16le' : 's32le', '-'], { maxBuffer: 64 << 20 });
    const decoded = clip.bitDepth === 16 ? back : Buffer.from(Array.from({ length: back.length / 4 }, (_, i) => [...back.subarray(4 * i + 1, 4 * i + 4)]).flat());
    if (!decoded.equals(pcm)) throw new Error(`${clip.name}: ffmpeg's decoder does not give the clip back`);
    const config = configOf(configBytes(cookie));
    if (config.frameLength !== framesPerPacket || config.bitDepth !== clip.bitDepth || config.numChannels !== clip.channels) throw new Error(`${clip.name}: the cookie disagrees with the clip`);
    cases.push({
      name: clip.name,
      what: clip.what,
      encoder: `ffmpeg -f ${format} -ar ${RATE} -ac ${clip.channels} -i clip.raw -c:a alac ${(clip.ffmpeg ?? []).join(' ')} clip.caf`.replace(/\s+/g, ' '),
      config,
      cookie: cookie.toString('hex'),
      escapeFrames: packets.filter(isEscape).length,
      packets: packets.map((packet) => packet.toString('base64')),
      frames: clip.frames,
      pcmFormat: format,
      pcm: pcm.toString('base64'),
      pcmSha256: createHash('sha256').update(pcm).digest('hex'),
    });
    process.stderr.write(`${clip.name}: ${packets.length} packets (${packets.map((p) => p.length).join(', ')} bytes), ${cases.at(-1)!.escapeFrames} escape\n`);
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}

const version = execFileSync('ffmpeg', ['-version']).toString().split('\n')[0];
const vectors = {
  description:
    'ALAC kernel (src/audio/alac/kernel.ts): each case is a PCM clip encoded by ffmpeg\'s ALAC encoder into CAF; packets are the CAF\'s packets in order (base64), cookie its kuki chunk (hex; alacConfigFromCookie reads config from it), pcm the clip itself (base64, interleaved little-endian s16le or s24le), which the packets must decode to exactly: ALAC is lossless. The last packet of each case is a partial frame (fewer samples than frameLength).',
  encoder: version,
  cases,
};
writeFileSync(new URL('./alac.json', import.meta.url), `${JSON.stringify(vectors, null, 1)}\n`);
