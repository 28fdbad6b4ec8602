// The status line's words (src/receiver/media/status-words.ts): what is shown in words a person
// reads, never spec 2.1's activity names; one table for the Moddable strip and the Node page; and
// the receiver tells its screen what it shows, so a photo and a video (one activity) read apart.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeRequest } from '../../src/http';
import { makeConfig } from '../../src/receiver/config';
import { ACTIVITY_WORDS, MEDIA_WORDS, PAIRING_WORDS, PAUSED_WORDS, SLIDESHOW_WORDS, statusWords } from '../../src/receiver/media/status-words';
import { Receiver } from '../../src/receiver/receiver';
import type { DisplayStatus } from '../../src/platform';
import { sampleJpeg } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SESSION = 'a3a0b9f8-2c5e-4d7a-9b1e-5f0c6d2e8a41';

test('what the media session shows reads as a person says it, not as the activity it shares', () => {
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'photo' }), 'Showing a photo');
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'video' }), 'Playing video');
  assert.equal(statusWords({ activity: 'receivingScreenMirroring', media: 'mirror' }), 'Mirroring');
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'slideshow', slideshow: 'loading' }), 'Slideshow loading');
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'slideshow', slideshow: 'playing' }), 'Slideshow playing');
  // The Node page gets the state as JSON, absent fields as null.
  assert.equal(statusWords({ activity: 'idle', media: null, slideshow: null }), 'Idle');
});

test('a paused video says so, and what audio plays names its track; a photo has no pause', () => {
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'video', paused: true }), 'Video paused');
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'video', paused: false }), 'Playing video');
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'photo', paused: true }), 'Showing a photo');
  assert.equal(statusWords({ activity: 'receivingAudio', media: 'audio', track: 'Café del Mar - Energy 52' }), 'Playing audio - Café del Mar - Energy 52');
  assert.equal(statusWords({ activity: 'receivingAudio', track: 'Teardrop' }), 'Playing audio - Teardrop');
  assert.equal(statusWords({ activity: 'receivingAudio', media: 'audio', track: null }), 'Playing audio');
  // A track left over while a video shows is not the video's name.
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'video', track: 'Teardrop' }), 'Playing video');
});

test('a PIN on the screen: the words say pairing, whatever is shown behind it', () => {
  assert.equal(statusWords({ activity: 'idle', pairing: true }), PAIRING_WORDS);
  assert.equal(statusWords({ activity: 'receivingVideo', media: 'video', pairing: true }), PAIRING_WORDS);
  assert.equal(statusWords({ activity: 'idle', pairing: false }), 'Idle');
});

test('with nothing shown the activity speaks; one it does not know is shown as it is', () => {
  assert.equal(statusWords({ activity: 'idle' }), 'Idle');
  assert.equal(statusWords({ activity: 'receivingAudio' }), 'Playing audio');
  assert.equal(statusWords({ activity: 'playingLocalMedia' }), 'Playing local media');
  assert.equal(statusWords({ activity: 'somethingNew' }), 'somethingNew');
  assert.equal(statusWords({ activity: 'constructor' }), 'constructor', 'own rows only');
});

test('every word is printable ASCII (the Moddable strip font has no more) and none is a spec name', () => {
  const words = [...Object.values(ACTIVITY_WORDS), ...Object.values(MEDIA_WORDS), ...Object.values(PAUSED_WORDS), ...Object.values(SLIDESHOW_WORDS), PAIRING_WORDS];
  for (const text of words) {
    assert.match(text, /^[ -~]+$/, text);
    assert.doesNotMatch(text, /[a-z][A-Z]/, `${text} reads like an identifier`);
  }
});

function frame() {
  const clock = new ManualClock();
  const display = new RecordingDisplay(clock);
  const receiver = new Receiver(makeConfig({ name: 'Frame', profile: 'photo-frame' }), { crypto: portableCryptoKernels, clock, random: seededRandom(9), store: new MemoryStore(), log: recordingLogger(), display });
  /** What the status line reads after each status the screen was given. */
  const lines = () => display.calls.flatMap((call) => (call.kind === 'status' ? [statusWords(call.status as DisplayStatus)] : []));
  return { receiver, lines };
}

test('a photo shown reads "Showing a photo" on the screen, and "Idle" after POST /stop, with nothing in between', async () => {
  const { receiver, lines } = frame();
  const sender = new MemorySender(receiver);
  const before = lines().length;
  sender.sendBytes(
    writeRequest({ protocol: 'HTTP', version: '1.1', method: 'PUT', target: '/photo', headers: [['X-Vendor-Session-ID', SESSION]], body: sampleJpeg(600, 1) }),
  );
  assert.equal((await sender.response()).head.status, 200);
  assert.deepEqual([...new Set(lines().slice(before))], ['Showing a photo'], 'no other words on the way');
  const stopped = lines().length;
  assert.equal((await sender.request('POST', '/stop', { headers: [['X-Vendor-Session-ID', SESSION]] })).head.status, 200);
  const after = lines().slice(stopped);
  assert.equal(after.at(-1), 'Idle');
  assert.ok(after.every((line) => line === 'Idle' || line === 'Showing a photo'), after.join(' | '));
});
