// State kept per connection (src/connection-state.ts): typed keys, and holds told once when the
// connection closes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionState, StateKey } from '../../src/connection-state';

test('values are kept by key object: two keys of the same name do not collide', () => {
  const state = new ConnectionState();
  const a = new StateKey<number>('steps');
  const b = new StateKey<string>('steps');
  assert.equal(state.get(a), undefined);
  state.set(a, 1);
  state.set(b, 'one');
  assert.equal(state.get(a), 1);
  assert.equal(state.get(b), 'one');
  state.delete(a);
  assert.equal(state.get(a), undefined);
  assert.equal(state.get(b), 'one');
});

test('a new connection is neither encrypted, closed, held nor paired', () => {
  const state = new ConnectionState();
  assert.equal(state.encrypted, false);
  assert.equal(state.closed, false);
  assert.equal(state.held, false);
  assert.equal(state.peerId, undefined);
});

test('closing tells each hold once, and only those not released', () => {
  const state = new ConnectionState();
  const told: string[] = [];
  const releaseA = state.hold(() => told.push('a'));
  state.hold(() => told.push('b'));
  assert.equal(state.held, true);
  releaseA();
  releaseA(); // a second release changes nothing
  state.markClosed();
  assert.deepEqual(told, ['b']);
  assert.equal(state.closed, true);
  assert.equal(state.held, false);
  state.markClosed();
  assert.deepEqual(told, ['b'], 'a second close tells nobody again');
});

test('the same callback held twice is told twice, and released once per hold', () => {
  const state = new ConnectionState();
  let told = 0;
  const onClose = () => told++;
  const first = state.hold(onClose);
  state.hold(onClose);
  first();
  assert.equal(state.held, true, 'the second hold still holds');
  state.markClosed();
  assert.equal(told, 1);
});

test('a hold taken after the close is told at once and does not hold', () => {
  const state = new ConnectionState();
  state.markClosed();
  let told = 0;
  const release = state.hold(() => told++);
  assert.equal(told, 1);
  assert.equal(state.held, false);
  release();
  assert.equal(told, 1);
});

test('a hold released when the last one is the connection is no longer held', () => {
  const state = new ConnectionState();
  const release = state.hold(() => assert.fail('released holds are not told'));
  release();
  assert.equal(state.held, false);
  state.markClosed();
});

test("a session's end tells what holds the connection why, once, and the connection stays open", () => {
  const state = new ConnectionState();
  const told: string[] = [];
  state.hold((ending) => told.push(ending));
  state.endHolds('ended its session (TEARDOWN)');
  assert.deepEqual(told, ['ended its session (TEARDOWN)']);
  assert.equal(state.closed, false);
  assert.equal(state.held, false, 'nothing holds it any more');
  state.markClosed();
  assert.deepEqual(told, ['ended its session (TEARDOWN)'], 'not told again on close');
  state.hold((ending) => told.push(ending));
  assert.deepEqual(told.at(-1), 'closed', 'a hold on a closed connection ends at once, as closed');
});
