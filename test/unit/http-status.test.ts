// Status codes and reason phrases of HTTP and RTSP (src/http/status.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDefinedStatus, reasonPhrase, STATUS, statusForbidsBody } from '../../src/http/status';

test('each protocol has its own phrase where they differ', () => {
  assert.equal(reasonPhrase(200), 'OK');
  assert.equal(reasonPhrase(413, 'HTTP'), 'Content Too Large');
  assert.equal(reasonPhrase(413, 'RTSP'), 'Request Entity Too Large');
  assert.equal(reasonPhrase(505, 'RTSP'), 'RTSP Version not supported');
  assert.equal(reasonPhrase(451, 'HTTP'), 'Unavailable For Legal Reasons');
  assert.equal(reasonPhrase(451, 'RTSP'), 'Parameter Not Understood');
});

test('a code one protocol lacks borrows the other\'s phrase, and is not defined there', () => {
  assert.equal(reasonPhrase(470, 'HTTP'), 'Connection Authorization Required');
  assert.equal(isDefinedStatus(470, 'HTTP'), false);
  assert.equal(isDefinedStatus(470, 'RTSP'), true);
  assert.equal(reasonPhrase(101, 'RTSP'), 'Switching Protocols');
  assert.equal(isDefinedStatus(101, 'RTSP'), false);
});

test('an unknown code has the empty phrase and is defined nowhere', () => {
  assert.equal(reasonPhrase(299), '');
  assert.equal(reasonPhrase(299, 'RTSP'), '');
  assert.equal(isDefinedStatus(299, 'HTTP'), false);
  assert.equal(isDefinedStatus(299, 'RTSP'), false);
});

test('every named status has a phrase in at least one protocol', () => {
  const missing = Object.entries(STATUS).filter(([, code]) => reasonPhrase(code, 'HTTP') === '');
  assert.deepEqual(missing, []);
});

test('informational, 204 and 304 responses never carry a body; others may', () => {
  for (const code of [100, 101, 199, 204, 304]) assert.equal(statusForbidsBody(code), true, String(code));
  for (const code of [99, 200, 205, 303, 305, 404, 500]) assert.equal(statusForbidsBody(code), false, String(code));
});
