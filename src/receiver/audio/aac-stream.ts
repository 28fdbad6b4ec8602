// AAC-LC streams, where the host has a decoder (ReceiverPorts.aacDecoder): a classic
// `mpeg4-generic` ANNOUNCE (its fmtp's config and AU-headers layout, RFC 3640; one or more access
// units a packet behind an AU-headers section) and a session's ct 4 stream (raw access units of
// `spf` frames, the config implied by its rate and channels). AAC-ELD is not served: no sender
// here makes it (Debian's ffmpeg has no ELD encoder), so nothing shows this host plays it.

import { aacConfigBytes } from '../../audio/aac-config';
import { readAacFmtp } from '../../audio/aac-fmtp';
import { readAuHeaders } from '../../audio/aac-au-headers';
import { AudioDecodeError, type AacDecoderFactory, type AudioDecoder } from '../../audio/decoder';

/** Why a classic stream's fmtp is not played here, or undefined (its ANNOUNCE, before any decoder is opened). */
export function classicAacRefusal(fmtp: string, sampleRate: number, channels: number): string | undefined {
  try {
    const read = readAacFmtp(fmtp, { sampleRate, channels });
    return read.aac.objectType === 'lc' ? undefined : `AAC fmtp '${fmtp}': ${read.aac.objectType.toUpperCase()} is not played here (AAC-LC is)`;
  } catch (error) {
    if (error instanceof AudioDecodeError) return error.message;
    throw error;
  }
}

/** The decoder of a classic stream's packets, and the frames each access unit holds. */
export function classicAacDecoder(factory: AacDecoderFactory, fmtp: string, sampleRate: number, channels: number): { readonly decoder: AudioDecoder; readonly framesPerUnit: number } {
  const refusal = classicAacRefusal(fmtp, sampleRate, channels);
  if (refusal !== undefined) throw new AudioDecodeError(refusal);
  const read = readAacFmtp(fmtp, { sampleRate, channels });
  const units = factory(read.config, sampleRate, channels);
  const decoder: AudioDecoder = {
    close: () => units.close?.(),
    decode(payload) {
      const pieces = readAuHeaders(payload, read.auHeaders).map((unit) => units.decode(unit));
      if (pieces.length === 1) return pieces[0];
      const pcm = new Int16Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
      let at = 0;
      for (const piece of pieces) {
        pcm.set(piece, at);
        at += piece.length;
      }
      return pcm;
    },
  };
  return { decoder, framesPerUnit: read.aac.frameLength };
}

/** The decoder of a session stream's packets (ct 4): one raw access unit each. */
export function sessionAacDecoder(factory: AacDecoderFactory, framesPerPacket: number, sampleRate: number, channels: number): AudioDecoder {
  return factory(aacConfigBytes({ objectType: 'lc', sampleRate, channels, frameLength: framesPerPacket }), sampleRate, channels);
}
