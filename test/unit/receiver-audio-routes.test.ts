// The audio requests this receiver recognises and does not serve (src/receiver/audio/audio-routes.ts,
// spec 4.3): buffered audio, PTP, FairPlay; ANNOUNCE too where the host has no audio output. 501
// with a reason, never 404, not listed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNSERVED_AUDIO_METHODS, UNSERVED_AUDIO_POSTS, registerUnservedAudioRoutes } from '../../src/receiver/audio/audio-routes';
import { Router, type Request, type Response } from '../../src/receiver/connection/router';
import { testReceiver } from '../support/test-receiver';
import { MemorySender } from '../support/memory-sender';

function audioRouter(announce = true): Router {
  const router = new Router().add({ protocol: 'RTSP', method: 'OPTIONS', path: '*', handler: () => ({ status: 200 }) });
  registerUnservedAudioRoutes(router, { announce });
  return router;
}

function answer(router: Router, protocol: 'HTTP' | 'RTSP', method: string, path: string): Response {
  const match = router.match(protocol, method, path);
  assert.equal(match.kind, 'route', `${protocol} ${method} ${path}`);
  return (match.kind === 'route' ? match.route.handler({ path } as Request) : undefined) as Response;
}

test('every unserved audio session method is answered 501 on any RTSP path, naming the request', () => {
  const router = audioRouter();
  for (const method of UNSERVED_AUDIO_METHODS) {
    const response = answer(router, 'RTSP', method, '/3413821438');
    assert.equal(response.status, 501, method);
    assert.equal(response.reason, `${method} /3413821438: this receiver plays realtime audio (RTP), not buffered audio, PTP groups or FairPlay streams`);
  }
  assert.match(answer(router, 'RTSP', 'ANNOUNCE', '/1').reason ?? '', /^ANNOUNCE \/1: this host has no audio output/);
});

test('where the host plays audio, ANNOUNCE is not among the refused', () => {
  assert.equal(audioRouter(false).match('RTSP', 'ANNOUNCE', '*').kind === 'route', false);
});

test('the audio POST endpoints are answered 501 on both protocols', () => {
  const router = audioRouter();
  for (const path of UNSERVED_AUDIO_POSTS) {
    for (const protocol of ['HTTP', 'RTSP'] as const) {
      const response = answer(router, protocol, 'POST', path);
      assert.equal(response.status, 501);
      assert.match(response.reason ?? '', new RegExp(`^POST ${path}: .*FairPlay streams$`));
    }
  }
});

test('the unserved methods are not listed among those served, and take small bodies only', () => {
  const router = audioRouter();
  assert.deepEqual(router.methods('RTSP'), ['OPTIONS']);
  const match = router.match('RTSP', 'ANNOUNCE', '*');
  assert.equal(match.kind === 'route' && match.route.maxBodyBytes, 64 * 1024);
});

test('a sender that tries to stream to a receiver without audio output is told 501 Not Implemented', () => {
  const { receiver } = testReceiver();
  const sender = new MemorySender(receiver);
  const announce = sender.request('ANNOUNCE', 'rtsp://10.0.0.2/3413821438', { protocol: 'RTSP', contentType: 'application/sdp', body: new TextEncoder().encode('v=0\r\n') });
  assert.equal(announce.head.status, 501);
  assert.equal(announce.head.reason, 'Not Implemented');
  // The classic SETUP of an audio stream: a Transport header, no body (a session's SETUP has a plist).
  const setup = sender.request('SETUP', 'rtsp://10.0.0.2/3413821438', { protocol: 'RTSP', headers: [['Transport', 'RTP/AVP/UDP;unicast;mode=record;control_port=6001;timing_port=6002']] });
  assert.equal(setup.head.status, 501);
  assert.match(new TextDecoder().decode(setup.body), /Transport header \(a classic audio stream\) is not served: this host has no audio output/);
  assert.equal(sender.request('POST', '/fp-setup', { protocol: 'RTSP', body: new Uint8Array(16) }).head.status, 501);
});
