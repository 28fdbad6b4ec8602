// The receiver's configuration (src/receiver/config.ts): defaults, profile limits, overrides, and
// the refusals that name the field.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, DEFAULT_LIMITS, freezeConfig, makeConfig, normaliseDeviceId } from '../../src/receiver/config';
import { PROFILES } from '../../src/receiver/profiles';
import { assertThrowsKind } from '../support/throws';

test('defaults: the desktop profile, the spec\'s ports and PIN, the vendor dialect, a factory name', () => {
  const config = makeConfig();
  assert.equal(config.profile, 'desktop');
  assert.equal(config.model, PROFILES.desktop.model);
  assert.equal(config.port, 7000);
  assert.equal(config.mirrorPort, 7100);
  assert.equal(config.ntpPort, 7011);
  assert.equal(config.eventPort, 7002);
  assert.equal(config.timingPort, 7012);
  assert.equal(config.pin, '3939');
  assert.equal(config.dialect, 'vendor');
  assert.equal(config.nameIsFactoryDefault, true);
  assert.deepEqual(config.limits, DEFAULT_LIMITS);
});

test('a profile brings its model and limits; given limits override both', () => {
  const config = makeConfig({ profile: 'photo-frame', limits: { photoCacheEntries: 5 } });
  assert.equal(config.model, 'VendorFrame1,1');
  assert.equal(config.limits.maxPhotoBytes, 2 * 1024 * 1024); // the 8 MB PSRAM board's (boards.ts)
  assert.equal(config.limits.photoCacheEntries, 5);
  assert.equal(config.limits.idleTimeoutMs, DEFAULT_LIMITS.idleTimeoutMs);
  assert.equal(makeConfig({ profile: 'photo-frame', model: 'Mine1,1' }).model, 'Mine1,1');
});

test('a given name is not the factory default; the device id is normalised', () => {
  const config = makeConfig({ name: 'Kitchen', deviceId: 'aa-bb-cc-dd-ee-0f' });
  assert.equal(config.nameIsFactoryDefault, false);
  assert.equal(config.deviceId, 'AA:BB:CC:DD:EE:0F');
});

test('normaliseDeviceId takes colons, hyphens or none, either case; anything else is refused', () => {
  assert.equal(normaliseDeviceId('aabbccddeeff'), 'AA:BB:CC:DD:EE:FF');
  assert.equal(normaliseDeviceId('AA:bb:CC:dd:EE:ff'), 'AA:BB:CC:DD:EE:FF');
  for (const id of ['', 'aabbccddee', 'aabbccddeeff00', 'gg:bb:cc:dd:ee:ff', 'aa bb cc dd ee ff']) {
    assertThrowsKind(() => normaliseDeviceId(id), ConfigError, /is not a MAC address/);
  }
});

test('each field that cannot work is refused by name', () => {
  const refused: [Parameters<typeof makeConfig>[0], RegExp][] = [
    [{ profile: 'toaster' as never }, /profile "toaster" is not one of photo-frame, speaker, media-board, desktop/],
    [{ name: '' }, /^name is empty/],
    [{ name: 'x'.repeat(51) }, /^name "x+" is 51 bytes/],
    [{ port: 65536 }, /port 65536 is not a TCP port/],
    [{ mirrorPort: -1 }, /mirrorPort -1 is not a TCP port/],
    [{ ntpPort: 1.5 }, /ntpPort 1.5 is not a UDP port/],
    [{ eventPort: -1 }, /eventPort -1 is not a TCP port/],
    [{ timingPort: 70_000 }, /timingPort 70000 is not a UDP port/],
    [{ dialect: 'google' as never }, /dialect "google" is not one of vendor, apple/],
    [{ pin: '123' }, /pin must be 4 to 8 digits/],
    [{ pin: '123456789' }, /pin must be 4 to 8 digits/],
    [{ pin: '12a4' }, /pin must be 4 to 8 digits/],
    [{ authKey: 'PEM' }, /authKey and authCertificate go together/],
    [{ authCertificate: new Uint8Array(1) }, /authKey and authCertificate go together/],
    [{ limits: { maxConnections: 0 } }, /limits\.maxConnections must be a positive integer, got 0/],
    [{ limits: { idleTimeoutMs: 1.5 } }, /limits\.idleTimeoutMs must be a positive integer/],
  ];
  for (const [overrides, pattern] of refused) assertThrowsKind(() => makeConfig(overrides), ConfigError, pattern);
});

test('the edges that work: port 0 (any free port) and 65535, PINs of 4 and 8 digits', () => {
  assert.equal(makeConfig({ port: 0, ntpPort: 65535 }).port, 0);
  assert.equal(makeConfig({ pin: '0000' }).pin, '0000');
  assert.equal(makeConfig({ pin: '12345678' }).pin, '12345678');
});

test('the PIN: 3939 by default, random where a PIN is required and none or no password given, "random" taken as asked', () => {
  assert.equal(makeConfig({ pinRequired: true }).pin, 'random', 'a required PIN everyone knows protects nothing');
  assert.equal(makeConfig({ pinRequired: true, pin: '4821' }).pin, '4821');
  assert.equal(makeConfig({ pinRequired: true, password: 'secret' }).pin, '3939', 'the password is the secret');
  assert.equal(makeConfig({ pin: 'random' }).pin, 'random');
  assertThrowsKind(() => makeConfig({ pin: 'Random' }), ConfigError, /pin must be 4 to 8 digits, or random/);
});

test('a frozen configuration and its limits cannot change, and are validated first', () => {
  const config = freezeConfig(makeConfig());
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.limits));
  // Reflect.set, not an assignment: the XS bundle is not strict code, where a failed write is silent.
  assert.equal(Reflect.set(config.limits, 'maxConnections', 1), false);
  assert.equal(Reflect.set(config, 'pin', '0000'), false);
  assert.equal(config.limits.maxConnections, DEFAULT_LIMITS.maxConnections);
  const broken = makeConfig();
  broken.pin = 'none';
  assertThrowsKind(() => freezeConfig(broken), ConfigError, /pin/);
  assert.equal(Object.isFrozen(broken), false);
});
