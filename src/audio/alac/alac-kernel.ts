// The ALAC decoder's hot loop as a kernel contract (DESIGN 5), like the frame and NAL kernels:
// one call decodes one packet into an output buffer, given the stream's config. One contract,
// three builds: this portable reference, the AssemblyScript build (assemblyscript/alac-kernel.ts)
// and the C native (modules/native/vp-alac.c); all pass test/vectors/alac.json.

import { AlacBitReader } from './alac-bit-reader';
import type { AlacConfig } from './alac-config';
import { alacFaultError } from './alac-faults';
import { AlacScratch, decodeAlacFrame } from './alac-frame';

export interface AlacKernel {
  /** What the log and benches call this build ('portable', 'wasm', 'native'). */
  readonly name: string;
  /**
   * Decodes one packet (one ALAC frame) of a stream with `config` (checked by checkAlacConfig)
   * into `output`, interleaved: an Int32Array gets the samples as they are (any bit depth), an
   * Int16Array their top 16 bits. `output` must hold config.frameLength * config.numChannels
   * samples (a RangeError otherwise). Returns the samples per channel written: frameLength, or
   * fewer for a partial frame (a stream's last). Throws AudioDecodeError for a packet it cannot
   * decode (alacFaultError: the same words from every build).
   */
  decode(config: AlacConfig, packet: Uint8Array, output: Int16Array | Int32Array): number;
}

/** A RangeError for an output that cannot hold a full frame (every build checks it alike). */
export function checkAlacOutput(config: AlacConfig, output: Int16Array | Int32Array): void {
  const needed = config.frameLength * config.numChannels;
  if (output.length < needed) throw new RangeError(`ALAC output of ${output.length} samples: a frame needs ${needed}`);
}

const reader = new AlacBitReader();
const scratch = new AlacScratch();

/** The portable build (its buffers are shared: decoding is synchronous). */
export const portableAlacKernel: AlacKernel = {
  name: 'portable',
  decode(config, packet, output) {
    checkAlacOutput(config, output);
    reader.load(packet);
    const frames = decodeAlacFrame(config, reader, output, scratch);
    if (frames < 0) throw alacFaultError(-frames, packet.length);
    return frames;
  },
};
