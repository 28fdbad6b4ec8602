// The access lists' entries and verdicts (src/receiver/access-list.ts): addresses, CIDR blocks
// and device ids in their spellings, IPv4-mapped peers, block over allow, and bad entries named.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessList, AccessListError, deviceKey, parseAddress } from '../../src/receiver/access-list';
import { ConfigError, makeConfig } from '../../src/receiver/config';

test('device ids compare in one spelling: a MAC in any form as AA:BB:..., anything else upper-cased', () => {
  for (const spelling of ['58:55:CA:1A:E2:88', '58:55:ca:1a:e2:88', '58-55-ca-1a-e2-88', '5855ca1ae288', '0x5855ca1ae288', ' 0x5855CA1AE288 ']) {
    assert.equal(deviceKey(spelling), '58:55:CA:1A:E2:88', spelling);
  }
  assert.equal(deviceKey('0x1ae288'), '00:00:00:1A:E2:88', 'a header value without its leading zero bytes');
  assert.equal(deviceKey('14413be4996fea4d'), '14413BE4996FEA4D', 'a DACP-ID is not a MAC');
  assert.equal(deviceKey('6e5a4b0c-0a44-4b5e-9c0d-2f3e4a5b6c7d'), '6E5A4B0C-0A44-4B5E-9C0D-2F3E4A5B6C7D');
});

test('addresses: IPv4, IPv6 with :: and a dotted tail, an IPv4-mapped peer is its IPv4 address, a zone is dropped', () => {
  assert.deepEqual([...parseAddress('192.0.2.7')!], [192, 0, 2, 7]);
  assert.deepEqual([...parseAddress('::ffff:192.0.2.7')!], [192, 0, 2, 7]);
  assert.deepEqual([...parseAddress('fe80::1%eth0')!], [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual([...parseAddress('2001:db8::a:b')!].slice(12), [0, 0xa, 0, 0xb]);
  assert.equal(parseAddress('1:2:3:4:5:6:7:8')?.length, 16);
  for (const bad of ['256.0.0.1', '1.2.3', '1::2::3', '1:2:3:4:5:6:7:8:9', '58:55:CA:1A:E2:88', 'living-room', '']) assert.equal(parseAddress(bad), undefined, bad);
});

test('block wins over allow; an allow list of addresses refuses other addresses when they connect', () => {
  const list = new AccessList(['192.0.2.0/24', '2001:db8::/32'], ['192.0.2.66']);
  assert.equal(list.addressVerdict('192.0.2.7'), 'allowed');
  assert.equal(list.addressVerdict('::ffff:192.0.2.7'), 'allowed');
  assert.equal(list.addressVerdict('192.0.2.66'), 'blocked');
  assert.equal(list.addressVerdict('192.0.3.1'), 'blocked', 'not on an allow list that names no device');
  assert.equal(list.addressVerdict('2001:db8:1::5'), 'allowed');
  assert.equal(list.addressVerdict('2001:db9::5'), 'blocked');
});

test('an allow list with device ids leaves an unlisted address to name one; CIDR prefixes of any length', () => {
  const list = new AccessList(['10.1.2.128/25', '58:55:CA:1A:E2:88'], ['0x0a0b0c0d0e0f']);
  assert.equal(list.addressVerdict('10.1.2.200'), 'allowed');
  assert.equal(list.addressVerdict('10.1.2.127'), 'needs-device');
  assert.equal(list.deviceVerdict('0x5855ca1ae288'), 'allowed');
  assert.equal(list.deviceVerdict('0A:0B:0C:0D:0E:0F'), 'blocked');
  assert.equal(list.deviceVerdict('AA:BB:CC:DD:EE:FF'), 'unlisted');
  assert.equal(new AccessList([], ['127.0.0.0/8']).addressVerdict('127.9.9.9'), 'blocked');
  assert.equal(new AccessList([], []).active, false);
  assert.equal(new AccessList([], ['x']).restricts, false);
});

test('a bad entry is refused with its name: a prefix longer than the address, an entry with spaces', () => {
  assert.throws(() => new AccessList(['192.0.2.0/33'], []), (error) => error instanceof AccessListError && /allow entry "192.0.2.0\/33"/.test(error.message));
  assert.throws(() => new AccessList([], ['a b']), /block entry "a b"/);
  assert.throws(() => new AccessList([], ['192.168.1.300']), /block entry "192.168.1.300" is not an IPv4\/IPv6 address/, 'a typo is not taken for a device id');
  assert.throws(() => new AccessList(['10.0.0/8'], []), /allow entry "10.0.0\/8"/);
  assert.throws(() => makeConfig({ block: ['::1/129'] }), (error) => error instanceof ConfigError && /block entry "::1\/129"/.test(error.message));
});
