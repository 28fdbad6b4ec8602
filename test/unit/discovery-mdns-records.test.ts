// The records a receiver publishes (src/discovery/mdns/mdns-records.ts): addresses read for A and
// AAAA, how records compare (RFC 6762 16 names, 8.2 tie-break order). Portable (Node and XS).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toHex } from '../../src/bytes';
import { DNS_TYPES } from '../../src/discovery/mdns-unicast';
import { addressRecords, compareRecordSets, ipv4Bytes, ipv6Bytes, sameData, serviceRecords } from '../../src/discovery/mdns/mdns-records';

test('reads dotted IPv4 addresses and refuses anything else', () => {
  assert.deepEqual([...ipv4Bytes('192.0.2.255')!], [192, 0, 2, 255]);
  for (const bad of ['192.0.2', '192.0.2.256', '1.2.3.4.5', 'a.b.c.d', '', '1..2.3']) assert.equal(ipv4Bytes(bad), undefined, bad);
});

test('reads IPv6 addresses with ::, a zone and an IPv4 tail, and refuses malformed ones', () => {
  assert.equal(toHex(ipv6Bytes('fe80::1%eth0')!), 'fe800000000000000000000000000001');
  assert.equal(toHex(ipv6Bytes('::')!), '00000000000000000000000000000000');
  assert.equal(toHex(ipv6Bytes('::ffff:192.0.2.1')!), '00000000000000000000ffffc0000201');
  assert.equal(toHex(ipv6Bytes('2001:db8:0:0:0:0:0:2')!), '20010db8000000000000000000000002');
  for (const bad of ['1::2::3', '12345::', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1:2:3:4::5:6:7:8', 'g::1']) assert.equal(ipv6Bytes(bad), undefined, bad);
});

test('makes one A or AAAA record per address it can read, unique, 120 s', () => {
  const records = addressRecords('Host', { ipv4: ['10.0.0.7', 'nonsense'], ipv6: ['fe80::1'] });
  assert.deepEqual(records.map((record) => [record.type, record.name.join('.'), record.cacheFlush, record.ttl]), [
    [DNS_TYPES.A, 'Host.local', true, 120],
    [DNS_TYPES.AAAA, 'Host.local', true, 120],
  ]);
});

test('compares the name inside SRV data case-insensitively, the port and TXT bytes exactly', () => {
  const service = { instance: 'Room', type: '_x._tcp', port: 7000, txt: Uint8Array.of(3, 0x61, 0x3d, 0x62) };
  const ours = serviceRecords(service, 'Host');
  assert.ok(sameData(ours.srv, serviceRecords(service, 'HOST').srv));
  assert.ok(!sameData(ours.srv, serviceRecords({ ...service, port: 7001 }, 'Host').srv));
  assert.ok(!sameData(ours.txt, serviceRecords({ ...service, txt: Uint8Array.of(3, 0x61, 0x3d, 0x42) }, 'Host').txt));
});

test('orders record sets for the probe tie-break by type, then data, the shorter set first when one runs out', () => {
  const a = (address: number[]) => addressRecords('H', { ipv4: [address.join('.')], ipv6: [] });
  assert.ok(compareRecordSets(a([10, 0, 0, 7]), a([10, 0, 0, 200])) < 0);
  assert.ok(compareRecordSets(a([10, 0, 0, 200]), a([10, 0, 0, 7])) > 0);
  assert.equal(compareRecordSets(a([10, 0, 0, 7]), a([10, 0, 0, 7])), 0);
  const both = addressRecords('H', { ipv4: ['10.0.0.7'], ipv6: ['::1'] });
  assert.ok(compareRecordSets(a([10, 0, 0, 7]), both) < 0);
});
