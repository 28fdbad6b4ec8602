// The receiver's configuration: identity, ports, profile, dialect, access and every limit.
// One object, with defaults; hosts fill it from their command line or manifest.

import { fromHex, toHex } from '../bytes';
import { DEFAULT_DIALECT, isDialectName, type DialectName } from '../dialect';
import { isProfileName, PROFILES, type ProfileName } from './profiles';

export interface ReceiverLimits {
  /** Most simultaneous connections on all listeners; more are closed at once with a log line. */
  maxConnections: number;
  /** A connection idle this long between requests is closed. */
  idleTimeoutMs: number;
  /** A request head must arrive whole within this time of its first byte (slow-loris guard). */
  headerTimeoutMs: number;
  /** Largest request head (request line and headers) in bytes. */
  maxHeadBytes: number;
  /** Most header lines in one request. */
  maxHeaderCount: number;
  /** Largest request body, for routes that do not set their own limit. */
  maxBodyBytes: number;
  /** A sender must answer a request on a reverse connection within this time. */
  reverseRequestTimeoutMs: number;
  /** Largest response body read on a reverse connection (a slideshow picture reply). */
  maxReverseBodyBytes: number;
  /** Most reverse connections open at once, all senders together. */
  maxReverseConnections: number;
  /**
   * Most slideshow pictures fetched or being fetched ahead of the one shown (each up to
   * maxReverseBodyBytes). spec 8's three parallel fetches need 3.
   */
  slideshowLookAhead: number;
  /**
   * A pair-setup left unfinished this long after its last step no longer holds the receiver:
   * another sender may pair (before, it is answered Busy). Also how long a PIN stays shown.
   */
  pairingTimeoutMs: number;
  /** Largest picture taken by PUT /photo (spec 8 names none); over it: 413. */
  maxPhotoBytes: number;
  /** Most bytes of pictures the photo cache holds (spec 4.1 cacheOnly); the least recently used leave first. */
  photoCacheBytes: number;
  /** Most pictures the photo cache holds. */
  photoCacheEntries: number;
}

export interface ReceiverConfig {
  /** The name shown to senders. */
  name: string;
  /** Device identifier: the MAC address, colon-separated upper-case hex (spec 2.1 deviceid). */
  deviceId: string;
  profile: ProfileName;
  model: string;
  manufacturer: string;
  serialNumber: string;
  /** Firmware version (TXT fv). */
  firmwareVersion: string;
  /** OS version (TXT osvers). */
  osVersion: string;
  /** Protocol implementation version (TXT srcvers, /info sourceVersion). */
  sourceVersion: string;
  /** Firmware build date (/info firmwareBuildDate). */
  firmwareBuildDate: string;
  /** Whether the name is still the factory default (/info nameIsFactoryDefault). */
  nameIsFactoryDefault: boolean;
  /** Protocol version (TXT protovers, /info protocolVersion). */
  protocolVersion: string;
  /** Password senders must give; empty for none (spec 5.2). */
  password: string;
  /** Pairing PIN (spec 5.3: default 3939). */
  pin: string;
  /** Whether senders must enter the PIN shown on the device (flag PINRequired). */
  pinRequired: boolean;
  /**
   * The device's RSA-1024 private key (PEM, PKCS#1 or PKCS#8) for certificate authentication
   * inside pair-setup (spec 5.5, Method 1) and POST /auth-setup (spec 5.6). Set with
   * authCertificate or not at all; without them neither is offered (feature bits 51 and 26 clear).
   */
  authKey?: string;
  /** The device certificate (DER) sent with the signature; see authKey. */
  authCertificate?: Uint8Array;
  /** Port of the HTTP/RTSP listener that is advertised (spec 1.4). */
  port: number;
  /** Port of the mirroring listener (spec 4.4: 7100). */
  mirrorPort: number;
  dialect: DialectName;
  limits: ReceiverLimits;
}

export const DEFAULT_LIMITS: ReceiverLimits = {
  maxConnections: 16,
  idleTimeoutMs: 120_000,
  headerTimeoutMs: 10_000,
  maxHeadBytes: 8 * 1024,
  maxHeaderCount: 64,
  maxBodyBytes: 64 * 1024,
  reverseRequestTimeoutMs: 15_000,
  maxReverseBodyBytes: 8 * 1024 * 1024,
  maxReverseConnections: 8,
  slideshowLookAhead: 3,
  pairingTimeoutMs: 30_000,
  // A desktop's memory; the profiles of boards set smaller ones (profiles.ts).
  maxPhotoBytes: 8 * 1024 * 1024,
  photoCacheBytes: 64 * 1024 * 1024,
  photoCacheEntries: 32,
};

/** Thrown for a configuration that cannot work; the message names the field. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A configuration with every field, from defaults and the given overrides. */
export function makeConfig(overrides: Partial<Omit<ReceiverConfig, 'limits'>> & { limits?: Partial<ReceiverLimits> } = {}): ReceiverConfig {
  const profile = overrides.profile ?? 'desktop';
  if (!isProfileName(profile)) throw new ConfigError(`profile "${String(profile)}" is not one of ${Object.keys(PROFILES).join(', ')}`);
  const config: ReceiverConfig = {
    name: 'Receiver',
    deviceId: '02:00:00:00:00:01',
    model: PROFILES[profile].model,
    manufacturer: 'Vendor',
    serialNumber: '',
    firmwareVersion: '1.0.0',
    firmwareBuildDate: 'Nov 21 2026',
    nameIsFactoryDefault: overrides.name === undefined,
    osVersion: '1.0',
    sourceVersion: '220.68',
    protocolVersion: '1.1',
    password: '',
    pin: '3939',
    pinRequired: false,
    port: 7000,
    mirrorPort: 7100,
    dialect: DEFAULT_DIALECT,
    ...overrides,
    profile,
    limits: { ...DEFAULT_LIMITS, ...PROFILES[profile].limits, ...overrides.limits },
  };
  validateConfig(config);
  return config;
}

function validatePort(field: string, port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${field} ${port} is not a TCP port (0 to 65535)`);
}

export function validateConfig(config: ReceiverConfig): void {
  if (!config.name || config.name.length > 63) throw new ConfigError(`name must be 1 to 63 characters (a DNS label), got ${JSON.stringify(config.name)}`);
  config.deviceId = normaliseDeviceId(config.deviceId);
  validatePort('port', config.port);
  validatePort('mirrorPort', config.mirrorPort);
  if (!isDialectName(config.dialect)) throw new ConfigError(`dialect "${String(config.dialect)}" is not one of vendor, apple`);
  if (!/^\d{4,8}$/.test(config.pin)) throw new ConfigError(`pin must be 4 to 8 digits`);
  if ((config.authKey === undefined) !== (config.authCertificate === undefined)) {
    throw new ConfigError('authKey and authCertificate go together: give both (device key and its certificate) or neither');
  }
  for (const [key, value] of Object.entries(config.limits)) {
    if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`limits.${key} must be a positive integer, got ${value}`);
  }
}

/** `aa-bb-cc-dd-ee-ff`, `aabbccddeeff` or `AA:BB:...` to `AA:BB:CC:DD:EE:FF`. */
export function normaliseDeviceId(deviceId: string): string {
  const hex = deviceId.replace(/[:-]/g, '');
  if (!/^[0-9a-fA-F]{12}$/.test(hex)) throw new ConfigError(`deviceId "${deviceId}" is not a MAC address (six hex bytes)`);
  return toHex(fromHex(hex), ':').toUpperCase();
}
