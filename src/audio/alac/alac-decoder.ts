// An ALAC stream's decoder for the receiver: one packet (one frame) in, interleaved PCM out, on
// the kernel the host passes (the portable build by default).

import type { AudioDecoder } from '../decoder';
import { checkAlacConfig, type AlacConfig } from './alac-config';
import { portableAlacKernel, type AlacKernel } from './alac-kernel';

export interface AlacDecoder extends AudioDecoder {
  readonly config: AlacConfig;
  /** The packet's PCM as interleaved 16-bit samples (frames x channels; 24-bit streams: their top 16 bits). */
  decode(packet: Uint8Array): Int16Array;
  /** The packet's PCM at the stream's own depth, sign-extended into 32 bits (for 24-bit streams and vectors). */
  decodeSamples(packet: Uint8Array): Int32Array;
}

/** A decoder for a stream with `config`; throws AudioDecodeError for a config it cannot decode. */
export function createAlacDecoder(config: AlacConfig, kernel: AlacKernel = portableAlacKernel): AlacDecoder {
  checkAlacConfig(config);
  const frameSamples = config.frameLength * config.numChannels;
  return {
    config,
    decode(packet) {
      // A new array each packet: the playout buffer keeps it.
      const output = new Int16Array(frameSamples);
      const frames = kernel.decode(config, packet, output);
      return frames === config.frameLength ? output : output.slice(0, frames * config.numChannels);
    },
    decodeSamples(packet) {
      const output = new Int32Array(frameSamples);
      const frames = kernel.decode(config, packet, output);
      return frames === config.frameLength ? output : output.slice(0, frames * config.numChannels);
    },
  };
}
