// The TXT records of the media service (spec 2.1) and the audio service _raop._tcp (spec 2.2), built from an identity.

import { fromHex, toHex } from '../bytes';
import { isUuid } from '../uuid';
import type { ActivityFields } from './activity';
import { DiscoveryError } from './error';
import { featuresText } from './features';
import { flagsText, withFlag } from './flags';

/**
 * What the discovery records say about the receiver. The receiver's configuration builds it;
 * the activity-dependent fields (gid, igl, gcgl, pgid, pgcgl, flag 17) come separately as
 * `ActivityFields`. Optional fields are left out of the records when absent.
 */
export interface DiscoveryIdentity {
  /** Name shown to senders: the media service's instance name, and the audio one's after `@`. */
  name: string;
  /** TXT deviceid: the MAC address, `AA:BB:CC:DD:EE:FF` (spec 2.1). */
  deviceId: string;
  /** TXT model, and `am` of the audio service. */
  model: string;
  manufacturer?: string;
  serialNumber?: string;
  /** Firmware version. */
  fv?: string;
  /** OS version. */
  osvers?: string;
  /** Protocol implementation version; also `vs` of the audio service, as real receivers do. */
  srcvers: string;
  /** Protocol version (e.g. "1.1"). */
  protovers?: string;
  /** Feature bits (spec 2.3); TXT features, and `ft` of the audio service. */
  features: bigint;
  /** Required sender features (TXT rsf, 64-bit). */
  rsf?: bigint;
  /**
   * Status flags (spec 2.4) other than the ones the records derive: PINRequired (bit 3) and
   * PasswordRequired (bit 7) follow `pinRequired` and `passwordRequired`, and
   * ReceiverSessionIsActive (bit 17) follows the activity, whatever this value says.
   */
  flags: number;
  /** TXT pw and flag PasswordRequired (spec 5.2). */
  passwordRequired: boolean;
  /** Flag PINRequired (spec 5.2). */
  pinRequired: boolean;
  /** Access control level (int64). */
  acl?: number | bigint;
  /** Ed25519 public key (32 bytes); TXT pk as lower-case hex. */
  pk?: Uint8Array;
  /** Pairing identifier (UUID). */
  pi?: string;
  /** System pairing identifier (UUID). */
  psi?: string;
  /** Group public name. */
  gpn?: string;
  /** Home group UUID. */
  hgid?: string;
  /** Household ID. */
  hmid?: string;
  /** UUID of unspecified purpose (spec 2.1). */
  tsid?: string;
  /** Version field vv; real receivers write 2. */
  vv?: number;
  /** What the audio service advertises (spec 2.2). */
  audio: AudioServiceInfo;
}

export interface AudioServiceInfo {
  /** cn: codec codes (AUDIO_CODECS). At least one. */
  codecs: readonly number[];
  /** et: encryption type codes (ENCRYPTION_TYPES). At least one. */
  encryptionTypes: readonly number[];
  /** md: metadata type codes (METADATA_TYPES); the key is left out when empty. */
  metadataTypes: readonly number[];
  /** tp: transport; real receivers write UDP, the default. */
  transport?: 'UDP' | 'TCP' | 'TCP,UDP';
}

/** One key of a TXT record: its place in the table is its place in the record. */
export interface TxtKey {
  readonly key: string;
  /** How the value is written. */
  readonly written: string;
  readonly meaning: string;
}

/**
 * The keys of the media service's TXT record (spec 2.1), in the order they are written. The
 * order is ours (DNS-SD gives it no meaning) and stable, so txtAirPlay bytes (spec 2.11) and
 * tests are reproducible. It puts first what a sender needs to decide whether it can use the
 * receiver (deviceid, features with rsf, flags, model), then the description and versions,
 * then security, then grouping, then vv, roughly as real receivers list them.
 */
export const MEDIA_TXT_KEYS = [
  {
    key: 'deviceid',
    written: 'MAC address as configured (real receivers: AA:BB:CC:DD:EE:FF)',
    meaning: 'device identifier',
  },
  { key: 'features', written: 'hex low word[,hex high word] (featuresText)', meaning: 'feature bits, spec 2.3' },
  { key: 'rsf', written: '0x + upper-case hex of all 64 bits', meaning: 'required sender features' },
  { key: 'flags', written: '0x + upper-case hex (flagsText)', meaning: 'status flags, spec 2.4' },
  { key: 'model', written: 'string', meaning: 'device model' },
  { key: 'manufacturer', written: 'string', meaning: 'device manufacturer' },
  { key: 'serialNumber', written: 'string', meaning: 'device serial number' },
  { key: 'fv', written: 'string', meaning: 'firmware version' },
  { key: 'osvers', written: 'string', meaning: 'OS version' },
  { key: 'srcvers', written: 'string', meaning: 'protocol implementation version' },
  { key: 'protovers', written: 'string', meaning: 'protocol version' },
  { key: 'pw', written: 'true or false', meaning: 'receiver is password protected' },
  { key: 'acl', written: 'decimal', meaning: 'access control level' },
  { key: 'pk', written: 'lower-case hex', meaning: 'public key' },
  { key: 'pi', written: 'UUID', meaning: 'group identifier / pairing identifier' },
  { key: 'psi', written: 'UUID', meaning: 'system pairing identifier' },
  { key: 'gid', written: 'UUID', meaning: 'group UUID' },
  { key: 'gcgl', written: '1 or 0', meaning: 'group contains group leader (discoverable leader)' },
  { key: 'igl', written: '1 or 0', meaning: 'is group leader' },
  { key: 'pgid', written: 'UUID', meaning: 'parent group UUID' },
  { key: 'pgcgl', written: '1 or 0', meaning: 'parent group contains discoverable leader' },
  { key: 'gpn', written: 'string', meaning: 'group public name' },
  { key: 'hgid', written: 'UUID', meaning: 'home group UUID' },
  { key: 'hmid', written: 'string', meaning: 'household ID' },
  { key: 'tsid', written: 'UUID', meaning: 'identifier of unspecified purpose' },
  { key: 'vv', written: 'decimal', meaning: 'version field (type not shown in the spec)' },
] as const satisfies readonly TxtKey[];

// spec 8: audio sample rate / size / channels.
const SAMPLE_RATE = '44100';
const SAMPLE_SIZE = '16';
const CHANNELS = '2';

/** spec 9.1: the TXT field txtvers of the audio service is 1. */
const TXT_VERSION = '1';

// Values of keys whose meaning spec 2.2 does not show, as real receivers write them.
const DA = 'true';
const SV = 'false';
const VN = '65537';

/**
 * The keys of the audio service's TXT record (spec 2.2), in the order they are written:
 * txtvers first (RFC 6763 6.7), then the order of a real set-top receiver's record
 * (txtvers ch cn da et md pw sv sr ss tp vn vs am sf) with ft, pk and vv, which later
 * receivers add, beside their neighbours.
 */
export const AUDIO_TXT_KEYS = [
  { key: 'txtvers', written: TXT_VERSION, meaning: 'TXT record version (spec 9.1)' },
  { key: 'ch', written: CHANNELS, meaning: 'audio channels (stereo)' },
  { key: 'cn', written: 'comma-separated decimal', meaning: 'audio codecs' },
  // spec 2.2: da "true/false", meaning not shown; real receivers write true.
  { key: 'da', written: DA, meaning: 'not shown' },
  { key: 'et', written: 'comma-separated decimal', meaning: 'encryption types' },
  // Not in spec 2.2's table: real receivers repeat the features here (same text form).
  { key: 'ft', written: 'as features', meaning: 'feature bits, spec 2.3' },
  { key: 'md', written: 'comma-separated decimal', meaning: 'metadata types' },
  { key: 'pw', written: 'true or false', meaning: 'speaker requires a password' },
  // spec 2.2: sv "true/false", meaning not shown; real receivers write false.
  { key: 'sv', written: SV, meaning: 'not shown' },
  { key: 'sr', written: SAMPLE_RATE, meaning: 'sample rate in Hz' },
  { key: 'ss', written: SAMPLE_SIZE, meaning: 'sample size in bits' },
  { key: 'tp', written: 'UDP, TCP or TCP,UDP', meaning: 'supported transport' },
  // spec 2.2: vn an integer, meaning not shown; real receivers write 65537.
  { key: 'vn', written: VN, meaning: 'not shown' },
  { key: 'vs', written: 'srcvers', meaning: 'server version' },
  { key: 'am', written: 'model', meaning: 'device model' },
  // Not in spec 2.2's table: real receivers repeat the media service's pk here.
  { key: 'pk', written: 'lower-case hex', meaning: 'public key' },
  // spec 2.2: sf "hex", meaning not shown; real receivers write the status flags here.
  { key: 'sf', written: 'as flags', meaning: 'status flags, spec 2.4 (not shown in 2.2)' },
  // Not in spec 2.2's table: later real receivers repeat vv here.
  { key: 'vv', written: 'decimal', meaning: 'version field' },
] as const satisfies readonly TxtKey[];

export type MediaTxtKey = (typeof MEDIA_TXT_KEYS)[number]['key'];
export type AudioTxtKey = (typeof AUDIO_TXT_KEYS)[number]['key'];


/** Ed25519 public keys are 32 bytes. */
const PK_LENGTH = 32;

/**
 * Booleans of the media record are written `1`/`0` (real receivers: `igl=1`, `gcgl=1`,
 * `pgcgl=0`); `pw`, in both records, is written `true`/`false` (real receivers: `pw=false`).
 * The spec's tables only say "boolean"; senders in the field read these spellings.
 */
function digitBoolean(value: boolean): string {
  return value ? '1' : '0';
}
function wordBoolean(value: boolean): string {
  return value ? 'true' : 'false';
}

/** Rejects a MAC that is not six colon-separated hex pairs; returns its six bytes. */
export function parseMacAddress(deviceId: string): Uint8Array {
  if (!/^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$/.test(deviceId)) {
    throw new DiscoveryError(`deviceid: ${JSON.stringify(deviceId)} is not a MAC address like AA:BB:CC:DD:EE:FF`);
  }
  return fromHex(deviceId, ':');
}

function checkUuid(key: string, value: string | undefined): void {
  if (value !== undefined && !isUuid(value)) {
    throw new DiscoveryError(`${key}: ${JSON.stringify(value)} is not a UUID string`);
  }
}

function checkCodes(key: string, codes: readonly number[], required: boolean): void {
  if (required && codes.length === 0) throw new DiscoveryError(`${key}: the list is empty`);
  for (const code of codes) {
    if (!Number.isInteger(code) || code < 0) throw new DiscoveryError(`${key}: ${String(code)} is not a code`);
  }
}

function pkText(pk: Uint8Array): string {
  if (pk.length !== PK_LENGTH) {
    throw new DiscoveryError(`pk: an Ed25519 public key is ${PK_LENGTH} bytes, got ${pk.length}`);
  }
  return toHex(pk);
}

function decimal(key: string, value: number | bigint): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new DiscoveryError(`${key}: ${value} is not an integer`);
  }
  return value.toString(10);
}

/**
 * The status flags the records advertise (TXT flags and sf, and /info statusFlags, spec
 * 2.11): the identity's flags with PINRequired and PasswordRequired set from its booleans
 * (spec 5.2) and ReceiverSessionIsActive from the activity (spec 2.1).
 */
export function statusFlags(identity: DiscoveryIdentity, activity: ActivityFields): number {
  let flags = withFlag(identity.flags, 'PINRequired', identity.pinRequired);
  flags = withFlag(flags, 'PasswordRequired', identity.passwordRequired);
  return withFlag(flags, 'ReceiverSessionIsActive', activity.receiverSessionIsActive);
}

function ordered<K extends string>(
  keys: readonly { readonly key: K }[],
  values: Partial<Record<K, string>>,
): [string, string][] {
  const entries: [string, string][] = [];
  for (const { key } of keys) {
    const value = values[key];
    if (value !== undefined) entries.push([key, value]);
  }
  return entries;
}

/**
 * The complete TXT record of the media service (`_vendorplay._tcp`, or the dialect's name;
 * spec 2.1), in MEDIA_TXT_KEYS order. Throws a DiscoveryError for a value the record cannot
 * carry (a malformed MAC or UUID, a pk that is not 32 bytes, flags beyond 20 bits).
 */
export function mediaServiceTxt(identity: DiscoveryIdentity, activity: ActivityFields): [string, string][] {
  parseMacAddress(identity.deviceId);
  for (const key of ['pi', 'psi', 'hgid', 'tsid'] as const) checkUuid(key, identity[key]);
  checkUuid('gid', activity.gid);
  checkUuid('pgid', activity.pgid);
  const values: Partial<Record<MediaTxtKey, string>> = {
    deviceid: identity.deviceId,
    features: featuresText(identity.features),
    flags: flagsText(statusFlags(identity, activity)),
    model: identity.model,
    manufacturer: identity.manufacturer,
    serialNumber: identity.serialNumber,
    fv: identity.fv,
    osvers: identity.osvers,
    srcvers: identity.srcvers,
    protovers: identity.protovers,
    pw: wordBoolean(identity.passwordRequired),
    pi: identity.pi,
    psi: identity.psi,
    gid: activity.gid,
    gcgl: digitBoolean(activity.gcgl),
    igl: digitBoolean(activity.igl),
    gpn: identity.gpn,
    hgid: identity.hgid,
    hmid: identity.hmid,
    tsid: identity.tsid,
  };
  if (identity.rsf !== undefined) values.rsf = rsfText(identity.rsf);
  if (identity.acl !== undefined) values.acl = decimal('acl', identity.acl);
  if (identity.pk !== undefined) values.pk = pkText(identity.pk);
  // spec 2.1: pgid and pgcgl appear together, only in the activities whose row says so.
  if (activity.pgid !== undefined) {
    values.pgid = activity.pgid;
    values.pgcgl = digitBoolean(activity.pgcgl ?? false);
  }
  if (identity.vv !== undefined) values.vv = decimal('vv', identity.vv);
  return ordered(MEDIA_TXT_KEYS, values);
}

/**
 * rsf, "64-bit hex" (spec 2.1): one `0x` number of all 64 bits, upper-case, as real
 * receivers write it (`rsf=0x0`); unlike features it is not split into words.
 */
function rsfText(rsf: bigint): string {
  if (rsf < 0n || rsf > 0xffffffffffffffffn) throw new DiscoveryError(`rsf: ${rsf} is not an unsigned 64-bit value`);
  return `0x${rsf.toString(16).toUpperCase()}`;
}

/**
 * The TXT record of the audio service `_raop._tcp` (spec 2.2), in AUDIO_TXT_KEYS order. The
 * activity matters only through `sf`, the status flags.
 */
export function audioServiceTxt(identity: DiscoveryIdentity, activity: ActivityFields): [string, string][] {
  const audio = identity.audio;
  checkCodes('cn', audio.codecs, true);
  checkCodes('et', audio.encryptionTypes, true);
  checkCodes('md', audio.metadataTypes, false);
  const values: Partial<Record<AudioTxtKey, string>> = {
    txtvers: TXT_VERSION,
    ch: CHANNELS,
    cn: audio.codecs.join(','),
    da: DA,
    et: audio.encryptionTypes.join(','),
    ft: featuresText(identity.features),
    pw: wordBoolean(identity.passwordRequired),
    sv: SV,
    sr: SAMPLE_RATE,
    ss: SAMPLE_SIZE,
    tp: audio.transport ?? 'UDP',
    vn: VN,
    vs: identity.srcvers,
    am: identity.model,
    sf: flagsText(statusFlags(identity, activity)),
  };
  // Receivers without metadata support leave md out rather than write it empty.
  if (audio.metadataTypes.length > 0) values.md = audio.metadataTypes.join(',');
  if (identity.pk !== undefined) values.pk = pkText(identity.pk);
  if (identity.vv !== undefined) values.vv = decimal('vv', identity.vv);
  return ordered(AUDIO_TXT_KEYS, values);
}

