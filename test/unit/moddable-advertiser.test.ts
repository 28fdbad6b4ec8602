// The Moddable host's advertiser (hosts/moddable/advertiser.ts) and its multicast socket
// (hosts/moddable/udp.ts bindMulticastUdp) with a scripted ECMA-419 socket: the group joined where
// the SDK can, the causes named when there is no advertiser, probes sent to 224.0.0.251:5353 on
// the timer driver's clock, and "advertising" logged only once a service is announced.
// Portable: runs under Node and inside XS.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMessage } from '../../src/discovery/mdns/dns-message';
import type { Clock, LogLevel } from '../../src/platform';
import { MDNS_TTL, startMdnsAdvertiser } from '../../hosts/moddable/advertiser';
import { bindMulticastUdp, type Udp419, type Udp419Options } from '../../hosts/moddable/udp';

const GROUP = { address: '224.0.0.251', port: 5353, timeToLive: MDNS_TTL };

function scriptedSocket(withAdd: boolean) {
  const written: { bytes: Uint8Array; address: string; port: number }[] = [];
  const joined: string[] = [];
  let options: Udp419Options | undefined;
  const socket: Udp419 = {
    read: () => undefined,
    write: (bytes, address, port) => void written.push({ bytes: new Uint8Array(bytes as ArrayBuffer).slice(), address, port }),
    close: () => {},
    ...(withAdd ? { add: (address: string) => void joined.push(address) } : {}),
  };
  const make = (given: Udp419Options): Udp419 => ((options = given), socket);
  return { make, written, joined, options: () => options };
}

/** A clock whose timers run when the test advances it. */
function manualClock() {
  let now = 0;
  let timers: { at: number; callback: () => void; id: number }[] = [];
  let ids = 0;
  const clock: Clock = {
    now: () => now,
    wallTime: () => 0,
    setTimer: (ms, callback) => {
      const id = ++ids;
      timers.push({ at: now + ms, callback, id });
      return id;
    },
    clearTimer: (handle) => void (timers = timers.filter((timer) => timer.id !== handle)),
  };
  const advance = (to: number): void => {
    for (;;) {
      const due = timers.filter((timer) => timer.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((timer) => timer !== due);
      now = due.at;
      due.callback();
    }
    now = to;
  };
  return { clock, advance };
}

test('binds port 5353 with TTL 255 and joins 224.0.0.251 where the socket can (lwIP boards)', () => {
  const board = scriptedSocket(true);
  const socket = bindMulticastUdp(board.make, () => {}, GROUP);
  assert.equal(socket.joined, true);
  assert.deepEqual(board.joined, ['224.0.0.251']);
  assert.equal(board.options()?.port, 5353);
  assert.equal(board.options()?.timeToLive, 255);
  const simulator = scriptedSocket(false);
  assert.equal(bindMulticastUdp(simulator.make, () => {}, GROUP).joined, false);
});

test('names the cause when there is no advertiser: no address, or the port taken', () => {
  const { clock } = manualClock();
  const base = { name: 'Frame', clock, random: (n: number) => new Uint8Array(n), log: () => {} };
  const noAddress = startMdnsAdvertiser({ ...base, address: undefined, bind: () => assert.fail('not bound without an address') });
  assert.equal(noAddress.advertiser, undefined);
  assert.match(noAddress.reason!, /no IPv4 address/);
  const taken = startMdnsAdvertiser({
    ...base,
    address: '10.0.0.7',
    bind: () => {
      throw new Error('bind failed');
    },
  });
  assert.equal(taken.reason, 'UDP port 5353 cannot be bound (bind failed; another mDNS responder on this host?)');
});

test('probes and announces on the timer driver, logging "advertising" only once announced, and warns where the group cannot be joined', () => {
  const { clock, advance } = manualClock();
  const lines: string[] = [];
  const simulator = scriptedSocket(false);
  const { advertiser } = startMdnsAdvertiser({
    name: 'Frame',
    clock,
    random: (n) => new Uint8Array(n),
    log: (level: LogLevel, message: string) => void lines.push(`${level} ${message}`),
    address: '10.0.0.7',
    bind: () => bindMulticastUdp(simulator.make, () => {}, GROUP),
  });
  assert.ok(advertiser);
  assert.match(lines[0], /^warn mdns: this platform's UDP socket cannot join 224\.0\.0\.251/);
  advertiser.publish({ name: 'Frame', type: '_vendorplay._tcp', port: 7000, txt: [['flags', '0x4']] });
  advance(1499);
  assert.ok(!lines.some((line) => line.includes('advertising')));
  advance(1500);
  assert.ok(lines.includes('info mdns: advertising "Frame" _vendorplay._tcp port 7000 on Frame.local'), lines.join('\n'));
  assert.ok(simulator.written.every((datagram) => datagram.address === '224.0.0.251' && datagram.port === 5353));
  const last = readMessage(simulator.written.at(-1)!.bytes);
  assert.ok(last.ok && last.message.answers.some((record) => record.type === 33));
});
