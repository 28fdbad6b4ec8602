// Pairing under abuse and faults through a Receiver on in-memory ports: the pair-setup
// lock belongs to one attempt with a deadline from its first M1; costly M1s are rate-limited per
// connection and per address without doing the work; a store that fails is a TLV error and a log
// line, never an HTTP 500, and the failed-attempt count is never dropped silently.
// SRP with the 3072-bit group is slow on XS: the limits here keep the keys made to a handful.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latin1Encode } from '../../src/bytes';
import type { ResponseHead } from '../../src/http';
import { TRIES_KEY } from '../../src/pairing/pair-setup';
import { encodePeers, PEERS_KEY } from '../../src/pairing/peers';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { newSenderIdentity, PairVerifyClient, pairSetupM1, pairSetupM5, replyItems, srpClientStep } from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const DEVICE_ID = '58:55:CA:1A:E2:88';
const TIMEOUT_MS = 30_000;
const clientRandom = seededRandom(5);

/** A store whose reads or writes fail on demand, as a full or read-only disk does. */
class FaultyStore extends MemoryStore {
  failWrites = false;
  /** The records whose reads fail. */
  readonly failReads = new Set<string>();
  override get(key: string): Uint8Array | undefined {
    if (this.failReads.has(key)) throw new Error(`EIO: i/o error, read '${key}'`);
    return super.get(key);
  }
  override put(key: string, value: Uint8Array): void {
    if (this.failWrites) throw new Error(`EROFS: read-only file system, open '${key}.tmp'`);
    super.put(key, value);
  }
  override delete(key: string): void {
    if (this.failWrites) throw new Error(`EROFS: read-only file system, unlink '${key}'`);
    super.delete(key);
  }
}

function setup(limits: Partial<ReceiverLimits> = {}, store: MemoryStore = new MemoryStore()) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: DEVICE_ID, limits: { pairingTimeoutMs: TIMEOUT_MS, ...limits } }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(8),
    store,
    log,
  });
  return { receiver, clock, log, store };
}

/** The reply's Error item, or undefined; checks it is a 200 with State `expected`. */
function errorIn(response: { head: { status: number }; body: Uint8Array }, expected: number): number | undefined {
  assert.equal(response.head.status, 200);
  const items = replyItems(response.body);
  assert.deepEqual(items.get(TLV.State), new Uint8Array([expected]));
  return items.get(TLV.Error)?.[0];
}

test('a connection re-sending M1 every 10 s holds the pair-setup lock only until the deadline of its first M1; the waiting sender goes next', () => {
  const { receiver, clock } = setup();
  const hog = new MemorySender(receiver, 50001);
  const waiting = new MemorySender(receiver, 50002);
  assert.equal(errorIn(hog.pairing('/pair-setup', pairSetupM1()), 2), undefined, 'the first M1 starts an attempt');
  let busy = 0;
  for (let t = 10_000; t <= 60_000; t += 10_000) {
    clock.advance(5_000);
    if (errorIn(waiting.pairing('/pair-setup', pairSetupM1()), 2) === TLV_ERROR.Busy) busy++;
    else break;
    clock.advance(5_000);
    // Before the deadline a repeated M1 is a retry: a fresh key, the same deadline. After it, this
    // connection is behind the one that waited.
    const again = errorIn(hog.pairing('/pair-setup', pairSetupM1()), 2);
    assert.equal(again, t <= TIMEOUT_MS ? undefined : TLV_ERROR.Busy, `hog's M1 at ${t} ms`);
  }
  // Busy at 5 s, 15 s, 25 s; at 35 s the attempt of 0 s has run out and the waiting sender pairs.
  assert.equal(busy, 3);
  assert.equal(errorIn(hog.pairing('/pair-setup', pairSetupM1()), 2), TLV_ERROR.Busy, 'the new holder is not disturbed');
});

test('after its deadline with nobody waiting, the same connection starts a new attempt; a step of the old one is Unknown', () => {
  const { receiver, clock } = setup();
  const sender = new MemorySender(receiver, 50001);
  const m2 = sender.pairing('/pair-setup', pairSetupM1());
  clock.advance(TIMEOUT_MS + 1);
  const late = srpClientStep(m2.body, '3939', clientRandom);
  assert.equal(errorIn(sender.pairing('/pair-setup', late.m3), 4), TLV_ERROR.Unknown, 'M3 after the deadline');
  assert.equal(receiver.pairing.setup.failedAttempts, 0, 'a timed-out step is not a wrong PIN');
  assert.equal(errorIn(sender.pairing('/pair-setup', pairSetupM1()), 2), undefined);
  const other = new MemorySender(receiver, 50002);
  assert.equal(errorIn(other.pairing('/pair-setup', pairSetupM1()), 2), TLV_ERROR.Busy, 'the new attempt holds the lock');
});

/** Sends `count` requests at once and reads every answer, giving the connection its turns. */
function pipeline(sender: MemorySender, clock: ManualClock, request: string, count: number): { head: ResponseHead; body: Uint8Array }[] {
  sender.connection.send(latin1Encode(request.repeat(count)));
  const answers: { head: ResponseHead; body: Uint8Array }[] = [];
  for (let spins = 0; answers.length < count; spins++) {
    assert.ok(spins < count * 4, `only ${answers.length} of ${count} answered; connection ${sender.connection.closed ? 'closed' : 'open'}`);
    try {
      answers.push(sender.response());
    } catch {
      clock.advance(0); // the connection's next turn (fairness) is due at once
    }
  }
  return answers;
}

function postRequest(path: string, body: Uint8Array): string {
  let text = '';
  for (const byte of body) text += String.fromCharCode(byte);
  return `POST ${path} HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: ${body.length}\r\n\r\n${text}`;
}

test('1,000 pipelined pair-setup M1s make at most pairingStepsPerSecondPerConnection SRP keys; the rest are Backoff with RetryDelay, logged once', () => {
  const limits = { pairingStepsPerSecondPerConnection: 2, pairingStepsPerSecondPerAddress: 3, maxHeldBytes: 256 * 1024 };
  const { receiver, clock, log } = setup(limits);
  const flood = new MemorySender(receiver, 50001);
  const answers = pipeline(flood, clock, postRequest('/pair-setup', pairSetupM1()), 1000);
  const keys = answers.filter((answer) => replyItems(answer.body).has(TLV.PublicKey)).length;
  assert.equal(keys, 2, 'SRP keys made');
  const backoff = answers.filter((answer) => replyItems(answer.body).get(TLV.Error)?.[0] === TLV_ERROR.Backoff);
  assert.equal(backoff.length, 998);
  assert.deepEqual(replyItems(backoff[0].body).get(TLV.RetryDelay), new Uint8Array([1]));
  const lines = log.lines.filter((line) => /costly pairing step/.test(line.message));
  assert.equal(lines.length, 1, 'one log line for the whole flood');
  assert.match(lines[0].message, /limits\.pairingStepsPerSecondPerConnection \(2\)/);

  // The address has one step left this second: another of its connections gets it (Busy: the
  // lock is held, but it was admitted), the next is refused by the address limit.
  const second = new MemorySender(receiver, 50002);
  assert.equal(errorIn(second.pairing('/pair-setup', pairSetupM1()), 2), TLV_ERROR.Busy);
  const third = new MemorySender(receiver, 50003);
  assert.equal(errorIn(third.pairing('/pair-setup', pairSetupM1()), 2), TLV_ERROR.Backoff);
  // Another address is not held up by this one's flood (its own bucket).
  const bystander = new MemorySender(receiver, 50004, '192.0.2.77');
  assert.equal(errorIn(bystander.pairing('/pair-setup', pairSetupM1()), 2), TLV_ERROR.Busy, 'admitted, then Busy for the lock: no Backoff');
  // A second later the flooding connection may make keys again.
  clock.advance(1000);
  assert.equal(errorIn(flood.pairing('/pair-setup', pairSetupM1()), 2), undefined);
});

test('1,000 pipelined pair-verify M1s make at most the limit of X25519 keys', () => {
  const { receiver, clock } = setup({ pairingStepsPerSecondPerConnection: 4, pairingStepsPerSecondPerAddress: 8, maxHeldBytes: 256 * 1024 });
  const client = new PairVerifyClient(newSenderIdentity('sender', clientRandom), { id: DEVICE_ID, publicKey: receiver.identity.publicKey }, clientRandom);
  const answers = pipeline(new MemorySender(receiver, 50001), clock, postRequest('/pair-verify', client.m1()), 1000);
  assert.equal(answers.filter((answer) => replyItems(answer.body).has(TLV.PublicKey)).length, 4);
});

test('a pairing the store cannot write is answered Unknown at M6 with an error line, not HTTP 500; nothing is paired', () => {
  const store = new FaultyStore();
  const { receiver, log } = setup({}, store);
  const sender = new MemorySender(receiver);
  const srp = srpClientStep(sender.pairing('/pair-setup', pairSetupM1()).body, '3939', clientRandom);
  assert.equal(errorIn(sender.pairing('/pair-setup', srp.m3), 4), undefined);
  store.failWrites = true;
  const m6 = sender.pairing('/pair-setup', pairSetupM5(srp.sessionKey, newSenderIdentity('D0000000-0000-4000-8000-000000000004', clientRandom)));
  assert.equal(errorIn(m6, 6), TLV_ERROR.Unknown);
  assert.ok(log.lines.some((line) => line.level === 'error' && /cannot write the "pairings" record: EROFS/.test(line.message)), 'an error line naming the cause');
  assert.equal(store.get(PEERS_KEY), undefined);
  // The connection goes on.
  assert.equal(sender.request('GET', '/info').head.status, 200);
});

test('a wrong PIN the store cannot count is still Authentication; pair-setup is then refused (Busy) until the count is stored', () => {
  const store = new FaultyStore();
  const { receiver, log } = setup({}, store);
  const sender = new MemorySender(receiver);
  const wrong = srpClientStep(sender.pairing('/pair-setup', pairSetupM1()).body, '0000', clientRandom);
  store.failWrites = true;
  assert.equal(errorIn(sender.pairing('/pair-setup', wrong.m3), 4), TLV_ERROR.Authentication);
  assert.ok(log.lines.some((line) => line.level === 'error' && /cannot write the failed-attempt count/.test(line.message)));
  // The count is not in the store: no attempt is allowed (no SRP key made) while it cannot be.
  const refused = sender.pairing('/pair-setup', pairSetupM1());
  assert.equal(errorIn(refused, 2), TLV_ERROR.Busy);
  assert.equal(replyItems(refused.body).has(TLV.PublicKey), false);
  store.failWrites = false;
  assert.equal(errorIn(sender.pairing('/pair-setup', pairSetupM1()), 2), undefined, 'allowed once stored');
  assert.deepEqual(store.get(TRIES_KEY), new Uint8Array([0, 0, 0, 1]));
});

test('a count the store cannot read at start refuses pair-setup (Busy) until it can, then keeps the stored count', () => {
  const store = new FaultyStore();
  store.put(TRIES_KEY, new Uint8Array([0, 0, 0, 7]));
  store.failReads.add(TRIES_KEY);
  const { receiver, log } = setup({}, store);
  const sender = new MemorySender(receiver);
  assert.equal(errorIn(sender.pairing('/pair-setup', pairSetupM1()), 2), TLV_ERROR.Busy);
  assert.ok(log.lines.some((line) => line.level === 'error' && /cannot read the failed-attempt count/.test(line.message)));
  store.failReads.clear();
  assert.equal(errorIn(sender.pairing('/pair-setup', pairSetupM1()), 2), undefined);
  assert.equal(receiver.pairing.setup.failedAttempts, 7);
});

test('pair-verify with a pairings record that cannot be read is Unknown at M4, not HTTP 500', () => {
  const store = new FaultyStore();
  const identity = newSenderIdentity('E0000000-0000-4000-8000-000000000005', clientRandom);
  store.put(PEERS_KEY, encodePeers([{ id: identity.id, publicKey: identity.keys.publicKey, permissions: 1 }]));
  const { receiver, log } = setup({}, store);
  const sender = new MemorySender(receiver);
  const client = new PairVerifyClient(identity, { id: DEVICE_ID, publicKey: receiver.identity.publicKey }, clientRandom);
  const m2 = sender.pairing('/pair-verify', client.m1());
  store.failReads.add(PEERS_KEY);
  assert.equal(errorIn(sender.pairing('/pair-verify', client.m3(m2.body)), 4), TLV_ERROR.Unknown);
  assert.ok(log.lines.some((line) => line.level === 'error' && /cannot read the "pairings" record: EIO/.test(line.message)));
});

