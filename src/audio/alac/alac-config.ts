// The ALAC stream's parameters (ALACSpecificConfig, Apple's ALAC "magic cookie"), as a sender
// gives them: classic RAOP in the SDP's fmtp line (`a=fmtp:96 352 0 16 40 10 14 2 255 0 0 44100`),
// a file or an encoder as the 24-byte cookie, possibly inside its 'alac' atom (MP4, CAF's kuki).

import { AudioDecodeError } from '../decoder';

/** ALACSpecificConfig, field by field in the order of the cookie and of the fmtp line. */
export interface AlacConfig {
  /** Samples per channel in a full frame (352 for RAOP, 4096 for files). */
  readonly frameLength: number;
  readonly compatibleVersion: number;
  /** Bits per sample: 16 (every AirPlay sender), 20 or 24. */
  readonly bitDepth: number;
  /** The adaptive Golomb coder's history multiplier (40). */
  readonly pb: number;
  /** Its initial history (10). */
  readonly mb: number;
  /** Its limit on the Rice parameter k (14). */
  readonly kb: number;
  readonly numChannels: number;
  readonly maxRun: number;
  /** 0 when unknown. */
  readonly maxFrameBytes: number;
  /** 0 when unknown. */
  readonly avgBitRate: number;
  readonly sampleRate: number;
}

/** The cookie's fields in order with their byte sizes (Apple's ALACSpecificConfig): one table for reading and writing. */
const COOKIE_FIELDS: readonly (readonly [keyof AlacConfig, 1 | 2 | 4])[] = [
  ['frameLength', 4],
  ['compatibleVersion', 1],
  ['bitDepth', 1],
  ['pb', 1],
  ['mb', 1],
  ['kb', 1],
  ['numChannels', 1],
  ['maxRun', 2],
  ['maxFrameBytes', 4],
  ['avgBitRate', 4],
  ['sampleRate', 4],
];

/** The size of ALACSpecificConfig. */
export const ALAC_COOKIE_BYTES = 24;

/** The bit depths decoded here (Apple's decoder also has 32, which no sender uses). */
export const ALAC_BIT_DEPTHS: readonly number[] = [16, 20, 24];

/** Most channels a frame may carry (Apple's channel layouts go to 8). */
export const ALAC_MAX_CHANNELS = 8;

/** Largest frameLength taken: Apple's encoder default is 4096; this bounds the work buffers. */
export const ALAC_MAX_FRAME_LENGTH = 16384;

/** Throws AudioDecodeError when `config` is not one this decoder can decode; returns it otherwise. */
export function checkAlacConfig(config: AlacConfig): AlacConfig {
  const { frameLength, bitDepth, numChannels } = config;
  if (!ALAC_BIT_DEPTHS.includes(bitDepth)) throw new AudioDecodeError(`ALAC bit depth ${bitDepth}: this decoder takes ${ALAC_BIT_DEPTHS.join(', ')}`);
  if (!Number.isInteger(frameLength) || frameLength < 1 || frameLength > ALAC_MAX_FRAME_LENGTH) throw new AudioDecodeError(`ALAC frame length ${frameLength}: 1 to ${ALAC_MAX_FRAME_LENGTH} samples`);
  if (!Number.isInteger(numChannels) || numChannels < 1 || numChannels > ALAC_MAX_CHANNELS) throw new AudioDecodeError(`ALAC channel count ${numChannels}: 1 to ${ALAC_MAX_CHANNELS}`);
  return config;
}

/**
 * The config in an SDP fmtp line's parameters after the payload type, in the cookie's order:
 * `352 0 16 40 10 14 2 255 0 0 44100` (frameLength, compatibleVersion, bitDepth, pb, mb, kb,
 * numChannels, maxRun, maxFrameBytes, avgBitRate, sampleRate). A leading payload type
 * (`96 352 ...`) is not part of it: callers pass what follows it.
 */
export function parseAlacFmtp(fmtp: string): AlacConfig {
  const words = fmtp.trim().split(/\s+/);
  if (words.length !== COOKIE_FIELDS.length) throw new AudioDecodeError(`ALAC fmtp "${fmtp}": ${words.length} parameters, expected ${COOKIE_FIELDS.length}`);
  const config: Record<string, number> = {};
  for (let i = 0; i < COOKIE_FIELDS.length; i++) {
    const [name, bytes] = COOKIE_FIELDS[i];
    const value = /^\d+$/.test(words[i]) ? Number(words[i]) : Number.NaN;
    if (!(value <= 2 ** (8 * bytes) - 1)) throw new AudioDecodeError(`ALAC fmtp "${fmtp}": ${name} "${words[i]}" is not a ${8 * bytes}-bit unsigned number`);
    config[name] = value;
  }
  return checkAlacConfig(config as unknown as AlacConfig);
}

/** The fmtp parameters of `config` (what a sender writes after the payload type): parseAlacFmtp's inverse. */
export function alacFmtp(config: AlacConfig): string {
  return COOKIE_FIELDS.map(([name]) => String(config[name])).join(' ');
}

/**
 * The config realtime senders stream with (every sender's fmtp: `352 0 16 40 10 14 2 255 0 0
 * 44100`): 16-bit, Apple's encoder's pb/mb/kb and maxRun; the frames per packet, rate and channels
 * as the stream says. A session's type 96 stream names only those three (spf, sr, ALAC's ct).
 */
export function realtimeAlacConfig(frameLength: number, sampleRate: number, numChannels: number): AlacConfig {
  return checkAlacConfig({ frameLength, compatibleVersion: 0, bitDepth: 16, pb: 40, mb: 10, kb: 14, numChannels, maxRun: 255, maxFrameBytes: 0, avgBitRate: 0, sampleRate });
}

/** The four bytes 'alac' (an atom type and CAF/MP4 format id). */
const ALAC_ATOM = 0x616c6163;

/**
 * The config in an ALAC magic cookie: the 24-byte ALACSpecificConfig alone, or inside its 'alac'
 * atom (size, 'alac', 4 bytes of version and flags, then the 24 bytes: MP4's sample entry, ffmpeg's
 * extradata), or after a 'frma' atom as CAF's kuki chunk holds it (Apple's decoder skips both).
 */
export function alacConfigFromCookie(cookie: Uint8Array): AlacConfig {
  let at = 0;
  const view = new DataView(cookie.buffer, cookie.byteOffset, cookie.byteLength);
  // Skip atoms until the 'alac' one, then its 4 version bytes; a bare config has no atom header.
  for (let hops = 0; hops < 2 && cookie.length - at >= 12; hops++) {
    const type = view.getUint32(at + 4);
    if (type === ALAC_ATOM) {
      at += 12;
      break;
    }
    if (type !== 0x66726d61 /* frma */) break;
    at += view.getUint32(at);
  }
  if (cookie.length - at < ALAC_COOKIE_BYTES) throw new AudioDecodeError(`ALAC cookie of ${cookie.length} bytes: ${cookie.length - at} left for its 24-byte config`);
  const config: Record<string, number> = {};
  for (const [name, bytes] of COOKIE_FIELDS) {
    config[name] = bytes === 4 ? view.getUint32(at) : bytes === 2 ? view.getUint16(at) : view.getUint8(at);
    at += bytes;
  }
  return checkAlacConfig(config as unknown as AlacConfig);
}

/** The 24-byte ALACSpecificConfig of `config` (what a sender puts in the cookie). */
export function alacCookie(config: AlacConfig): Uint8Array {
  const cookie = new Uint8Array(ALAC_COOKIE_BYTES);
  const view = new DataView(cookie.buffer);
  let at = 0;
  for (const [name, bytes] of COOKIE_FIELDS) {
    const value = config[name];
    if (bytes === 4) view.setUint32(at, value);
    else if (bytes === 2) view.setUint16(at, value);
    else view.setUint8(at, value);
    at += bytes;
  }
  return cookie;
}
