// Receiver profiles (src/receiver/profiles.ts): what each kind of device offers, and the feature
// bits it advertises given what the core and the host can do.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  advertisedFeatures,
  IMPLEMENTED_FEATURES,
  implementedFeatures,
  isProfileName,
  profileMirrors,
  profilePlaysVideo,
  PROFILES,
  profileShowsPictures,
  type ProfileName,
} from '../../src/receiver/profiles';

test('without a screen, a player or mirroring, only the features that need none are implemented', () => {
  assert.deepEqual(implementedFeatures({}), ['RAOP', 'SupportsCorePairingAndEncryption', 'SupportsTransientPairing']);
});

test('a screen adds photos and slideshows, a player video, mirroring Screen', () => {
  assert.deepEqual(implementedFeatures({}, { display: true }), ['RAOP', 'SupportsCorePairingAndEncryption', 'SupportsTransientPairing', 'Photo', 'PhotoCaching', 'Slideshow']);
  assert.deepEqual(implementedFeatures({}, { player: true }), ['RAOP', 'SupportsCorePairingAndEncryption', 'SupportsTransientPairing', 'Video', 'VideoHTTPLiveStreams']);
  assert.deepEqual(implementedFeatures({}, { mirroring: true }).slice(-1), ['Screen']);
  assert.deepEqual(implementedFeatures({}, { display: true, player: true }), [...IMPLEMENTED_FEATURES]);
});

test('certificate authentication only with both a key and a certificate', () => {
  const withBoth = implementedFeatures({ authKey: 'PEM', authCertificate: new Uint8Array(1) });
  assert.deepEqual(withBoth.slice(-2), ['SupportsUnifiedPairSetupAndVendorAuth', 'HasUnifiedAdvertiserInfo']);
  assert.equal(implementedFeatures({ authKey: 'PEM' }).includes('SupportsUnifiedPairSetupAndVendorAuth'), false);
  assert.equal(implementedFeatures({ authCertificate: new Uint8Array(1) }).includes('HasUnifiedAdvertiserInfo'), false);
});

test('a profile advertises what it intends and is implemented, in its own order', () => {
  const frame = PROFILES['photo-frame'];
  assert.deepEqual(advertisedFeatures(frame), ['Photo', 'Slideshow', 'PhotoCaching', 'SupportsCorePairingAndEncryption', 'SupportsTransientPairing']);
  // A speaker never advertises photos, whatever the host implements.
  assert.deepEqual(advertisedFeatures(PROFILES.speaker, implementedFeatures({}, { display: true, player: true, mirroring: true })), ['RAOP', 'SupportsCorePairingAndEncryption', 'SupportsTransientPairing']);
  assert.deepEqual(advertisedFeatures(PROFILES.desktop, []), []);
});

test('an audio sink adds Audio and the second-generation audio formats, to the profiles that play audio', () => {
  assert.deepEqual(implementedFeatures({}, { audio: true }).slice(-3), ['Audio', 'AudioFormat2', 'AudioFormat3']);
  assert.deepEqual(advertisedFeatures(PROFILES.speaker, implementedFeatures({}, { audio: true })), ['RAOP', 'Audio', 'AudioFormat2', 'AudioFormat3', 'SupportsCorePairingAndEncryption', 'SupportsTransientPairing']);
  assert.equal(advertisedFeatures(PROFILES['photo-frame'], implementedFeatures({}, { display: true, audio: true })).includes('Audio'), false);
});

test('what each profile means a host to give it', () => {
  const table = (Object.keys(PROFILES) as ProfileName[]).map((name) => [name, profileShowsPictures(name), profilePlaysVideo(name), profileMirrors(name)]);
  assert.deepEqual(table, [
    ['photo-frame', true, false, false],
    ['speaker', false, false, false],
    ['media-board', true, true, true],
    ['desktop', true, true, true],
  ]);
});

test('each profile is filed under its own name; isProfileName ignores inherited properties', () => {
  for (const [name, profile] of Object.entries(PROFILES)) assert.equal(profile.name, name);
  assert.equal(isProfileName('speaker'), true);
  assert.equal(isProfileName('constructor'), false);
  assert.equal(isProfileName('Speaker'), false);
});

test('boards take fewer pairing steps per second than the desktop default', () => {
  for (const name of ['photo-frame', 'speaker'] as const) {
    assert.equal(PROFILES[name].limits?.pairingStepsPerSecondPerConnection, 2, name);
    assert.equal(PROFILES[name].limits?.pairingStepsPerSecondPerAddress, 4, name);
  }
  assert.equal(PROFILES.desktop.limits, undefined);
});
