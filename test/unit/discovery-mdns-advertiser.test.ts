// The Advertiser on our own responder (src/discovery/mdns/mdns-advertiser.ts): datagrams between a
// scripted UDP socket and the responder, deadlines for the host's timer driver, log lines ("advertising"
// only once a service is announced), errors logged and never thrown, goodbye and close on stop.
// Portable (Node and XS).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageWriter, readMessage } from '../../src/discovery/mdns/dns-message';
import { MdnsAdvertiser } from '../../src/discovery/mdns/mdns-advertiser';
import type { LogLevel, ServiceRecord, UdpSocket } from '../../src/platform';

const MEDIA: ServiceRecord = { name: 'Living Room', type: '_vendorplay._tcp', port: 7000, txt: [['features', '0x40000000,0x10040']] };

function setUp() {
  const sent: { bytes: Uint8Array; address: string; port: number }[] = [];
  const lines: string[] = [];
  let closed = 0;
  const socket: UdpSocket = {
    localPort: 5353,
    send: (bytes, address, port) => void sent.push({ bytes: bytes.slice(), address, port }),
    close: () => void closed++,
    onPacket: () => {},
  };
  const clock = { now: 0 };
  const log = (level: LogLevel, message: string): void => void lines.push(`${level} ${message}`);
  const advertiser = new MdnsAdvertiser({ socket, time: { now: () => clock.now, wallTime: () => 0 }, random: (n) => new Uint8Array(n), name: 'Living Room', addresses: { ipv4: ['10.0.0.7'], ipv6: [] }, log });
  let wakes = 0;
  advertiser.onWake = () => void wakes++;
  /** The timer driver's part: every deadline up to `until`. */
  const runUntil = (until: number): void => {
    for (let next = advertiser.pollTimeout(); next !== undefined && next <= until; next = advertiser.pollTimeout()) {
      clock.now = Math.max(clock.now, next);
      advertiser.handleTimeout(clock.now);
    }
    clock.now = until;
  };
  return { advertiser, socket, sent, lines, clock, runUntil, closed: () => closed, wakes: () => wakes };
}

test('logs "advertising" only when the service is announced, after the host name is claimed', () => {
  const { advertiser, sent, lines, runUntil, wakes } = setUp();
  advertiser.publish(MEDIA);
  assert.equal(wakes(), 1, 'the timer driver is woken for the first probe');
  assert.ok(!lines.some((line) => line.includes('advertising')));
  runUntil(1499);
  assert.ok(!lines.some((line) => line.includes('advertising')));
  runUntil(1500);
  assert.deepEqual(lines.filter((line) => line.startsWith('info')), ['info mdns: host name Living-Room.local claimed', 'info mdns: advertising "Living Room" _vendorplay._tcp port 7000 on Living-Room.local']);
  assert.ok(sent.every((datagram) => datagram.address === '224.0.0.251' && datagram.port === 5353));
  assert.equal(sent.length, 8, '3 host probes, its announcement, 3 service probes, its announcement');
});

test('answers a datagram the socket delivers, to the querier for a legacy query', () => {
  const { advertiser, socket, sent, runUntil } = setUp();
  advertiser.publish(MEDIA);
  runUntil(5000);
  sent.length = 0;
  const writer = new MessageWriter(512);
  writer.question({ name: ['Living-Room', 'local'], type: 1, class: 1, unicastResponse: false });
  socket.onPacket(writer.finish(0xbeef, 0), '10.0.0.9', 40000);
  assert.equal(sent.length, 1);
  assert.equal(`${sent[0].address}:${sent[0].port}`, '10.0.0.9:40000');
  const read = readMessage(sent[0].bytes);
  assert.ok(read.ok && read.message.id === 0xbeef && read.message.answers.length === 1);
});

test('a multicast query for a shared record wakes the timer driver: the answer goes to the group 20-120 ms later', () => {
  const { advertiser, socket, sent, runUntil, clock, wakes } = setUp();
  advertiser.publish(MEDIA);
  runUntil(5000);
  sent.length = 0;
  const before = wakes();
  const writer = new MessageWriter(512);
  writer.question({ name: ['_vendorplay', '_tcp', 'local'], type: 12, class: 1, unicastResponse: false });
  socket.onPacket(writer.finish(0, 0), '10.0.0.9', 5353);
  assert.equal(sent.length, 0, 'a PTR is shared: not sent at once');
  assert.equal(wakes(), before + 1, 'the driver is told a deadline may have moved');
  const due = advertiser.pollTimeout();
  assert.ok(due !== undefined && due >= clock.now + 20 && due <= clock.now + 120, `due at ${due}, now ${clock.now}`);
  runUntil(due);
  assert.equal(sent.length, 1);
  assert.equal(`${sent[0].address}:${sent[0].port}`, '224.0.0.251:5353');
});

test('logs a record it cannot publish and a malformed datagram, and throws neither', () => {
  const { advertiser, socket, lines } = setUp();
  advertiser.publish({ ...MEDIA, txt: [['', 'x']] });
  socket.onPacket(Uint8Array.of(1, 2, 3), '10.0.0.9', 5353);
  assert.deepEqual(lines, [
    'debug mdns: responder on UDP port 5353, host Living-Room.local, addresses 10.0.0.7',
    'error mdns: "Living Room" _vendorplay._tcp not published: txt: empty key',
    'debug mdns: unreadable datagram from 10.0.0.9:5353: message of 3 bytes is shorter than its 12-byte header',
  ]);
});

test('stop says goodbye, closes the socket once, and later calls are refused in the log', () => {
  const { advertiser, sent, lines, runUntil, closed } = setUp();
  advertiser.publish(MEDIA);
  runUntil(5000);
  sent.length = 0;
  advertiser.stop();
  advertiser.stop();
  assert.equal(closed(), 1);
  assert.equal(sent.length, 1);
  const read = readMessage(sent[0].bytes);
  assert.ok(read.ok && read.message.answers.every((record) => record.ttl === 0));
  assert.equal(advertiser.pollTimeout(), undefined);
  advertiser.update(MEDIA);
  assert.equal(lines.at(-1), 'warn mdns: "Living Room" _vendorplay._tcp not updated: the advertiser is stopped');
});
