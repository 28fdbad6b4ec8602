// Routing: exact paths, the any-path route, 404/405/501, target splitting, and thrown refusals answered.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestError } from '../../src/errors';
import { StreamRequestError } from '../../src/mirror/stream-request';
import { PairingError } from '../../src/pairing/errors';
import { refusalOf, Router, splitTarget, type Answer, type Request } from '../../src/receiver/connection/router';

const ok = () => ({ status: 200 });

function router(): Router {
  return new Router()
    .add({ protocol: 'HTTP', method: 'GET', path: '/server-info', handler: ok })
    .add({ protocol: 'HTTP', method: 'PUT', path: '/photo', handler: ok })
    .add({ protocol: 'RTSP', method: 'GET', path: '/info', handler: ok })
    .add({ protocol: 'RTSP', method: 'OPTIONS', path: '*', handler: ok })
    .add({ method: 'POST', path: '/pair-setup', handler: ok });
}

test('routes an exact (protocol, method, path)', () => {
  const match = router().match('HTTP', 'GET', '/server-info');
  assert.equal(match.kind, 'route');
  assert.equal(match.kind === 'route' && match.route.path, '/server-info');
});

test('a route without a protocol serves both HTTP and RTSP', () => {
  assert.equal(router().match('HTTP', 'POST', '/pair-setup').kind, 'route');
  assert.equal(router().match('RTSP', 'POST', '/pair-setup').kind, 'route');
});

test('answers 404 for an unknown path with a known method', () => {
  assert.deepEqual(router().match('HTTP', 'GET', '/nope'), { kind: 'refuse', status: 404, allow: [] });
});

test('answers 405 with the allowed methods for a known path and another known method', () => {
  assert.deepEqual(router().match('HTTP', 'PUT', '/server-info'), { kind: 'refuse', status: 405, allow: ['GET', 'HEAD'] });
});

test('answers 501 for a method the receiver serves nowhere on that protocol, on a path that is not served', () => {
  assert.equal((router().match('HTTP', 'BREW', '/nowhere') as { status: number }).status, 501);
  assert.equal((router().match('RTSP', 'TEARDOWN', '/') as { status: number }).status, 501);
  // OPTIONS is served on RTSP only
  assert.equal((router().match('HTTP', 'OPTIONS', '*') as { status: number }).status, 501);
});

test('a served path answers 405 with Allow whatever the method: GET /photo and DELETE /photo agree', () => {
  const photos = new Router().add({ protocol: 'HTTP', method: 'PUT', path: '/photo', handler: () => ({ status: 200 }) });
  assert.deepEqual(photos.match('HTTP', 'GET', '/photo'), { kind: 'refuse', status: 405, allow: ['PUT'] });
  assert.deepEqual(photos.match('HTTP', 'DELETE', '/photo'), { kind: 'refuse', status: 405, allow: ['PUT'] });
  assert.deepEqual(photos.match('HTTP', 'BREW', '/server-info'), { kind: 'refuse', status: 501, allow: [] });
});

test('the any-path route answers every path, protocol permitting', () => {
  assert.equal(router().match('RTSP', 'OPTIONS', '*').kind, 'route');
  assert.equal(router().match('RTSP', 'OPTIONS', '/3413821438').kind, 'route');
});

test('an exact route comes before the any-path route of its method; among any-path routes, the first added', () => {
  const first = () => ({ status: 200 });
  const second = () => ({ status: 201 });
  const table = router().add({ protocol: 'RTSP', method: 'OPTIONS', path: '*', handler: second });
  const any = table.match('RTSP', 'OPTIONS', '*');
  assert.equal(any.kind === 'route' && any.route.path, '*');
  // The route's handler is wrapped (refusalOf): the first added answers.
  assert.equal(any.kind === 'route' && (any.route.handler({} as Request) as { status: number }).status, 200);
  // A path served by another method only: still the any-path route of this one.
  const onInfo = table.match('RTSP', 'OPTIONS', '/info');
  assert.equal(onInfo.kind === 'route' && onInfo.route.path, '*');
  // Added after the first match: an exact route of the method wins on its path, the any-path one elsewhere.
  table.add({ method: 'OPTIONS', path: '/info', handler: first });
  const exact = table.match('RTSP', 'OPTIONS', '/info');
  assert.equal(exact.kind === 'route' && exact.route.path, '/info');
  const elsewhere = table.match('RTSP', 'OPTIONS', '/other');
  assert.equal(elsewhere.kind === 'route' && elsewhere.route.path, '*');
  assert.equal(table.match('HTTP', 'OPTIONS', '/other').kind, 'refuse');
});

test('HEAD is routed to the GET route of the path, and Allow lists HEAD beside GET', () => {
  const match = router().match('HTTP', 'HEAD', '/server-info');
  assert.equal(match.kind === 'route' && match.route.method, 'GET');
  assert.deepEqual(router().match('HTTP', 'HEAD', '/nope'), { kind: 'refuse', status: 404, allow: [] });
  assert.deepEqual(router().match('HTTP', 'PUT', '/server-info'), { kind: 'refuse', status: 405, allow: ['GET', 'HEAD'] });
  assert.deepEqual(router().match('HTTP', 'HEAD', '/photo'), { kind: 'refuse', status: 405, allow: ['PUT'] });
});

test('lists the methods served on each protocol', () => {
  assert.deepEqual(router().methods('RTSP'), ['GET', 'OPTIONS', 'POST']);
  assert.deepEqual(router().methods('HTTP'), ['GET', 'PUT', 'POST']);
});

test('splits targets into path and query, decoding components', () => {
  const { path, query } = splitTarget('/scrub?position=20.5&x=a%20b');
  assert.equal(path, '/scrub');
  assert.deepEqual([...query], [['position', '20.5'], ['x', 'a b']]);
  assert.deepEqual([...splitTarget('/setProperty?forwardEndTime').query], [['forwardEndTime', '']]);
});

test('absolute RTSP URIs lose scheme and authority; an empty target is /', () => {
  assert.equal(splitTarget('rtsp://192.0.2.1:7000/3413821438').path, '/3413821438');
  assert.equal(splitTarget('').path, '/');
  assert.equal(splitTarget('*').path, '*');
  assert.equal(splitTarget('*').query.size, 0);
});

test('a malformed percent escape is kept as written', () => {
  assert.deepEqual([...splitTarget('/a?q=100%').query], [['q', '100%']]);
});

// One place maps a thrown refusal to an answer (refusalOf), for every route added.

function throwing(error: unknown): Router {
  return new Router().add({
    protocol: 'HTTP',
    method: 'POST',
    path: '/refuse',
    handler: () => {
      throw error;
    },
  });
}

function answerOf(router: Router): Answer {
  const match = router.match('HTTP', 'POST', '/refuse');
  assert.equal(match.kind, 'route');
  return match.kind === 'route' ? match.route.handler({} as Request) : assert.fail('not routed');
}

test('a RequestError thrown by a handler is answered with its status and reason', () => {
  assert.deepEqual(answerOf(throwing(new RequestError(415, 'the body is not a JPEG: no SOI marker'))), { status: 415, reason: 'the body is not a JPEG: no SOI marker' });
});

test('a subclass of RequestError is answered the same way', () => {
  assert.deepEqual(answerOf(throwing(new PairingError('pairing message without a State item'))), { status: 400, reason: 'pairing message without a State item' });
  assert.deepEqual(answerOf(throwing(new StreamRequestError('POST /stream: encrypted video', 501))), { status: 501, reason: 'POST /stream: encrypted video' });
});

test('any other error escapes the handler (the connection answers it 500 and logs it)', () => {
  const fault = new TypeError('a bug');
  assert.throws(() => answerOf(throwing(fault)), (error: unknown) => error === fault);
  assert.throws(() => refusalOf('a string'), (error: unknown) => error === 'a string');
});

test('refusalOf is the same mapping for answers given later', () => {
  assert.deepEqual(refusalOf(new RequestError(412, 'displayCached k: not in the cache')), { status: 412, reason: 'displayCached k: not in the cache' });
});
