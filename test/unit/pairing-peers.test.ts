// The pairings record (src/pairing/peers.ts): its byte layout, its bounds (ESP32 NVS: keys of
// at most 15 characters, values of at most 4000 bytes), atomic whole-record writes, and an
// unreadable record kept aside rather than trusted.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PEER_ID_BYTES, PEERS_KEY, BAD_PEERS_KEY, PeerStore, decodePeers, encodePeers, type Peer } from '../../src/pairing/peers';
import { DEFAULT_LIMITS } from '../../src/receiver/limits';
import { MemoryStore, recordingLogger } from '../support/memory-ports';

const key = (fill: number) => new Uint8Array(32).fill(fill);

/** The default table size (limits.maxPairings). */
const MAX_PEERS = DEFAULT_LIMITS.maxPairings;

test('encodes version, count and each peer as length, identifier, key, permissions', () => {
  const bytes = encodePeers([{ id: 'AB', publicKey: key(7), permissions: 1 }]);
  assert.deepEqual([...bytes.subarray(0, 5)], [1, 1, 2, 0x41, 0x42]);
  assert.deepEqual(bytes.subarray(5, 37), key(7));
  assert.equal(bytes[37], 1);
  assert.equal(bytes.length, 38);
  assert.deepEqual(decodePeers(bytes), [{ id: 'AB', publicKey: key(7), permissions: 1 }]);
});

test('a full record of the longest identifiers fits an NVS blob, under a key NVS takes', () => {
  const peers: Peer[] = [];
  for (let i = 0; i < MAX_PEERS; i++) peers.push({ id: String(i).padStart(MAX_PEER_ID_BYTES, 'x'), publicKey: key(i), permissions: 0 });
  const bytes = encodePeers(peers);
  assert.ok(bytes.length <= 4000, `${bytes.length} bytes`);
  assert.ok(PEERS_KEY.length <= 15 && BAD_PEERS_KEY.length <= 15);
  assert.deepEqual(decodePeers(bytes), peers);
});

test('saves, replaces and removes peers with one whole-record write each; refuses past MAX_PEERS', () => {
  const store = new MemoryStore();
  const peers = new PeerStore(store, recordingLogger());
  assert.equal(peers.save({ id: 'a', publicKey: key(1), permissions: 1 }), 'added');
  assert.equal(peers.save({ id: 'a', publicKey: key(2), permissions: 1 }), 'replaced');
  assert.deepEqual(decodePeers(store.get(PEERS_KEY)!).map((peer) => peer.publicKey[0]), [2]);
  for (let i = 1; i < MAX_PEERS; i++) assert.equal(peers.save({ id: `p${i}`, publicKey: key(i), permissions: 0 }), 'added');
  assert.equal(peers.save({ id: 'one-too-many', publicKey: key(9), permissions: 0 }), 'full');
  assert.equal(new PeerStore(store, recordingLogger()).size, MAX_PEERS);
  assert.equal(peers.remove('a'), true);
  assert.equal(peers.remove('a'), false);
  assert.equal(new PeerStore(store, recordingLogger()).get('a'), undefined);
});

test('an unreadable record is logged, kept as pairings.bad, and the receiver starts with none', () => {
  const store = new MemoryStore();
  store.put(PEERS_KEY, new Uint8Array([1, 3, 40]));
  const log = recordingLogger();
  const peers = new PeerStore(store, log);
  assert.equal(peers.size, 0);
  assert.deepEqual(store.get(BAD_PEERS_KEY), new Uint8Array([1, 3, 40]));
  assert.equal(store.get(PEERS_KEY), undefined);
  assert.ok(log.lines.some((line) => line.level === 'error' && /pairings are unreadable/.test(line.message)));
  for (const bad of [[2, 0], [1, 1, 0], [1, 0, 9], [1, 17]]) assert.throws(() => decodePeers(new Uint8Array(bad)));
});

test('a replaced peer keeps its place and a removed one leaves the others byte for byte', () => {
  const store = new MemoryStore();
  const peers = new PeerStore(store, recordingLogger());
  const a = { id: 'a', publicKey: key(1), permissions: 1 };
  const b = { id: 'bb', publicKey: key(2), permissions: 0 };
  const c = { id: 'ccc', publicKey: key(3), permissions: 0 };
  for (const peer of [a, b, c]) peers.save(peer);
  const b2 = { ...b, publicKey: key(9), permissions: 1 };
  assert.equal(peers.save(b2), 'replaced');
  assert.deepEqual(store.get(PEERS_KEY), encodePeers([a, b2, c]));
  assert.equal(peers.remove('bb'), true);
  assert.deepEqual(store.get(PEERS_KEY), encodePeers([a, c]));
  assert.equal(peers.remove('a'), true);
  assert.equal(peers.remove('ccc'), true);
  assert.equal(store.get(PEERS_KEY), undefined, 'no peers: no record');
});

test('a sender is looked up without decoding the other peers: their identifiers are compared as bytes', () => {
  const store = new MemoryStore();
  const log = recordingLogger();
  // A peer whose identifier is not UTF-8 (a record written by something else): decoding it would
  // fail, and a lookup of another sender reads past it.
  const record = encodePeers([{ id: 'xx', publicKey: key(1), permissions: 0 }, { id: 'b', publicKey: key(2), permissions: 1 }]);
  record[3] = 0xff;
  record[4] = 0xfe;
  store.put(PEERS_KEY, record);
  const peers = new PeerStore(store, log);
  assert.deepEqual(peers.get('b'), { id: 'b', publicKey: key(2), permissions: 1 });
  assert.equal(peers.get('xx'), undefined);
  assert.equal(peers.size, 2);
  assert.deepEqual(store.get(PEERS_KEY), record, 'the record is untouched');
  assert.deepEqual(log.lines, []);
});
