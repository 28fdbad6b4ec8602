// Derived device classes of spec 2.1 from TXT records.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DiscoveryError,
  MODEL_PREFIXES,
  classifyDevice,
  parseTxtBytes,
  txtBytes,
  type TxtSource,
} from '../../src/discovery/index';

test('the model prefixes are the real set-top and smart-speaker prefixes', () => {
  assert.deepEqual(
    MODEL_PREFIXES.map((entry) => [entry.class, entry.prefix]),
    [
      ['TV device', 'AppleTV'],
      ['speaker appliance', 'AudioAccessory'],
    ],
  );
});

test('a set-top model is a TV device', () => {
  assert.deepEqual(classifyDevice({ model: 'AppleTV6,2', features: '0x5A7FFFF7,0x1E', flags: '0x4' }), {
    class: 'TV device',
    canBeRemoteControlled: false,
  });
});

test('a smart-speaker model is a speaker appliance', () => {
  assert.deepEqual(classifyDevice({ model: 'AudioAccessory5,1', features: '0x0', flags: '0x0' }), {
    class: 'speaker appliance',
    canBeRemoteControlled: false,
  });
});

test('HasUnifiedAdvertiserInfo (bit 26) makes a ThirdPartySpeaker', () => {
  assert.equal(classifyDevice({ model: 'Speaker1,1', features: '0x4000000' }).class, 'ThirdPartySpeaker');
});

test('SupportsUnifiedPairSetupAndVendorAuth (bit 51) makes a ThirdPartySpeaker', () => {
  assert.equal(classifyDevice({ model: 'Speaker1,1', features: '0x0,0x80000' }).class, 'ThirdPartySpeaker');
});

test('the model rules come before the feature rule', () => {
  assert.equal(classifyDevice({ model: 'AppleTV3,2', features: '0x4000000' }).class, 'TV device');
  assert.equal(classifyDevice({ model: 'AudioAccessory1,1', features: '0x0,0x80000' }).class, 'speaker appliance');
});

test('anything else is Unknown; the prefix match is case-sensitive', () => {
  assert.equal(classifyDevice({ model: 'Receiver1,1', features: '0x5A7FFFF7,0x1E' }).class, 'Unknown');
  assert.equal(classifyDevice({ model: 'appletv6,2' }).class, 'Unknown');
  assert.deepEqual(classifyDevice({}), { class: 'Unknown', canBeRemoteControlled: false });
});

test('CanBeRemoteControlled needs SupportsBufferedAudio (bit 40) and no PINRequired (flag 3)', () => {
  assert.equal(classifyDevice({ features: '0x0,0x100', flags: '0x4' }).canBeRemoteControlled, true);
  assert.equal(classifyDevice({ features: '0x0,0x100' }).canBeRemoteControlled, true);
  assert.equal(classifyDevice({ features: '0x0,0x100', flags: '0xC' }).canBeRemoteControlled, false);
  assert.equal(classifyDevice({ features: '0x0,0x200', flags: '0x0' }).canBeRemoteControlled, false);
  assert.deepEqual(classifyDevice({ model: 'AudioAccessory5,1', features: '0x0,0x100', flags: '0x18644' }), {
    class: 'speaker appliance',
    canBeRemoteControlled: true,
  });
});

test('an audio service record is read through am, ft and sf', () => {
  const record = parseTxtBytes(
    txtBytes([
      ['txtvers', '1'],
      ['am', 'AudioAccessory5,1'],
      ['ft', '0x0,0x100'],
      ['sf', '0x8'],
    ]),
  );
  assert.deepEqual(classifyDevice(record), { class: 'speaker appliance', canBeRemoteControlled: false });
});

test('keys are matched case-insensitively (RFC 6763 6.4)', () => {
  assert.equal(classifyDevice(new Map([['MODEL', 'AppleTV6,2']])).class, 'TV device');
});

test('malformed features or flags throw a DiscoveryError', () => {
  const records: TxtSource[] = [{ features: 'zz' }, { flags: '0x100000' }, [['model', null]]];
  for (const record of records) {
    let caught: unknown = undefined;
    try {
      classifyDevice(record);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof DiscoveryError, `expected a DiscoveryError for ${JSON.stringify(record)}`);
  }
});
