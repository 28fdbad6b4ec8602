// Pairing management (HAP Add/Remove/List Pairings, TLV8 methods 3/4/5) through a
// Receiver on in-memory ports: POST /pairings and /pair-add, /pair-remove, /pair-list, byte-exact
// replies, admin only, encrypted connections only, the table size a limit. The admin is paired by
// writing its record and proving it with pair-verify (X25519 and Ed25519: cheap on XS too).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Encode } from '../../src/bytes';
import { decodePeers, encodePeers, PEERS_KEY, type Peer } from '../../src/pairing/peers';
import { encodeTlv8 } from '../../src/pairing/tlv8';
import { TLV } from '../../src/pairing/tlv-types';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { newSenderIdentity, PairVerifyClient, state, type SenderIdentity } from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const DEVICE_ID = '58:55:CA:1A:E2:88';
const random = seededRandom(91);
const ADMIN = newSenderIdentity('A0000000-0000-4000-8000-000000000001', random);
const USER = newSenderIdentity('B0000000-0000-4000-8000-000000000002', random);
const NEWCOMER = newSenderIdentity('C0000000-0000-4000-8000-000000000003', random);

function peerOf(identity: SenderIdentity, permissions: number): Peer {
  return { id: identity.id, publicKey: identity.keys.publicKey, permissions };
}

/** A receiver whose store holds `peers` already (as pair-setup M5 would have written them). */
function setup(peers: Peer[], limits: Partial<ReceiverLimits> = {}) {
  const store = new MemoryStore();
  if (peers.length > 0) store.put(PEERS_KEY, encodePeers(peers));
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: DEVICE_ID, limits }), { crypto: portableCryptoKernels, clock: new ManualClock(), random, store, log });
  return { receiver, store, log };
}

/** A connection of `identity` after pair-verify, encrypted. */
function verified(receiver: Receiver, identity: SenderIdentity, port = 50010): MemorySender {
  const sender = new MemorySender(receiver, port);
  const client = new PairVerifyClient(identity, { id: DEVICE_ID, publicKey: receiver.identity.publicKey }, random);
  const m2 = sender.pairing('/pair-verify', client.m1());
  const m4 = sender.pairing('/pair-verify', client.m3(m2.body));
  assert.deepEqual([...m4.body], [6, 1, 4], 'pair-verify M4 without an error');
  sender.encrypt(client.channel());
  return sender;
}

const method = (n: number): [number, Uint8Array] => [TLV.Method, new Uint8Array([n])];
const list = () => encodeTlv8([state(1), method(5)]);
const add = (identity: SenderIdentity, permissions: number, key = identity.keys.publicKey) =>
  encodeTlv8([state(1), method(3), [TLV.Identifier, utf8Encode(identity.id)], [TLV.PublicKey, key], [TLV.Permissions, new Uint8Array([permissions])]]);
const remove = (identity: SenderIdentity) => encodeTlv8([state(1), method(4), [TLV.Identifier, utf8Encode(identity.id)]]);

/** The bytes of one pairing in a List Pairings reply. */
function listed(identity: SenderIdentity, permissions: number): number[] {
  const id = [...utf8Encode(identity.id)];
  return [1, id.length, ...id, 3, 32, ...identity.keys.publicKey, 11, 1, permissions];
}

const OK = [6, 1, 2];
const error = (code: number) => [6, 1, 2, 7, 1, code];

test('an admin lists, adds and removes pairings on POST /pairings; the replies are byte-exact TLV8', () => {
  const { receiver, store, log } = setup([peerOf(ADMIN, 1), peerOf(USER, 0)]);
  const admin = verified(receiver, ADMIN);

  const listing = admin.pairing('/pairings', list());
  assert.equal(listing.head.status, 200);
  assert.equal(listing.head.headers.get('Content-Type'), 'application/pairing+tlv8');
  assert.deepEqual([...listing.body], [...OK, ...listed(ADMIN, 1), 255, 0, ...listed(USER, 0)]);

  assert.deepEqual([...admin.pairing('/pairings', add(NEWCOMER, 0)).body], OK);
  assert.deepEqual(decodePeers(store.get(PEERS_KEY)!).map((peer) => [peer.id, peer.permissions]), [[ADMIN.id, 1], [USER.id, 0], [NEWCOMER.id, 0]]);
  // The same identifier and key again changes its permissions; another key is Unknown (1).
  assert.deepEqual([...admin.pairing('/pairings', add(NEWCOMER, 1)).body], OK);
  assert.equal(decodePeers(store.get(PEERS_KEY)!)[2].permissions, 1);
  assert.deepEqual([...admin.pairing('/pairings', add(NEWCOMER, 1, USER.keys.publicKey)).body], error(1));

  assert.deepEqual([...admin.pairing('/pairings', remove(USER)).body], OK);
  assert.deepEqual([...admin.pairing('/pairings', list()).body], [...OK, ...listed(ADMIN, 1), 255, 0, ...listed(NEWCOMER, 1)]);
  // Removing one that is not paired is done already: success.
  assert.deepEqual([...admin.pairing('/pairings', remove(USER)).body], OK);
  assert.ok(log.lines.some((line) => line.level === 'info' && line.message.includes(`${ADMIN.id} removed ${USER.id}`)));
});

test('/pair-add, /pair-remove and /pair-list are the same handler; over RTSP too', () => {
  const { receiver, store } = setup([peerOf(ADMIN, 1)]);
  const admin = verified(receiver, ADMIN);
  assert.deepEqual([...admin.pairing('/pair-add', add(USER, 0), 'RTSP').body], OK);
  assert.deepEqual([...admin.pairing('/pair-list', list(), 'RTSP').body], [...OK, ...listed(ADMIN, 1), 255, 0, ...listed(USER, 0)]);
  assert.deepEqual([...admin.pairing('/pair-remove', remove(USER)).body], OK);
  assert.equal(decodePeers(store.get(PEERS_KEY)!).length, 1);
  // The path does not pick the method: the body's Method does.
  assert.deepEqual([...admin.pairing('/pair-add', list()).body], [...OK, ...listed(ADMIN, 1)]);
});

test('a user (permissions 0) is answered Authentication; a connection not encrypted is 470; nothing changes', () => {
  const { receiver, store } = setup([peerOf(ADMIN, 1), peerOf(USER, 0)]);
  const before = store.get(PEERS_KEY)!;
  const user = verified(receiver, USER);
  for (const body of [list(), add(NEWCOMER, 1), remove(ADMIN)]) assert.deepEqual([...user.pairing('/pairings', body).body], error(2));
  const plain = new MemorySender(receiver, 50020);
  for (const path of ['/pairings', '/pair-add', '/pair-remove', '/pair-list']) {
    const refused = plain.pairing(path, add(NEWCOMER, 1));
    assert.equal(refused.head.status, 470, path);
  }
  assert.deepEqual(store.get(PEERS_KEY), before);
});

test('bad requests: not TLV8 is 400, an unknown Method, a missing key or permissions, State 3 are Unknown', () => {
  const { receiver } = setup([peerOf(ADMIN, 1)]);
  const admin = verified(receiver, ADMIN);
  assert.equal(admin.pairing('/pairings', new Uint8Array([6, 5, 1])).head.status, 400);
  assert.deepEqual([...admin.pairing('/pairings', encodeTlv8([state(1), method(9)])).body], error(1));
  assert.deepEqual([...admin.pairing('/pairings', encodeTlv8([state(1), method(3), [TLV.Identifier, utf8Encode('x')]])).body], error(1));
  assert.deepEqual([...admin.pairing('/pairings', add(USER, 7)).body], error(1));
  assert.deepEqual([...admin.pairing('/pairings', encodeTlv8([state(3), method(5)])).body], error(1));
  // Still served after all that.
  assert.deepEqual([...admin.pairing('/pairings', list()).body], [...OK, ...listed(ADMIN, 1)]);
});

test('the table size is limits.maxPairings: MaxPeers (4) past it, and removing one makes room', () => {
  const { receiver } = setup([peerOf(ADMIN, 1), peerOf(USER, 0)], { maxPairings: 2 });
  const admin = verified(receiver, ADMIN);
  assert.deepEqual([...admin.pairing('/pairings', add(NEWCOMER, 0)).body], error(4));
  assert.deepEqual([...admin.pairing('/pairings', remove(USER)).body], OK);
  assert.deepEqual([...admin.pairing('/pairings', add(NEWCOMER, 0)).body], OK);
});

test('an admin removing itself closes its connection; with the last admin gone every pairing goes (HAP)', () => {
  const { receiver, store } = setup([peerOf(ADMIN, 1), peerOf(USER, 0)]);
  const admin = verified(receiver, ADMIN);
  assert.deepEqual([...admin.pairing('/pairings', remove(ADMIN)).body], OK);
  assert.equal(admin.connection.closed, true);
  assert.equal(store.get(PEERS_KEY), undefined);
});

test('a failing store is Unknown (1) with an error line naming the cause, never a 500', () => {
  const { receiver, store, log } = setup([peerOf(ADMIN, 1)]);
  const admin = verified(receiver, ADMIN);
  const put = store.put.bind(store);
  store.put = () => {
    throw new Error('ENOSPC: no space left on device');
  };
  const reply = admin.pairing('/pairings', add(USER, 0));
  assert.equal(reply.head.status, 200);
  assert.deepEqual([...reply.body], error(1));
  assert.ok(log.lines.some((line) => line.level === 'error' && /cannot write the "pairings" record: ENOSPC/.test(line.message)));
  store.put = put;
  assert.deepEqual([...admin.pairing('/pairings', add(USER, 0)).body], OK);
});
