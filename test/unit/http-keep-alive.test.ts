// Whether a connection stays open after a response, and the Connection header that says so
// (src/http/keep-alive.ts; RFC 9112 9.3, 9.6; RFC 2326 12.8).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Headers } from '../../src/http/headers';
import { applyKeepAlive } from '../../src/http/keep-alive';
import type { Protocol, ProtocolVersion } from '../../src/http/message';

function decide(protocol: Protocol, version: ProtocolVersion, keepAlive: boolean, responderCloses: boolean): { close: boolean; connection: string | undefined } {
  const headers = new Headers();
  const close = applyKeepAlive({ protocol, version, keepAlive }, headers, responderCloses);
  return { close, connection: headers.get('connection') };
}

test('HTTP/1.1 stays open silently, and says close when it closes', () => {
  assert.deepEqual(decide('HTTP', '1.1', true, false), { close: false, connection: undefined });
  assert.deepEqual(decide('HTTP', '1.1', true, true), { close: true, connection: 'close' });
  assert.deepEqual(decide('HTTP', '1.1', false, false), { close: true, connection: 'close' });
});

test('HTTP/1.0 says keep-alive when it stays open, and closes silently', () => {
  assert.deepEqual(decide('HTTP', '1.0', true, false), { close: false, connection: 'keep-alive' });
  assert.deepEqual(decide('HTTP', '1.0', true, true), { close: true, connection: undefined });
  assert.deepEqual(decide('HTTP', '1.0', false, false), { close: true, connection: undefined });
});

test('RTSP has no Connection header either way', () => {
  assert.deepEqual(decide('RTSP', '1.0', true, false), { close: false, connection: undefined });
  assert.deepEqual(decide('RTSP', '1.0', true, true), { close: true, connection: undefined });
  assert.deepEqual(decide('RTSP', '1.0', false, false), { close: true, connection: undefined });
});

test('a Connection header the responder set is replaced, not repeated', () => {
  const headers = new Headers({ Connection: 'keep-alive' });
  applyKeepAlive({ protocol: 'HTTP', version: '1.1', keepAlive: true }, headers, true);
  assert.deepEqual([...headers].filter(([name]) => name.toLowerCase() === 'connection'), [['Connection', 'close']]);
});
