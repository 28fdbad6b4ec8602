// src/errors.ts: RequestError carries a status and a reason; inContext names what was refused
// and keeps the status; describeError puts any thrown value in words.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeError, inContext, RequestError } from '../../src/errors';

test('a RequestError carries its status and its reason as the message', () => {
  const error = new RequestError(415, 'the body is not a JPEG: no SOI marker');
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'RequestError');
  assert.equal(error.status, 415);
  assert.equal(error.message, 'the body is not a JPEG: no SOI marker');
});

test('a subclass keeps its own name and is still a RequestError', () => {
  class VideoLike extends RequestError {
    override name = 'VideoLike';
  }
  const error = new VideoLike(400, 'no body');
  assert.ok(error instanceof RequestError);
  assert.equal(error.name, 'VideoLike');
  assert.equal(error.status, 400);
});

test('inContext returns what the work returns', () => {
  assert.equal(
    inContext('POST /scrub', () => 12.5),
    12.5,
  );
});

test('inContext puts the context before a refusal, keeping its status', () => {
  assert.throws(
    () =>
      inContext('POST /rate', () => {
        throw new RequestError(400, 'no value= in the query');
      }),
    (error: unknown) => error instanceof RequestError && error.status === 400 && error.message === 'POST /rate: no value= in the query',
  );
  assert.throws(
    () =>
      inContext('POST /stream', () => {
        throw new RequestError(501, 'encrypted video');
      }),
    (error: unknown) => error instanceof RequestError && error.status === 501 && error.message === 'POST /stream: encrypted video',
  );
});

test('inContext lets any other error through untouched', () => {
  const fault = new TypeError('a bug');
  assert.throws(
    () =>
      inContext('POST /scrub', () => {
        throw fault;
      }),
    (error: unknown) => error === fault,
  );
});

test('describeError: the message of an Error, anything else as a string', () => {
  assert.equal(describeError(new RangeError('offset 812 beyond table')), 'offset 812 beyond table');
  assert.equal(describeError(new RequestError(400, 'no body')), 'no body');
  assert.equal(describeError('EADDRINUSE'), 'EADDRINUSE');
  assert.equal(describeError(-2), '-2');
  assert.equal(describeError(undefined), 'undefined');
  assert.equal(describeError(null), 'null');
});
