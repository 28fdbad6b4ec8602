// The access lists applied by a Receiver on in-memory ports (src/receiver/connection/access-gate.ts): a
// blocked address closed at once, a blocked device id 403 and closed on the first request naming
// it (HTTP and RTSP), an allow list of device ids serving only the routes that need no identity
// until a listed one is named, and pair-setup and pair-verify refused for a blocked identifier.
// SRP with the 3072-bit group is slow on XS: one pair-setup per test that needs one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TLV } from '../../src/pairing/tlv-types';
import { encodeBinaryPlist } from '../../src/plist';
import { PEERS_KEY, decodePeers } from '../../src/pairing/peers';
import { makeConfig, type ReceiverConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { ManualClock, MemoryConnection, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { PairVerifyClient, newSenderIdentity, openPairSetupM6, pairSetupM1, pairSetupM5, replyItems, srpClientStep } from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

function setup(overrides: Partial<ReceiverConfig>, store = new MemoryStore()) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: '02:00:00:00:00:01', ...overrides }), { crypto: portableCryptoKernels, clock, random: seededRandom(5), store, log });
  new TimerDriver(receiver, clock);
  return { receiver, clock, log, store };
}

const warnings = (log: ReturnType<typeof recordingLogger>) => log.lines.filter((line) => line.level === 'warn').map((line) => line.message);

test('a blocked address is closed when it connects, unanswered; a flood of them is one log line', () => {
  const { receiver, log } = setup({ block: ['192.0.2.0/28'] });
  const refused: MemoryConnection[] = [];
  for (let port = 1; port <= 50; port++) {
    const connection = new MemoryConnection();
    connection.remoteAddress = '192.0.2.9';
    connection.remotePort = port;
    assert.equal(receiver.accept(connection), undefined);
    refused.push(connection);
  }
  assert.ok(refused.every((connection) => connection.closed && connection.chunks.length === 0));
  assert.equal(receiver.connectionCount, 0);
  assert.deepEqual(warnings(log), ['192.0.2.9:1 refused: its address is blocked (closed at once)']);
  // Another address is served.
  const bystander = new MemorySender(receiver, 50000, '192.0.2.16');
  assert.equal(bystander.request('GET', '/server-info').head.status, 200);
});

test('a blocked device id is 403 and closed on the first request naming it, over HTTP and RTSP, in any spelling', () => {
  const { receiver } = setup({ block: ['58:55:CA:1A:E2:88', '14413BE4996FEA4D'] });
  const quiet = new MemorySender(receiver, 50001);
  assert.equal(quiet.request('GET', '/server-info').head.status, 200, 'served until it names itself');
  const named = quiet.request('GET', '/server-info', { headers: [['X-Apple-Device-ID', '0x5855ca1ae288']] });
  assert.equal(named.head.status, 403);
  assert.match(new TextDecoder().decode(named.body), /device 0x5855ca1ae288 is blocked/);
  assert.equal(quiet.connection.closed, true);

  const rtsp = new MemorySender(receiver, 50002);
  const options = rtsp.request('OPTIONS', '*', { protocol: 'RTSP', headers: [['DACP-ID', '14413be4996fea4d']] });
  assert.equal(options.head.protocol, 'RTSP');
  assert.equal(options.head.status, 403);
  assert.equal(options.head.headers.get('CSeq'), '1');
  assert.equal(rtsp.connection.closed, true);

  const other = new MemorySender(receiver, 50003);
  assert.equal(other.request('GET', '/server-info', { headers: [['X-Vendor-Device-ID', 'AA:BB:CC:DD:EE:FF']] }).head.status, 200);
});

test('an allow list of addresses only: other addresses are closed when they connect', () => {
  const { receiver } = setup({ allow: ['192.0.2.20', '2001:db8::/32'] });
  assert.equal(new MemorySender(receiver, 50000, '192.0.2.20').request('GET', '/server-info').head.status, 200);
  assert.equal(new MemorySender(receiver, 50000, '::ffff:192.0.2.20').request('GET', '/server-info').head.status, 200);
  const stranger = new MemoryConnection();
  stranger.remoteAddress = '192.0.2.21';
  assert.equal(receiver.accept(stranger), undefined);
  assert.equal(stranger.closed, true);
});

test('an allow list with device ids: an unlisted address gets /info, OPTIONS and pairing, everything else once it names a listed device', () => {
  const { receiver } = setup({ allow: ['58:55:CA:1A:E2:88'] });
  const sender = new MemorySender(receiver, 50001, '192.0.2.30');
  assert.equal(sender.request('GET', '/info', { protocol: 'RTSP' }).head.status, 200);
  assert.equal(sender.request('OPTIONS', '*', { protocol: 'RTSP' }).head.status, 200);
  assert.equal(sender.request('POST', '/pair-setup', { body: pairSetupM1(), contentType: 'application/pairing+tlv8' }).head.status, 200);
  assert.equal(sender.request('GET', '/server-info', { headers: [['X-Apple-Device-ID', '0x5855CA1AE288']] }).head.status, 200, 'a listed device');
  assert.equal(sender.request('GET', '/server-info').head.status, 200, 'the connection stays admitted');
  // The same sender's second connection need not name it again while the first is open.
  const second = new MemorySender(receiver, 50002, '192.0.2.30');
  assert.equal(second.request('GET', '/server-info').head.status, 200);

  const stranger = new MemorySender(receiver, 50003, '192.0.2.31');
  assert.equal(stranger.request('GET', '/info', { protocol: 'RTSP' }).head.status, 200);
  const refused = stranger.request('GET', '/server-info');
  assert.equal(refused.head.status, 403, 'no identity yet: refused');
  assert.equal(stranger.connection.closed, true);
  const unlisted = new MemorySender(receiver, 50004, '192.0.2.31');
  assert.equal(unlisted.request('GET', '/info', { protocol: 'RTSP', headers: [['X-Apple-Device-ID', '0xaabbccddeeff']] }).head.status, 403, 'an unlisted device named, even on an open route');
  assert.equal(unlisted.connection.closed, true);
});

test('pair-setup naming a blocked identifier is refused before it is stored: 403 and closed', () => {
  const blocked = newSenderIdentity('6E5A4B0C-0A44-4B5E-9C0D-2F3E4A5B6C7D', seededRandom(9));
  const { receiver, store, log } = setup({ block: [blocked.id.toLowerCase()] });
  const sender = new MemorySender(receiver);
  const m2 = sender.pairing('/pair-setup', pairSetupM1());
  const srp = srpClientStep(m2.body, '3939', seededRandom(10));
  assert.equal(replyItems(sender.pairing('/pair-setup', srp.m3).body).get(TLV.Error), undefined);
  const m6 = sender.pairing('/pair-setup', pairSetupM5(srp.sessionKey, blocked));
  assert.equal(m6.head.status, 403);
  assert.equal(sender.connection.closed, true);
  assert.equal(store.get(PEERS_KEY), undefined, 'not paired');
  assert.ok(warnings(log).some((line) => line.includes(`pairing refused: sender ${blocked.id} is blocked`)));
});

test('pair-verify naming a blocked identifier is refused: 403, closed, the connection never encrypted', () => {
  const store = new MemoryStore();
  const senderId = newSenderIdentity('sender-one', seededRandom(11));
  const open = setup({}, store).receiver;
  const pairing = new MemorySender(open);
  const m2 = pairing.pairing('/pair-setup', pairSetupM1());
  const srp = srpClientStep(m2.body, '3939', seededRandom(12));
  pairing.pairing('/pair-setup', srp.m3);
  const paired = openPairSetupM6(srp.sessionKey, pairing.pairing('/pair-setup', pairSetupM5(srp.sessionKey, senderId)).body);
  assert.deepEqual(decodePeers(store.get(PEERS_KEY)!).map((peer) => peer.id), ['sender-one']);

  // The same store, now blocking it (a restart with --block SENDER-ONE).
  const { receiver } = setup({ block: ['SENDER-ONE'] }, store);
  const verifying = new MemorySender(receiver, 50001);
  const client = new PairVerifyClient(senderId, paired, seededRandom(13));
  const v2 = verifying.pairing('/pair-verify', client.m1());
  assert.equal(v2.head.status, 200);
  const v4 = verifying.pairing('/pair-verify', client.m3(v2.body));
  assert.equal(v4.head.status, 403);
  assert.equal(verifying.connection.closed, true);
});

test('an allow list of pairing identifiers: a sender from an unlisted address is served once pair-verify proves a listed one', () => {
  const store = new MemoryStore();
  const senderId = newSenderIdentity('listed-sender', seededRandom(14));
  const open = setup({}, store).receiver;
  const pairing = new MemorySender(open);
  const srp = srpClientStep(pairing.pairing('/pair-setup', pairSetupM1()).body, '3939', seededRandom(15));
  pairing.pairing('/pair-setup', srp.m3);
  const paired = openPairSetupM6(srp.sessionKey, pairing.pairing('/pair-setup', pairSetupM5(srp.sessionKey, senderId)).body);

  const { receiver } = setup({ allow: ['LISTED-SENDER'] }, store);
  const sender = new MemorySender(receiver, 50001, '192.0.2.40');
  const client = new PairVerifyClient(senderId, paired, seededRandom(16));
  const v2 = sender.pairing('/pair-verify', client.m1());
  assert.equal(replyItems(sender.pairing('/pair-verify', client.m3(v2.body)).body).get(TLV.Error), undefined);
  sender.encrypt(client.channel());
  assert.equal(sender.request('GET', '/server-info').head.status, 200);
});

test('a session SETUP naming a blocked device in its body is 403, and its connection is refused from then on', () => {
  const { receiver } = setup({ block: ['aa-bb-cc-dd-ee-ff'] });
  const sender = new MemorySender(receiver);
  const body = encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: '3A6E2B1C-1F4D-4C9E-9C3B-6B9D0E0A7F11', timingProtocol: 'None' });
  const setupAnswer = sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body, contentType: 'application/x-apple-binary-plist' });
  assert.equal(setupAnswer.head.status, 403);
  assert.equal(receiver.sessions.list().length, 0);
  assert.equal(sender.request('GET', '/info', { protocol: 'RTSP' }).head.status, 403);
  assert.equal(sender.connection.closed, true);
});
