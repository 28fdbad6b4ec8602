// The audio bench's workloads (audio.bench.ts on Node, audio-xs.bench.ts in the XS test host):
// packets of the shared ALAC vectors (test/vectors/alac.json, ffmpeg's encoder), each with the
// PCM it must decode to, so every build's output is checked before it is timed. Portable: src/
// and JSON only (it is bundled into XS too). Not a bench group itself: run.ts does not list it.

import { fromHex } from '../../src/bytes';
import { alacConfigFromCookie, type AlacConfig, type AlacKernel } from '../../src/audio/alac';
import { alacVectors, casePackets, expectedSamples } from '../kernels/alac-vectors';

export interface AlacWorkload {
  readonly name: string;
  readonly config: AlacConfig;
  readonly packet: Uint8Array;
  /** Samples per channel in the packet. */
  readonly frames: number;
  /** The packet's samples as decode writes them into `output` (16-bit streams: Int16; 24-bit: Int32). */
  readonly expected: Int16Array | Int32Array;
  /** Seconds of audio in the packet. */
  readonly seconds: number;
}

/** Vector cases timed, by index: full 4096-sample frames of stereo music-like signals, and noise. */
const TIMED = [
  { index: 3, packet: 0, name: 'stereo 16-bit tones, full frame' },
  { index: 4, packet: 0, name: 'stereo 16-bit sweep' },
  { index: 9, packet: 0, name: 'stereo 24-bit sweep, full frame' },
  { index: 2, packet: 0, name: 'mono 16-bit white noise (verbatim)' },
];

export function alacWorkloads(): AlacWorkload[] {
  return TIMED.map(({ index, packet, name }) => {
    const vector = alacVectors.cases[index];
    const config = alacConfigFromCookie(fromHex(vector.cookie));
    const packets = casePackets(vector);
    const frames = packet < packets.length - 1 ? config.frameLength : vector.frames - packet * config.frameLength;
    const all = expectedSamples(vector);
    const samples = all.subarray(packet * config.frameLength * config.numChannels, (packet * config.frameLength + frames) * config.numChannels);
    const expected = config.bitDepth === 16 ? Int16Array.from(samples) : Int32Array.from(samples);
    return { name, config, packet: packets[packet], frames, expected, seconds: frames / config.sampleRate };
  });
}

/** An output buffer of the type `workload` decodes into (a full frame). */
export function outputFor(workload: AlacWorkload): Int16Array | Int32Array {
  const size = workload.config.frameLength * workload.config.numChannels;
  return workload.config.bitDepth === 16 ? new Int16Array(size) : new Int32Array(size);
}

/** Throws unless `kernel` decodes `workload` to its expected samples (into `output`). */
export function checkDecode(kernel: AlacKernel, workload: AlacWorkload, output: Int16Array | Int32Array): void {
  const frames = kernel.decode(workload.config, workload.packet, output);
  if (frames !== workload.frames) throw new Error(`${kernel.name}: ${workload.name} gave ${frames} frames, expected ${workload.frames}`);
  for (let i = 0; i < workload.expected.length; i++) {
    if (output[i] !== workload.expected[i]) throw new Error(`${kernel.name}: ${workload.name} sample ${i} is ${output[i]}, expected ${workload.expected[i]}`);
  }
}
