// The Moddable host's clock (hosts/moddable/single-timer-clock.ts): every timer the core sets runs
// on one SDK timer, against a fake of the SDK's repeating Timer that counts the timers it makes
// as the Linux port does (a 16-bit id). Portable: runs under Node and inside XS.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SingleTimerClock, type SdkTimer } from '../../hosts/moddable/single-timer-clock';

interface FakeTimer {
  callback: () => void;
  /** Due time and repeat interval; undefined: unscheduled. */
  dueAt: number | undefined;
  interval: number;
}

function fakeSdk() {
  const state = { ticks: 1000, made: 0, lastId: 1, timers: [] as FakeTimer[], intervals: [] as number[] };
  const sdk: SdkTimer<FakeTimer> = {
    repeat(callback, ms) {
      state.made++;
      state.lastId = ((state.lastId + 1) << 16) >> 16; // the Linux port's `++gTimerID` (txS2)
      const timer = { callback, dueAt: state.ticks + ms, interval: ms };
      state.intervals.push(ms);
      state.timers.push(timer);
      return timer;
    },
    schedule(timer, ms) {
      if (ms === undefined) {
        timer.dueAt = undefined;
        return;
      }
      state.intervals.push(ms);
      timer.dueAt = state.ticks + ms;
      timer.interval = ms;
    },
  };
  /** Moves time to `to`, firing each SDK timer as often as it is due (a repeating timer repeats unless rescheduled). */
  function advance(to: number): void {
    for (;;) {
      const timer = state.timers.find((t) => t.dueAt !== undefined && t.dueAt <= to);
      if (!timer) break;
      state.ticks = Math.max(state.ticks, timer.dueAt!);
      const before = timer.dueAt;
      timer.callback();
      if (timer.dueAt === before) timer.dueAt = before! + timer.interval;
    }
    state.ticks = to;
  }
  const clock = new SingleTimerClock(sdk, () => state.ticks, () => 1_700_000_000_000 + state.ticks);
  return { state, clock, advance };
}

test('timers run at their deadlines, earliest first, equal ones in the order set', () => {
  const { state, clock, advance } = fakeSdk();
  const ran: string[] = [];
  clock.setTimer(30, () => ran.push('c'));
  clock.setTimer(10, () => ran.push('a'));
  clock.setTimer(10, () => ran.push('b'));
  advance(1009);
  assert.deepEqual(ran, []);
  advance(1010);
  assert.deepEqual(ran, ['a', 'b']);
  advance(1040);
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(clock.armed, 0);
  assert.equal(state.made, 1);
  assert.equal(state.timers[0]!.dueAt, undefined, 'nothing armed: the SDK timer is unscheduled, not left repeating');
});

test('a cleared timer never runs; clearing one already run or unknown is nothing', () => {
  const { clock, advance } = fakeSdk();
  const ran: string[] = [];
  const first = clock.setTimer(5, () => ran.push('first'));
  clock.setTimer(8, () => ran.push('second'));
  clock.clearTimer(first);
  advance(1020);
  assert.deepEqual(ran, ['second']);
  clock.clearTimer(first);
  clock.clearTimer({});
  clock.clearTimer(undefined);
  assert.equal(clock.armed, 0);
});

test('a timer set by a callback at 0 ms runs at the next fire, not inside this one', () => {
  const { clock, advance } = fakeSdk();
  let runs = 0;
  const again = () => {
    runs++;
    if (runs < 3) clock.setTimer(0, again);
  };
  clock.setTimer(0, again);
  advance(1000);
  assert.equal(runs, 0, 'never inside setTimer');
  advance(1001);
  assert.equal(runs, 1);
  advance(1002);
  assert.equal(runs, 2);
  advance(1010);
  assert.equal(runs, 3);
});

test('a callback may clear and set others while the SDK timer fires', () => {
  const { clock, advance } = fakeSdk();
  const ran: string[] = [];
  let later: unknown;
  clock.setTimer(10, () => {
    ran.push('a');
    clock.clearTimer(later);
    clock.setTimer(5, () => ran.push('d'));
  });
  later = clock.setTimer(10, () => ran.push('b'));
  clock.setTimer(12, () => ran.push('c'));
  advance(1012);
  assert.deepEqual(ran, ['a', 'c']);
  advance(1015);
  assert.deepEqual(ran, ['a', 'c', 'd']);
});

test('the SDK timer is never scheduled with 0 ms (the Linux port frees a 0/0 timer after it fires)', () => {
  const { state, clock, advance } = fakeSdk();
  for (let i = 0; i < 50; i++) {
    clock.setTimer(0, () => {});
    clock.setTimer(i % 3, () => {});
    advance(state.ticks + (i % 2));
  }
  advance(state.ticks + 10);
  assert.ok(state.intervals.length > 0);
  assert.ok(state.intervals.every((ms) => ms >= 1), `intervals: ${state.intervals.filter((ms) => ms < 1).join(',')}`);
});

test('a callback that throws still leaves the rest armed on the SDK timer', () => {
  const { clock, advance } = fakeSdk();
  const ran: string[] = [];
  clock.setTimer(1, () => {
    throw new Error('boom');
  });
  clock.setTimer(5, () => ran.push('after'));
  assert.throws(() => advance(1001), /boom/);
  advance(1005);
  assert.deepEqual(ran, ['after']);
});

test('70,000 deadlines, as a few realtime audio streams set, make one SDK timer (its 16-bit id never wraps to 0)', () => {
  const { state, clock, advance } = fakeSdk();
  let ran = 0;
  for (let i = 0; i < 70_000; i++) {
    const handle = clock.setTimer(i % 4, () => ran++);
    if (i % 5 === 0) clock.clearTimer(handle);
    if (i % 7 === 0) advance(state.ticks + 1);
  }
  advance(state.ticks + 10);
  assert.equal(ran, 70_000 - 14_000);
  assert.equal(state.made, 1);
  assert.notEqual(state.lastId, 0);
});

test('now and wallTime are the ticks and the wall clock handed in', () => {
  const { state, clock } = fakeSdk();
  state.ticks = 4242;
  assert.equal(clock.now(), 4242);
  assert.equal(clock.wallTime(), 1_700_000_000_000 + 4242);
});
