// Feature bits of spec 2.3: the table against the spec, and the TXT, decimal and integer forms.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DiscoveryError,
  FEATURE_BITS,
  featureMask,
  featureNames,
  featuresDecimal,
  featuresInteger,
  featuresText,
  hasFeature,
  parseFeatures,
} from '../../src/discovery/index';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a DiscoveryError whose message matches `pattern`. */
const throwsDiscoveryError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, DiscoveryError, pattern);


test('every named feature bit has the number and name of spec 2.3', () => {
  // Copied by hand from the spec's table, so a typo in the source table fails here.
  const expected: [number, string][] = [
    [0, 'Video'],
    [1, 'Photo'],
    [2, 'VideoVendorDRM'],
    [3, 'VideoVolumeControl'],
    [4, 'VideoHTTPLiveStreams'],
    [5, 'Slideshow'],
    [7, 'Screen'],
    [8, 'ScreenRotate'],
    [9, 'Audio'],
    [11, 'AudioRedundant'],
    [12, 'VendorSAPv2pt5_AES_GCM'],
    [13, 'PhotoCaching'],
    [14, 'Authentication4'],
    [15, 'MetadataFeature1'],
    [16, 'MetadataFeature2'],
    [17, 'MetadataFeature0'],
    [18, 'AudioFormat1'],
    [19, 'AudioFormat2'],
    [20, 'AudioFormat3'],
    [21, 'AudioFormat4'],
    [23, 'Authentication1'],
    [26, 'HasUnifiedAdvertiserInfo'],
    [27, 'SupportsLegacyPairing'],
    [30, 'RAOP'],
    [32, 'IsCarProjection / SupportsVolume'],
    [33, 'SupportsVendorVideoPlayQueue'],
    [34, 'SupportsVendorFromCloud'],
    [38, 'SupportsCorePairingAndEncryption'],
    [40, 'SupportsBufferedAudio'],
    [41, 'SupportsPTP'],
    [42, 'SupportsScreenMultiCodec'],
    [43, 'SupportsSystemPairing'],
    [46, 'SupportsHomePairingAndAccessControl'],
    [48, 'SupportsTransientPairing'],
    [50, 'MetadataFeature4'],
    [51, 'SupportsUnifiedPairSetupAndVendorAuth'],
    [52, 'SupportsSetPeersExtendedMessage'],
  ];
  assert.deepEqual(
    FEATURE_BITS.map((entry) => [entry.bit, entry.name]),
    expected,
  );
});

test('the unnamed bits of spec 2.3 are exactly the bits the table leaves out below 53', () => {
  const unnamed = [6, 10, 22, 24, 25, 28, 29, 31, 35, 36, 37, 39, 44, 45, 47, 49];
  const named = new Set<number>(FEATURE_BITS.map((entry) => entry.bit));
  const missing: number[] = [];
  for (let bit = 0; bit <= 52; bit++) if (!named.has(bit)) missing.push(bit);
  assert.deepEqual(missing, unnamed);
});

test('every feature bit has a meaning', () => {
  for (const entry of FEATURE_BITS) assert.ok(entry.meaning.length > 0, `bit ${entry.bit}`);
  assert.equal(FEATURE_BITS.find((entry) => entry.bit === 30)?.meaning.includes('_raop._tcp'), true);
});

test('featureMask sets the named bits', () => {
  assert.equal(featureMask([]), 0n);
  assert.equal(featureMask(['Video', 'Photo', 'RAOP']), 0x40000003n);
  assert.equal(featureMask(['SupportsTransientPairing']), 0x1000000000000n);
  assert.equal(featureMask(['IsCarProjection / SupportsVolume']), 0x100000000n);
  assert.equal(featureMask(['SupportsSetPeersExtendedMessage', 'Video']), (1n << 52n) | 1n);
});

test('featureMask rejects a name that is not in the table', () => {
  throwsDiscoveryError(() => featureMask(['Teleport' as never]), /unknown feature name "Teleport"/);
});

test('featureNames lists the set bits lowest first, unnamed ones as bit<N>', () => {
  assert.deepEqual(featureNames(0n), []);
  assert.deepEqual(featureNames(0x40000003n), ['Video', 'Photo', 'RAOP']);
  assert.deepEqual(featureNames((1n << 63n) | (1n << 6n) | (1n << 48n)), ['bit6', 'SupportsTransientPairing', 'bit63']);
  // A real set-top receiver's features, 0x5A7FFFF7,0x1E.
  assert.deepEqual(featureNames(0x1e5a7ffff7n), [
    'Video',
    'Photo',
    'VideoVendorDRM',
    'VideoHTTPLiveStreams',
    'Slideshow',
    'bit6',
    'Screen',
    'ScreenRotate',
    'Audio',
    'bit10',
    'AudioRedundant',
    'VendorSAPv2pt5_AES_GCM',
    'PhotoCaching',
    'Authentication4',
    'MetadataFeature1',
    'MetadataFeature2',
    'MetadataFeature0',
    'AudioFormat1',
    'AudioFormat2',
    'AudioFormat3',
    'AudioFormat4',
    'bit22',
    'bit25',
    'SupportsLegacyPairing',
    'bit28',
    'RAOP',
    'SupportsVendorVideoPlayQueue',
    'SupportsVendorFromCloud',
    'bit35',
    'bit36',
  ]);
});

test('featureNames rejects values outside 64 unsigned bits', () => {
  throwsDiscoveryError(() => featureNames(-1n), /not an unsigned 64-bit value/);
  throwsDiscoveryError(() => featureNames(1n << 64n), /not an unsigned 64-bit value/);
});

test('hasFeature reads one bit', () => {
  const mask = featureMask(['Photo', 'SupportsBufferedAudio']);
  assert.equal(hasFeature(mask, 'Photo'), true);
  assert.equal(hasFeature(mask, 'SupportsBufferedAudio'), true);
  assert.equal(hasFeature(mask, 'Video'), false);
  assert.equal(hasFeature(mask, 'SupportsPTP'), false);
});

test('featuresText writes one upper-case word when the high word is zero', () => {
  assert.equal(featuresText(0x40000003n), '0x40000003');
  assert.equal(featuresText(0x39f7n), '0x39F7');
  assert.equal(featuresText(0n), '0x0');
});

test('featuresText writes low word, comma, high word when the high word is set', () => {
  assert.equal(featuresText(1n << 48n), '0x0,0x10000');
  assert.equal(featuresText(0x1e5a7ffff7n), '0x5A7FFFF7,0x1E');
  assert.equal(featuresText(0xffffffffffffffffn), '0xFFFFFFFF,0xFFFFFFFF');
});

test('featuresText rejects values outside 64 unsigned bits', () => {
  throwsDiscoveryError(() => featuresText(1n << 64n), /not an unsigned 64-bit value/);
  throwsDiscoveryError(() => featuresText(-5n), /not an unsigned 64-bit value/);
});

test('parseFeatures reads both forms, either case, with or without 0x', () => {
  assert.equal(parseFeatures('0x5A7FFFF7,0x1E'), 0x1e5a7ffff7n);
  assert.equal(parseFeatures('0x5a7ffff7,0x1e'), 0x1e5a7ffff7n);
  assert.equal(parseFeatures('5A7FFFF7,1E'), 0x1e5a7ffff7n);
  assert.equal(parseFeatures('0X5A7FFFF7,0X1E'), 0x1e5a7ffff7n);
  assert.equal(parseFeatures('0x39f7'), 0x39f7n);
  assert.equal(parseFeatures('0x40000003'), 0x40000003n);
  assert.equal(parseFeatures('0x0,0x10000'), 1n << 48n);
  assert.equal(parseFeatures('0xFFFFFFFF,0xFFFFFFFF'), 0xffffffffffffffffn);
  assert.equal(parseFeatures(' 0x1 , 0x2 '), 0x200000001n);
  assert.equal(parseFeatures('0x000000001'), 1n);
});

test('parseFeatures round-trips featuresText', () => {
  for (const mask of [0n, 1n, 0x40000003n, 1n << 48n, 0x1e5a7ffff7n, (1n << 64n) - 1n, 1n << 32n]) {
    assert.equal(parseFeatures(featuresText(mask)), mask);
  }
});

test('parseFeatures names what is wrong with garbage', () => {
  throwsDiscoveryError(() => parseFeatures(''), /low word of "" is empty/);
  throwsDiscoveryError(() => parseFeatures('0x'), /low word of "0x" is empty/);
  throwsDiscoveryError(() => parseFeatures('0x1,'), /high word of "0x1," is empty/);
  throwsDiscoveryError(() => parseFeatures('xyz'), /low word "xyz" is not hex/);
  throwsDiscoveryError(() => parseFeatures('0x1,0xG1'), /high word "0xG1" is not hex/);
  throwsDiscoveryError(() => parseFeatures('-0x1'), /low word "-0x1" is not hex/);
  throwsDiscoveryError(() => parseFeatures('0x123456789'), /low word "0x123456789" is wider than 32 bits/);
  throwsDiscoveryError(() => parseFeatures('0x1,0x2,0x3'), /has 3 words; at most 2/);
});

test('featuresDecimal is exact for all 64 bits', () => {
  assert.equal(featuresDecimal(0n), '0');
  assert.equal(featuresDecimal(0x1e5a7ffff7n), '130367356919');
  assert.equal(featuresDecimal((1n << 63n) | 1n), '9223372036854775809');
  assert.equal(featuresDecimal(0xffffffffffffffffn), '18446744073709551615');
});

test('featuresInteger is a number while safe and a bigint beyond 2^53', () => {
  assert.equal(featuresInteger(0x1e5a7ffff7n), 130367356919);
  assert.equal(featuresInteger((1n << 52n) | 1n), 4503599627370497);
  assert.equal(featuresInteger(2n ** 53n - 1n), 9007199254740991);
  assert.equal(featuresInteger(1n << 53n), 9007199254740992n);
  assert.equal(featuresInteger((1n << 63n) | 1n), 9223372036854775809n);
});
