// DNS-SD names (RFC 6763 4, 7; RFC 6762 16): instance names, service types, the one host name
// both services point at, and how names compare. Every host publishes by these rules.

import { toHex, utf8Encode } from '../bytes';
import { DiscoveryError } from './error';
import { parseMacAddress, type DiscoveryIdentity } from './txt';

/** RFC 6763 4.1.1 and RFC 1035 2.3.4: a label (an instance name too) is at most 63 bytes. */
export const LABEL_MAX = 63;

/** spec 2.2: the audio instance name starts with the MAC address in hex (12 digits) and `@`. */
const AUDIO_INSTANCE_PREFIX_BYTES = 2 * 6 + 1;

/**
 * The longest receiver name, in bytes of UTF-8: every instance name that carries it must be one
 * label (RFC 6763 4.1.1), and the audio service's, `5855CA1AE288@<name>`, is the longer one. A
 * limit in UTF-16 code units or characters lets names through that discovery cannot publish
 * (40 "é" are 40 characters and 80 bytes).
 */
export const RECEIVER_NAME_MAX = LABEL_MAX - AUDIO_INSTANCE_PREFIX_BYTES;

/**
 * What is wrong with `name` as the receiver's name, to follow the words "name" or "--name"
 * (`is empty`), or undefined when nothing is: empty, or over RECEIVER_NAME_MAX bytes of UTF-8.
 * The one check of the name: the configuration makes it (so every host's manifest), and the
 * Node command line before anything starts.
 */
export function receiverNameProblem(name: string): string | undefined {
  if (!name) return 'is empty';
  const length = utf8Encode(name).length;
  if (length > RECEIVER_NAME_MAX) {
    return `${JSON.stringify(name)} is ${length} bytes of UTF-8; at most ${RECEIVER_NAME_MAX} fit (the audio service's DNS-SD name, MAC@name, is one ${LABEL_MAX}-byte label)`;
  }
  return undefined;
}

/** The top-level label of every multicast DNS name (RFC 6762 3). */
export const LOCAL_DOMAIN = 'local';

/** RFC 6763 7: `_name._tcp` or `_name._udp`, the name 1 to 15 letters, digits and hyphens. */
const SERVICE_TYPE = /^_([A-Za-z0-9-]{1,15})\._(tcp|udp)$/;

/** A service type taken apart: `_raop._tcp` is `{ name: 'raop', protocol: 'tcp' }`. */
export interface ServiceTypeParts {
  readonly name: string;
  readonly protocol: 'tcp' | 'udp';
}

/** `_name._tcp` or `_name._udp` taken apart, or undefined for anything else (RFC 6763 7). */
export function parseServiceType(type: string): ServiceTypeParts | undefined {
  const match = SERVICE_TYPE.exec(type);
  return match ? { name: match[1], protocol: match[2] as 'tcp' | 'udp' } : undefined;
}

function checkInstanceName(name: string): string {
  const length = utf8Encode(name).length;
  if (length === 0) throw new DiscoveryError('instance name: empty');
  if (length > LABEL_MAX) {
    throw new DiscoveryError(`instance name: ${JSON.stringify(name)} is ${length} bytes; DNS-SD allows ${LABEL_MAX}`);
  }
  return name;
}

/** The media service's instance name: the receiver's name as shown to senders. */
export function mediaInstanceName(identity: DiscoveryIdentity): string {
  return checkInstanceName(identity.name);
}

/**
 * The audio service's instance name (spec 2.2): the MAC address in hex without separators,
 * `@`, the name. Upper-case hex, as real receivers write it (`5855CA1AE288@Apple TV`).
 */
export function audioInstanceName(identity: DiscoveryIdentity): string {
  return checkInstanceName(`${toHex(parseMacAddress(identity.deviceId)).toUpperCase()}@${identity.name}`);
}

/**
 * The host label (first label of `<label>.local`) of a receiver called `name`: the one host
 * name every service of the receiver points at, as real receivers publish one host. Letters,
 * digits and hyphens only (RFC 952/1123 host names), runs of anything else become one hyphen,
 * at most 63 bytes, no hyphen at either end: `Living Room` is `Living-Room`, `Küche & Bad` is
 * `K-che-Bad`. A name with none of those characters gives `receiver`.
 */
export function hostLabel(name: string): string {
  const label = name
    .replace(/[^A-Za-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, LABEL_MAX)
    .replace(/-+$/, '');
  return label || 'receiver';
}

/** `_vendorplay._tcp.local` for `_vendorplay._tcp`. */
export function serviceDomain(type: string): string {
  return `${type}.${LOCAL_DOMAIN}`;
}

/**
 * `Living Room._vendorplay._tcp.local`: the owner name of a service's SRV and TXT records, in
 * presentation form. RFC 6763 4.3: the instance label is taken whole (dots and all); where a
 * dotted string is parsed again, `instanceLabels` is the unambiguous form.
 */
export function instanceDomain(instance: string, type: string): string {
  return `${instance}.${serviceDomain(type)}`;
}

/** The labels of a service type's domain: `['_raop', '_tcp', 'local']`. */
export function serviceLabels(type: string): string[] {
  return [...type.split('.'), LOCAL_DOMAIN];
}

/** The labels of a service instance's name: the instance label whole, then the type's. */
export function instanceLabels(instance: string, type: string): string[] {
  return [instance, ...serviceLabels(type)];
}

/** The labels of a host name: `['Living-Room', 'local']`. */
export function hostLabels(label: string): string[] {
  return [label, LOCAL_DOMAIN];
}

/** RFC 6762 16: names compare with ASCII letters case-insensitive, every other byte exact. */
export function sameLabel(a: string, b: string): boolean {
  return a.length === b.length && asciiLower(a) === asciiLower(b);
}

/** Label by label, as `sameLabel`. */
export function sameName(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameLabel(a[i], b[i])) return false;
  return true;
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 32));
}
