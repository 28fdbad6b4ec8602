// Receiver profiles: what each kind of device means to offer, and what the core can do today.
// A profile advertises a feature bit only when the core implements it (so bits grow as features
// land): senders trust the bits, and a bit we cannot honour breaks them.

import type { FeatureName } from '../discovery/features';

export type ProfileName = 'photo-frame' | 'speaker' | 'media-board' | 'desktop';

export interface Profile {
  readonly name: ProfileName;
  /** What the device is for, shown in --help. */
  readonly summary: string;
  /** Feature bits (spec 2.3) this kind of device offers once the core implements them. */
  readonly intended: readonly FeatureName[];
  /** Whether the device publishes the audio service `_raop._tcp` (spec 2.2). */
  readonly publishesRaop: boolean;
  /** Default model string (TXT `model`, /server-info `model`). */
  readonly model: string;
}

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  'photo-frame': {
    name: 'photo-frame',
    summary: 'ESP32-S3 photo frame: photos, cached photos, slideshows',
    intended: ['Photo', 'Slideshow', 'PhotoCaching'],
    publishesRaop: false,
    model: 'VendorFrame1,1',
  },
  speaker: {
    name: 'speaker',
    summary: 'low-power speaker: answers the audio information request (RTSP GET /info)',
    intended: ['RAOP'],
    publishesRaop: true,
    model: 'VendorSpeaker1,1',
  },
  'media-board': {
    name: 'media-board',
    summary: 'ARM media board with hardware decoders: photos, video by URL, screen mirroring',
    intended: ['Photo', 'Slideshow', 'PhotoCaching', 'Video', 'VideoHTTPLiveStreams', 'Screen', 'RAOP'],
    publishesRaop: true,
    model: 'VendorBoard1,1',
  },
  desktop: {
    name: 'desktop',
    summary: 'desktop simulator: everything the core implements, shown on a virtual screen',
    intended: ['Photo', 'Slideshow', 'PhotoCaching', 'Video', 'VideoHTTPLiveStreams', 'Screen', 'RAOP'],
    publishesRaop: true,
    model: 'VendorDesktop1,1',
  },
};

/**
 * Features the core implements end to end today. Each feature issue adds its bits here when it
 * lands, with the tests that prove them. RAOP (bit 30) says the audio service's requests are
 * answered on this port: RTSP GET /info is.
 */
export const IMPLEMENTED_FEATURES: readonly FeatureName[] = ['RAOP'];

export function isProfileName(name: string): name is ProfileName {
  return Object.prototype.hasOwnProperty.call(PROFILES, name);
}

/** The feature bits a profile advertises: what it intends and the core implements. */
export function advertisedFeatures(profile: Profile, implemented: readonly FeatureName[] = IMPLEMENTED_FEATURES): FeatureName[] {
  return profile.intended.filter((name) => implemented.includes(name));
}
