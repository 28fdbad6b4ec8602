// Status flags of spec 2.4: the table against the spec, and the 20-bit hex form of TXT flags.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DiscoveryError,
  FLAG_BITS,
  STATUS_FLAGS,
  flagMask,
  flagNames,
  flagsText,
  hasFlag,
  parseFlags,
  withFlag,
} from '../../src/discovery/index';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a DiscoveryError whose message matches `pattern`. */
const throwsDiscoveryError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, DiscoveryError, pattern);


test('every status flag has the bit, name and note of spec 2.4', () => {
  const expected: [number, string, string][] = [
    [0, 'ProblemDetected', 'never seen set'],
    [1, 'DeviceNotConfigured', 'never seen set'],
    [2, 'AudioCableAttached', 'seen on several device kinds'],
    [3, 'PINRequired', ''],
    [6, 'SupportsVendorFromCloud', ''],
    [7, 'PasswordRequired', ''],
    [9, 'OneTimePairingRequired', ''],
    [10, 'DeviceWasSetupForHomeAccessControl', ''],
    [11, 'DeviceSupportsRelay', 'when set, the sender connects to the device to read the current track'],
    [12, 'SilentPrimary', ''],
    [13, 'TightSyncIsGroupLeader', ''],
    [14, 'TightSyncBuddyNotReachable', ''],
    [15, 'IsMusicSubscriber', ''],
    [16, 'CloudLibraryIsOn', ''],
    [17, 'ReceiverSessionIsActive', 'set while the receiver receives anything'],
  ];
  assert.deepEqual(
    STATUS_FLAGS.map((entry) => [entry.bit, entry.name, entry.note]),
    expected,
  );
  assert.equal(FLAG_BITS, 20);
});

test('the unused bits of spec 2.4 are exactly the bits the table leaves out', () => {
  const named = new Set<number>(STATUS_FLAGS.map((entry) => entry.bit));
  const unused: number[] = [];
  for (let bit = 0; bit < 20; bit++) if (!named.has(bit)) unused.push(bit);
  assert.deepEqual(unused, [4, 5, 8, 18, 19]);
});

test('flagMask sets the named bits', () => {
  assert.equal(flagMask([]), 0);
  assert.equal(flagMask(['AudioCableAttached']), 0x4);
  assert.equal(flagMask(['PINRequired', 'PasswordRequired', 'ReceiverSessionIsActive']), 0x20088);
  throwsDiscoveryError(() => flagMask(['Sleepy' as never]), /unknown flag name "Sleepy"/);
});

test('flagNames lists set bits lowest first, unused ones as bit<N>', () => {
  // A real receiver's flags=0x18644.
  assert.deepEqual(flagNames(0x18644), [
    'AudioCableAttached',
    'SupportsVendorFromCloud',
    'OneTimePairingRequired',
    'DeviceWasSetupForHomeAccessControl',
    'IsMusicSubscriber',
    'CloudLibraryIsOn',
  ]);
  assert.deepEqual(flagNames(0x110), ['bit4', 'bit8']);
  assert.deepEqual(flagNames(0xc0000), ['bit18', 'bit19']);
  throwsDiscoveryError(() => flagNames(0x100000), /not a 20-bit value/);
});

test('hasFlag and withFlag read and change one bit', () => {
  assert.equal(hasFlag(0x8, 'PINRequired'), true);
  assert.equal(hasFlag(0x8, 'PasswordRequired'), false);
  assert.equal(withFlag(0x4, 'ReceiverSessionIsActive', true), 0x20004);
  assert.equal(withFlag(0x20004, 'ReceiverSessionIsActive', false), 0x4);
  assert.equal(withFlag(0x4, 'ReceiverSessionIsActive', false), 0x4);
});

test('flagsText writes 0x and upper-case hex without leading zeros', () => {
  assert.equal(flagsText(0), '0x0');
  assert.equal(flagsText(0x4), '0x4');
  assert.equal(flagsText(0x18644), '0x18644');
  assert.equal(flagsText(0x8c), '0x8C');
  assert.equal(flagsText(0xfffff), '0xFFFFF');
  throwsDiscoveryError(() => flagsText(0x100000), /not a 20-bit value/);
  throwsDiscoveryError(() => flagsText(-1), /not a 20-bit value/);
  throwsDiscoveryError(() => flagsText(1.5), /not a 20-bit value/);
});

test('parseFlags reads hex in either case, with or without 0x, leading zeros allowed', () => {
  assert.equal(parseFlags('0x4'), 4);
  assert.equal(parseFlags('0x04'), 4);
  assert.equal(parseFlags('4'), 4);
  assert.equal(parseFlags('0X8c'), 0x8c);
  assert.equal(parseFlags('0x8C'), 0x8c);
  assert.equal(parseFlags('0xfffff'), 0xfffff);
  assert.equal(parseFlags('0x000fffff'), 0xfffff);
  assert.equal(parseFlags(' 0x18644 '), 0x18644);
});

test('parseFlags rejects values beyond 20 bits and non-hex text', () => {
  throwsDiscoveryError(() => parseFlags('0x100000'), /"0x100000" is beyond 20 bits/);
  throwsDiscoveryError(() => parseFlags('0xFFFFFFFFFFFF'), /beyond 20 bits/);
  throwsDiscoveryError(() => parseFlags(''), /"" is not hex/);
  throwsDiscoveryError(() => parseFlags('0x'), /"0x" is not hex/);
  throwsDiscoveryError(() => parseFlags('0x4g'), /"0x4g" is not hex/);
  throwsDiscoveryError(() => parseFlags('-4'), /"-4" is not hex/);
});

test('parseFlags round-trips flagsText', () => {
  for (const mask of [0, 4, 0x8c, 0x18644, 0x20088, 0xfffff]) assert.equal(parseFlags(flagsText(mask)), mask);
});
