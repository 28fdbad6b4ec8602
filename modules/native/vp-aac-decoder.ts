// The AudioDecoder port (src/audio/decoder.ts) for AAC streams on the natives of vp-aac.c
// (libavcodec's AAC decoder): one raw access unit in (an RFC 3640 packet's units once
// readAuHeaders took them apart, or a session stream's payload as it is), interleaved 16-bit
// frames out. The config is checked here first (AAC-LC or AAC-ELD, the stream's own rate and
// channels), so the natives see only what they can open; whatever libavcodec refuses becomes
// the AudioDecodeError every decoder of the port throws.

import { AudioDecodeError, type AudioDecoder } from '../../src/audio/decoder';
import { readAacConfig, type AacConfig } from '../../src/audio/aac-config';
import type { NativeAac } from './natives';

/** The most an access unit holds: 6144 bits per channel (ISO 14496-3 4.5.3.1), 8 channels (vp-aac.c's bound). */
const MAX_UNIT_BYTES = 768 * 8;

/** An AAC decoder on the natives; flush when the stream jumps, close to free libavcodec's decoder now. */
export interface NativeAacDecoder extends AudioDecoder {
  readonly config: AacConfig;
  /** The stream jumps (a flush, lost units): the next unit does not overlap the previous one. */
  flush(): void;
  /** Frees the decoder; decode throws after. */
  close(): void;
}

/** XS builds with mxDebug put the native's name before a host function's message ("@xs_vp_aac_decode: "). */
const HOST_FUNCTION_PREFIX = /^@\w+: /;

/** What the natives threw, as the port's error: data libavcodec refused. A wrong call (TypeError, RangeError) stays as it is. */
function portError(error: unknown): unknown {
  if (error instanceof TypeError || error instanceof RangeError) return error;
  return new AudioDecodeError((error instanceof Error ? error.message : String(error)).replace(HOST_FUNCTION_PREFIX, ''));
}

/**
 * An AudioDecoder for the AAC stream whose AudioSpecificConfig is `config` (aacConfigFromFmtp of
 * its SDP, or aacConfigBytes of what a session stream implies), at the stream's sampleRate and
 * channels, on `natives` (the module "modules/native/vp-aac" where `available`, or the XS test
 * host's `__vpAac`). Throws AudioDecodeError for a config that is not AAC-LC or AAC-ELD, or
 * describes another rate or channel count, or libavcodec does not open (ELD with low-delay SBR).
 */
export function createNativeAacDecoder(config: Uint8Array, sampleRate: number, channels: number, natives: NativeAac): NativeAacDecoder {
  const aac = readAacConfig(config);
  if (aac.sampleRate !== sampleRate || aac.channels !== channels) {
    throw new AudioDecodeError(`AAC config says ${aac.sampleRate} Hz, ${aac.channels} channels; the stream is ${sampleRate} Hz, ${channels} channels`);
  }
  if (aac.lowDelaySbr) throw new AudioDecodeError('AAC-ELD with low-delay SBR is not played (libavcodec does not decode it)');
  let decoder;
  try {
    decoder = natives.aacOpen(config, sampleRate, channels);
  } catch (error) {
    throw portError(error);
  }
  const handle = decoder;
  // One output for every unit, sized for the most a unit decodes to; xsmc takes byte arrays only.
  const samples = new Int16Array(aac.frameLength * channels);
  const bytes = new Uint8Array(samples.buffer);
  return {
    config: aac,
    decode(unit: Uint8Array): Int16Array {
      if (unit.length === 0 || unit.length > MAX_UNIT_BYTES) throw new AudioDecodeError(`AAC access unit of ${unit.length} bytes: 1 to ${MAX_UNIT_BYTES}`);
      let frames;
      try {
        frames = natives.aacDecode(handle, unit, bytes);
      } catch (error) {
        throw portError(error);
      }
      return samples.slice(0, frames * channels);
    },
    flush(): void {
      natives.aacFlush(handle);
    },
    close(): void {
      natives.aacClose(handle);
    },
  };
}
