// A session's type 96 stream as its SETUP asks for it (src/receiver/audio/realtime-stream-ask.ts):
// pyatv's dictionary read, and each wrong or unserved value refused with the status and words
// that say which.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PlistDict } from '../../src/plist';
import { readRealtimeStreamAsk } from '../../src/receiver/audio/realtime-stream-ask';
import { SessionRequestError } from '../../src/receiver/session/session-setup';

const KEY = new Uint8Array(32).map((_, i) => i);
/** What pyatv 0.14.5 sends (airplayv2.py setup): its keys and types. */
const PYATV: PlistDict = { type: 96, ct: 1, audioFormat: 0x800, audioMode: 'default', controlPort: 50_123, isMedia: true, latencyMax: 88200, latencyMin: 11025, shk: KEY, spf: 352, sr: 44100, supportsDynamicStreamID: false, streamConnectionID: 3100774347n };
/** limits.audioBufferMs's default: 132300 frames at 44.1 kHz. */
const BUFFER_MS = 3000;
const BUFFER_FRAMES = 132_300;

function refusal(fields: PlistDict): { status: number; message: string; phrase?: string } {
  try {
    readRealtimeStreamAsk(fields, BUFFER_MS);
  } catch (error) {
    assert.ok(error instanceof SessionRequestError, String(error));
    return { status: error.status, message: error.message, ...(error.phrase !== undefined ? { phrase: error.phrase } : {}) };
  }
  assert.fail('taken');
}

test("pyatv's stream dictionary is read: PCM at 44.1 kHz, 352 frames a packet, its key and ports", () => {
  const ask = readRealtimeStreamAsk(PYATV, BUFFER_MS);
  assert.deepEqual(ask, { codec: 'pcm', sampleRate: 44100, framesPerPacket: 352, sharedKey: KEY, senderControlPort: 50_123, latencyMinFrames: 11025, latencyMaxFrames: 88200 });
  assert.notEqual(ask.sharedKey, KEY, 'the key is copied: the caller may wipe its plist');
  assert.equal(readRealtimeStreamAsk({ ...PYATV, ct: 2 }, BUFFER_MS).codec, 'alac');
  assert.equal(readRealtimeStreamAsk({ ...PYATV, sr: 48000, latencyMin: undefined as never }, BUFFER_MS).latencyMinFrames, undefined);
});

test('formats not decoded here are 501 with a phrase a sender shows its user', () => {
  assert.deepEqual(refusal({ ...PYATV, ct: 4 }), { status: 501, message: 'SETUP: stream type 96 with ct 4 (AAC-LC): this receiver decodes PCM (1), ALAC (2)', phrase: 'Audio Format Not Served' });
  assert.deepEqual(refusal({ ...PYATV, ct: 64 }).message, 'SETUP: stream type 96 with ct 64 (unknown): this receiver decodes PCM (1), ALAC (2)');
  // Where the host decodes AAC (libavcodec), ct 4 is taken; AAC-ELD (ct 8) is not served anywhere.
  assert.equal(readRealtimeStreamAsk({ ...PYATV, ct: 4, spf: 1024 }, BUFFER_MS, ['pcm', 'alac', 'aac']).codec, 'aac');
  assert.equal(refusal({ ...PYATV, ct: 8 }).message, 'SETUP: stream type 96 with ct 8 (AAC-ELD): this receiver decodes PCM (1), ALAC (2)');
  assert.deepEqual(refusal({ ...PYATV, sr: 22050 }), { status: 501, message: 'SETUP: stream type 96 at 22050 Hz: this receiver plays 44100 and 48000 Hz', phrase: 'Audio Format Not Served' });
});

test('missing, mistyped and absurd values are 400 naming the key', () => {
  const { ct: _ct, ...withoutCt } = PYATV;
  assert.deepEqual(refusal(withoutCt), { status: 400, message: 'SETUP: stream type 96 without ct' });
  assert.equal(refusal({ ...PYATV, spf: 'many' }).message, 'SETUP: stream type 96 spf is a string, not an integer');
  assert.equal(refusal({ ...PYATV, spf: 0 }).message, 'SETUP: stream type 96 spf 0 is outside 1 to 4096');
  assert.equal(refusal({ ...PYATV, controlPort: 70_000 }).message, 'SETUP: stream type 96 controlPort 70000 is outside 1 to 65535');
  assert.equal(refusal({ ...PYATV, shk: undefined as never }).message, 'SETUP: stream type 96 without shk (its key): this receiver plays encrypted realtime streams');
  assert.equal(refusal({ ...PYATV, shk: 'key' }).message, 'SETUP: stream type 96 shk is a string, not data: this receiver plays encrypted realtime streams');
  assert.equal(refusal({ ...PYATV, shk: new Uint8Array(16) }).message, 'SETUP: stream type 96 shk is 16 bytes, not 32');
  assert.equal(refusal({ ...PYATV, latencyMin: 90_000, latencyMax: 80_000 }).message, 'SETUP: stream type 96 latencyMin 90000 is above latencyMax 80000');
  assert.equal(refusal({ ...PYATV, latencyMin: 200_000, latencyMax: 400_000 }).message, `SETUP: stream type 96 latencyMin 200000 frames is more than this receiver buffers (${BUFFER_FRAMES} frames, limits.audioBufferMs)`);
});
