// Events to the sender (src/receiver/media/events.ts, spec 6): numbered sessions, one POST /event
// per new state on the right reverse connection, held while the session's request is answered.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Decode } from '../../src/bytes';
import { DIALECTS } from '../../src/dialect';
import { decodeXmlPlist } from '../../src/plist/xml';
import { ReverseError, type ReverseCallback, type ReverseRegistry, type ReverseRequest } from '../../src/receiver/connection/reverse';
import { EventSender } from '../../src/receiver/media/events';
import { recordingLogger } from '../support/memory-ports';

interface FakeConnection {
  readonly peer: string;
  readonly sessionId: string | undefined;
  readonly purpose: string | undefined;
  readonly sent: { request: ReverseRequest; callback: ReverseCallback }[];
  request(request: ReverseRequest, callback: ReverseCallback): void;
}

function connection(sessionId: string | undefined, purpose: string | undefined, peer = `peer-${purpose ?? 'none'}`): FakeConnection {
  const sent: FakeConnection['sent'] = [];
  return { peer, sessionId, purpose, sent, request: (request, callback) => sent.push({ request, callback }) };
}

/** A registry of fake reverse connections: find() as ReverseRegistry's (session, then purpose). */
function registry(connections: FakeConnection[]): ReverseRegistry {
  return {
    find: (sessionId: string | undefined, purpose?: string) =>
      connections.filter((c) => c.sessionId === sessionId && (purpose === undefined || c.purpose === purpose)),
  } as unknown as ReverseRegistry;
}

function sender(connections: FakeConnection[], maxSessions = 8) {
  const log = recordingLogger();
  const events = new EventSender({ log, mime: DIALECTS.apple.mime, reverse: registry(connections), maxSessions });
  return { events, log };
}

const ok = (status = 200) => ({ head: { status } as never, body: new Uint8Array(0) });
const bodyOf = (request: ReverseRequest) => decodeXmlPlist(request.body!);

test('sessions are numbered from 1 in the order they first appear; no session id is one session', () => {
  const { events } = sender([]);
  assert.equal(events.sessionNumber('b'), 1);
  assert.equal(events.sessionNumber('a'), 2);
  assert.equal(events.sessionNumber('b'), 1);
  assert.equal(events.sessionNumber(''), 3);
});

test('an event is a POST /event with the category\'s content type and keys in spec 6 order', () => {
  const events_ = connection('s1', 'event');
  const { events } = sender([events_]);
  events.send('s1', 'slideshow', 'playing', { lastAssetID: 4 });
  events.send('s1', 'video', 'paused');
  const [slideshow, video] = events_.sent.map((sent) => sent.request);
  assert.equal(slideshow.method, 'POST');
  assert.equal(slideshow.target, '/event');
  assert.deepEqual(slideshow.headers, { 'Content-Type': 'text/x-apple-plist+xml' });
  assert.deepEqual(bodyOf(slideshow), { category: 'slideshow', lastAssetID: 4, sessionID: 1, state: 'playing' });
  const text = utf8Decode(slideshow.body!);
  assert.ok(text.indexOf('category') < text.indexOf('lastAssetID') && text.indexOf('sessionID') < text.indexOf('>state<'), text);
  assert.deepEqual(video.headers, { 'Content-Type': 'application/x-apple-plist' });
  assert.deepEqual(bodyOf(video), { category: 'video', sessionID: 1, state: 'paused' });
});

test('a slideshow event without an asset says lastAssetID 0; other categories have none', () => {
  const reverse = connection('s', 'event');
  const { events } = sender([reverse]);
  events.send('s', 'slideshow', 'loading');
  events.send('s', 'photo', 'stopped');
  assert.deepEqual(reverse.sent.map((sent) => bodyOf(sent.request)), [
    { category: 'slideshow', lastAssetID: 0, sessionID: 1, state: 'loading' },
    { category: 'photo', sessionID: 1, state: 'stopped' },
  ]);
});

test('the same state twice in a row is sent once, per category; reset lets it be sent again', () => {
  const reverse = connection('s', 'event');
  const { events } = sender([reverse]);
  const outcomes: boolean[] = [];
  events.send('s', 'video', 'playing');
  events.send('s', 'video', 'playing', {}, (delivered) => outcomes.push(delivered));
  events.send('s', 'slideshow', 'playing');
  assert.deepEqual(outcomes, [false]);
  assert.equal(reverse.sent.length, 2);
  events.reset('s', 'video');
  events.send('s', 'video', 'playing');
  events.send('s', 'slideshow', 'playing');
  assert.equal(reverse.sent.length, 3);
  events.reset('s');
  events.send('s', 'slideshow', 'playing');
  assert.equal(reverse.sent.length, 4);
  events.reset('nobody'); // a session never seen: nothing to forget
});

test('the event connection is the one of purpose event, else one without a purpose, never a slideshow one', () => {
  const slideshowOnly = connection('s', 'slideshow');
  const plain = connection('s', undefined);
  const { events, log } = sender([slideshowOnly, plain]);
  events.send('s', 'photo', 'stopped');
  assert.equal(plain.sent.length, 1);
  assert.equal(slideshowOnly.sent.length, 0);

  const { events: onlySlides, log: quiet } = sender([connection('t', 'slideshow')]);
  const outcomes: boolean[] = [];
  onlySlides.send('t', 'photo', 'stopped', {}, (delivered) => outcomes.push(delivered));
  assert.deepEqual(outcomes, [false]);
  assert.deepEqual(quiet.lines, [{ level: 'debug', message: 'event photo stopped for session t not sent: no reverse connection for events' }]);
  assert.deepEqual(log.lines, []);
});

test('the outcome: true for a 2xx answer, false and a warning for another status or a failure', () => {
  const reverse = connection('s', 'event', '10.0.0.5:49152');
  const { events, log } = sender([reverse]);
  const outcomes: boolean[] = [];
  const record = (delivered: boolean) => outcomes.push(delivered);
  events.send('s', 'video', 'loading', {}, record);
  events.send('s', 'video', 'playing', {}, record);
  events.send('s', 'video', 'paused', {}, record);
  reverse.sent[0].callback(ok(204));
  reverse.sent[1].callback(ok(500));
  reverse.sent[2].callback(new ReverseError('closed by the sender'));
  assert.deepEqual(outcomes, [true, false, false]);
  assert.deepEqual(log.lines, [
    { level: 'warn', message: 'event video playing to 10.0.0.5:49152: sender answered 500' },
    { level: 'warn', message: 'event video paused to 10.0.0.5:49152 failed: closed by the sender' },
  ]);
});

test('events wait while a request of their session is answered, and leave in order once all are', () => {
  const reverse = connection('s', 'event');
  const { events } = sender([reverse]);
  const first = events.hold('s');
  const second = events.hold('s');
  events.send('s', 'video', 'playing');
  events.send('s', 'video', 'stopped');
  events.send('other', 'video', 'playing'); // another session does not wait (and has no connection)
  first();
  first(); // released twice: counted once
  assert.equal(reverse.sent.length, 0);
  second();
  assert.deepEqual(reverse.sent.map((sent) => (bodyOf(sent.request) as { state: string }).state), ['playing', 'stopped']);
  events.send('s', 'video', 'playing');
  assert.equal(reverse.sent.length, 3, 'no hold left: sent at once');
});

test('forgets a session\'s hold once its requests are answered: a new session per photo leaves nothing behind', () => {
  const reverse = connection('s', 'event');
  const { events } = sender([reverse]);
  for (let n = 0; n < 100; n++) {
    const release = events.hold(`photo-session-${n}`);
    assert.equal(events.sessionsHeld, 1);
    release();
  }
  assert.equal(events.sessionsHeld, 0);
  // Still held while one of two requests is being answered, and its event still waits for both.
  const first = events.hold('s');
  const second = events.hold('s');
  events.send('s', 'photo', 'stopped');
  first();
  assert.equal(events.sessionsHeld, 1);
  assert.equal(reverse.sent.length, 0);
  second();
  assert.equal(events.sessionsHeld, 0);
  assert.equal(reverse.sent.length, 1);
});

test('a session no reverse connection can hear gets no record: a photo session per sender command leaves nothing behind', () => {
  const reverse = connection('heard', 'event');
  const { events, log } = sender([reverse]);
  for (let n = 0; n < 100; n++) events.send(`photo-session-${n}`, 'photo', 'stopped');
  assert.equal(events.sessionsRemembered, 0);
  assert.equal(log.lines.length, 100, 'each said not sent');
  events.send('heard', 'photo', 'stopped');
  assert.equal(events.sessionsRemembered, 1);
  assert.equal((bodyOf(reverse.sent[0].request) as { sessionID: number }).sessionID, 1, 'numbered when first told');
  events.send('heard', 'photo', 'stopped');
  assert.equal(reverse.sent.length, 1, 'the same state is still sent once');
});

test('past maxSessions the session seen first is forgotten and numbered afresh when it returns', () => {
  const { events } = sender([], 2);
  assert.equal(events.sessionNumber('a'), 1);
  assert.equal(events.sessionNumber('b'), 2);
  assert.equal(events.sessionNumber('c'), 3);
  assert.equal(events.sessionNumber('b'), 2);
  assert.equal(events.sessionNumber('a'), 4);
});
