// Status flag bits of spec 2.4 as one table, and the 20-bit hex form of the TXT `flags` field.

import { DiscoveryError } from './error';

/** One named bit of the 20-bit status flags (spec 2.4). */
export interface StatusFlag {
  readonly bit: number;
  /** The name exactly as spec 2.4 writes it. */
  readonly name: string;
  /** The note column of spec 2.4 ('' where the spec has none). */
  readonly note: string;
}

/**
 * Every named status flag of spec 2.4, in bit order. Bits 4, 5, 8, 18 and 19 are unused
 * ("never seen set"); `flagNames` writes them as `bit<N>`.
 */
export const STATUS_FLAGS = [
  { bit: 0, name: 'ProblemDetected', note: 'never seen set' },
  { bit: 1, name: 'DeviceNotConfigured', note: 'never seen set' },
  { bit: 2, name: 'AudioCableAttached', note: 'seen on several device kinds' },
  { bit: 3, name: 'PINRequired', note: '' },
  { bit: 6, name: 'SupportsVendorFromCloud', note: '' },
  { bit: 7, name: 'PasswordRequired', note: '' },
  { bit: 9, name: 'OneTimePairingRequired', note: '' },
  { bit: 10, name: 'DeviceWasSetupForHomeAccessControl', note: '' },
  {
    bit: 11,
    name: 'DeviceSupportsRelay',
    note: 'when set, the sender connects to the device to read the current track',
  },
  { bit: 12, name: 'SilentPrimary', note: '' },
  { bit: 13, name: 'TightSyncIsGroupLeader', note: '' },
  { bit: 14, name: 'TightSyncBuddyNotReachable', note: '' },
  { bit: 15, name: 'IsMusicSubscriber', note: '' },
  { bit: 16, name: 'CloudLibraryIsOn', note: '' },
  { bit: 17, name: 'ReceiverSessionIsActive', note: 'set while the receiver receives anything' },
] as const satisfies readonly StatusFlag[];

/** The name of a status flag, as spec 2.4 writes it. */
export type FlagName = (typeof STATUS_FLAGS)[number]['name'];

/** spec 2.4: the flags field has 20 bits. */
export const FLAG_BITS = 20;
const MAX_FLAGS = (1 << FLAG_BITS) - 1;

const BIT_BY_NAME = new Map<string, number>();
const NAME_BY_BIT: (string | undefined)[] = [];
for (const entry of STATUS_FLAGS) {
  BIT_BY_NAME.set(entry.name, entry.bit);
  NAME_BY_BIT[entry.bit] = entry.name;
}

function bitOf(name: string): number {
  const bit = BIT_BY_NAME.get(name);
  if (bit === undefined) throw new DiscoveryError(`flags: unknown flag name ${JSON.stringify(name)}`);
  return bit;
}

function checkFlags(mask: number): void {
  if (!Number.isInteger(mask) || mask < 0 || mask > MAX_FLAGS) {
    throw new DiscoveryError(`flags: ${String(mask)} is not a ${FLAG_BITS}-bit value`);
  }
}

/** The flags value with exactly the named bits set. */
export function flagMask(names: readonly FlagName[]): number {
  let mask = 0;
  for (const name of names) mask |= 1 << bitOf(name);
  return mask;
}

/** Names of the set bits, lowest first; unused bits read `bit<N>`. */
export function flagNames(mask: number): string[] {
  checkFlags(mask);
  const names: string[] = [];
  for (let bit = 0; bit < FLAG_BITS; bit++) {
    if ((mask >> bit) & 1) names.push(NAME_BY_BIT[bit] ?? `bit${bit}`);
  }
  return names;
}

export function hasFlag(mask: number, name: FlagName): boolean {
  return ((mask >> bitOf(name)) & 1) === 1;
}

/** `mask` with the named flag set or cleared. */
export function withFlag(mask: number, name: FlagName, on: boolean): number {
  const bit = 1 << bitOf(name);
  return on ? mask | bit : mask & ~bit;
}

/**
 * The TXT form of the flags (spec 2.1 `flags`, and `sf` of the audio service): `0x` and
 * upper-case hex without leading zeros, as real receivers write it (`flags=0x4`,
 * `flags=0x18644`; their digits are upper-case when a letter occurs, like `features`).
 */
export function flagsText(mask: number): string {
  checkFlags(mask);
  return `0x${mask.toString(16).toUpperCase()}`;
}

const HEX_FLAGS = /^(?:0[xX])?([0-9a-fA-F]+)$/;

/**
 * Reads a TXT flags value: hex, either case, `0x` optional, surrounding spaces ignored.
 * Throws a DiscoveryError for anything that is not hex or does not fit in 20 bits (spec 2.4).
 */
export function parseFlags(text: string): number {
  const match = HEX_FLAGS.exec(text.trim());
  if (!match) throw new DiscoveryError(`flags: ${JSON.stringify(text)} is not hex`);
  // Leading zeros are harmless ("0x04" is seen in the field); only the value must fit.
  const digits = match[1].replace(/^0+(?=.)/, '');
  const value = digits.length <= 5 ? parseInt(digits, 16) : MAX_FLAGS + 1;
  if (value > MAX_FLAGS) {
    throw new DiscoveryError(`flags: ${JSON.stringify(text)} is beyond ${FLAG_BITS} bits (at most 0xFFFFF)`);
  }
  return value;
}
