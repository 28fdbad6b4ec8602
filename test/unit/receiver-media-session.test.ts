// The media session (src/receiver/media/media-session.ts): the activity follows the kinds of media
// active, the screen passes from feature to feature, and POST /stop reaches every feature.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Activity } from '../../src/discovery/activity';
import type { EventSender } from '../../src/receiver/media/events';
import { MediaSession, type MediaFeature, type MediaKind } from '../../src/receiver/media/media-session';
import { recordingLogger } from '../support/memory-ports';

function session() {
  const activities: Activity[] = [];
  const statuses: unknown[] = [];
  const log = recordingLogger();
  const events = {} as EventSender;
  const media = new MediaSession({
    log,
    display: undefined,
    events,
    setActivity: (activity) => activities.push(activity),
    updateStatus: (change) => statuses.push(change),
  });
  return { media, activities, statuses, log, events };
}

function recordingFeature(calls: string[], name: string): MediaFeature {
  return {
    stop: (sessionId, order) => calls.push(`${name} stop ${sessionId} ${order}`),
    yieldScreen: (order, reason, by) => calls.push(`${name} yields at ${order} to ${by}: ${reason}`),
  };
}

test('beginning any kind of media makes the receiver receive; ending the last makes it idle', () => {
  const { media, activities } = session();
  media.begin('photo');
  assert.equal(media.isActive('photo'), true);
  media.end('photo');
  assert.equal(media.isActive('photo'), false);
  assert.deepEqual(activities, ['receivingVideo', 'idle']);
});

test('the newest kind still active says the activity', () => {
  const { media, activities } = session();
  media.begin('video');
  media.begin('mirror');
  media.end('mirror');
  assert.deepEqual(activities, ['receivingVideo', 'receivingScreenMirroring', 'receivingVideo']);
  media.begin('mirror');
  media.begin('video'); // begun again: the newest once more
  media.end('video');
  assert.deepEqual(activities.slice(3), ['receivingScreenMirroring', 'receivingVideo', 'receivingScreenMirroring']);
});

test('ending a kind that is not active changes nothing', () => {
  const { media, activities } = session();
  media.end('slideshow');
  media.begin('photo');
  media.end('slideshow');
  assert.deepEqual(activities, ['receivingVideo']);
});

test('taking the screen begins the kind first, then every other feature yields', () => {
  const { media, activities } = session();
  const calls: string[] = [];
  for (const kind of ['photo', 'slideshow', 'video'] as MediaKind[]) media.register(kind, recordingFeature(calls, kind));
  media.takeScreen('slideshow', 7, 'PUT /slideshows/1');
  assert.deepEqual(activities, ['receivingVideo']);
  assert.deepEqual(calls, ['photo yields at 7 to slideshow: PUT /slideshows/1', 'video yields at 7 to slideshow: PUT /slideshows/1']);
  assert.equal(media.isActive('slideshow'), true);
});

test('POST /stop reaches every feature, even after one fails; the failure is logged', () => {
  const { media, log } = session();
  const calls: string[] = [];
  media.register('photo', recordingFeature(calls, 'photo'));
  media.register('video', {
    stop: () => {
      throw new Error('player gone');
    },
    yieldScreen: () => {},
  });
  media.register('mirror', recordingFeature(calls, 'mirror'));
  media.stop('s1', 3);
  assert.deepEqual(calls, ['photo stop s1 3', 'mirror stop s1 3']);
  assert.deepEqual(log.lines, [{ level: 'error', message: 'stopping video failed: player gone' }]);
});

test('a feature registered again replaces the first', () => {
  const { media } = session();
  const calls: string[] = [];
  media.register('photo', recordingFeature(calls, 'old'));
  media.register('photo', recordingFeature(calls, 'new'));
  media.stop(undefined, 1);
  assert.deepEqual(calls, ['new stop undefined 1']);
});

test('the context is handed through: log, events, display and status changes', () => {
  const { media, statuses, log, events } = session();
  assert.equal(media.log, log);
  assert.equal(media.events, events);
  assert.equal(media.display, undefined);
  media.updateStatus({ activity: 'photo' } as never);
  assert.deepEqual(statuses, [{ activity: 'photo' }]);
});

test('the status line is told the newest kind shown, once per change, and nothing once none is', () => {
  const { media, statuses } = session();
  media.begin('video');
  media.begin('mirror');
  media.begin('mirror');
  media.end('mirror');
  media.end('video');
  assert.deepEqual(statuses, [{ media: 'video' }, { media: 'mirror' }, { media: 'video' }, { media: undefined }]);
});
