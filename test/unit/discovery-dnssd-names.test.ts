// DNS-SD names shared by the hosts (src/discovery/dnssd-names.ts): the one host label, instance
// names, service types, and how names compare. Portable: runs under Node and inside XS.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  audioInstanceName,
  hostLabel,
  hostLabels,
  instanceDomain,
  instanceLabels,
  mediaInstanceName,
  parseServiceType,
  RECEIVER_NAME_MAX,
  receiverNameProblem,
  sameLabel,
  sameName,
  serviceDomain,
  serviceLabels,
} from '../../src/discovery/dnssd-names';
import { DiscoveryError } from '../../src/discovery/error';
import { ConfigError, makeConfig } from '../../src/receiver/config';
import { hostConfig } from '../../hosts/moddable/manifest-config';

const identity = { name: 'Living Room', deviceId: '58:55:CA:1A:E2:88' } as Parameters<typeof mediaInstanceName>[0];

test('derives one host label from the receiver name: letters, digits, hyphens, at most 63 bytes', () => {
  assert.equal(hostLabel('Living Room'), 'Living-Room');
  assert.equal(hostLabel('  Küche & Bad '), 'K-che-Bad');
  assert.equal(hostLabel('Frame.local'), 'Frame-local');
  assert.equal(hostLabel('***'), 'receiver');
  assert.equal(hostLabel('a'.repeat(80)), 'a'.repeat(63));
  // Cut at 63, then no hyphen left at the end.
  assert.equal(hostLabel(`${'a'.repeat(62)} b`), 'a'.repeat(62));
});

test('the audio instance is MAC@name and the media instance the name, both on the same host label', () => {
  assert.equal(mediaInstanceName(identity), 'Living Room');
  assert.equal(audioInstanceName(identity), '5855CA1AE288@Living Room');
  assert.equal(hostLabel(identity.name), 'Living-Room');
});

test('refuses an instance name over 63 bytes of UTF-8 or empty', () => {
  assert.throws(() => mediaInstanceName({ ...identity, name: 'é'.repeat(32) }), (error: unknown) => error instanceof DiscoveryError && /64 bytes; DNS-SD allows 63/.test(error.message));
  assert.throws(() => mediaInstanceName({ ...identity, name: '' }), DiscoveryError);
  assert.throws(() => audioInstanceName({ ...identity, name: 'x'.repeat(51) }), DiscoveryError);
});

test('a receiver name is at most 50 bytes of UTF-8: the audio instance MAC@name is one 63-byte label', () => {
  assert.equal(RECEIVER_NAME_MAX, 50);
  for (const name of ['x'.repeat(50), 'é'.repeat(25), 'Living Room']) {
    assert.equal(receiverNameProblem(name), undefined, name);
    // The longest name makes both instance names, whatever the MAC address.
    assert.equal(audioInstanceName({ name, deviceId: 'FF:FF:FF:FF:FF:FF' } as typeof identity).length, 13 + name.length);
    assert.equal(mediaInstanceName({ ...identity, name }), name);
  }
  // 40 characters, 40 UTF-16 units, 80 bytes: counted in bytes, as discovery counts them.
  assert.equal(
    receiverNameProblem('é'.repeat(40)),
    `"${'é'.repeat(40)}" is 80 bytes of UTF-8; at most 50 fit (the audio service's DNS-SD name, MAC@name, is one 63-byte label)`,
  );
  assert.match(receiverNameProblem('x'.repeat(51))!, /is 51 bytes of UTF-8; at most 50 fit/);
  assert.equal(receiverNameProblem('é'.repeat(25) + 'x'), `"${'é'.repeat(25)}x" is 51 bytes of UTF-8; at most 50 fit (the audio service's DNS-SD name, MAC@name, is one 63-byte label)`);
  assert.equal(receiverNameProblem(''), 'is empty');
});

test('the configuration and the Moddable manifest refuse a name by the same check, as a ConfigError', () => {
  const refused = (error: unknown): boolean => error instanceof ConfigError && error.message === `name ${receiverNameProblem('é'.repeat(40))}`;
  assert.throws(() => makeConfig({ name: 'é'.repeat(40) }), refused);
  assert.throws(() => hostConfig({ name: 'é'.repeat(40) }, () => '02:00:00:00:00:01'), refused);
  assert.throws(() => makeConfig({ name: '' }), (error: unknown) => error instanceof ConfigError && error.message === 'name is empty');
  assert.equal(makeConfig({ name: 'é'.repeat(25) }).name, 'é'.repeat(25));
});

test('takes service types apart (RFC 6763 7) and refuses anything else', () => {
  assert.deepEqual(parseServiceType('_raop._tcp'), { name: 'raop', protocol: 'tcp' });
  assert.deepEqual(parseServiceType('_vendorplay._udp'), { name: 'vendorplay', protocol: 'udp' });
  assert.equal(parseServiceType('raop._tcp'), undefined);
  assert.equal(parseServiceType('_raop._sctp'), undefined);
  assert.equal(parseServiceType('_abcdefghijklmnop._tcp'), undefined, '16 characters is one too many');
});

test('writes domains and labels, the instance label kept whole', () => {
  assert.equal(serviceDomain('_raop._tcp'), '_raop._tcp.local');
  assert.equal(instanceDomain('Mr. Frame', '_raop._tcp'), 'Mr. Frame._raop._tcp.local');
  assert.deepEqual(serviceLabels('_raop._tcp'), ['_raop', '_tcp', 'local']);
  assert.deepEqual(instanceLabels('Mr. Frame', '_raop._tcp'), ['Mr. Frame', '_raop', '_tcp', 'local']);
  assert.deepEqual(hostLabels('Living-Room'), ['Living-Room', 'local']);
});

test('compares names with ASCII case folded and every other byte exact (RFC 6762 16)', () => {
  assert.ok(sameLabel('LIVING room', 'living ROOM'));
  assert.ok(!sameLabel('KÜCHE', 'küche'), 'non-ASCII letters are not folded');
  assert.ok(sameName(['Frame', '_RAOP', '_tcp', 'LOCAL'], instanceLabels('frame', '_raop._tcp')));
  assert.ok(!sameName(['Frame', 'local'], ['Frame', '_tcp', 'local']));
});
