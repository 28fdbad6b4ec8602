// `--on-event` hooks (hosts/node/event-hooks.ts): the event in the environment, the hook spawned
// after the receiver's turn and never waited for, at most a few at once (more dropped, counted in
// one line), a hook that runs too long killed with what it started, its output in the log.
// Completion is awaited through the log lines the hooks cause, never by sleeping.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EventHooks, hookEnvironment } from '../../hosts/node/event-hooks';
import type { LogLevel, Logger } from '../../src/platform';
import type { ReceiverEvent } from '../../src/receiver/host-events';

/** A logger that records lines and resolves waiters when a line matching their pattern arrives. */
function waitingLogger() {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; count: number; resolve: () => void }[] = [];
  const log: Logger = (level: LogLevel, message: string) => {
    lines.push(`${level} ${message}`);
    for (const waiter of [...waiters]) {
      if (lines.filter((line) => waiter.pattern.test(line)).length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const until = (pattern: RegExp, count = 1) =>
    new Promise<void>((resolve) => {
      if (lines.filter((line) => pattern.test(line)).length >= count) resolve();
      else waiters.push({ pattern, count, resolve });
    });
  return { log, lines, until };
}

const PHOTO: ReceiverEvent = { name: 'photo-shown', sender: '192.0.2.20', deviceId: '58:55:CA:1A:E2:88', details: { session: 's-1', key: 'key-1', bytes: '600' } };

test('the environment: the event, the receiver, the sender and each detail as VENDORPLAY_<DETAIL>', () => {
  assert.deepEqual(hookEnvironment(PHOTO, 'Living Room'), {
    VENDORPLAY_EVENT: 'photo-shown',
    VENDORPLAY_NAME: 'Living Room',
    VENDORPLAY_SENDER: '192.0.2.20',
    VENDORPLAY_DEVICE_ID: '58:55:CA:1A:E2:88',
    VENDORPLAY_SESSION: 's-1',
    VENDORPLAY_KEY: 'key-1',
    VENDORPLAY_BYTES: '600',
  });
  assert.deepEqual(hookEnvironment({ name: 'session-started', details: { 'sender-name': 'iPad' } }, 'R'), { VENDORPLAY_EVENT: 'session-started', VENDORPLAY_NAME: 'R', VENDORPLAY_SENDER_NAME: 'iPad' });
});

test('each hook runs through /bin/sh with its event, numbered; its output goes to the log at debug', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hooks-'));
  const { log, lines, until } = waitingLogger();
  const hooks = new EventHooks({ command: `env | grep ^VENDORPLAY_ | sort > "${dir}/$VENDORPLAY_SEQUENCE"; echo "saw $VENDORPLAY_EVENT"`, receiverName: 'Living Room', log });
  hooks.run(PHOTO);
  hooks.run({ name: 'paired', sender: '192.0.2.21', details: { identifier: 'sender-7' } });
  assert.equal(hooks.runningCount, 0, 'nothing spawned inside the receiver\'s turn');
  await until(/--on-event \S+: done$/, 2);
  assert.deepEqual(readdirSync(dir).sort(), ['1', '2']);
  assert.equal(readFileSync(path.join(dir, '1'), 'utf8'), ['VENDORPLAY_BYTES=600', 'VENDORPLAY_DEVICE_ID=58:55:CA:1A:E2:88', 'VENDORPLAY_EVENT=photo-shown', 'VENDORPLAY_KEY=key-1', 'VENDORPLAY_NAME=Living Room', 'VENDORPLAY_SENDER=192.0.2.20', 'VENDORPLAY_SEQUENCE=1', 'VENDORPLAY_SESSION=s-1', ''].join('\n'));
  assert.match(readFileSync(path.join(dir, '2'), 'utf8'), /VENDORPLAY_EVENT=paired\nVENDORPLAY_IDENTIFIER=sender-7\n/);
  assert.ok(lines.includes('debug --on-event photo-shown stdout: saw photo-shown'));
  assert.ok(lines.includes('debug --on-event paired stdout: saw paired'));
});

test('at most maxRunning at once: the rest are dropped and counted in one line; a hook past its time is killed with what it started', async () => {
  const { log, lines, until } = waitingLogger();
  const hooks = new EventHooks({ command: 'sleep 600 & wait', receiverName: 'R', log, maxRunning: 2, timeoutMs: 300 });
  for (let i = 0; i < 5; i++) hooks.run(PHOTO);
  assert.deepEqual(lines, ['warn --on-event: event photo-shown dropped: 2 hooks are still running'], 'three dropped, one line');
  await until(/ended by SIGKILL/, 2);
  assert.equal(lines.filter((line) => line === 'warn --on-event photo-shown: still running after 300 ms: killed').length, 2);
  assert.equal(hooks.runningCount, 0);
  // Room again: the next event runs.
  const quick = new EventHooks({ command: 'exit 3', receiverName: 'R', log, maxRunning: 2 });
  quick.run(PHOTO);
  await until(/--on-event photo-shown: exit status 3/);
});
