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
  sameLabel,
  sameName,
  serviceDomain,
  serviceLabels,
} from '../../src/discovery/dnssd-names';
import { DiscoveryError } from '../../src/discovery/error';

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
