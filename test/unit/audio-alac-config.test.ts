// The ALAC stream's config (src/audio/alac/alac-config.ts): the SDP fmtp line classic RAOP senders
// send, the magic cookie (bare, in its alac atom, as CAF's kuki holds it), and the configs refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex } from '../../src/bytes';
import { AudioDecodeError, alacConfigFromCookie, alacCookie, checkAlacConfig, parseAlacFmtp } from '../../src/audio/alac';
import { alacVectors } from '../kernels/alac-vectors';

const RAOP = { frameLength: 352, compatibleVersion: 0, bitDepth: 16, pb: 40, mb: 10, kb: 14, numChannels: 2, maxRun: 255, maxFrameBytes: 0, avgBitRate: 0, sampleRate: 44100 };

test('parseAlacFmtp reads the SDP fmtp parameters of classic RAOP senders in the cookie order', () => {
  assert.deepEqual(parseAlacFmtp('352 0 16 40 10 14 2 255 0 0 44100'), RAOP);
  assert.deepEqual(parseAlacFmtp(' 4096  0 24 40 10 14 1 255 8192 1000 48000 '), { ...RAOP, frameLength: 4096, bitDepth: 24, numChannels: 1, maxFrameBytes: 8192, avgBitRate: 1000, sampleRate: 48000 });
});

test('parseAlacFmtp refuses a wrong count, a word that is not an unsigned number, a value too large for its field, and a depth, length or channel count it cannot decode', () => {
  const refused = (fmtp: string, words: RegExp) => assert.throws(() => parseAlacFmtp(fmtp), (error: unknown) => error instanceof AudioDecodeError && words.test(error.message), fmtp);
  refused('96 352 0 16 40 10 14 2 255 0 0 44100', /12 parameters, expected 11/);
  refused('352 0 16 40 10 14 2 255 0 0', /10 parameters/);
  refused('352 0 16 40 10 14 2 255 0 0 -1', /sampleRate "-1"/);
  refused('352 0 16 40 10 14 2 255 0 0 4.41e4', /sampleRate "4.41e4"/);
  refused('352 0 16 40 10 14 2 65536 0 0 44100', /maxRun "65536" is not a 16-bit/);
  refused('352 0 16 256 10 14 2 255 0 0 44100', /pb "256"/);
  refused('352 0 32 40 10 14 2 255 0 0 44100', /bit depth 32/);
  refused('352 0 8 40 10 14 2 255 0 0 44100', /bit depth 8/);
  refused('352 0 16 40 10 14 9 255 0 0 44100', /channel count 9/);
  refused('352 0 16 40 10 14 0 255 0 0 44100', /channel count 0/);
  refused('0 0 16 40 10 14 2 255 0 0 44100', /frame length 0/);
  refused('16385 0 16 40 10 14 2 255 0 0 44100', /frame length 16385/);
});

test('alacConfigFromCookie reads the bare 24-byte config, the alac atom, and CAF\'s frma + alac cookie; alacCookie writes the bare one', () => {
  const bare = alacCookie(RAOP);
  assert.equal(bare.length, 24);
  assert.deepEqual(alacConfigFromCookie(bare), RAOP);
  const atom = new Uint8Array(36);
  atom.set([0, 0, 0, 36, 0x61, 0x6c, 0x61, 0x63, 0, 0, 0, 0]);
  atom.set(bare, 12);
  assert.deepEqual(alacConfigFromCookie(atom), RAOP);
  for (const vector of alacVectors.cases) assert.deepEqual(alacConfigFromCookie(fromHex(vector.cookie)), vector.config, vector.name); // ffmpeg's kuki chunks
  assert.throws(() => alacConfigFromCookie(bare.subarray(0, 23)), (error: unknown) => error instanceof AudioDecodeError && /23 left for its 24-byte config/.test(error.message));
  assert.throws(() => alacConfigFromCookie(alacCookie({ ...RAOP, bitDepth: 32 })), AudioDecodeError);
});

test('checkAlacConfig takes kb 0 (ffmpeg writes pb, mb and kb 0 for streams it writes verbatim) and 20-bit streams', () => {
  assert.equal(checkAlacConfig({ ...RAOP, pb: 0, mb: 0, kb: 0 }).kb, 0);
  assert.equal(checkAlacConfig({ ...RAOP, bitDepth: 20 }).bitDepth, 20);
});
