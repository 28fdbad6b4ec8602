// The AudioSpecificConfig (ISO 14496-3 1.6.2.1) of an AAC stream: the bytes an AAC decoder is
// opened with. Classic RAOP senders send it as the hex of the SDP fmtp's `config=` (RFC 3640
// 4.1, read by aac-fmtp.ts); a session stream's SETUP names only the codec, so its config is
// written here from the stream's rate, channels and frame length. Only AAC-LC and AAC-ELD (the
// two AirPlay senders use; spec: cn 2 AAC, 3 AAC ELD) are played, without SBR or PS.

import { AudioDecodeError } from './decoder';

/** Audio object types (ISO 14496-3 1.5.1.1 table 1.17) this receiver plays, one row each. */
export const AAC_OBJECT_TYPES = {
  lc: 2,
  eld: 39,
} as const;

export type AacObjectType = keyof typeof AAC_OBJECT_TYPES;

/** samplingFrequencyIndex (ISO 14496-3 1.6.3.4 table 1.18): the index is the position. */
const SAMPLING_FREQUENCIES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350] as const;
/** The index that says an explicit 24-bit rate follows. */
const EXPLICIT_FREQUENCY_INDEX = 15;
/** channelConfiguration (ISO 14496-3 1.6.3.5 table 1.19) to channels; 0 (a program config element) is not played. */
const CHANNELS_OF_CONFIGURATION = [0, 1, 2, 3, 4, 5, 6, 8] as const;
/** The audioObjectType escape: 31, then 6 bits of (type - 32). */
const OBJECT_TYPE_ESCAPE = 31;
/** Frames per access unit: frameLengthFlag 0 or 1 (GASpecificConfig for LC, ELDSpecificConfig for ELD). */
const FRAME_LENGTHS: Readonly<Record<AacObjectType, readonly [number, number]>> = {
  lc: [1024, 960],
  eld: [512, 480],
};

/** What a decoder needs to know of the stream before its first access unit. */
export interface AacConfig {
  readonly objectType: AacObjectType;
  readonly sampleRate: number;
  readonly channels: number;
  /** Frames each access unit decodes to (LC 1024 or 960, ELD 512 or 480). */
  readonly frameLength: number;
  /** ELD only: low-delay SBR is signalled (the rate out is then twice sampleRate). */
  readonly lowDelaySbr: boolean;
}

/** MSB-first bit reader over the config's few bytes; reading past the end throws. */
function bitReader(bytes: Uint8Array) {
  let position = 0;
  return {
    read(bits: number): number {
      let value = 0;
      for (let i = 0; i < bits; i++, position++) {
        if (position >= bytes.length * 8) throw new AudioDecodeError(`AAC config of ${bytes.length} bytes ends inside its fields`);
        value = value * 2 + ((bytes[position >> 3] >> (7 - (position & 7))) & 1);
      }
      return value;
    },
  };
}

function objectTypeName(type: number): AacObjectType | undefined {
  return (Object.keys(AAC_OBJECT_TYPES) as AacObjectType[]).find((name) => AAC_OBJECT_TYPES[name] === type);
}

/** Reads an AudioSpecificConfig; throws AudioDecodeError unless it names AAC-LC or AAC-ELD with a channel configuration. */
export function readAacConfig(bytes: Uint8Array): AacConfig {
  const bits = bitReader(bytes);
  let type = bits.read(5);
  if (type === OBJECT_TYPE_ESCAPE) type = 32 + bits.read(6);
  const frequencyIndex = bits.read(4);
  const sampleRate = frequencyIndex === EXPLICIT_FREQUENCY_INDEX ? bits.read(24) : SAMPLING_FREQUENCIES[frequencyIndex];
  if (sampleRate === undefined || sampleRate === 0) throw new AudioDecodeError(`AAC config: sampling frequency index ${frequencyIndex} is reserved`);
  const channelConfiguration = bits.read(4);
  const objectType = objectTypeName(type);
  if (objectType === undefined) throw new AudioDecodeError(`AAC config: audio object type ${type}; AAC-LC (2) and AAC-ELD (39) are played`);
  const channels = CHANNELS_OF_CONFIGURATION[channelConfiguration];
  if (channels === undefined || channels === 0) throw new AudioDecodeError(`AAC config: channel configuration ${channelConfiguration}; 1 to 7 are played`);
  const frameLengthFlag = bits.read(1);
  let lowDelaySbr = false;
  if (objectType === 'eld') {
    // ELDSpecificConfig (ISO 14496-3 4.4.1.1): frameLengthFlag, three resilience flags, ldSbrPresentFlag.
    bits.read(3);
    lowDelaySbr = bits.read(1) === 1;
  }
  return { objectType, sampleRate, channels, frameLength: FRAME_LENGTHS[objectType][frameLengthFlag], lowDelaySbr };
}

/** MSB-first bit writer: the fields of aacConfigBytes in order, zero padded to whole bytes. */
function bitWriter() {
  const bits: number[] = [];
  return {
    write(value: number, count: number): void {
      for (let i = count - 1; i >= 0; i--) bits.push(Math.floor(value / 2 ** i) % 2);
    },
    bytes(): Uint8Array {
      const out = new Uint8Array(Math.ceil(bits.length / 8));
      bits.forEach((bit, i) => (out[i >> 3] |= bit << (7 - (i & 7))));
      return out;
    },
  };
}

/**
 * The AudioSpecificConfig of an AAC-LC or AAC-ELD stream without SBR: what a stream that names
 * only its codec implies. AAC-LC 44100 Hz stereo 1024 frames is 12 10; AAC-ELD 44100 Hz stereo
 * 480 frames is F8 E8 50 00 (the config AirPlay receivers open AAC-ELD streams with).
 */
export function aacConfigBytes(config: Pick<AacConfig, 'objectType' | 'sampleRate' | 'channels' | 'frameLength'>): Uint8Array {
  const frameLengthFlag = FRAME_LENGTHS[config.objectType].indexOf(config.frameLength);
  if (frameLengthFlag < 0) throw new AudioDecodeError(`AAC-${config.objectType.toUpperCase()} of ${config.frameLength} frames per unit: ${FRAME_LENGTHS[config.objectType].join(' or ')}`);
  const channelConfiguration = CHANNELS_OF_CONFIGURATION.indexOf(config.channels as (typeof CHANNELS_OF_CONFIGURATION)[number]);
  if (channelConfiguration < 1) throw new AudioDecodeError(`AAC of ${config.channels} channels: 1 to 6 or 8`);
  if (!Number.isInteger(config.sampleRate) || config.sampleRate < 1 || config.sampleRate >= 2 ** 24) throw new AudioDecodeError(`AAC at ${config.sampleRate} Hz`);
  const writer = bitWriter();
  const type = AAC_OBJECT_TYPES[config.objectType];
  if (type >= OBJECT_TYPE_ESCAPE) {
    writer.write(OBJECT_TYPE_ESCAPE, 5);
    writer.write(type - 32, 6);
  } else writer.write(type, 5);
  const frequencyIndex = SAMPLING_FREQUENCIES.indexOf(config.sampleRate as (typeof SAMPLING_FREQUENCIES)[number]);
  if (frequencyIndex >= 0) writer.write(frequencyIndex, 4);
  else {
    writer.write(EXPLICIT_FREQUENCY_INDEX, 4);
    writer.write(config.sampleRate, 24);
  }
  writer.write(channelConfiguration, 4);
  writer.write(frameLengthFlag, 1);
  if (config.objectType === 'lc') {
    // GASpecificConfig: dependsOnCoreCoder 0, extensionFlag 0.
    writer.write(0, 2);
  } else {
    // ELDSpecificConfig: the three resilience flags 0, ldSbrPresentFlag 0, eldExtType ELDEXT_TERM (0);
    // then the epConfig of every error-resilient object type (ISO 14496-3 1.6.2.1), 0.
    writer.write(0, 3);
    writer.write(0, 1);
    writer.write(0, 4);
    writer.write(0, 2);
  }
  return writer.bytes();
}
