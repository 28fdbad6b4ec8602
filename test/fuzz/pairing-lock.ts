// Fuzz campaign of the pair-setup lock and its queue (src/pairing/setup-lock.ts): many connections
// from a few addresses ask for the lock (M1), go quiet, close, come back, make progress and end,
// with time jumping between. After every step the answers must keep the rules: one holder at a
// time; the holder's repeated M1 is a retry; a free lock goes to the first live waiter and to
// nobody else while one waits; with nobody waiting, to whoever asks; a refused connection is
// queued unless its address waits already or the queue is full; no connection twice, no
// address twice, at most MAX_WAITERS. Portable: ECMAScript only.

import { MAX_WAITERS, PairSetupLock } from '../../src/pairing/setup-lock';
import type { Rng } from '../support/arbitrary';
import { FuzzFailure, type Campaign } from './engine';

const TIMEOUT_MS = 30_000;
const SESSIONS = 24;
const ADDRESSES = 6;

type Op =
  | { readonly kind: 'ask'; readonly session: number }
  | { readonly kind: 'wait'; readonly ms: number }
  | { readonly kind: 'close'; readonly session: number }
  | { readonly kind: 'progress' }
  | { readonly kind: 'end' };

interface Session {
  closed: boolean;
  readonly id: number;
  readonly address: string;
}

function op(rng: Rng): Op {
  const roll = rng.next();
  if (roll < 0.55) return { kind: 'ask', session: rng.int(0, SESSIONS - 1) };
  if (roll < 0.75) return { kind: 'wait', ms: rng.pick([0, 1, 100, 5_000, TIMEOUT_MS - 1, TIMEOUT_MS, TIMEOUT_MS + 1, rng.int(0, 3 * TIMEOUT_MS)]) };
  if (roll < 0.85) return { kind: 'close', session: rng.int(0, SESSIONS - 1) };
  if (roll < 0.93) return { kind: 'progress' };
  return { kind: 'end' };
}

function fail(message: string, step: number): never {
  throw new FuzzFailure(`step ${step}: ${message}`);
}

export const pairingLock: Campaign<Op[]> = {
  name: 'pairing-lock',
  expected: () => false,
  generate: (rng) => Array.from({ length: rng.int(1, 120) }, () => op(rng)),
  check(ops) {
    let now = 0;
    const clock = { now: () => now };
    const abandoned: Session[] = [];
    const lock = new PairSetupLock<Session>(TIMEOUT_MS, clock, (session) => abandoned.push(session));
    // A closed connection that asks again is a new one from the same address.
    const sessions: Session[] = Array.from({ length: SESSIONS }, (_, id) => ({ closed: false, id, address: `10.0.0.${id % ADDRESSES}` }));
    /** The model's holder and deadline, from the answers. */
    let holder: Session | undefined;
    let deadline = 0;
    ops.forEach((step, index) => {
      if (step.kind === 'wait') {
        now += step.ms;
        return;
      }
      if (step.kind === 'close') {
        sessions[step.session].closed = true;
        return;
      }
      if (step.kind === 'progress') {
        if (holder && lock.holds(holder)) {
          lock.progressed(holder);
          deadline = now + TIMEOUT_MS;
        }
        return;
      }
      if (step.kind === 'end') {
        if (holder && lock.release(holder) !== true) fail('the holder could not release the lock', index);
        holder = undefined;
        return;
      }
      let session = sessions[step.session];
      if (session.closed) session = sessions[step.session] = { closed: false, id: session.id, address: session.address };
      const active = holder !== undefined && !holder.closed && now <= deadline;
      const waiting = lock.queue;
      const abandonedBefore = abandoned.length;
      const answer = lock.request(session, session.address);
      if (holder && !active && abandoned.length !== abandonedBefore + 1) fail('an attempt that ran out or closed was not told abandoned', index);
      if (active) {
        const expected = holder === session ? 'retry' : 'busy';
        if (answer.kind !== expected) fail(`with ${holder!.id} holding, ${session.id} got ${answer.kind}, not ${expected}`, index);
      } else if (waiting.length === 0 || waiting[0] === session) {
        if (answer.kind !== 'granted') fail(`a free lock with ${waiting.length === 0 ? 'nobody waiting' : 'this connection first'} was not granted to ${session.id}: ${answer.kind}`, index);
      } else if (answer.kind !== 'busy') {
        fail(`${session.id} took the free lock while ${waiting[0].id} waited first`, index);
      }
      if (answer.kind === 'granted') {
        holder = session;
        deadline = now + TIMEOUT_MS;
      } else if (!active) {
        holder = undefined;
      }
      const queue = lock.queue;
      if (queue.length > MAX_WAITERS) fail(`${queue.length} waiters`, index);
      if (new Set(queue).size !== queue.length) fail('a connection waits twice', index);
      if (new Set(queue.map((waiter) => waiter.address)).size !== queue.length) fail('an address waits twice', index);
      if (holder && queue.includes(holder)) fail('the holder is still queued', index);
      if (answer.kind === 'busy') {
        const queuedAlready = waiting.some((waiter) => waiter.address === session.address && waiter !== session);
        const full = waiting.length >= MAX_WAITERS && !waiting.includes(session);
        if (!queuedAlready && !full && !queue.includes(session)) fail(`${session.id}, refused, was not queued`, index);
        if (!waiting.includes(session) && queue.includes(session) && queue[queue.length - 1] !== session) fail(`${session.id} was queued ahead of earlier waiters`, index);
        if (waiting.includes(session) && queue.indexOf(session) > waiting.indexOf(session)) fail(`${session.id} lost its place by asking again`, index);
      }
    });
  },
};
