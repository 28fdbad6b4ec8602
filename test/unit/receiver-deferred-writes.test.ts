// Records that change with every request (the gid) are written off the request path
// (src/receiver/deferred-writes.ts): held until the storeWrite deadline, the newest value of
// each, unflushed where the Store can tell, written at once by flush (the receiver's stop), a
// failed write logged. Portable: runs on Node and inside XS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Decode, utf8Encode } from '../../src/bytes';
import { makeConfig } from '../../src/receiver/config';
import { DeferredWrites, STORE_WRITE_DELAY_MS } from '../../src/receiver/deferred-writes';
import { Receiver } from '../../src/receiver/receiver';
import { TimerTable } from '../../src/receiver/timers';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

/** A MemoryStore that counts its writes, flushed (put) and not (putUnflushed). */
class CountingStore extends MemoryStore {
  flushed = 0;
  unflushed = 0;
  failing = false;
  override put(key: string, value: Uint8Array): void {
    if (this.failing) throw new Error('disk full');
    this.flushed++;
    super.put(key, value);
  }
  putUnflushed(key: string, value: Uint8Array): void {
    if (this.failing) throw new Error('disk full');
    this.unflushed++;
    super.put(key, value);
  }
}

function deferred(store = new CountingStore()) {
  const timers = new TimerTable(['storeWrite'] as const);
  let now = 1000;
  const log = recordingLogger();
  const writes = new DeferredWrites(store, timers, () => now, log);
  return { store, timers, writes, log, at: (ms: number) => (now = ms) };
}

test('a record written many times before its deadline is one unflushed write of the newest value, at now + STORE_WRITE_DELAY_MS', () => {
  const { store, timers, writes, at } = deferred();
  for (let i = 0; i < 300; i++) {
    at(1000 + i);
    writes.write('gid', utf8Encode(`idle ${i}`));
  }
  assert.equal(store.unflushed + store.flushed, 0, 'nothing written on the request path');
  assert.equal(writes.pendingCount, 1);
  assert.equal(timers.deadline('storeWrite'), 1000 + STORE_WRITE_DELAY_MS, 'armed by the first change, not pushed later by the rest');
  timers.handleTimeout(1000 + STORE_WRITE_DELAY_MS);
  assert.deepEqual({ flushed: store.flushed, unflushed: store.unflushed }, { flushed: 0, unflushed: 1 });
  assert.equal(utf8Decode(store.get('gid')!), 'idle 299');
  assert.equal(writes.pendingCount, 0);
  assert.equal(timers.deadline('storeWrite'), undefined, 'nothing armed with nothing waiting');
});

test('flush writes what waits at once and disarms the deadline; a Store without putUnflushed gets put', () => {
  const store = new MemoryStore();
  const { timers, writes } = deferred(store as CountingStore);
  writes.write('gid', utf8Encode('a'));
  writes.write('other', utf8Encode('b'));
  writes.flush();
  assert.equal(utf8Decode(store.get('gid')!), 'a');
  assert.equal(utf8Decode(store.get('other')!), 'b');
  assert.equal(timers.deadline('storeWrite'), undefined);
});

test('a write that fails is one warning naming the record; the next change is written again', () => {
  const { store, writes, log } = deferred();
  store.failing = true;
  writes.write('gid', utf8Encode('a'));
  writes.flush();
  assert.deepEqual(log.lines.map((line) => `${line.level} ${line.message}`), ['warn record "gid" not kept (the next start does without it): disk full']);
  store.failing = false;
  writes.write('gid', utf8Encode('b'));
  writes.flush();
  assert.equal(utf8Decode(store.get('gid')!), 'b');
});

test('the receiver: 300 activity changes write no record until the storeWrite deadline, then one; stop writes what waits', () => {
  const store = new CountingStore();
  const receiver = new Receiver(makeConfig({ name: 'Living Room', deviceId: '58:55:ca:1a:e2:88', profile: 'speaker' }), { crypto: portableCryptoKernels, clock: new ManualClock(), random: seededRandom(3), store, log: recordingLogger() });
  const atStart = { flushed: store.flushed, unflushed: store.unflushed };
  assert.equal(atStart.unflushed, 1, 'the first gid, at start');
  for (let i = 0; i < 150; i++) {
    receiver.setActivity('receivingVideo');
    receiver.setActivity('idle');
  }
  assert.deepEqual({ flushed: store.flushed, unflushed: store.unflushed }, atStart, 'no write per photo or stop');
  receiver.handleTimeout(receiver.timers.deadline('storeWrite')!);
  assert.deepEqual({ flushed: store.flushed, unflushed: store.unflushed }, { ...atStart, unflushed: 2 });
  receiver.setActivity('receivingVideo');
  receiver.stop();
  assert.deepEqual({ flushed: store.flushed, unflushed: store.unflushed }, { ...atStart, unflushed: 3 });
  assert.match(utf8Decode(store.get('gid')!), /^receivingVideo /);
});
