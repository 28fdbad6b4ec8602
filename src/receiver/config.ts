// The receiver's configuration: identity, ports, profile, dialect, access and every limit.
// One object, with defaults; hosts fill it from their command line or manifest.

import { fromHex, toHex } from '../bytes';
import { DEFAULT_DIALECT, isDialectName, type DialectName } from '../dialect';
import { receiverNameProblem } from '../discovery/dnssd-names';
import { CONTROL_PORT } from '../discovery/services';
import { MIRROR_PORT } from '../mirror';
import { RANDOM_PIN, TRANSIENT_SETUP_CODE } from '../pairing/setup-code';
import { NTP_RECEIVER_PORT } from '../timing';
import { DEFAULT_LIMITS, type ReceiverLimits } from './limits';
import { AccessList, AccessListError } from './access-list';
import { isProfileName, PROFILES, type ProfileName } from './profiles';


export { DEFAULT_LIMITS, type ReceiverLimits } from './limits';

/**
 * The sessions' event listener and timing socket where a host gives no ports: beside the control
 * port (7000) and mirroring's NTP (7010, 7011), fixed, so a board's firewall can name them.
 */
const SESSION_EVENT_PORT = 7002;
const SESSION_TIMING_PORT = 7012;
/**
 * The audio streams' UDP sockets (data, then control), fixed where a host gives none, as real
 * speakers use 6000 and up for them.
 */
const AUDIO_DATA_PORT = 6000;
const AUDIO_CONTROL_PORT = 6001;

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
  /**
   * Pairing PIN: 4 to 8 digits, or "random" for one drawn per pair-setup attempt and shown on
   * the screen and in the log (src/pairing/setup-code.ts). Default: random where a PIN is
   * required and no password given (3939 is the spec's public code, no secret), else 3939.
   */
  pin: string;
  /**
   * Whether senders must pair with the PIN (or password) before anything else (flag
   * PINRequired); transient pairing, which uses the public 3939, is then refused.
   */
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
  /**
   * Local UDP port of the mirroring NTP client (spec 4.5: 7011); 0 takes any free port (tests
   * that run receivers side by side). The sender answers whatever port asked.
   */
  ntpPort: number;
  /**
   * Port of the event listener (TCP) that senders' sessions open their event channel to; said in
   * each session SETUP's answer, so any free port serves (a host may bind 0 first).
   */
  eventPort: number;
  /** Local UDP port of the sessions' timing socket (RAOP timing); said in SETUP's answer as well. */
  timingPort: number;
  /** Local UDP port that RTP audio arrives on; said in the answer to a stream's SETUP. */
  audioPort: number;
  /** Local UDP port of the audio stream's sync, resent packets and retransmit requests; said alike. */
  audioControlPort: number;
  dialect: DialectName;
  /**
   * Senders served, when not empty: addresses, CIDR blocks and device ids (src/receiver/access-list.ts
   * says the rules); a sender on none is refused.
   */
  allow: readonly string[];
  /** Senders refused: addresses, CIDR blocks and device ids; block wins over allow. */
  block: readonly string[];
  limits: ReceiverLimits;
}


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
    // A required PIN that everyone knows protects nothing: without one given, a random one.
    pin: overrides.pinRequired && !overrides.password ? RANDOM_PIN : TRANSIENT_SETUP_CODE,
    pinRequired: false,
    port: CONTROL_PORT,
    mirrorPort: MIRROR_PORT,
    ntpPort: NTP_RECEIVER_PORT,
    eventPort: SESSION_EVENT_PORT,
    timingPort: SESSION_TIMING_PORT,
    audioPort: AUDIO_DATA_PORT,
    audioControlPort: AUDIO_CONTROL_PORT,
    dialect: DEFAULT_DIALECT,
    allow: [],
    block: [],
    ...overrides,
    profile,
    limits: { ...DEFAULT_LIMITS, ...PROFILES[profile].limits, ...overrides.limits },
  };
  validateConfig(config);
  return config;
}

/**
 * The configuration a receiver is built with: complete and validated, and frozen (limits too),
 * so nothing changes it behind the receiver's back. A host that listens on port 0 binds first
 * and builds the configuration with the port it got.
 */
export function freezeConfig(config: ReceiverConfig): Readonly<ReceiverConfig> {
  validateConfig(config);
  Object.freeze(config.limits);
  // Copies: the caller's arrays stay its own.
  config.allow = Object.freeze([...config.allow]);
  config.block = Object.freeze([...config.block]);
  return Object.freeze(config);
}

function validatePort(field: string, port: number, kind: 'TCP' | 'UDP' = 'TCP'): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${field} ${port} is not a ${kind} port (0 to 65535)`);
}

function validateConfig(config: ReceiverConfig): void {
  const nameProblem = receiverNameProblem(config.name);
  if (nameProblem) throw new ConfigError(`name ${nameProblem}`);
  config.deviceId = normaliseDeviceId(config.deviceId);
  validatePort('port', config.port);
  validatePort('mirrorPort', config.mirrorPort);
  validatePort('ntpPort', config.ntpPort, 'UDP');
  validatePort('eventPort', config.eventPort);
  validatePort('timingPort', config.timingPort, 'UDP');
  validatePort('audioPort', config.audioPort, 'UDP');
  validatePort('audioControlPort', config.audioControlPort, 'UDP');
  if (!isDialectName(config.dialect)) throw new ConfigError(`dialect "${String(config.dialect)}" is not one of vendor, apple`);
  if (config.pin !== RANDOM_PIN && !/^\d{4,8}$/.test(config.pin)) throw new ConfigError(`pin must be 4 to 8 digits, or ${RANDOM_PIN}`);
  if ((config.authKey === undefined) !== (config.authCertificate === undefined)) {
    throw new ConfigError('authKey and authCertificate go together: give both (device key and its certificate) or neither');
  }
  try {
    new AccessList(config.allow, config.block);
  } catch (error) {
    if (error instanceof AccessListError) throw new ConfigError(error.message);
    throw error;
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
