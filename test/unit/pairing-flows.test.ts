// Pairing driven through a Receiver on in-memory ports (spec 5.2-5.4): transient and normal
// pair-setup, pair-verify, encrypted requests afterwards, the TLV error answers, one pair-setup
// at a time, the failed-attempt count, access control and the PIN on the display.
// SRP with the 3072-bit group is slow on XS: each test does as few exchanges as it can.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex, utf8Decode } from '../../src/bytes';
import { decodeBinaryPlist } from '../../src/plist/binary';
import { decodeXmlPlist } from '../../src/plist/xml';
import { PAIR_METHOD, TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { PEERS_KEY, decodePeers } from '../../src/pairing/peers';
import { TRIES_KEY } from '../../src/pairing/pair-setup';
import { encodeTlv8 } from '../../src/pairing/tlv8';
import { createSenderChannel } from '../../src/pairing/channel';
import { ed25519KeyPair } from '../../src/pairing/keys';
import { makeConfig, type ReceiverConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import {
  PairVerifyClient,
  newSenderIdentity,
  openPairSetupM6,
  pairSetupM1,
  pairSetupM5,
  replyItems,
  srpClientStep,
  state,
} from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const DEVICE_ID = '58:55:CA:1A:E2:88';

function setup(overrides: Partial<ReceiverConfig> = {}, store = new MemoryStore(), clock = new ManualClock()) {
  const log = recordingLogger();
  const shown: string[] = [];
  const display = {
    showPin: (pin: string) => shown.push(`show ${pin}`),
    hidePin: () => shown.push('hide'),
    showPhoto: () => {},
    clear: () => {},
    showStatus: () => {},
  };
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: DEVICE_ID, ...overrides }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(21),
    store,
    log,
    display,
  });
  new TimerDriver(receiver, clock);
  return { receiver, store, clock, log, shown };
}

/** The items of a pairing reply, checked to be a 200 with the given State. */
function itemsOf(response: { head: { status: number }; body: Uint8Array }, expectedState: number): Map<number, Uint8Array> {
  assert.equal(response.head.status, 200);
  const items = replyItems(response.body);
  assert.deepEqual(items.get(TLV.State), new Uint8Array([expectedState]));
  return items;
}

function errorOf(items: Map<number, Uint8Array>): number | undefined {
  return items.get(TLV.Error)?.[0];
}

const clientRandom = seededRandom(77);

test('a wrong password is answered Authentication, counted, and the next attempt pairs transiently and encrypts the connection', async () => {
  const { receiver, store, log } = setup({ pinRequired: true, password: '4711' });
  const sender = new MemorySender(receiver);
  // spec 5.2: with a PIN required, nothing but pairing and information until paired.
  assert.equal((await sender.request('GET', '/server-info')).head.status, 403);

  const m2 = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }));
  assert.equal(m2.head.headers.get('Content-Type'), 'application/pairing+tlv8');
  const m2Items = itemsOf(m2, 2);
  assert.equal(m2Items.get(TLV.Salt)?.length, 16);
  assert.equal(m2Items.get(TLV.PublicKey)?.length, 384);
  const wrong = srpClientStep(m2.body, '1234', clientRandom);
  const refused = itemsOf(await sender.pairing('/pair-setup', wrong.m3), 4);
  assert.equal(errorOf(refused), TLV_ERROR.Authentication);
  assert.deepEqual([...store.get(TRIES_KEY)!], [0, 0, 0, 1]);
  assert.ok(log.lines.some((line) => /Authentication/.test(line.message)));

  // The next attempt on the same connection starts afresh and works (octet-stream is echoed).
  const again = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }), 'HTTP', 'application/octet-stream');
  assert.equal(again.head.headers.get('Content-Type'), 'application/octet-stream');
  const right = srpClientStep(again.body, '4711', clientRandom);
  const m4 = itemsOf(await sender.pairing('/pair-setup', right.m3), 4);
  assert.equal(errorOf(m4), undefined);
  assert.deepEqual(m4.get(TLV.Proof), right.expectedProof);
  assert.equal(store.get(TRIES_KEY), undefined, 'a successful pairing clears the count');

  // spec 5.3: transient, so K is the EncryptionKey and everything after M4 is framed.
  sender.encrypt(createSenderChannel(right.sessionKey, portableCryptoKernels));
  const info = await sender.request('GET', '/server-info');
  assert.equal(info.head.status, 200);
  const record = decodeXmlPlist(utf8Decode(info.body)) as Record<string, unknown>;
  assert.equal(record.deviceid, DEVICE_ID);
  const rtspInfo = await sender.request('GET', '/info', { protocol: 'RTSP' });
  assert.equal(rtspInfo.head.status, 200);
  assert.equal((decodeBinaryPlist(rtspInfo.body) as Record<string, unknown>).deviceID, DEVICE_ID);
  // Plain bytes on the encrypted connection are not a frame that authenticates: closed.
  sender.connection.send('GET /server-info HTTP/1.1\r\n\r\n');
  assert.equal(sender.connection.closed, true);
});

test('on a receiver that asks no PIN, a sender that pairs transiently may go on in the clear (pyatv\'s classic audio path), or encrypted', async () => {
  for (const encrypts of [false, true]) {
    const { receiver, log } = setup({});
    const sender = new MemorySender(receiver);
    const m2 = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }), 'RTSP');
    const srp = srpClientStep(m2.body, '3939', clientRandom);
    assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', srp.m3, 'RTSP'), 4)), undefined);
    if (encrypts) sender.encrypt(createSenderChannel(srp.sessionKey, portableCryptoKernels));
    const info = await sender.request('GET', '/info', { protocol: 'RTSP' });
    assert.equal(info.head.status, 200, encrypts ? 'encrypted' : 'in the clear');
    assert.equal((decodeBinaryPlist(info.body) as Record<string, unknown>).deviceID, DEVICE_ID);
    assert.equal(log.lines.some((line) => /goes on in the clear after its transient pair-setup/.test(line.message)), !encrypts);
  }
});

test('normal pair-setup stores the sender; pair-verify on another connection, and after a restart, encrypts it', async () => {
  const store = new MemoryStore();
  const { receiver } = setup({}, store);
  const senderId = newSenderIdentity('6E5A4B0C-0A44-4B5E-9C0D-2F3E4A5B6C7D', clientRandom);

  const sender = new MemorySender(receiver);
  const m2 = await sender.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup }), 'RTSP');
  assert.equal(m2.head.protocol, 'RTSP');
  assert.equal(m2.head.headers.get('CSeq'), '1');
  itemsOf(m2, 2);
  const srp = srpClientStep(m2.body, '3939', clientRandom);
  const m4 = itemsOf(await sender.pairing('/pair-setup', srp.m3, 'RTSP'), 4);
  assert.deepEqual(m4.get(TLV.Proof), srp.expectedProof);
  assert.equal(m4.get(TLV.EncryptedData), undefined, 'Method 0: no device certificate');
  const m6 = await sender.pairing('/pair-setup', pairSetupM5(srp.sessionKey, senderId), 'RTSP');
  itemsOf(m6, 6);
  const paired = openPairSetupM6(srp.sessionKey, m6.body);
  // The receiver's pairing identifier is its device id; its LTPK is TXT pk.
  assert.equal(paired.id, DEVICE_ID);
  assert.deepEqual(paired.publicKey, receiver.identity.publicKey);
  const peers = decodePeers(store.get(PEERS_KEY)!);
  assert.deepEqual(peers.map((peer) => [peer.id, toHex(peer.publicKey), peer.permissions]), [[senderId.id, toHex(senderId.keys.publicKey), 1]]);
  // Normal pairing does not encrypt the pair-setup connection: pair-verify does.
  assert.equal((await sender.request('GET', '/server-info')).head.status, 200);

  const verifyOn = async (target: Receiver, options: { signWith?: ReturnType<typeof ed25519KeyPair>; id?: string } = {}) => {
    const connection = new MemorySender(target, 50001);
    const client = new PairVerifyClient(senderId, paired, clientRandom);
    const v2 = await connection.pairing('/pair-verify', client.m1());
    assert.equal(itemsOf(v2, 2).get(TLV.PublicKey)?.length, 32);
    const v4 = itemsOf(await connection.pairing('/pair-verify', client.m3(v2.body, options)), 4);
    return { connection, client, v4 };
  };

  const good = await verifyOn(receiver);
  assert.equal(errorOf(good.v4), undefined);
  good.connection.encrypt(good.client.channel());
  const info = await good.connection.request('GET', '/server-info');
  assert.equal(info.head.status, 200);

  // A sender signing with another key, or an identifier never paired: Authentication.
  const forged = await verifyOn(receiver, { signWith: ed25519KeyPair(clientRandom, portableCryptoKernels) });
  assert.equal(errorOf(forged.v4), TLV_ERROR.Authentication);
  const stranger = await verifyOn(receiver, { id: 'not-paired' });
  assert.equal(errorOf(stranger.v4), TLV_ERROR.Authentication);

  // The pairing record survives a restart: a new receiver on the same store verifies the sender.
  const restarted = setup({}, store).receiver;
  const again = await verifyOn(restarted);
  assert.equal(errorOf(again.v4), undefined);
  again.connection.encrypt(again.client.channel());
  assert.equal((await again.connection.request('GET', '/info', { protocol: 'RTSP' })).head.status, 200);
});

test('with a password configured, pair-setup takes the password instead of the PIN', async () => {
  const { receiver } = setup({ password: 'hunter22' });
  const sender = new MemorySender(receiver);
  const m2 = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }));
  const step = srpClientStep(m2.body, 'hunter22', clientRandom);
  const m4 = itemsOf(await sender.pairing('/pair-setup', step.m3), 4);
  assert.deepEqual(m4.get(TLV.Proof), step.expectedProof);
  sender.encrypt(createSenderChannel(step.sessionKey, portableCryptoKernels));
  assert.equal((await sender.request('GET', '/server-info')).head.status, 200);
});

test('one pair-setup at a time: another connection is Busy until the first ends, closes or goes stale', async () => {
  const { receiver, clock } = setup();
  const first = new MemorySender(receiver, 50001);
  itemsOf(await first.pairing('/pair-setup', pairSetupM1()), 2);
  const second = new MemorySender(receiver, 50002);
  assert.equal(errorOf(itemsOf(await second.pairing('/pair-setup', pairSetupM1()), 2)), TLV_ERROR.Busy);

  // Quiet for longer than pairingTimeoutMs: the first no longer holds the receiver.
  clock.advance(receiver.config.limits.pairingTimeoutMs + 1);
  const taken = itemsOf(await second.pairing('/pair-setup', pairSetupM1()), 2);
  assert.equal(errorOf(taken), undefined);
  // The first sender's late M3 finds its pair-setup gone: Unknown, and nothing else changes.
  const late = itemsOf(await first.pairing('/pair-setup', encodeTlv8([state(3), [TLV.PublicKey, new Uint8Array([2])], [TLV.Proof, new Uint8Array(64)]])), 4);
  assert.equal(errorOf(late), TLV_ERROR.Unknown);
  assert.equal(receiver.pairing.setup.failedAttempts, 0);

  // A closed connection lets go at once.
  second.close();
  const third = new MemorySender(receiver, 50003);
  assert.equal(errorOf(itemsOf(await third.pairing('/pair-setup', pairSetupM1()), 2)), undefined);
});

test('an unknown method is Unknown, Pair Setup with Auth without a device certificate is Unavailable, steps out of order are Unknown', async () => {
  const { receiver } = setup();
  const sender = new MemorySender(receiver);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', pairSetupM1({ method: 7 })), 2)), TLV_ERROR.Unknown);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.AddPairing })), 2)), TLV_ERROR.Unknown);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetupWithAuth })), 2)), TLV_ERROR.Unavailable);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', encodeTlv8([state(5), [TLV.EncryptedData, new Uint8Array(40)]])), 6)), TLV_ERROR.Unknown);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', encodeTlv8([state(2)])), 3)), TLV_ERROR.Unknown);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-verify', encodeTlv8([state(3), [TLV.EncryptedData, new Uint8Array(40)]])), 4)), TLV_ERROR.Unknown);
  // A pair-verify key that is not 32 bytes is refused at M1.
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-verify', encodeTlv8([state(1), [TLV.PublicKey, new Uint8Array(31)]])), 2)), TLV_ERROR.Authentication);
  // None of this broke the connection.
  assert.equal((await sender.request('GET', '/server-info')).head.status, 200);
});

test('a body that is not TLV8, or has no State, is 400 on every pairing endpoint; the connection goes on', async () => {
  const { receiver, log } = setup();
  const sender = new MemorySender(receiver);
  for (const path of ['/pair-setup', '/pair-verify']) {
    assert.equal((await sender.pairing(path, new Uint8Array([6, 5, 1]))).head.status, 400, `${path} truncated item`);
    assert.equal((await sender.pairing(path, encodeTlv8([[TLV.Method, new Uint8Array([0])]]))).head.status, 400, `${path} without State`);
    assert.equal((await sender.pairing(path, new Uint8Array(0))).head.status, 400, `${path} empty`);
  }
  assert.ok(log.lines.some((line) => line.level === 'info' && /\/pair-setup: 400 \(/.test(line.message)), 'the refusal is logged once, with its reason');
  assert.equal((await sender.pairing('/pair-setup', pairSetupM1(), 'RTSP')).head.status, 200);
});

test('past pairingMaxFailures stored failures of a fixed PIN, pair-setup with it answers MaxTries across restarts, transient pairing on an open receiver still works, and a reset (the store record gone, or resetTries) lets it pair', async () => {
  const store = new MemoryStore();
  store.put(TRIES_KEY, new Uint8Array([0, 0, 0, 100]));
  const exhausted = setup({}, store).receiver;
  const sender = new MemorySender(exhausted);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', pairSetupM1()), 2)), TLV_ERROR.MaxTries);
  // 3939 is public: a lock-out of the fixed PIN does not reach transient pairing.
  const m2 = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }));
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', srpClientStep(m2.body, '3939', clientRandom).m3), 4)), undefined);
  // `pairings reset-tries` deletes the record: the running receiver reads it again at the next M1.
  store.delete(TRIES_KEY);
  const other = new MemorySender(exhausted, 50002);
  assert.equal(errorOf(itemsOf(await other.pairing('/pair-setup', pairSetupM1()), 2)), undefined);
  assert.equal(exhausted.pairing.setup.failedAttempts, 0);

  store.put(TRIES_KEY, new Uint8Array([0, 0, 0, 100]));
  const again = setup({}, store).receiver;
  assert.equal(errorOf(itemsOf(await new MemorySender(again).pairing('/pair-setup', pairSetupM1()), 2)), TLV_ERROR.MaxTries);
  again.pairing.setup.resetTries();
  assert.equal(store.get(TRIES_KEY), undefined, 'the reset is stored');
  assert.equal(errorOf(itemsOf(await new MemorySender(again).pairing('/pair-setup', pairSetupM1()), 2)), undefined);
});

test('with a PIN required, only pairing, OPTIONS and /info are served before pairing: 403 on HTTP, 470 on RTSP', async () => {
  const { receiver } = setup({ pinRequired: true });
  receiver.router.add({ protocol: 'RTSP', method: 'SETUP', path: '*', handler: () => ({ status: 200 }) });
  const sender = new MemorySender(receiver);
  assert.equal((await sender.request('GET', '/server-info')).head.status, 403);
  const setupAnswer = await sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' });
  assert.equal(setupAnswer.head.status, 470);
  assert.equal(setupAnswer.head.reason, 'Connection Authorization Required');
  assert.equal((await sender.request('OPTIONS', '*', { protocol: 'RTSP' })).head.status, 200);
  assert.equal((await sender.request('GET', '/info', { protocol: 'RTSP' })).head.status, 200);
  assert.equal((await sender.request('POST', '/pair-pin-start', { protocol: 'RTSP' })).head.status, 200);
  assert.equal((await sender.request('GET', '/nothing-here')).head.status, 404);
  // A password does the same.
  const locked = setup({ password: 'secret' }).receiver;
  assert.equal((await new MemorySender(locked).request('GET', '/server-info')).head.status, 403);
  // Without either, plain connections are served as before.
  assert.equal((await new MemorySender(setup().receiver).request('GET', '/server-info')).head.status, 200);
});

test('POST /pair-pin-start shows the PIN on the display until the pair-setup ends or times out', async () => {
  const { receiver, clock, shown } = setup({ pin: '4711' });
  const sender = new MemorySender(receiver);
  assert.equal((await sender.request('POST', '/pair-pin-start')).head.status, 200);
  assert.deepEqual(shown, ['show 4711']);
  clock.advance(receiver.config.limits.pairingTimeoutMs);
  assert.deepEqual(shown, ['show 4711', 'hide']);
  await sender.request('POST', '/pair-pin-start');
  itemsOf(await sender.pairing('/pair-setup', pairSetupM1()), 2);
  // A failed step ends the pair-setup: the PIN comes off the screen.
  itemsOf(await sender.pairing('/pair-setup', encodeTlv8([state(5), [TLV.EncryptedData, new Uint8Array(40)]])), 6);
  assert.deepEqual(shown, ['show 4711', 'hide', 'show 4711', 'hide']);
});

test('the PIN stays up when an abandoned pair-setup gives way to the next M1, until that pairing succeeds', async () => {
  const { receiver, shown } = setup({ pin: '4711' });
  const senderId = newSenderIdentity('1B0E4C2A-6F3D-4E5B-8A9C-0D1E2F3A4B5C', clientRandom);
  // A sender asks for the PIN, starts, and goes away mid-way (its connection closes).
  const gone = new MemorySender(receiver, 50001);
  await gone.request('POST', '/pair-pin-start');
  itemsOf(await gone.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup })), 2);
  gone.close();
  // The next sender asks again; its M1 must not take the PIN off the screen, nor a restart of it.
  const next = new MemorySender(receiver, 50002);
  await next.request('POST', '/pair-pin-start');
  itemsOf(await next.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup })), 2);
  const m2 = await next.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup }));
  assert.deepEqual(shown, ['show 4711', 'show 4711'], 'nothing hid the PIN while the user reads it');
  const srp = srpClientStep(m2.body, '4711', clientRandom);
  itemsOf(await next.pairing('/pair-setup', srp.m3), 4);
  assert.deepEqual(shown, ['show 4711', 'show 4711'], 'still up between M4 and M5');
  itemsOf(await next.pairing('/pair-setup', pairSetupM5(srp.sessionKey, senderId)), 6);
  assert.deepEqual(shown, ['show 4711', 'show 4711', 'hide'], 'paired: the PIN goes');
});

test('a pair-setup that fails for good takes the PIN down; one that goes quiet leaves it to the timeout', async () => {
  const { receiver, clock, shown } = setup({ pin: '4711' });
  const sender = new MemorySender(receiver, 50001);
  await sender.request('POST', '/pair-pin-start');
  const m2 = await sender.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup }));
  const wrong = srpClientStep(m2.body, '0000', clientRandom);
  assert.equal(errorOf(itemsOf(await sender.pairing('/pair-setup', wrong.m3), 4)), TLV_ERROR.Authentication);
  assert.deepEqual(shown, ['show 4711', 'hide']);
  await sender.request('POST', '/pair-pin-start');
  itemsOf(await sender.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup })), 2);
  clock.advance(receiver.config.limits.pairingTimeoutMs - 1);
  assert.deepEqual(shown, ['show 4711', 'hide', 'show 4711']);
  clock.advance(1);
  assert.deepEqual(shown, ['show 4711', 'hide', 'show 4711', 'hide'], 'timed out: the PIN goes');
});

test('transient pair-setup takes the fixed code 3939 whatever the PIN (spec 5.3); normal pair-setup takes the PIN', async () => {
  const { receiver } = setup({ pin: '1234' });
  const transient = new MemorySender(receiver, 50001);
  const m2 = await transient.pairing('/pair-setup', pairSetupM1({ transient: true }));
  const step = srpClientStep(m2.body, '3939', clientRandom);
  const m4 = itemsOf(await transient.pairing('/pair-setup', step.m3), 4);
  assert.equal(errorOf(m4), undefined);
  assert.deepEqual(m4.get(TLV.Proof), step.expectedProof);
  transient.encrypt(createSenderChannel(step.sessionKey, portableCryptoKernels));
  assert.equal((await transient.request('GET', '/server-info')).head.status, 200);
  const normal = new MemorySender(receiver, 50002);
  const n2 = await normal.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup }));
  assert.deepEqual(itemsOf(await normal.pairing('/pair-setup', srpClientStep(n2.body, '1234', clientRandom).m3), 4).get(TLV.Error), undefined);
});

test('with a PIN required, transient pair-setup (the public 3939) is refused Unavailable before it takes the lock, and not counted', async () => {
  const { receiver, log } = setup({ pin: '1234', pinRequired: true });
  const sender = new MemorySender(receiver, 50001);
  const refused = itemsOf(await sender.pairing('/pair-setup', pairSetupM1({ transient: true })), 2);
  assert.equal(errorOf(refused), TLV_ERROR.Unavailable);
  assert.equal(refused.has(TLV.PublicKey), false, 'no SRP key made');
  assert.ok(log.lines.some((line) => /transient pairing uses the public code 3939 and this receiver requires a PIN/.test(line.message)), 'a clear log line');
  assert.equal(receiver.pairing.setup.failedAttempts, 0);
  // It held nothing: another sender pairs with the PIN at once.
  const other = new MemorySender(receiver, 50002);
  const m2 = await other.pairing('/pair-setup', pairSetupM1());
  assert.equal(errorOf(itemsOf(await other.pairing('/pair-setup', srpClientStep(m2.body, '1234', clientRandom).m3), 4)), undefined);
});

test('RTSP POST /auth-setup answers 501 without a device key and certificate, and the features say so', async () => {
  const { receiver } = setup();
  const sender = new MemorySender(receiver);
  const body = new Uint8Array(33);
  body[0] = 1;
  assert.equal((await sender.request('POST', '/auth-setup', { protocol: 'RTSP', body })).head.status, 501);
  // spec 2.3: pairing (38) and transient pairing (48); not 51 or 26 without the certificate.
  assert.equal(receiver.features & (1n << 38n), 1n << 38n);
  assert.equal(receiver.features & (1n << 48n), 1n << 48n);
  assert.equal(receiver.features & ((1n << 51n) | (1n << 26n) | (1n << 46n)), 0n);
});
