// The receiver's lasting identity (src/receiver/identity.ts): made once, kept in the store, read
// back without deriving its public key, and never lost silently when its record is damaged.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex, utf8Decode, utf8Encode } from '../../src/bytes';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { BAD_IDENTITY_KEY, DEVICE_ID_KEY, IDENTITY_KEY, loadOrCreateDeviceId, loadOrCreateIdentity, SECRET_KEY_RECORDS } from '../../src/receiver/identity';
import { isUuid } from '../../src/uuid';
import { MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';

function record(store: MemoryStore): Record<string, unknown> {
  return JSON.parse(utf8Decode(store.get(IDENTITY_KEY)!)) as Record<string, unknown>;
}

test('the first start makes an identity, stores it and says so', () => {
  const store = new MemoryStore();
  const log = recordingLogger();
  const identity = loadOrCreateIdentity(store, seededRandom(1), log, portableCryptoKernels);
  assert.equal(identity.secretKey.length, 32);
  assert.deepEqual(identity.publicKey, portableCryptoKernels.ed25519PublicKey(identity.secretKey));
  assert.ok(isUuid(identity.pairingId) && isUuid(identity.systemPairingId));
  assert.notEqual(identity.pairingId, identity.systemPairingId);
  const stored = record(store);
  assert.equal(stored.version, 1);
  assert.equal(stored.secretKey, toHex(identity.secretKey));
  assert.equal(stored.publicKey, toHex(identity.publicKey));
  assert.equal(typeof stored.keyCheck, 'string');
  assert.deepEqual(log.lines, [{ level: 'info', message: `created a new receiver identity (pi ${identity.pairingId})` }]);
});

test('a later start reads the same identity back, quietly, with no new randomness', () => {
  const store = new MemoryStore();
  const first = loadOrCreateIdentity(store, seededRandom(1), recordingLogger(), portableCryptoKernels);
  const log = recordingLogger();
  const again = loadOrCreateIdentity(store, () => assert.fail('no random bytes needed'), log, portableCryptoKernels);
  assert.deepEqual(again, first);
  assert.deepEqual(log.lines, []);
});

test('an older record without its public key gets it derived and written back', () => {
  const store = new MemoryStore();
  const first = loadOrCreateIdentity(store, seededRandom(2), recordingLogger(), portableCryptoKernels);
  const older = record(store);
  delete older.publicKey;
  delete older.keyCheck;
  store.put(IDENTITY_KEY, utf8Encode(JSON.stringify(older)));
  const log = recordingLogger();
  assert.deepEqual(loadOrCreateIdentity(store, seededRandom(9), log, portableCryptoKernels).publicKey, first.publicKey);
  assert.deepEqual(log.lines, []);
  assert.equal(record(store).publicKey, toHex(first.publicKey));
});

test('a public key that fails its check is derived again from the secret, with a warning', () => {
  const store = new MemoryStore();
  const first = loadOrCreateIdentity(store, seededRandom(3), recordingLogger(), portableCryptoKernels);
  for (const damaged of ['00'.repeat(32), 'not hex', '00']) {
    store.put(IDENTITY_KEY, utf8Encode(JSON.stringify({ ...record(store), publicKey: damaged })));
    const log = recordingLogger();
    const identity = loadOrCreateIdentity(store, seededRandom(9), log, portableCryptoKernels);
    assert.deepEqual(identity.publicKey, first.publicKey, damaged);
    assert.equal(identity.pairingId, first.pairingId);
    assert.match(log.lines[0]?.message ?? '', /does not match its check; derived again/);
    assert.equal(record(store).publicKey, toHex(first.publicKey));
  }
});

test('an unreadable record is kept aside for a person, and a new identity made', () => {
  const cases: [string, RegExp][] = [
    ['{ not json', /unreadable/],
    [JSON.stringify({ version: 2, secretKey: '00'.repeat(32), pairingId: 'a', systemPairingId: 'b' }), /version 2 is not 1/],
    [JSON.stringify({ version: 1, secretKey: '00'.repeat(31), pairingId: 'a', systemPairingId: 'b' }), /31 bytes, not 32/],
    [JSON.stringify({ version: 1, secretKey: '00'.repeat(32) }), /lacks its pairing identifiers/],
  ];
  for (const [text, reason] of cases) {
    const store = new MemoryStore();
    store.put(IDENTITY_KEY, utf8Encode(text));
    const log = recordingLogger();
    const identity = loadOrCreateIdentity(store, seededRandom(4), log, portableCryptoKernels);
    assert.equal(utf8Decode(store.get(BAD_IDENTITY_KEY)!), text);
    assert.equal(log.lines[0].level, 'error');
    assert.match(log.lines[0].message, reason);
    assert.match(log.lines[0].message, /kept as "identity.bad", making a new one/);
    assert.equal(record(store).secretKey, toHex(identity.secretKey));
  }
});

test('the key and its check are made on the kernels the host passes, not on a build of the core\'s choosing', () => {
  const calls: string[] = [];
  const kernels = {
    ...portableCryptoKernels,
    name: 'counting',
    ed25519PublicKey(seed: Uint8Array) {
      calls.push('ed25519PublicKey');
      return portableCryptoKernels.ed25519PublicKey(seed);
    },
    sha512(parts: readonly Uint8Array[]) {
      calls.push('sha512');
      return portableCryptoKernels.sha512(parts);
    },
  };
  const store = new MemoryStore();
  const identity = loadOrCreateIdentity(store, seededRandom(5), recordingLogger(), kernels);
  assert.deepEqual(calls, ['ed25519PublicKey', 'sha512']);
  assert.deepEqual(identity.publicKey, portableCryptoKernels.ed25519PublicKey(identity.secretKey));
  // A later start checks the kept key on them too, and derives nothing.
  calls.length = 0;
  assert.deepEqual(loadOrCreateIdentity(store, seededRandom(6), recordingLogger(), kernels), identity);
  assert.deepEqual(calls, ['sha512']);
});

test('the records holding the secret key are named for hosts to protect', () => {
  assert.deepEqual(SECRET_KEY_RECORDS, [IDENTITY_KEY, BAD_IDENTITY_KEY]);
});

test('the device id is the hardware MAC when there is one, and nothing is stored', () => {
  const store = new MemoryStore();
  assert.equal(loadOrCreateDeviceId(store, () => assert.fail('no randomness'), 'AA:BB:CC:DD:EE:FF'), 'AA:BB:CC:DD:EE:FF');
  assert.equal(store.get(DEVICE_ID_KEY), undefined);
});

test('without one, a locally administered unicast MAC is made once and kept', () => {
  const store = new MemoryStore();
  const made = loadOrCreateDeviceId(store, () => new Uint8Array(6).fill(0xff));
  assert.equal(made, 'FE:FF:FF:FF:FF:FF', 'bit 1 set, bit 0 clear in the first byte');
  assert.equal(loadOrCreateDeviceId(store, () => assert.fail('kept, not made again')), made);
  assert.equal(loadOrCreateDeviceId(new MemoryStore(), () => new Uint8Array(6)), '02:00:00:00:00:00');
});

test('a stored device id of the wrong size is replaced', () => {
  const store = new MemoryStore();
  store.put(DEVICE_ID_KEY, new Uint8Array(5));
  assert.equal(loadOrCreateDeviceId(store, () => Uint8Array.of(0x10, 1, 2, 3, 4, 5)), '12:01:02:03:04:05');
  assert.equal(store.get(DEVICE_ID_KEY)!.length, 6);
});
