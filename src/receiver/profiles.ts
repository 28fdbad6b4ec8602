// Receiver profiles: what each kind of device means to offer, and what the core can do today.
// A profile advertises a feature bit only when the core implements it (so bits grow as features
// land): senders trust the bits, and a bit we cannot honour breaks them.

import type { FeatureName } from '../discovery/features';
import type { ReceiverLimits } from './limits';
import { PROFILE_BOARDS, boardLimits, type BoardLimits, type BoardProfileName } from './boards';

/** The memory limits of a profile on the board it needs (boards.ts). */
function limitsOnItsBoard(profile: BoardProfileName): BoardLimits {
  const limits = boardLimits(PROFILE_BOARDS[profile], profile);
  if (!limits) throw new Error(`boards.ts gives ${profile} no limits on ${PROFILE_BOARDS[profile]}`);
  return limits;
}

export type ProfileName = 'photo-frame' | 'speaker' | 'media-board' | 'desktop';

interface Profile {
  readonly name: ProfileName;
  /** What the device is for, shown in --help. */
  readonly summary: string;
  /** Feature bits (spec 2.3) this kind of device offers once the core implements them. */
  readonly intended: readonly FeatureName[];
  /** Whether the device publishes the audio service `_raop._tcp` (spec 2.2). */
  readonly publishesRaop: boolean;
  /** Default model string (TXT `model`, /server-info `model`). */
  readonly model: string;
  /** Limits where this kind of device differs from DEFAULT_LIMITS (its memory); `--limit` overrides. */
  readonly limits?: Partial<ReceiverLimits>;
}

/**
 * Pairing and encryption (spec 5), offered by every kind of device: transient and normal
 * pair-setup, pair-verify and the encrypted connection; certificate authentication inside
 * pair-setup (bit 51) and POST /auth-setup (bit 26) where the device has a key and certificate.
 */
/**
 * Costly pairing steps (M1s) a microcontroller board takes per second. A sender pairs with a
 * pair-setup M1 and then a pair-verify M1 on one connection, back to back: two per connection.
 */
const BOARD_PAIRING_RATES: Partial<ReceiverLimits> = { pairingStepsPerSecondPerAddress: 4, pairingStepsPerSecondPerConnection: 2 };

/**
 * Realtime audio (src/receiver/audio/), only where the host has an audio sink (the AudioSink port)
 * and UDP for the streams: Audio (bit 9), and AudioFormat2 and 3 (bits 19, 20), which spec 2.3
 * says a second-generation audio connection (a session's type 96 stream) needs.
 */
export const AUDIO_FEATURES: readonly FeatureName[] = ['Audio', 'AudioFormat2', 'AudioFormat3'];

const PAIRING: readonly FeatureName[] = [
  'SupportsCorePairingAndEncryption',
  'SupportsTransientPairing',
  'SupportsUnifiedPairSetupAndVendorAuth',
  'HasUnifiedAdvertiserInfo',
];

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  'photo-frame': {
    name: 'photo-frame',
    summary: 'ESP32-S3 photo frame: photos, cached photos, slideshows',
    intended: ['Photo', 'Slideshow', 'PhotoCaching', ...PAIRING],
    publishesRaop: false,
    model: 'VendorFrame1,1',
    // Its pictures need PSRAM: the limits of the 8 MB board (boards.ts: pictures of 2 MB, three
    // cached within 2 MB, one picture budget of about 4 MB for all of them).
    // Sockets: lwIP on an ESP32-S3 has about 16; a sender needs a handful. A pairing step costs a
    // board far more than a desktop (3072-bit modexp, curve arithmetic): fewer per second.
    limits: {
      ...BOARD_PAIRING_RATES,
      ...limitsOnItsBoard('photo-frame'),
      maxConnections: 12,
      maxConnectionsPerAddress: 8,
      // A session holds an event channel (a socket) and a UDP socket of lwIP's few.
      maxSessions: 2,
      // GET /info replies kept (about 4 KB each; 64 filled 250 KB of the simulator's heap).
      infoRepliesKept: 2,
      // Answers a peer leaves unread, per connection: two GET /info replies, not 64 KB of heap each.
      maxUnsentAnswerBytes: 8 * 1024,
    },
  },
  speaker: {
    name: 'speaker',
    summary: 'low-power speaker: plays the audio senders stream to it (RAOP and sessions)',
    intended: ['RAOP', ...AUDIO_FEATURES, ...PAIRING],
    publishesRaop: true,
    model: 'VendorSpeaker1,1',
    // The information request and pairing only: a few connections.
    limits: { ...BOARD_PAIRING_RATES, ...limitsOnItsBoard('speaker'), maxConnections: 8, maxConnectionsPerAddress: 4, maxSessions: 2, infoRepliesKept: 2, maxUnsentAnswerBytes: 8 * 1024 },
  },
  'media-board': {
    name: 'media-board',
    summary: 'ARM media board with hardware decoders: photos, video by URL, screen mirroring',
    intended: ['Photo', 'Slideshow', 'PhotoCaching', 'Video', 'VideoHTTPLiveStreams', 'Screen', 'RAOP', ...AUDIO_FEATURES, ...PAIRING],
    publishesRaop: true,
    model: 'VendorBoard1,1',
    limits: { ...limitsOnItsBoard('media-board'), maxConnections: 48, maxConnectionsPerAddress: 16, maxSessions: 4, infoRepliesKept: 8 },
  },
  desktop: {
    name: 'desktop',
    summary: 'desktop simulator: everything the core implements, shown on a virtual screen',
    intended: ['Photo', 'Slideshow', 'PhotoCaching', 'Video', 'VideoHTTPLiveStreams', 'Screen', 'RAOP', ...AUDIO_FEATURES, ...PAIRING],
    publishesRaop: true,
    model: 'VendorDesktop1,1',
  },
};

/**
 * Features the core implements end to end today. Each feature issue adds its bits here when it
 * lands, with the tests that prove them. RAOP (bit 30) says the audio service's requests are
 * answered on this port: RTSP GET /info is.
 */
export const IMPLEMENTED_FEATURES: readonly FeatureName[] = [
  'RAOP',
  // spec 5.3-5.4: pair-setup (normal and transient), pair-verify, encrypted connections. Bit 38
  // is implied by 48 (spec 2.3) and set with it. SupportsHomePairingAndAccessControl (46) stays
  // clear: it announces Home-managed access control (adding, removing and listing pairings for
  // other senders, access levels), which is not implemented; password and PIN access control
  // (spec 5.2) are announced by pw and the status flags instead.
  'SupportsCorePairingAndEncryption',
  'SupportsTransientPairing',
  // spec 4.1: PUT /photo shows a picture; cacheOnly and displayCached (src/receiver/photo/photo.ts).
  // Only where the host has a screen: see SCREEN_FEATURES.
  'Photo',
  'PhotoCaching',
  // spec 3, 4.1: PUT /slideshows/1, pictures fetched over the sender's reverse connections,
  // slideshow events (src/receiver/slideshow/slideshow.ts). Also a screen feature.
  'Slideshow',
  // spec 3, 4.2, 6: video by URL, progressive MP4 and HTTP live streaming, its control requests,
  // playback information and logs, video events (src/receiver/video/). Only where the host
  // has a player: see PLAYER_FEATURES.
  'Video',
  'VideoHTTPLiveStreams',
];

/**
 * Features that need a screen (the Display port): a host without one never advertises them,
 * whatever its profile intends, and does not serve their endpoints.
 */
const SCREEN_FEATURES: readonly FeatureName[] = ['Photo', 'PhotoCaching', 'Slideshow'];

/**
 * Features that need a player (the Player port: the Node host's screen page, a media board's
 * decoder): a host without one never advertises them and does not serve their endpoints. The
 * player fetches the URL itself, HTTP live streams included.
 */
const PLAYER_FEATURES: readonly FeatureName[] = ['Video', 'VideoHTTPLiveStreams'];

/**
 * spec 4.4-4.5, 2.14: screen mirroring (src/receiver/mirror/mirror.ts), only where the host has a
 * decoder with a display (the VideoDecoder port) and UDP for NTP (the UdpBinder port).
 */
export const MIRRORING_FEATURES: readonly FeatureName[] = ['Screen'];

/** What the host gives the receiver that features need. */
export interface HostAbilities {
  /** A screen (the Display port): SCREEN_FEATURES. */
  readonly display?: boolean;
  /** A player (the Player port): PLAYER_FEATURES. */
  readonly player?: boolean;
  /** A video decoder and UDP: MIRRORING_FEATURES. */
  readonly mirroring?: boolean;
  /** An audio sink and UDP for the streams: AUDIO_FEATURES. */
  readonly audio?: boolean;
}

/**
 * What this receiver implements with its configuration and host: IMPLEMENTED_FEATURES, plus
 * certificate authentication inside pair-setup (bit 51, spec 5.5) and POST /auth-setup (bit 26,
 * spec 5.6) when a device key and certificate are configured (without them neither can be
 * honoured), and each group of HostAbilities only where the host has what it needs.
 */
export function implementedFeatures(config: { readonly authKey?: string; readonly authCertificate?: Uint8Array }, host: HostAbilities = {}): FeatureName[] {
  const implemented = IMPLEMENTED_FEATURES.filter((name) => (host.display || !SCREEN_FEATURES.includes(name)) && (host.player || !PLAYER_FEATURES.includes(name)));
  if (host.mirroring) implemented.push(...MIRRORING_FEATURES);
  if (host.audio) implemented.push(...AUDIO_FEATURES);
  if (config.authKey !== undefined && config.authCertificate !== undefined) {
    implemented.push('SupportsUnifiedPairSetupAndVendorAuth', 'HasUnifiedAdvertiserInfo');
  }
  return implemented;
}

export function isProfileName(name: string): name is ProfileName {
  return Object.prototype.hasOwnProperty.call(PROFILES, name);
}

/** The feature bits a profile advertises: what it intends and the core implements. */
export function advertisedFeatures(profile: Profile, implemented: readonly FeatureName[] = IMPLEMENTED_FEATURES): FeatureName[] {
  return profile.intended.filter((name) => implemented.includes(name));
}

/**
 * Whether a host should give this profile screen mirroring (a VideoDecoder and UDP) where it
 * can: the profile means to mirror a sender's screen.
 */
export function profileMirrors(name: ProfileName): boolean {
  return PROFILES[name].intended.some((feature) => MIRRORING_FEATURES.includes(feature));
}

/**
 * Whether a host should give this profile a player (the Player port) where it can: the profile
 * means to play video by URL. Photo frames and speakers do not.
 */
export function profilePlaysVideo(name: ProfileName): boolean {
  return PROFILES[name].intended.some((feature) => PLAYER_FEATURES.includes(feature));
}

/**
 * Whether a host should give this profile a screen (the Display port) where it has one: the
 * profile means to show pictures. A speaker on a board with a panel still shows none.
 */
export function profileShowsPictures(name: ProfileName): boolean {
  return PROFILES[name].intended.some((feature) => SCREEN_FEATURES.includes(feature));
}
