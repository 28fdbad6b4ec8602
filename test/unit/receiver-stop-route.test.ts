// POST /stop (src/receiver/media/stop-route.ts, spec 3, 4.1): one route that asks every feature of
// the media session to stop, answered 200 with no body.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Router, type Request, type Response } from '../../src/receiver/connection/router';
import type { EventSender } from '../../src/receiver/media/events';
import { MediaSession } from '../../src/receiver/media/media-session';
import { registerStopRoute } from '../../src/receiver/media/stop-route';
import { recordingLogger } from '../support/memory-ports';

function stopRoute() {
  const media = new MediaSession({ log: recordingLogger(), display: undefined, events: {} as EventSender, setActivity: () => {}, updateStatus: () => {} });
  const stops: string[] = [];
  media.register('photo', { stop: (sessionId, order) => stops.push(`photo ${sessionId} ${order}`), yieldScreen: () => {} });
  media.register('video', { stop: (sessionId, order) => stops.push(`video ${sessionId} ${order}`), yieldScreen: () => {} });
  const router = new Router();
  registerStopRoute(router, media);
  return { router, stops };
}

test('POST /stop stops every feature for the sender\'s session, in the request\'s order, and answers 200', () => {
  const { router, stops } = stopRoute();
  const match = router.match('HTTP', 'POST', '/stop');
  assert.equal(match.kind, 'route');
  if (match.kind !== 'route') return;
  const response = match.route.handler({ sessionId: 'A1', order: 12 } as Request) as Response;
  assert.deepEqual(response, { status: 200 });
  assert.deepEqual(stops, ['photo A1 12', 'video A1 12']);
});

test('a small body is taken (some senders send an empty plist), a larger one is not', () => {
  const { router } = stopRoute();
  const match = router.match('HTTP', 'POST', '/stop');
  assert.equal(match.kind === 'route' && match.route.maxBodyBytes, 4096);
});

test('POST /stop is HTTP only, and other methods on /stop are told which one is', () => {
  const { router } = stopRoute();
  assert.notEqual(router.match('RTSP', 'POST', '/stop').kind, 'route');
  assert.deepEqual(router.match('HTTP', 'GET', '/stop'), { kind: 'refuse', status: 405, allow: ['POST'] });
});
