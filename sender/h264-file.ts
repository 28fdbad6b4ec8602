// The video the mirror command sends: an H.264 file read as an Annex B stream (an MP4, MOV or
// MKV through ffmpeg's h264_mp4toannexb, a raw .h264 as it is), cut into access units, with the
// SPS and PPS that make its avcC (spec 2.14 codec data) and its frame rate.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { buildAvcC, NAL_TYPE, groupAccessUnits, nalType, splitNalUnits } from '../src/mirror';
import { SendError } from './wire';

const run = promisify(execFile);

/** NAL units a mirroring sender carries in the codec data, not in video packets. */
const IN_CODEC_DATA: readonly number[] = [NAL_TYPE.sps, NAL_TYPE.pps, NAL_TYPE.accessUnitDelimiter];

export interface H264Clip {
  /** avcC from the first SPS and PPS (NAL lengths of 4 bytes). */
  readonly avcC: Uint8Array;
  /** Access units without parameter sets and delimiters (those travel in the codec data), as NAL units. */
  readonly accessUnits: readonly (readonly Uint8Array[])[];
  readonly framesPerSecond: number;
}

/** Files ffmpeg must unwrap; anything else is taken as a raw Annex B stream. */
const CONTAINER = /\.(mp4|m4v|mov|mkv)$/i;

async function annexB(file: string): Promise<Uint8Array> {
  if (!CONTAINER.test(file)) {
    try {
      return new Uint8Array(readFileSync(file));
    } catch (error) {
      throw new SendError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  try {
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:v:0', '-c:v', 'copy', '-bsf:v', 'h264_mp4toannexb', '-f', 'h264', '-'], {
      encoding: 'buffer',
      maxBuffer: 1024 * 1024 * 1024,
    });
    return new Uint8Array(stdout);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (failure.code === 'ENOENT') throw new SendError('ffmpeg is needed to read MP4/MOV/MKV files (apt-get install ffmpeg), or give a raw .h264 file');
    throw new SendError(`ffmpeg cannot read ${file}: ${failure.stderr?.toString().trim().split('\n').pop() ?? failure.message}`);
  }
}

/** The container's frame rate (ffprobe), or undefined for a raw stream. */
async function probeFrameRate(file: string): Promise<number | undefined> {
  if (!CONTAINER.test(file)) return undefined;
  try {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=avg_frame_rate', '-of', 'csv=p=0', file]);
    const [numerator, denominator] = stdout.trim().split('/').map(Number);
    const rate = numerator / (denominator || 1);
    return rate > 0 && Number.isFinite(rate) ? rate : undefined;
  } catch {
    return undefined;
  }
}

export async function readH264Clip(file: string, framesPerSecond?: number): Promise<H264Clip> {
  const stream = await annexB(file);
  const units = splitNalUnits(stream);
  const sps = units.filter((unit) => nalType(unit) === NAL_TYPE.sps);
  const pps = units.filter((unit) => nalType(unit) === NAL_TYPE.pps);
  if (sps.length === 0 || pps.length === 0) throw new SendError(`${file} holds no H.264 parameter sets (SPS and PPS): is it H.264?`);
  const accessUnits = groupAccessUnits(units)
    .map((unit) => unit.filter((nal) => !IN_CODEC_DATA.includes(nalType(nal))))
    .filter((unit) => unit.length > 0);
  if (accessUnits.length === 0) throw new SendError(`${file} holds no H.264 pictures`);
  // A sender sends one avcC: the stream's first SPS and PPS (the clips here have one of each).
  const avcC = buildAvcC([sps[0]], [pps[0]], 4);
  return { avcC, accessUnits, framesPerSecond: framesPerSecond ?? (await probeFrameRate(file)) ?? 30 };
}
