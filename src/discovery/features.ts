// Feature bits of spec 2.3 as one table, and the TXT, decimal and integer forms of the 64-bit field.

import { DiscoveryError } from './error';

/** One named bit of the 64-bit features value (spec 2.3). */
export interface FeatureBit {
  /** Bit number counted from 0 (least significant) in the 64-bit value. */
  readonly bit: number;
  /** The name exactly as spec 2.3 writes it. */
  readonly name: string;
  /** The meaning column of spec 2.3. */
  readonly meaning: string;
}

/**
 * Every named feature bit of spec 2.3, in bit order. Bits 6, 10, 22, 24, 25, 28, 29, 31, 35,
 * 36, 37, 39, 44, 45, 47 and 49 have no name in the spec and are not listed; `featureNames`
 * writes them as `bit<N>`.
 */
export const FEATURE_BITS = [
  { bit: 0, name: 'Video', meaning: 'video supported' },
  { bit: 1, name: 'Photo', meaning: 'photo supported' },
  { bit: 2, name: 'VideoVendorDRM', meaning: 'video protected with DRM' },
  { bit: 3, name: 'VideoVolumeControl', meaning: 'volume control for videos' },
  { bit: 4, name: 'VideoHTTPLiveStreams', meaning: 'HTTP live streaming supported' },
  { bit: 5, name: 'Slideshow', meaning: 'slideshow supported' },
  { bit: 7, name: 'Screen', meaning: 'mirroring supported' },
  { bit: 8, name: 'ScreenRotate', meaning: 'screen rotation supported' },
  { bit: 9, name: 'Audio', meaning: 'audio supported' },
  { bit: 11, name: 'AudioRedundant', meaning: 'audio packet redundancy' },
  { bit: 12, name: 'VendorSAPv2pt5_AES_GCM', meaning: 'secure authentication supported' },
  { bit: 13, name: 'PhotoCaching', meaning: 'photo preloading supported' },
  { bit: 14, name: 'Authentication4', meaning: 'authentication type 4 (DRM-based)' },
  { bit: 15, name: 'MetadataFeature1', meaning: 'artwork' },
  { bit: 16, name: 'MetadataFeature2', meaning: 'progress' },
  { bit: 17, name: 'MetadataFeature0', meaning: 'text' },
  { bit: 18, name: 'AudioFormat1', meaning: 'audio format 1' },
  {
    bit: 19,
    name: 'AudioFormat2',
    meaning: 'audio format 2; must be set for a second-generation audio connection',
  },
  {
    bit: 20,
    name: 'AudioFormat3',
    meaning: 'audio format 3; must be set for a second-generation audio connection',
  },
  { bit: 21, name: 'AudioFormat4', meaning: 'audio format 4' },
  { bit: 23, name: 'Authentication1', meaning: 'authentication type 1 (RSA)' },
  { bit: 26, name: 'HasUnifiedAdvertiserInfo', meaning: 'no description' },
  { bit: 27, name: 'SupportsLegacyPairing', meaning: 'no description' },
  {
    bit: 30,
    name: 'RAOP',
    meaning: 'audio service is available on this port; the separate _raop._tcp service is then not needed',
  },
  // spec 2.3 gives bit 32 two names joined by a slash; the table keeps them as written.
  {
    bit: 32,
    name: 'IsCarProjection / SupportsVolume',
    meaning: 'when set, the key is not read from pk because it is known',
  },
  { bit: 33, name: 'SupportsVendorVideoPlayQueue', meaning: 'no description' },
  { bit: 34, name: 'SupportsVendorFromCloud', meaning: 'no description' },
  {
    bit: 38,
    name: 'SupportsCorePairingAndEncryption',
    meaning: 'implied by SupportsHomePairingAndAccessControl, SupportsSystemPairing and SupportsTransientPairing',
  },
  { bit: 40, name: 'SupportsBufferedAudio', meaning: 'needed for the device to show as multi-room capable' },
  { bit: 41, name: 'SupportsPTP', meaning: 'needed for the device to show as multi-room capable' },
  { bit: 42, name: 'SupportsScreenMultiCodec', meaning: 'no description' },
  { bit: 43, name: 'SupportsSystemPairing', meaning: 'no description' },
  { bit: 46, name: 'SupportsHomePairingAndAccessControl', meaning: 'no description' },
  { bit: 48, name: 'SupportsTransientPairing', meaning: 'implied by SupportsSystemPairing' },
  { bit: 50, name: 'MetadataFeature4', meaning: 'binary property list metadata' },
  {
    bit: 51,
    name: 'SupportsUnifiedPairSetupAndVendorAuth',
    meaning: 'authentication type 8 (certificate-based)',
  },
  { bit: 52, name: 'SupportsSetPeersExtendedMessage', meaning: 'no description' },
] as const satisfies readonly FeatureBit[];

/** The name of a feature bit, as spec 2.3 writes it. */
export type FeatureName = (typeof FEATURE_BITS)[number]['name'];

const BIT_BY_NAME = new Map<string, number>();
const NAME_BY_BIT: (string | undefined)[] = [];
for (const entry of FEATURE_BITS) {
  BIT_BY_NAME.set(entry.name, entry.bit);
  NAME_BY_BIT[entry.bit] = entry.name;
}

const MAX_MASK = (1n << 64n) - 1n;
const WORD = 0xffffffffn;

function bitOf(name: string): number {
  const bit = BIT_BY_NAME.get(name);
  // The type rules out unknown names; this guards callers that build names at run time.
  if (bit === undefined) throw new DiscoveryError(`features: unknown feature name ${JSON.stringify(name)}`);
  return bit;
}

function checkMask(mask: bigint): void {
  if (typeof mask !== 'bigint' || mask < 0n || mask > MAX_MASK) {
    throw new DiscoveryError(`features: ${String(mask)} is not an unsigned 64-bit value`);
  }
}

/** The 64-bit value with exactly the named bits set. */
export function featureMask(names: readonly FeatureName[]): bigint {
  let mask = 0n;
  for (const name of names) mask |= 1n << BigInt(bitOf(name));
  return mask;
}

/** Names of the set bits, lowest bit first; bits without a name in spec 2.3 read `bit<N>`. */
export function featureNames(mask: bigint): string[] {
  checkMask(mask);
  const names: string[] = [];
  for (let bit = 0; bit < 64; bit++) {
    if (((mask >> BigInt(bit)) & 1n) === 1n) names.push(NAME_BY_BIT[bit] ?? `bit${bit}`);
  }
  return names;
}

export function hasFeature(mask: bigint, name: FeatureName): boolean {
  return ((mask >> BigInt(bitOf(name))) & 1n) === 1n;
}

/**
 * The TXT form of the features value (spec 2.1, 9.3): two 32-bit hex numbers, low word
 * first, separated by a comma; the comma and the high word are left out when the high word
 * is zero. Real receivers write `0x` and upper-case digits without leading zeros
 * (`features=0x5A7FFFF7,0x1E`), and so do we.
 */
export function featuresText(mask: bigint): string {
  checkMask(mask);
  const low = mask & WORD;
  const high = mask >> 32n;
  const lowText = `0x${low.toString(16).toUpperCase()}`;
  return high === 0n ? lowText : `${lowText},0x${high.toString(16).toUpperCase()}`;
}

const HEX_WORD = /^(?:0[xX])?([0-9a-fA-F]+)$/;

/**
 * Reads a TXT features value: one or two comma-separated 32-bit hex words, low word first
 * (spec 9.3: senders must accept both forms). Either case, `0x` optional, leading zeros and
 * spaces around a word ignored. Anything else throws a DiscoveryError naming the problem.
 */
export function parseFeatures(text: string): bigint {
  const words = text.split(',');
  if (words.length > 2) {
    throw new DiscoveryError(`features: ${JSON.stringify(text)} has ${words.length} words; at most 2 (low,high)`);
  }
  let mask = 0n;
  for (let i = 0; i < words.length; i++) {
    const word = words[i].trim();
    const which = i === 0 ? 'low' : 'high';
    if (word === '' || word === '0x' || word === '0X') {
      throw new DiscoveryError(`features: ${which} word of ${JSON.stringify(text)} is empty`);
    }
    const match = HEX_WORD.exec(word);
    if (!match) throw new DiscoveryError(`features: ${which} word ${JSON.stringify(word)} is not hex`);
    const digits = match[1].replace(/^0+(?=.)/, '');
    if (digits.length > 8) {
      throw new DiscoveryError(`features: ${which} word ${JSON.stringify(word)} is wider than 32 bits`);
    }
    mask |= BigInt(`0x${digits}`) << BigInt(32 * i);
  }
  return mask;
}

/**
 * Decimal text of the features value, exact for all 64 bits (BigInt arithmetic), for
 * text bodies that carry "the decimal of the bitfield" (spec 2.5, 2.11).
 */
export function featuresDecimal(mask: bigint): string {
  checkMask(mask);
  return mask.toString(10);
}

/**
 * The features value as a property-list integer (GET /server-info `features`, spec 2.5;
 * RTSP /info `features`, spec 2.11): a number when it is a safe integer (bits 0 to 52, all
 * the named bits), otherwise a bigint so that no bit is lost. This is the plist value model
 * of src/plist/value.ts, whose writers emit both as integers.
 */
export function featuresInteger(mask: bigint): number | bigint {
  checkMask(mask);
  return mask <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(mask) : mask;
}
