// The code tables of the audio service's TXT lists (spec 2.2): codecs cn, encryption types et, metadata md.

import { hasFeature, type FeatureName } from './features';

export interface AudioCode {
  readonly code: number;
  readonly meaning: string;
}

/** spec 2.2, TXT `cn`. */
export const AUDIO_CODECS = [
  { code: 0, meaning: 'PCM' },
  { code: 1, meaning: 'Apple Lossless (ALAC)' },
  { code: 2, meaning: 'AAC' },
  { code: 3, meaning: 'AAC ELD (enhanced low delay)' },
] as const satisfies readonly AudioCode[];

/** spec 2.2, TXT `et`. Code 2 has no meaning in the spec. */
export const ENCRYPTION_TYPES = [
  { code: 0, meaning: 'no encryption' },
  { code: 1, meaning: 'RSA (legacy base station)' },
  { code: 3, meaning: 'DRM-based (FairPlay-type, written Vendor DRM)' },
  { code: 4, meaning: 'certificate-based authentication for third-party devices (VendorAuth)' },
  { code: 5, meaning: 'DRM-based secure auth version 2.5' },
] as const satisfies readonly AudioCode[];

export interface MetadataType extends AudioCode {
  /** The feature bit that announces the same capability (spec 2.2). */
  readonly feature: FeatureName;
}

/**
 * spec 2.2, TXT `md`, with the feature bit each corresponds to. Binary property list metadata
 * (feature MetadataFeature4, bit 50) has no md code in the spec.
 */
export const METADATA_TYPES = [
  { code: 0, meaning: 'text', feature: 'MetadataFeature0' },
  { code: 1, meaning: 'artwork', feature: 'MetadataFeature1' },
  { code: 2, meaning: 'progress', feature: 'MetadataFeature2' },
] as const satisfies readonly MetadataType[];

/** The md list that matches the metadata feature bits of `features` (spec 2.2), lowest code first. */
export function metadataTypesFor(features: bigint): number[] {
  const codes: number[] = [];
  for (const type of METADATA_TYPES) if (hasFeature(features, type.feature)) codes.push(type.code);
  return codes;
}
