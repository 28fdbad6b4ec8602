// The Node host's unicast mDNS responder (hosts/node/mdns/unicast-responder.ts) as its sockets
// use it: a datagram from a source with its address and port, to one of the receiver's
// addresses. A source off the interfaces' subnets (a fake one: no packet is sent) gets no reply
// and is counted in one log line per interval (RFC 6762 5.5, 11: the receiver reflects nothing);
// on-link and loopback sources are answered.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Encode } from '../../src/bytes';
import { DNS_TYPES } from '../../src/discovery/mdns-unicast';
import { OFF_LINK_LOG_INTERVAL_MS, unicastQueryAnswerer } from '../../hosts/node/mdns/unicast-responder';
import { recordingLogger } from '../support/memory-ports';
import { desktopZone } from '../support/unicast-zone';

/** A legacy PTR query for `_vendorplay._tcp.local` (RFC 1035 4.1). */
function ptrQuery(): Uint8Array {
  const name = ['_vendorplay', '_tcp', 'local'].flatMap((label) => [label.length, ...utf8Encode(label)]);
  return Uint8Array.from([0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...name, 0, 0, DNS_TYPES.PTR, 0, 1]);
}

function answerer() {
  const log = recordingLogger();
  let now = 0;
  const answer = unicastQueryAnswerer({
    services: () => desktopZone('vendor').services,
    links: () => [
      { address: '127.0.0.1', netmask: '255.0.0.0' },
      { address: '192.168.1.20', netmask: '255.255.255.0' },
    ],
    log,
    now: () => now,
  });
  const warnings = () => log.lines.filter((line) => line.level === 'warn').map((line) => line.message);
  return { answer, warnings, at: (ms: number) => (now = ms) };
}

test('queries from on-link and loopback sources are answered', () => {
  const { answer, warnings } = answerer();
  for (const address of ['192.168.1.77', '127.0.0.1', '::ffff:192.168.1.5']) {
    const reply = answer(ptrQuery(), { address, port: 49152 }, '192.168.1.20');
    assert.ok(reply && reply.length > 100, `${address} answered`);
    assert.equal(reply[0] << 8 | reply[1], 0x1234, 'the legacy query id echoed');
  }
  assert.deepEqual(warnings(), []);
});

test('a query from off the subnets is dropped: no reply, one warning per interval with the count and the last source', () => {
  const { answer, warnings, at } = answerer();
  assert.equal(answer(ptrQuery(), { address: '203.0.113.9', port: 5353 }, '192.168.1.20'), undefined);
  assert.deepEqual(warnings(), ['mdns: a unicast query from off the local subnets dropped (RFC 6762 5.5), the last from 203.0.113.9:5353']);
  for (let i = 0; i < 500; i++) {
    at(i);
    assert.equal(answer(ptrQuery(), { address: `198.51.100.${i % 250}`, port: 40000 + i }, '192.168.1.20'), undefined);
  }
  assert.equal(warnings().length, 1, 'no line while the interval runs');
  at(OFF_LINK_LOG_INTERVAL_MS);
  assert.equal(answer(ptrQuery(), { address: '192.168.2.1', port: 5353 }, '192.168.1.20'), undefined, 'the next subnet is off link too');
  assert.deepEqual(warnings().slice(1), ['mdns: 501 unicast queries from off the local subnets dropped (RFC 6762 5.5), the last from 192.168.2.1:5353']);
});
