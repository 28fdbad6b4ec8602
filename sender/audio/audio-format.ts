// What the audio command sends, said once for both paths: the codecs (their SDP rtpmap for a
// classic ANNOUNCE, their ct and audioFormat for a session's stream SETUP), the ANNOUNCE body,
// and each packet's payload (L16 big-endian, or one ALAC frame) from 352 frames of PCM.

import { alacFmtp } from '../../src/audio/alac';
import { COMPRESSION_TYPES, compressionTypeOf } from '../../src/audio/compression-types';
import { RAOP_ALAC_CONFIG, createAlacEncoder } from './alac-encoder';

export type SenderCodec = 'pcm' | 'alac';

/** One row per codec: its SDP rtpmap (a classic ANNOUNCE), its ct and audioFormat (src/audio's table, a session's stream SETUP). */
export const SENDER_CODECS: Readonly<Record<SenderCodec, { readonly rtpmap: string; readonly ct: number; readonly audioFormat: number }>> = {
  pcm: codecRow('pcm', 'L16/44100/2'),
  alac: codecRow('alac', 'AppleLossless'),
};

function codecRow(codec: SenderCodec, rtpmap: string): { readonly rtpmap: string; readonly ct: number; readonly audioFormat: number } {
  const ct = compressionTypeOf(codec);
  return { rtpmap, ct, audioFormat: COMPRESSION_TYPES[ct].audioFormat! };
}

export interface AnnounceFields {
  readonly codec: SenderCodec;
  /** The number in the session's URL (pyatv: also the SSRC). */
  readonly sessionId: number;
  readonly localAddress: string;
  readonly remoteAddress: string;
  readonly latencyFrames: number;
}

/**
 * The SDP of a classic ANNOUNCE as pyatv and iTunes write it (CRLF lines), with the latency as
 * a=min-latency (iTunes' attribute; the receiver plays the stream that far behind). PCM carries
 * the ALAC-shaped fmtp too (pyatv): its first field is the frames per packet.
 */
export function announceSdp(fields: AnnounceFields): string {
  const family = (address: string) => (address.includes(':') ? 'IP6' : 'IP4');
  return [
    'v=0',
    `o=iTunes ${fields.sessionId} 0 IN ${family(fields.localAddress)} ${fields.localAddress}`,
    's=iTunes',
    `c=IN ${family(fields.remoteAddress)} ${fields.remoteAddress}`,
    't=0 0',
    'm=audio 0 RTP/AVP 96',
    `a=rtpmap:96 ${SENDER_CODECS[fields.codec].rtpmap}`,
    `a=fmtp:96 ${alacFmtp(RAOP_ALAC_CONFIG)}`,
    `a=min-latency:${fields.latencyFrames}`,
    '',
  ].join('\r\n');
}

/** Turns a packet's frames (interleaved 16-bit, host order) into its RTP payload. */
export type PayloadEncoder = (pcm: Int16Array, frames: number) => Uint8Array;

export function payloadEncoder(codec: SenderCodec): PayloadEncoder {
  if (codec === 'alac') {
    const encoder = createAlacEncoder(RAOP_ALAC_CONFIG);
    return (pcm, frames) => encoder.encode(pcm, frames);
  }
  // L16 is big-endian (RFC 3551 4.5.11); pyatv byte-swaps its little-endian samples the same way.
  return (pcm, frames) => {
    const bytes = new Uint8Array(frames * RAOP_ALAC_CONFIG.numChannels * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < frames * RAOP_ALAC_CONFIG.numChannels; i++) view.setInt16(2 * i, pcm[i]);
    return bytes;
  };
}
