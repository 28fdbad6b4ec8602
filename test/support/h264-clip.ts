// Test clips for screen mirroring (Node only: runs ffmpeg): H.264 made of solid colours, one
// colour a second, so a screenshot at a known time can be checked against a known colour. Split
// into access units as a mirroring sender sends them, with the codec string and avcC a receiver
// derives from the parameter sets.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildAvcC, codecString, parseAvcC } from '../../src/mirror/avcc';
import { annexB, decoderInput, NAL_TYPE, nalType, splitNalUnits, type AnnexBAccessUnit } from '../../src/mirror/annexb-stream';
import type { Rgb } from './color-blocks';

export interface ClipOptions {
  /** One colour per second, in order. */
  readonly colours: readonly Rgb[];
  readonly width?: number;
  readonly height?: number;
  readonly fps?: number;
}

export interface H264Clip {
  /** Annex B, 4-byte start codes; the clip's SPS and PPS before every key frame. */
  readonly accessUnits: AnnexBAccessUnit[];
  readonly fps: number;
  /** RFC 6381 `avc1.PPCCLL` from the SPS's profile, constraint flags and level. */
  readonly codec: string;
  /** The avcC record (ISO/IEC 14496-15) of the first SPS and PPS, 4-byte NAL unit lengths. */
  readonly avcC: Uint8Array;
  /** The first SPS and PPS, Annex B. */
  readonly parameterSets: Uint8Array;
}

const hex = (byte: number) => byte.toString(16).padStart(2, '0');

/** ffmpeg's arguments for the colour clip into `output` (`-f h264` Annex B or an .mp4). */
export function colourClipArguments(options: ClipOptions, output: string, format: 'h264' | 'mp4'): string[] {
  const { colours, width = 320, height = 240, fps = 30 } = options;
  const sources = colours.map(([r, g, b], i) => `color=c=0x${hex(r)}${hex(g)}${hex(b)}:s=${width}x${height}:r=${fps}:d=1[c${i}]`);
  // BT.709 conversion, said in the stream (VUI): a browser that had to guess would take another
  // matrix and draw pure green as rgb(0,216,1).
  const graph = `${sources.join(';')};${colours.map((_, i) => `[c${i}]`).join('')}concat=n=${colours.length}:v=1:a=0,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[v]`;
  return [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-filter_complex', graph, '-map', '[v]',
    // A key frame exactly every second, no B-frames (mirroring is low latency: decode order is
    // presentation order), parameter sets before every key frame (as mirroring sends them).
    '-c:v', 'libx264', '-preset', 'ultrafast',
    '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv',
    '-x264-params', `keyint=${fps}:min-keyint=${fps}:scenecut=0:bframes=0:repeat-headers=1`,
    '-f', format, output,
  ];
}

/** Makes the clip with ffmpeg and splits it into access units. */
export function makeColourClip(options: ClipOptions): H264Clip {
  const dir = mkdtempSync(path.join(tmpdir(), 'vp-clip-'));
  try {
    const file = path.join(dir, 'clip.h264');
    execFileSync('ffmpeg', colourClipArguments(options, file, 'h264'), { stdio: ['ignore', 'ignore', 'pipe'] });
    return splitClip(new Uint8Array(readFileSync(file)), options.fps ?? 30);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An Annex B stream as access units, with its codec string and avcC. */
export function splitClip(stream: Uint8Array, fps: number): H264Clip {
  const { accessUnits } = decoderInput(stream);
  const all = splitNalUnits(stream);
  const sps = all.find((unit) => nalType(unit) === NAL_TYPE.sps);
  const pps = all.find((unit) => nalType(unit) === NAL_TYPE.pps);
  if (!sps || !pps) throw new Error('the clip has no SPS or PPS');
  const avcC = buildAvcC([sps], [pps]);
  return { accessUnits, fps, codec: codecString(parseAvcC(avcC)), avcC, parameterSets: annexB([sps, pps]) };
}

