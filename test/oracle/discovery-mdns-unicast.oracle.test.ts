// python zeroconf (Debian's python3-zeroconf) reads the unicast DNS answers of the desktop
// receiver (src/discovery/mdns-unicast.ts): an independent parser of the compressed names, in
// both dialects, for the default name and the longest one allowed. Node only: it runs python3.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { toHex } from '../../src/bytes';
import { RECEIVER_NAME_MAX } from '../../src/discovery/dnssd-names';
import { answerQuery, DNS_TYPES } from '../../src/discovery/mdns-unicast';
import type { DialectName } from '../../src/dialect';
import { desktopZone } from '../support/unicast-zone';

const READER = fileURLToPath(new URL('../support/zeroconf_incoming.py', import.meta.url));

interface Read {
  valid: boolean;
  id: number;
  flags: number;
  questions: [string, number, number][];
  answers: number;
  additionals: number;
  records: { name: string; type: number; class: number; unique: boolean; ttl: number; alias?: string; server?: string; port?: number; priority?: number; weight?: number; text?: string; address?: string }[];
}

function zeroconfRead(messages: Uint8Array[]): Read[] {
  // Debian's python3 (python3-zeroconf), not whatever python3 comes first on the PATH.
  const result = spawnSync('/usr/bin/python3', [READER], { input: JSON.stringify(messages.map((message) => toHex(message))), encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`zeroconf reader failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as Read[];
}

/** A legacy query (from an ephemeral port) of one PTR question, as a "scan this host" sends. */
function ptrQuery(id: number, service: string): Uint8Array {
  const labels = [service, '_tcp', 'local'].flatMap((label) => [label.length, ...Array.from(label, (char) => char.charCodeAt(0))]);
  return Uint8Array.from([id >> 8, id & 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, DNS_TYPES.PTR, 0, 1]);
}

test('python zeroconf reads the compressed legacy answer to a PTR query: PTR, TXT and SRV (and A where it fits)', () => {
  const cases: [DialectName, string, string, string[]][] = [
    ['vendor', '_vendorplay', 'Receiver', ['PTR', 'TXT', 'SRV', 'A']],
    ['apple', '_airplay', 'Receiver', ['PTR', 'TXT', 'SRV', 'A']],
    ['vendor', '_vendorplay', 'Living Room Frame 1234', ['PTR', 'TXT', 'SRV']],
    ['apple', '_airplay', 'Living Room Frame 12345', ['PTR', 'TXT', 'SRV']],
    ['vendor', '_vendorplay', 'é'.repeat(RECEIVER_NAME_MAX / 2), ['PTR', 'TXT']],
    ['apple', '_airplay', 'é'.repeat(RECEIVER_NAME_MAX / 2), ['PTR', 'TXT']],
  ];
  const zones = cases.map(([dialect, , name]) => desktopZone(dialect, name));
  const replies = cases.map(([, service], index) => answerQuery(ptrQuery(0x1000 + index, service), zones[index], { port: 49152 })!);
  const read = zeroconfRead(replies);
  cases.forEach(([dialect, service, name, kinds], index) => {
    const what = `${dialect} "${name}"`;
    const { instance, host, txt, port } = zones[index].services[0];
    const instanceName = `${instance}.${service}._tcp.local.`;
    assert.ok(replies[index].length <= 512, what);
    assert.equal(read[index].valid, true, what);
    assert.equal(read[index].id, 0x1000 + index);
    assert.equal(read[index].flags, 0x8400, `${what}: a response, authoritative, not truncated`);
    assert.deepEqual(read[index].questions, [[`${service}._tcp.local.`, DNS_TYPES.PTR, 1]]);
    assert.equal(read[index].answers, 1);
    const expected: Read['records'] = [
      { name: `${service}._tcp.local.`, type: DNS_TYPES.PTR, class: 1, unique: false, ttl: 10, alias: instanceName },
      { name: instanceName, type: DNS_TYPES.TXT, class: 1, unique: false, ttl: 10, text: toHex(txt) },
      { name: instanceName, type: DNS_TYPES.SRV, class: 1, unique: false, ttl: 10, server: `${host}.local.`, port, priority: 0, weight: 0 },
      { name: `${host}.local.`, type: DNS_TYPES.A, class: 1, unique: false, ttl: 10, address: '192.168.1.20' },
    ];
    assert.deepEqual(read[index].records, expected.filter((_, kind) => kinds.includes(['PTR', 'TXT', 'SRV', 'A'][kind])), what);
  });
});
