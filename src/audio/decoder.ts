// The audio decoder port (one RTP payload in, interleaved 16-bit PCM out) and its simplest build:
// L16, the uncompressed PCM of RFC 3551 4.5.11, big-endian on the wire (pyatv byteswaps its
// little-endian WAV frames before it sends them). ALAC's decoder is src/audio/alac/.

/** A payload or stream format the decoder refuses, with the reason in words. */
export class AudioDecodeError extends Error {
  override name = 'AudioDecodeError';
}

/** Decodes one RTP payload into interleaved frames (`length` is frames x channels). */
export interface AudioDecoder {
  /** Throws AudioDecodeError on a payload it cannot decode. */
  decode(payload: Uint8Array): Int16Array;
  /** Frees what the decoder holds outside the JavaScript heap (a native decoder's memory), once its stream ends. */
  close?(): void;
}

/** What the PCM decoder needs of the stream's format. */
export interface PcmFormat {
  readonly channels: number;
  readonly bitsPerSample: number;
  /** Frames each packet carries (352 from every sender seen); a packet may carry fewer, never more. */
  readonly framesPerPacket: number;
}

/** RFC 3551 4.5.11: L16 is 16-bit; this decoder plays no other depth. */
const L16_BITS = 16;
const BYTES_PER_SAMPLE = 2;

/**
 * The L16 decoder: each big-endian sample to a native Int16. A payload must hold a whole number
 * of frames, and at most `framesPerPacket` of them (the last packet of a stream may be short).
 */
export function createPcmDecoder(format: PcmFormat): AudioDecoder {
  if (format.bitsPerSample !== L16_BITS) throw new AudioDecodeError(`PCM of ${format.bitsPerSample} bits per sample: this decoder plays L16 (16 bits)`);
  if (!Number.isInteger(format.channels) || format.channels < 1 || format.channels > 8) throw new AudioDecodeError(`PCM of ${format.channels} channels: 1 to 8 are played`);
  const frameBytes = format.channels * BYTES_PER_SAMPLE;
  const maxBytes = format.framesPerPacket * frameBytes;
  return {
    decode(payload: Uint8Array): Int16Array {
      if (payload.length % frameBytes !== 0) throw new AudioDecodeError(`PCM payload of ${payload.length} bytes is not a whole number of ${frameBytes}-byte frames`);
      if (payload.length > maxBytes) throw new AudioDecodeError(`PCM payload of ${payload.length / frameBytes} frames, more than the stream's ${format.framesPerPacket} per packet`);
      const samples = new Int16Array(payload.length / BYTES_PER_SAMPLE);
      for (let i = 0, at = 0; i < samples.length; i++, at += 2) {
        // (high << 8 | low) as a signed 16-bit value.
        samples[i] = (payload[at] << 8) | payload[at + 1];
      }
      return samples;
    },
  };
}

/**
 * Makes a decoder of raw AAC access units for an AudioSpecificConfig, where a host has one
 * (libavcodec on the Moddable Linux and media-board builds: modules/native/vp-aac-decoder.ts).
 */
export type AacDecoderFactory = (config: Uint8Array, sampleRate: number, channels: number) => AudioDecoder;
