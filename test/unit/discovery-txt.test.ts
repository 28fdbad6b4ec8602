// TXT records of spec 2.1 and 2.2 for a sample identity, and their RFC 6763 bytes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toHex, utf8Encode } from '../../src/bytes';
import {
  AUDIO_SERVICE_TYPE,
  DiscoveryError,
  activityFields,
  audioInstanceName,
  audioServiceTxt,
  discoveryServices,
  mediaServiceTxt,
  metadataTypesFor,
  parseTxtBytes,
  statusFlags,
  txtBytes,
  txtGet,
  type DiscoveryIdentity,
  type TxtEntry,
} from '../../src/discovery/index';
import { assertThrowsKind } from '../support/throws';

/** Fails unless `fn` throws a DiscoveryError whose message matches `pattern`. */
const throwsDiscoveryError = (fn: () => unknown, pattern?: RegExp) => assertThrowsKind(fn, DiscoveryError, pattern);


const GID = '5b1e2a3c-4d5e-4f60-8172-8394a5b6c7d8';
const PI = '0b9d9c3c-1e6a-4f0e-9d1f-2a3b4c5d6e7f';
const PSI = 'a1b2c3d4-e5f6-4a0b-8c1d-2e3f40516273';
const PK = Uint8Array.from({ length: 32 }, (_, i) => i);
const PK_HEX = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

function sampleIdentity(): DiscoveryIdentity {
  return {
    name: 'Living Room',
    deviceId: 'AA:BB:CC:DD:EE:FF',
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
    pk: PK,
    pi: PI,
    psi: PSI,
    vv: 2,
    audio: { codecs: [0, 1, 2, 3], encryptionTypes: [0, 3, 5], metadataTypes: [0, 1, 2] },
  };
}

const idle = activityFields({ activity: 'idle', gid: GID });
const audio = activityFields({ activity: 'receivingAudio', gid: GID });

test('media service TXT of the sample identity while idle, in table order', () => {
  assert.deepEqual(mediaServiceTxt(sampleIdentity(), idle), [
    ['deviceid', 'AA:BB:CC:DD:EE:FF'],
    ['features', '0x5A7FFFF7,0x1E'],
    ['flags', '0x4'],
    ['model', 'Receiver1,1'],
    ['manufacturer', 'Example Inc.'],
    ['serialNumber', 'SN0001'],
    ['fv', 'p1.0'],
    ['osvers', '1.0'],
    ['srcvers', '220.68'],
    ['protovers', '1.1'],
    ['pw', 'false'],
    ['acl', '0'],
    ['pk', PK_HEX],
    ['pi', PI],
    ['psi', PSI],
    ['gid', GID],
    ['gcgl', '1'],
    ['igl', '1'],
    ['vv', '2'],
  ]);
});

test('media service TXT while receiving audio: flag 17, igl and gcgl 0, pgid and pgcgl', () => {
  const entries = mediaServiceTxt(sampleIdentity(), audio);
  assert.deepEqual(entries.slice(2, 3), [['flags', '0x20004']]);
  assert.deepEqual(entries.slice(15), [
    ['gid', GID],
    ['gcgl', '0'],
    ['igl', '0'],
    ['pgid', GID],
    ['pgcgl', '0'],
    ['vv', '2'],
  ]);
});

test('media service TXT carries rsf, gpn, hgid, hmid and tsid in their places when given', () => {
  const identity: DiscoveryIdentity = {
    name: 'Den',
    deviceId: '02:00:00:00:00:01',
    model: 'Receiver1,1',
    srcvers: '1.0',
    features: 0x80n,
    rsf: 0n,
    flags: 0,
    passwordRequired: true,
    pinRequired: true,
    gpn: 'Küche',
    hgid: '00000000-0000-4000-8000-00000000000a',
    hmid: 'household-1',
    tsid: '00000000-0000-4000-8000-00000000000b',
    audio: { codecs: [0], encryptionTypes: [0], metadataTypes: [] },
  };
  assert.deepEqual(mediaServiceTxt(identity, idle), [
    ['deviceid', '02:00:00:00:00:01'],
    ['features', '0x80'],
    ['rsf', '0x0'],
    ['flags', '0x88'],
    ['model', 'Receiver1,1'],
    ['srcvers', '1.0'],
    ['pw', 'true'],
    ['gid', GID],
    ['gcgl', '1'],
    ['igl', '1'],
    ['gpn', 'Küche'],
    ['hgid', '00000000-0000-4000-8000-00000000000a'],
    ['hmid', 'household-1'],
    ['tsid', '00000000-0000-4000-8000-00000000000b'],
  ]);
});

test('statusFlags derives PINRequired, PasswordRequired and ReceiverSessionIsActive', () => {
  const identity = sampleIdentity();
  assert.equal(statusFlags(identity, idle), 0x4);
  assert.equal(statusFlags({ ...identity, passwordRequired: true, pinRequired: true }, idle), 0x8c);
  assert.equal(statusFlags({ ...identity, passwordRequired: true, pinRequired: true }, audio), 0x2008c);
  // The booleans and the activity win over bits the configured flags carry.
  assert.equal(statusFlags({ ...identity, flags: 0x20088 }, idle), 0x0);
});

test('audio service TXT of the sample identity, in table order', () => {
  assert.deepEqual(audioServiceTxt(sampleIdentity(), idle), [
    ['txtvers', '1'],
    ['ch', '2'],
    ['cn', '0,1,2,3'],
    ['da', 'true'],
    ['et', '0,3,5'],
    ['ft', '0x5A7FFFF7,0x1E'],
    ['md', '0,1,2'],
    ['pw', 'false'],
    ['sv', 'false'],
    ['sr', '44100'],
    ['ss', '16'],
    ['tp', 'UDP'],
    ['vn', '65537'],
    ['vs', '220.68'],
    ['am', 'Receiver1,1'],
    ['pk', PK_HEX],
    ['sf', '0x4'],
    ['vv', '2'],
  ]);
});

test('audio service TXT leaves out md, pk and vv when there are none', () => {
  const identity: DiscoveryIdentity = {
    name: 'Speaker',
    deviceId: '02:00:00:00:00:01',
    model: 'Speaker1,1',
    srcvers: '366.0',
    features: 0x200n,
    flags: 0,
    passwordRequired: true,
    pinRequired: false,
    audio: { codecs: [0, 1], encryptionTypes: [0], metadataTypes: [], transport: 'TCP' },
  };
  assert.deepEqual(audioServiceTxt(identity, audio), [
    ['txtvers', '1'],
    ['ch', '2'],
    ['cn', '0,1'],
    ['da', 'true'],
    ['et', '0'],
    ['ft', '0x200'],
    ['pw', 'true'],
    ['sv', 'false'],
    ['sr', '44100'],
    ['ss', '16'],
    ['tp', 'TCP'],
    ['vn', '65537'],
    ['vs', '366.0'],
    ['am', 'Speaker1,1'],
    ['sf', '0x20080'],
  ]);
});

test('metadataTypesFor maps metadata feature bits to md codes', () => {
  assert.deepEqual(metadataTypesFor(0x1e5a7ffff7n), [0, 1, 2]);
  assert.deepEqual(metadataTypesFor(1n << 15n), [1]);
  assert.deepEqual(metadataTypesFor(0n), []);
});

test('the records refuse values they cannot carry', () => {
  const identity = sampleIdentity();
  throwsDiscoveryError(() => mediaServiceTxt({ ...identity, deviceId: 'AABBCCDDEEFF' }, idle), /not a MAC address/);
  throwsDiscoveryError(() => mediaServiceTxt({ ...identity, pk: new Uint8Array(31) }, idle), /32 bytes, got 31/);
  throwsDiscoveryError(
    () => mediaServiceTxt({ ...identity, pi: 'not-a-uuid' }, idle),
    /pi: "not-a-uuid" is not a UUID/,
  );
  throwsDiscoveryError(() => mediaServiceTxt(identity, { ...idle, gid: 'x' }), /gid: "x" is not a UUID/);
  throwsDiscoveryError(() => mediaServiceTxt({ ...identity, flags: 0x100000 }, idle), /not a 20-bit value/);
  throwsDiscoveryError(() => mediaServiceTxt({ ...identity, acl: 1.5 }, idle), /acl: 1.5 is not an integer/);
  throwsDiscoveryError(
    () => audioServiceTxt({ ...identity, audio: { ...identity.audio, codecs: [] } }, idle),
    /cn: the list is empty/,
  );
  throwsDiscoveryError(
    () => audioServiceTxt({ ...identity, audio: { ...identity.audio, encryptionTypes: [-1] } }, idle),
    /et: -1 is not a code/,
  );
});

test('audio instance name is upper-case MAC hex, @, name', () => {
  assert.equal(audioInstanceName(sampleIdentity()), 'AABBCCDDEEFF@Living Room');
  assert.equal(audioInstanceName({ ...sampleIdentity(), deviceId: 'aa:bb:cc:dd:ee:0f' }), 'AABBCCDDEE0F@Living Room');
  throwsDiscoveryError(
    () => audioInstanceName({ ...sampleIdentity(), name: 'x'.repeat(51) }),
    /64 bytes; DNS-SD allows 63/,
  );
});

test('discoveryServices gives the dialect media type and _raop._tcp with their records', () => {
  const identity = sampleIdentity();
  const services = discoveryServices(identity, idle, { dialect: 'vendor', port: 7000 });
  assert.deepEqual(
    services.map((service) => [service.type, service.name, service.port]),
    [
      ['_vendorplay._tcp', 'Living Room', 7000],
      [AUDIO_SERVICE_TYPE, 'AABBCCDDEEFF@Living Room', 7000],
    ],
  );
  assert.deepEqual(services[0].txt, mediaServiceTxt(identity, idle));
  assert.deepEqual(services[1].txt, audioServiceTxt(identity, idle));
  const apple = discoveryServices(identity, idle, { dialect: 'apple', port: 7000, audioPort: 5000 });
  assert.deepEqual(
    apple.map((service) => [service.type, service.port]),
    [
      ['_airplay._tcp', 7000],
      ['_raop._tcp', 5000],
    ],
  );
  const alone = discoveryServices(identity, idle, { dialect: 'vendor', port: 7000, audioService: false });
  assert.equal(alone.length, 1);
  throwsDiscoveryError(
    () => discoveryServices({ ...identity, name: 'é'.repeat(32) }, idle, { dialect: 'vendor', port: 7000 }),
    /DNS-SD allows 63/,
  );
});

test('txtBytes writes length-prefixed key=value strings (hand-computed)', () => {
  assert.equal(
    toHex(
      txtBytes([
        ['txtvers', '1'],
        ['pw', 'false'],
      ]),
    ),
    '09' + '747874766572733d31' + '08' + '70773d66616c7365',
  );
  assert.equal(toHex(txtBytes([['a', null]])), '0161');
  assert.equal(toHex(txtBytes([['a', '']])), '02613d');
  assert.equal(toHex(txtBytes([['gpn', 'Küche']])), '0a' + '67706e3d' + '4b' + 'c3bc' + '636865');
});

test('an empty TXT record is a single zero byte', () => {
  assert.equal(toHex(txtBytes([])), '00');
  assert.deepEqual(parseTxtBytes(new Uint8Array([0])), []);
  assert.deepEqual(parseTxtBytes(new Uint8Array(0)), []);
});

test('a TXT string holds at most 255 bytes', () => {
  const longest = txtBytes([['k', 'x'.repeat(253)]]);
  assert.equal(longest.length, 256);
  assert.equal(longest[0], 255);
  throwsDiscoveryError(() => txtBytes([['k', 'x'.repeat(254)]]), /k is 256 bytes; a TXT string holds at most 255/);
  // UTF-8 bytes count, not characters.
  assert.equal(txtBytes([['k', 'é'.repeat(126) + 'x']])[0], 255);
  throwsDiscoveryError(() => txtBytes([['k', 'é'.repeat(127)]]), /k is 256 bytes/);
});

test('txtBytes refuses keys RFC 6763 6.4 forbids and repeated keys', () => {
  throwsDiscoveryError(() => txtBytes([['', 'x']]), /empty key/);
  throwsDiscoveryError(() => txtBytes([['a=b', 'x']]), /forbids at index 1/);
  throwsDiscoveryError(() => txtBytes([['clé', 'x']]), /forbids at index 2/);
  throwsDiscoveryError(
    () =>
      txtBytes([
        ['pw', 'false'],
        ['PW', 'true'],
      ]),
    /key "PW" occurs twice/,
  );
});

test('parseTxtBytes follows RFC 6763 6.4', () => {
  const bytes = new Uint8Array([
    ...[5, ...utf8Encode('=abcd')], // no key: ignored
    ...[3, ...utf8Encode('a=1')],
    ...[3, ...utf8Encode('A=2')], // repeated key (case-insensitive): ignored
    ...[1, ...utf8Encode('b')], // boolean attribute
    0, // empty string: skipped
    ...[2, ...utf8Encode('c=')], // empty value
    ...[7, ...utf8Encode('d=x=y=z')], // value keeps later '='
  ]);
  const expected: TxtEntry[] = [
    ['a', '1'],
    ['b', null],
    ['c', ''],
    ['d', 'x=y=z'],
  ];
  assert.deepEqual(parseTxtBytes(bytes), expected);
});

test('parseTxtBytes refuses a string that runs past the end', () => {
  throwsDiscoveryError(
    () => parseTxtBytes(new Uint8Array([5, 0x61, 0x3d, 0x31])),
    /offset 0 claims 5 bytes but only 3 remain/,
  );
  throwsDiscoveryError(() => parseTxtBytes(new Uint8Array([1, 0x61, 4])), /offset 2 claims 4 bytes but only 0 remain/);
});

test('parseTxtBytes decodes malformed UTF-8 in a value as U+FFFD', () => {
  assert.deepEqual(parseTxtBytes(new Uint8Array([3, 0x61, 0x3d, 0xff])), [['a', '\ufffd']]);
});

test('both records round-trip through their bytes', () => {
  for (const activity of [idle, audio]) {
    const media = mediaServiceTxt(sampleIdentity(), activity);
    assert.deepEqual(parseTxtBytes(txtBytes(media)), media);
    const raop = audioServiceTxt(sampleIdentity(), activity);
    assert.deepEqual(parseTxtBytes(txtBytes(raop)), raop);
  }
});

test('txtGet looks keys up case-insensitively in lists, maps and objects', () => {
  const entries: TxtEntry[] = [
    ['serialNumber', 'SN1'],
    ['b', null],
  ];
  assert.equal(txtGet(entries, 'serialnumber'), 'SN1');
  assert.equal(txtGet(entries, 'B'), null);
  assert.equal(txtGet(entries, 'missing'), undefined);
  assert.equal(txtGet(new Map(entries), 'SERIALNUMBER'), 'SN1');
  assert.equal(txtGet({ Model: 'AppleTV6,2' }, 'model'), 'AppleTV6,2');
  assert.equal(txtGet({ model: 'x' }, 'toString'), undefined);
});
