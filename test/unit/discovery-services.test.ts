// The services to advertise (src/discovery/services.ts, spec 2.1, 2.2): type, name, port, TXT.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIALECTS } from '../../src/dialect';
import { activityFields } from '../../src/discovery/activity';
import { DiscoveryError } from '../../src/discovery/error';
import { AUDIO_SERVICE_TYPE, CONTROL_PORT, discoveryServices, INSTANCE_NAME_MAX } from '../../src/discovery/services';
import { audioServiceTxt, mediaServiceTxt, type DiscoveryIdentity } from '../../src/discovery/txt';
import { assertThrowsKind } from '../support/throws';

const IDENTITY: DiscoveryIdentity = {
  name: 'Living Room',
  deviceId: 'AA:BB:CC:DD:EE:0F',
  model: 'Receiver1,1',
  manufacturer: 'Example Inc.',
  serialNumber: 'SN0001',
  fv: 'p1.0',
  osvers: '1.0',
  srcvers: '220.68',
  protovers: '1.1',
  features: 0x1e5a7ffff7n,
  flags: 0x4,
  passwordRequired: false,
  pinRequired: false,
  acl: 0,
  pk: new Uint8Array(32),
  pi: '0b9d9c3c-1e6a-4f0e-9d1f-2a3b4c5d6e7f',
  psi: 'a1b2c3d4-e5f6-4a0b-8c1d-2e3f40516273',
  vv: 2,
  audio: { codecs: [0, 1], encryptionTypes: [0], metadataTypes: [] },
};
const IDLE = activityFields({ activity: 'idle', gid: '5b1e2a3c-4d5e-4f60-8172-8394a5b6c7d8' });

test('the media service of the dialect, then the audio service on the same port by default', () => {
  const services = discoveryServices(IDENTITY, IDLE, { dialect: 'apple', port: 7001 });
  assert.deepEqual(services, [
    { type: '_airplay._tcp', name: 'Living Room', port: 7001, txt: mediaServiceTxt(IDENTITY, IDLE) },
    { type: AUDIO_SERVICE_TYPE, name: 'AABBCCDDEE0F@Living Room', port: 7001, txt: audioServiceTxt(IDENTITY, IDLE) },
  ]);
});

test('a dialect object is taken as is, and the audio service may have its own port', () => {
  const services = discoveryServices(IDENTITY, IDLE, { dialect: DIALECTS.vendor, port: 7000, audioPort: 5000 });
  assert.deepEqual(services.map((service) => [service.type, service.port]), [
    ['_vendorplay._tcp', 7000],
    ['_raop._tcp', 5000],
  ]);
});

test('without the audio service only the media service is published', () => {
  const services = discoveryServices(IDENTITY, IDLE, { dialect: 'vendor', port: CONTROL_PORT, audioService: false });
  assert.deepEqual(services.map((service) => service.type), ['_vendorplay._tcp']);
  assert.equal(services[0].port, 7000);
});

test('a name too long for one DNS label is refused, counting the audio name\'s MAC prefix', () => {
  // 51 bytes: a media name that fits, but "AABBCCDDEE0F@" (13 bytes) makes the audio name 64.
  const fitsMedia = 'x'.repeat(INSTANCE_NAME_MAX - 12);
  assert.equal(discoveryServices({ ...IDENTITY, name: fitsMedia }, IDLE, { dialect: 'vendor', port: 7000, audioService: false })[0].name, fitsMedia);
  assertThrowsKind(() => discoveryServices({ ...IDENTITY, name: fitsMedia }, IDLE, { dialect: 'vendor', port: 7000 }), DiscoveryError, /is 64 bytes; DNS-SD allows 63/);
  assertThrowsKind(() => discoveryServices({ ...IDENTITY, name: 'x'.repeat(64) }, IDLE, { dialect: 'vendor', port: 7000, audioService: false }), DiscoveryError, /64 bytes/);
  assertThrowsKind(() => discoveryServices({ ...IDENTITY, name: '' }, IDLE, { dialect: 'vendor', port: 7000 }), DiscoveryError, /empty/);
});
