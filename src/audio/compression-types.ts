// The compression types of a session's realtime stream (`ct` in its SETUP) and the audioFormat bit
// each is sent with, one row each: the receiver reads them, the sender tool writes them. Not in the
// spec; as senders in the field number them (pyatv sends ct 1 with audioFormat 0x800, PCM
// 44100/16/2; iOS and shairport-sync name ALAC 44100/16/2 bit 18, 0x40000).

import type { AudioCodec } from './sdp';

export interface CompressionType {
  readonly name: string;
  /** The codec this project decodes it with, where it does. */
  readonly codec?: AudioCodec;
  /** The audioFormat of its 44100 Hz, 16-bit, stereo form, where a sender here sends it. */
  readonly audioFormat?: number;
}

export const COMPRESSION_TYPES: Readonly<Record<number, CompressionType>> = {
  1: { name: 'PCM', codec: 'pcm', audioFormat: 0x800 },
  2: { name: 'ALAC', codec: 'alac', audioFormat: 0x40000 },
  4: { name: 'AAC-LC', codec: 'aac' },
  8: { name: 'AAC-ELD' },
};

/** The ct of a codec (the first row that names it). */
export function compressionTypeOf(codec: AudioCodec): number {
  for (const [ct, row] of Object.entries(COMPRESSION_TYPES)) if (row.codec === codec) return Number(ct);
  throw new RangeError(`no compression type for ${codec}`);
}
