// Where a video's media may be fetched from (src/receiver/video/media-destinations.ts): the
// refused table, IPv4-mapped forms, the receiver's own addresses, private ranges on and off,
// ranges a person allows, and the CIDR matcher at its bit edges.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addressBytes,
  checkDestination,
  DEFAULT_MEDIA_DESTINATION_RULES,
  inRange,
  parseAddressRange,
  type MediaDestinationRules,
} from '../../src/receiver/video/media-destinations';

const allowed = (address: string, rules: MediaDestinationRules = DEFAULT_MEDIA_DESTINATION_RULES, own: string[] = []) => checkDestination(address, rules, own).allowed;

function range(text: string) {
  const parsed = parseAddressRange(text);
  assert.ok(parsed, text);
  return parsed;
}

test('loopback, unspecified, link-local, multicast and reserved addresses are refused, in IPv4, IPv6 and IPv4-mapped forms', () => {
  for (const address of [
    '127.0.0.1', '127.255.255.254', '0.0.0.0', '0.1.2.3', '169.254.169.254', '224.0.0.251', '239.255.255.250', '255.255.255.255', '240.0.0.1',
    '::1', '::', 'fe80::1', 'febf:ffff::1', 'ff02::fb', '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:169.254.169.254', '::ffff:0.0.0.0',
  ]) {
    assert.equal(allowed(address), false, address);
  }
  assert.deepEqual(checkDestination('::ffff:7f00:1', DEFAULT_MEDIA_DESTINATION_RULES, []), { allowed: false, why: 'loopback (127.0.0.0/8)' });
  assert.deepEqual(checkDestination('fe80::1%eth0', DEFAULT_MEDIA_DESTINATION_RULES, []), { allowed: false, why: 'link-local (fe80::/10)' });
});

test('public addresses and, by default, private LAN ranges are allowed; blocking private ranges refuses those alone', () => {
  const blockPrivate: MediaDestinationRules = { allow: [], privateRanges: false };
  for (const address of ['10.0.0.5', '172.16.0.1', '172.31.255.255', '192.168.1.20', 'fd12:3456::1', 'fc00::1', '::ffff:192.168.1.20']) {
    assert.equal(allowed(address), true, address);
    assert.equal(allowed(address, blockPrivate), false, address);
  }
  for (const address of ['93.184.216.34', '172.32.0.1', '172.15.255.255', '192.169.0.1', '2001:db8::1', '169.253.255.255', '223.255.255.255', '::ffff:93.184.216.34', 'fe00::1', 'fec0::1']) {
    assert.equal(allowed(address), true, address);
    assert.equal(allowed(address, blockPrivate), true, address);
  }
  assert.deepEqual(checkDestination('10.1.2.3', blockPrivate, []), { allowed: false, why: 'a private network range, blocked' });
});

test('the receiver\'s own addresses are refused, whatever range they are in, and in IPv4-mapped form', () => {
  const own = ['192.168.1.5', '2001:db8::7', '93.184.216.34'];
  for (const address of ['192.168.1.5', '::ffff:192.168.1.5', '2001:db8::7', '93.184.216.34']) {
    assert.deepEqual(checkDestination(address, DEFAULT_MEDIA_DESTINATION_RULES, own), { allowed: false, why: 'an address of the receiver itself' }, address);
  }
  assert.equal(allowed('192.168.1.6', DEFAULT_MEDIA_DESTINATION_RULES, own), true);
});

test('allowed ranges win over the refused table and the receiver\'s own addresses, and no further than their prefix', () => {
  const rules: MediaDestinationRules = { allow: [range('127.0.0.2/32'), range('::ffff:10.0.0.0/104')], privateRanges: false };
  assert.equal(allowed('127.0.0.2', rules, ['127.0.0.2']), true);
  assert.equal(allowed('::ffff:127.0.0.2', rules), true);
  assert.equal(allowed('127.0.0.1', rules), false);
  assert.equal(allowed('127.0.0.3', rules), false);
  // ::ffff:10.0.0.0/104 is 10.0.0.0/8.
  assert.equal(allowed('10.200.0.1', rules), true);
  assert.equal(allowed('11.0.0.1', rules), true);
  assert.equal(allowed('192.168.0.1', rules), false);
  const loopback: MediaDestinationRules = { allow: [range('127.0.0.0/8'), range('::1')], privateRanges: true };
  assert.equal(allowed('127.0.0.1', loopback, ['127.0.0.1']), true);
  assert.equal(allowed('::1', loopback), true);
  assert.equal(allowed('169.254.169.254', loopback), false);
});

test('ranges parse as CIDR or a bare address, and nothing else', () => {
  assert.deepEqual(range('10.0.0.0/8'), { bytes: new Uint8Array([10, 0, 0, 0]), prefix: 8 });
  assert.deepEqual(range('192.168.1.5'), { bytes: new Uint8Array([192, 168, 1, 5]), prefix: 32 });
  assert.equal(range('fe80::/10').prefix, 10);
  assert.equal(range('::1').prefix, 128);
  assert.deepEqual(range('::ffff:127.0.0.0/104'), { bytes: new Uint8Array([127, 0, 0, 0]), prefix: 8 });
  for (const bad of ['', '10.0.0.0/33', '::/129', '10.0.0/8', 'example.com/8', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8/8', '1:2:3:4:5:6:7:8:9/64', '0x7f000001', '127.1']) {
    assert.equal(parseAddressRange(bad), undefined, bad);
  }
});

test('the matcher compares whole bytes and the bits of a partial one, never across families', () => {
  const twelve = range('172.16.0.0/12');
  assert.equal(inRange(addressBytes('172.16.0.0')!, twelve), true);
  assert.equal(inRange(addressBytes('172.31.255.255')!, twelve), true);
  assert.equal(inRange(addressBytes('172.32.0.0')!, twelve), false);
  assert.equal(inRange(addressBytes('172.15.255.255')!, twelve), false);
  assert.equal(inRange(addressBytes('1.2.3.4')!, range('0.0.0.0/0')), true);
  assert.equal(inRange(addressBytes('::1')!, range('0.0.0.0/0')), false);
  assert.equal(inRange(addressBytes('fdff::1')!, range('fc00::/7')), true);
  assert.equal(inRange(addressBytes('fe00::1')!, range('fc00::/7')), false);
  assert.equal(addressBytes('localhost'), undefined);
  assert.equal(addressBytes('999.0.0.1'), undefined);
  assert.equal(checkDestination('localhost', DEFAULT_MEDIA_DESTINATION_RULES, []).allowed, false);
});
