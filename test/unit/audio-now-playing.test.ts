// What plays (src/audio/now-playing.ts): DMAP metadata, artwork and the `progress` parameter
// each change their own part of NowPlaying; progress in seconds across the RTP clock's wrap.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressError, artworkType, nowPlayingSeconds, readProgress, withArtwork, withMetadata, withProgress } from '../../src/audio/now-playing';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);

test('metadata, artwork and progress each change their own part and keep the others', () => {
  let playing = withMetadata(undefined, { title: 'Song', artist: 'Band', album: 'Record', trackNumber: 3 });
  playing = withArtwork(playing, 'image/jpeg', JPEG);
  playing = withProgress(playing, '1000/1000/442000', 44100);
  playing = withMetadata(playing, { title: 'Next song' });
  assert.deepEqual(playing, {
    title: 'Next song',
    artist: 'Band',
    album: 'Record',
    artwork: { mime: 'image/jpeg', bytes: JPEG },
    progress: { startRtp: 1000, currentRtp: 1000, endRtp: 442000, sampleRate: 44100 },
  });
});

test('an empty artwork body takes the artwork away', () => {
  const playing = withArtwork(withArtwork({ title: 'Song' }, 'image/png', JPEG), 'image/jpeg', new Uint8Array(0));
  assert.deepEqual(playing, { title: 'Song' });
});

test('artwork types: jpeg and png, parameters and case aside; anything else none', () => {
  assert.equal(artworkType('image/jpeg'), 'image/jpeg');
  assert.equal(artworkType('Image/PNG; name=cover'), 'image/png');
  assert.equal(artworkType('image/none'), undefined);
  assert.equal(artworkType('application/x-dmap-tagged'), undefined);
});

test('pyatv\'s progress (start/now/end, end a float when the duration is one) reads as RTP times', () => {
  assert.deepEqual(readProgress('1146221540/1146221540/1195701740.0'), { startRtp: 1146221540, currentRtp: 1146221540, endRtp: 1195701740 });
  assert.deepEqual(readProgress(' 1/2/3\r\n'), { startRtp: 1, currentRtp: 2, endRtp: 3 });
});

test('progress that is not three RTP times is refused saying what it is', () => {
  assert.throws(() => readProgress('1/2'), { name: 'ProgressError', message: "progress '1/2' is not START/CURRENT/END" });
  assert.throws(() => readProgress('1/-2/3'), (error: unknown) => error instanceof ProgressError && error.message === "progress '1/-2/3': '-2' is not an RTP time");
});

test('seconds elapsed and the duration, from the sent current time or a newer one', () => {
  const progress = { startRtp: 44100, currentRtp: 88200, endRtp: 44100 * 181, sampleRate: 44100 };
  assert.deepEqual(nowPlayingSeconds(progress), { elapsed: 1, duration: 180 });
  assert.deepEqual(nowPlayingSeconds(progress, 44100 * 91), { elapsed: 90, duration: 180 });
});

test('a track across the RTP clock\'s wrap counts modulo 2^32', () => {
  const start = 0x100000000 - 44100;
  const progress = { startRtp: start, currentRtp: 44100, endRtp: 44100 * 9, sampleRate: 44100 };
  assert.deepEqual(nowPlayingSeconds(progress), { elapsed: 2, duration: 10 });
});

test('before the start reads as 0, past the end as the end', () => {
  const progress = { startRtp: 1000, currentRtp: 1000, endRtp: 1000 + 48000 * 60, sampleRate: 48000 };
  assert.deepEqual(nowPlayingSeconds(progress, 990), { elapsed: 0, duration: 60 });
  assert.deepEqual(nowPlayingSeconds(progress, 1000 + 48000 * 61), { elapsed: 60, duration: 60 });
});
