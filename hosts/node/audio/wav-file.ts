// The RIFF/WAVE header of 16-bit PCM (the canonical 44-byte form: RIFF, fmt of 16 bytes with
// WAVE_FORMAT_PCM, data), and its two sizes, rewritten as a file grows.

import type { AudioFormat } from '../../../src/platform';

export const WAV_HEADER_BYTES = 44;
/** Where the two sizes are: the RIFF chunk's (file length - 8) and the data chunk's. */
export const WAV_RIFF_SIZE_OFFSET = 4;
export const WAV_DATA_SIZE_OFFSET = 40;
/** The data chunk's size is 32-bit and the RIFF chunk holds the 36 header bytes after its size too. */
export const WAV_MAX_DATA_BYTES = 0xffffffff - 36;

const WAVE_FORMAT_PCM = 1;
const BITS_PER_SAMPLE = 16;

/** The header of a file of `format` holding `dataBytes` of samples. */
export function wavHeader(format: AudioFormat, dataBytes: number): Uint8Array {
  const header = new Uint8Array(WAV_HEADER_BYTES);
  const view = new DataView(header.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) header[offset + i] = text.charCodeAt(i);
  };
  const blockAlign = format.channels * (BITS_PER_SAMPLE / 8);
  ascii(0, 'RIFF');
  view.setUint32(WAV_RIFF_SIZE_OFFSET, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, WAVE_FORMAT_PCM, true);
  view.setUint16(22, format.channels, true);
  view.setUint32(24, format.sampleRate, true);
  view.setUint32(28, format.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, BITS_PER_SAMPLE, true);
  ascii(36, 'data');
  view.setUint32(WAV_DATA_SIZE_OFFSET, dataBytes, true);
  return header;
}

/** A 32-bit little-endian size field's bytes. */
export function sizeField(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

/** Whether this machine keeps numbers little-endian (an Int16Array's bytes are then WAV's and ALSA's S16_LE as they are). */
export const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The samples as little-endian bytes: a view on a little-endian host, a swapped copy elsewhere. */
export function littleEndianBytes(pcm: Int16Array): Uint8Array {
  if (HOST_LITTLE_ENDIAN) return new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const bytes = new Uint8Array(pcm.byteLength);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < pcm.length; i++) view.setInt16(i * 2, pcm[i], true);
  return bytes;
}
