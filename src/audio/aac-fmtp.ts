// The fmtp of an mpeg4-generic stream (RFC 3640 4.1): `mode=AAC-hbr; config=1210; sizeLength=13;
// indexLength=3; indexDeltaLength=3` (names case-insensitive, `;`-separated, spaces around them
// allowed). config is the AudioSpecificConfig in hex; the lengths say how the packets' AU
// headers are laid out (aac-au-headers.ts). Classic RAOP AAC senders use mode=AAC-hbr.
// Apple's AAC-ELD announcements may carry no config at all (`mode=AAC-eld; constantDuration=480`,
// the unofficial AirPlay specification's mirroring ANNOUNCE, which is FairPlay-encrypted and so
// refused before this): given the rtpmap's rate and channels, that implies the ELD config.

import { AudioDecodeError } from './decoder';
import { aacConfigBytes, readAacConfig, type AacConfig } from './aac-config';
import type { AuHeaderLayout } from './aac-au-headers';

/** What an mpeg4-generic fmtp says: the decoder's config, and the AU header layout of the packets. */
export interface AacFmtp {
  readonly mode: string;
  /** The AudioSpecificConfig bytes. */
  readonly config: Uint8Array;
  /** The config read (AAC-LC or AAC-ELD). */
  readonly aac: AacConfig;
  readonly auHeaders: AuHeaderLayout;
}

/** An AudioSpecificConfig is a few bytes; a longer hex string is not one. */
const MAX_CONFIG_BYTES = 64;
/** RFC 3640 3.2.1: each length is a field width in bits; 16 bits of AU size is beyond any AAC unit. */
const MAX_LENGTH_BITS = 16;

function hexBytes(text: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) throw new AudioDecodeError(`AAC fmtp: config '${text}' is not hex bytes`);
  if (text.length / 2 > MAX_CONFIG_BYTES) throw new AudioDecodeError(`AAC fmtp: config of ${text.length / 2} bytes, more than ${MAX_CONFIG_BYTES}`);
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** The parameters by lower-cased name; a repeated name is refused (which one would count?). */
function parameters(fmtp: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of fmtp.split(';')) {
    const item = part.trim();
    if (item === '') continue;
    const equals = item.indexOf('=');
    if (equals < 1) throw new AudioDecodeError(`AAC fmtp: '${item}' is not name=value`);
    const name = item.slice(0, equals).trim().toLowerCase();
    if (found.has(name)) throw new AudioDecodeError(`AAC fmtp: ${name} given twice`);
    found.set(name, item.slice(equals + 1).trim());
  }
  return found;
}

function lengthParameter(found: Map<string, string>, name: string): number {
  const text = found.get(name.toLowerCase());
  if (text === undefined) return 0;
  if (!/^\d{1,2}$/.test(text) || Number(text) > MAX_LENGTH_BITS) throw new AudioDecodeError(`AAC fmtp: ${name}=${text} is not 0 to ${MAX_LENGTH_BITS}`);
  return Number(text);
}

/** The rtpmap's rate and channels (`mpeg4-generic/44100/2`), for an fmtp that implies its config. */
export interface AacStreamShape {
  readonly sampleRate: number;
  readonly channels: number;
}

/** The fmtp's mode that names AAC-ELD (RFC 3640 leaves mode names to their users; Apple's). */
const ELD_MODE = 'aac-eld';
/** Frames per AAC-ELD unit when constantDuration is not given: AirPlay's. */
const ELD_DEFAULT_FRAMES = 480;

/** The config of a `mode=AAC-eld` fmtp without one: AAC-ELD at the stream's rate and channels, constantDuration frames. */
function impliedEldConfig(found: Map<string, string>, fmtp: string, stream: AacStreamShape): Uint8Array {
  const duration = found.get('constantduration');
  if (duration !== undefined && !/^\d{1,4}$/.test(duration)) throw new AudioDecodeError(`AAC fmtp '${fmtp}': constantDuration=${duration} is not a frame count`);
  return aacConfigBytes({ objectType: 'eld', sampleRate: stream.sampleRate, channels: stream.channels, frameLength: duration === undefined ? ELD_DEFAULT_FRAMES : Number(duration) });
}

/**
 * Reads an mpeg4-generic fmtp; throws AudioDecodeError without a config naming AAC-LC or AAC-ELD
 * (a `mode=AAC-eld` fmtp without config= takes the implied one when `stream` is given).
 */
export function readAacFmtp(fmtp: string, stream?: AacStreamShape): AacFmtp {
  const found = parameters(fmtp);
  const hex = found.get('config');
  const mode = found.get('mode') ?? '';
  let config: Uint8Array;
  if (hex !== undefined) config = hexBytes(hex);
  else if (mode.toLowerCase() === ELD_MODE && stream !== undefined) config = impliedEldConfig(found, fmtp, stream);
  else throw new AudioDecodeError(`AAC fmtp '${fmtp}' has no config= (the AudioSpecificConfig)`);
  const aac = readAacConfig(config);
  return {
    mode,
    config,
    aac,
    auHeaders: {
      sizeLength: lengthParameter(found, 'sizeLength'),
      indexLength: lengthParameter(found, 'indexLength'),
      indexDeltaLength: lengthParameter(found, 'indexDeltaLength'),
    },
  };
}

/**
 * The AudioSpecificConfig of an mpeg4-generic fmtp (`config=` hex), checked to name AAC-LC or
 * AAC-ELD; `stream` (the rtpmap's rate and channels) lets a `mode=AAC-eld` fmtp without config imply it.
 */
export function aacConfigFromFmtp(fmtp: string, stream?: AacStreamShape): Uint8Array {
  return readAacFmtp(fmtp, stream).config;
}
