// What the receiver tells its host happened (src/receiver/host-events.ts, ReceiverPorts.onEvent):
// a session's start and end, a photo shown, a pairing, in the order they happened, each naming
// its sender (address, device id) and its details; a failing handler does not fail the request.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBinaryPlist } from '../../src/plist';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { SenderDirectory, type ReceiverEvent } from '../../src/receiver/host-events';
import { TimerDriver } from '../../src/receiver/timers';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { sampleJpeg } from '../support/jpeg-samples';
import { MemoryPlayer } from '../support/memory-player';
import { utf8Encode } from '../../src/bytes';
import { newSenderIdentity, pairSetupM1, pairSetupM5, srpClientStep } from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SESSION = '3A6E2B1C-1F4D-4C9E-9C3B-6B9D0E0A7F11';

function setup(onEvent: (event: ReceiverEvent) => void) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const player = new MemoryPlayer();
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: '02:00:00:00:00:01' }), { crypto: portableCryptoKernels, clock, random: seededRandom(5), store: new MemoryStore(), log, display: new RecordingDisplay(), player, onEvent });
  new TimerDriver(receiver, clock);
  return { receiver, log, player };
}

const sessionBody = () =>
  encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: SESSION, timingProtocol: 'None', name: 'Kitchen iPad', model: 'iPad8,1', macAddress: 'AA:BB:CC:DD:EE:FF', sourceVersion: '690.7.1' });

test('a session, a photo and its end reach the host in order, each naming its sender', () => {
  const events: ReceiverEvent[] = [];
  const { receiver } = setup((event) => events.push(event));
  const sender = new MemorySender(receiver, 50001, '192.0.2.20');
  assert.equal(sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: sessionBody(), contentType: 'application/x-apple-binary-plist' }).head.status, 200);
  const photo = new MemorySender(receiver, 50002, '192.0.2.20');
  const jpeg = sampleJpeg(600);
  const shown = photo.request('PUT', '/photo', { body: jpeg, contentType: 'image/jpeg', headers: [['X-Vendor-Session-ID', 'photo-session'], ['X-Apple-Device-ID', '0xaabbccddeeff'], ['X-Vendor-AssetKey', 'key-1']] });
  assert.equal(shown.head.status, 200);
  assert.equal(sender.request('TEARDOWN', 'rtsp://192.0.2.1/1', { protocol: 'RTSP' }).head.status, 200);
  assert.deepEqual(events, [
    { name: 'session-started', sender: '192.0.2.20', deviceId: 'AA:BB:CC:DD:EE:FF', details: { session: SESSION, 'sender-name': 'Kitchen iPad', model: 'iPad8,1' } },
    { name: 'photo-shown', sender: '192.0.2.20', deviceId: 'AA:BB:CC:DD:EE:FF', details: { session: 'photo-session', key: 'key-1', bytes: String(jpeg.length) } },
    { name: 'session-ended', sender: '192.0.2.20', deviceId: 'AA:BB:CC:DD:EE:FF', details: { session: SESSION, reason: 'TEARDOWN' } },
  ]);
});

test("a video's states reach the host once each (loading is not one): playing, paused, playing, stopped", () => {
  const events: ReceiverEvent[] = [];
  const { receiver, player } = setup((event) => events.push(event));
  const sender = new MemorySender(receiver, 50001, '192.0.2.40');
  const headers: [string, string][] = [['X-Vendor-Session-ID', 'video-session'], ['X-Vendor-Device-ID', '5855ca1ae288']];
  const play = sender.request('POST', '/play', { body: utf8Encode('Content-Location: http://192.0.2.7:8080/clip.mp4\nStart-Position: 0\n'), contentType: 'text/parameters', headers });
  assert.equal(play.head.status, 200);
  player.report('loading');
  player.report('playing', { duration: 120, position: 1 });
  player.report('playing', { duration: 120, position: 2 });
  player.report('paused', { duration: 120, position: 2 });
  player.report('playing', { duration: 120, position: 2 });
  assert.equal(sender.request('POST', '/stop', { headers }).head.status, 200);
  assert.deepEqual(
    events.map((event) => `${event.name} ${event.sender} ${event.deviceId} ${event.details.session}`),
    ['playing', 'paused', 'playing', 'stopped'].map((state) => `video-${state} 192.0.2.40 58:55:CA:1A:E2:88 video-session`),
  );
});

test('a pairing is an event with the identifier the sender paired as', () => {
  const events: ReceiverEvent[] = [];
  const { receiver } = setup((event) => events.push(event));
  const sender = new MemorySender(receiver, 50001, '192.0.2.30');
  const srp = srpClientStep(sender.pairing('/pair-setup', pairSetupM1()).body, '3939', seededRandom(8));
  sender.pairing('/pair-setup', srp.m3);
  assert.deepEqual(events, [], 'nothing stored yet');
  assert.equal(sender.pairing('/pair-setup', pairSetupM5(srp.sessionKey, newSenderIdentity('sender-7', seededRandom(9)))).head.status, 200);
  assert.deepEqual(events, [{ name: 'paired', sender: '192.0.2.30', details: { identifier: 'sender-7' } }]);
});

test("a handler that throws is logged, and the request it came from is answered", () => {
  const { receiver, log } = setup(() => {
    throw new Error('hook broke');
  });
  const sender = new MemorySender(receiver);
  assert.equal(sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', body: sessionBody(), contentType: 'application/x-apple-binary-plist' }).head.status, 200);
  assert.deepEqual(log.lines.filter((line) => line.level === 'error').map((line) => line.message), ["event session-started: the host's handler failed: hook broke"]);
});

test('the directory keeps the newest senders by session and fills in what an event lacks', () => {
  const directory = new SenderDirectory();
  directory.note('s1', '192.0.2.1', 'AA:BB:CC:DD:EE:01');
  directory.note('s1', '192.0.2.1', undefined);
  assert.deepEqual(directory.event('video-playing', { sessionId: 's1' }), { name: 'video-playing', sender: '192.0.2.1', deviceId: 'AA:BB:CC:DD:EE:01', details: { session: 's1' } });
  for (let i = 0; i < 64; i++) directory.note(`other-${i}`, '192.0.2.9', undefined);
  assert.deepEqual(directory.event('video-stopped', { sessionId: 's1' }), { name: 'video-stopped', details: { session: 's1' } }, 'the oldest forgotten past 64');
  assert.deepEqual(directory.event('unpaired', { address: '192.0.2.5' }, { identifier: 'x' }), { name: 'unpaired', sender: '192.0.2.5', details: { identifier: 'x' } });
});
