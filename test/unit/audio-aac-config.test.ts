// The AudioSpecificConfig reader and writer: AAC-LC and AAC-ELD configs read into rate, channels
// and frame length; every other object type, reserved rates and channel configuration 0 refused;
// the configs a session stream implies written byte for byte.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/bytes';
import { AudioDecodeError } from '../../src/audio/decoder';
import { aacConfigBytes, readAacConfig } from '../../src/audio/aac-config';

test('AAC-LC configs are read: 44.1 kHz stereo, 48 kHz mono, the 960-frame flag, an explicit rate', () => {
  assert.deepEqual(readAacConfig(fromHex('1210')), { objectType: 'lc', sampleRate: 44100, channels: 2, frameLength: 1024, lowDelaySbr: false });
  assert.deepEqual(readAacConfig(fromHex('1188')), { objectType: 'lc', sampleRate: 48000, channels: 1, frameLength: 1024, lowDelaySbr: false });
  assert.deepEqual(readAacConfig(fromHex('1214')), { objectType: 'lc', sampleRate: 44100, channels: 2, frameLength: 960, lowDelaySbr: false });
  // Index 15, then 24 bits of rate (44100 = 0x00ac44), then channel configuration 2.
  assert.deepEqual(readAacConfig(fromHex('1780562210')), { objectType: 'lc', sampleRate: 44100, channels: 2, frameLength: 1024, lowDelaySbr: false });
  assert.equal(readAacConfig(fromHex('13b8')).channels, 8, 'channel configuration 7 is 8 channels');
});

test('AAC-ELD configs are read through the object type escape, with frame length and low-delay SBR', () => {
  assert.deepEqual(readAacConfig(fromHex('f8e85000')), { objectType: 'eld', sampleRate: 44100, channels: 2, frameLength: 480, lowDelaySbr: false });
  assert.deepEqual(readAacConfig(fromHex('f8e84000')), { objectType: 'eld', sampleRate: 44100, channels: 2, frameLength: 512, lowDelaySbr: false });
  assert.equal(readAacConfig(fromHex('f8e85100')).lowDelaySbr, true);
});

test('other object types, reserved rates, channel configuration 0 and short configs are refused', () => {
  assert.throws(() => readAacConfig(fromHex('2b10')), (error) => error instanceof AudioDecodeError && /object type 5; AAC-LC \(2\) and AAC-ELD \(39\)/.test(error.message), 'HE-AAC (SBR, type 5)');
  assert.throws(() => readAacConfig(fromHex('0a10')), /object type 1;/, 'AAC Main');
  assert.throws(() => readAacConfig(fromHex('f8c85000')), /object type 38;/, 'the escape read: 32 + 6');
  assert.throws(() => readAacConfig(fromHex('1690')), /sampling frequency index 13 is reserved/);
  assert.throws(() => readAacConfig(fromHex('1200')), /channel configuration 0; 1 to 7/);
  assert.throws(() => readAacConfig(fromHex('12')), /AAC config of 1 bytes ends inside its fields/);
  assert.throws(() => readAacConfig(new Uint8Array(0)), AudioDecodeError);
  assert.throws(() => readAacConfig(fromHex('f8e8')), /ends inside/, 'ELD cut before its specific config');
});

test('the configs a stream naming only its codec implies are written byte for byte, and read back', () => {
  assert.equal(toHex(aacConfigBytes({ objectType: 'lc', sampleRate: 44100, channels: 2, frameLength: 1024 })), '1210');
  assert.equal(toHex(aacConfigBytes({ objectType: 'eld', sampleRate: 44100, channels: 2, frameLength: 480 })), 'f8e85000');
  assert.equal(toHex(aacConfigBytes({ objectType: 'lc', sampleRate: 48000, channels: 1, frameLength: 960 })), '118c');
  const odd = aacConfigBytes({ objectType: 'lc', sampleRate: 44000, channels: 8, frameLength: 1024 });
  assert.deepEqual(readAacConfig(odd), { objectType: 'lc', sampleRate: 44000, channels: 8, frameLength: 1024, lowDelaySbr: false });
  assert.throws(() => aacConfigBytes({ objectType: 'eld', sampleRate: 44100, channels: 2, frameLength: 1024 }), /AAC-ELD of 1024 frames per unit: 512 or 480/);
  assert.throws(() => aacConfigBytes({ objectType: 'lc', sampleRate: 44100, channels: 7, frameLength: 1024 }), /7 channels/);
  assert.throws(() => aacConfigBytes({ objectType: 'lc', sampleRate: 0, channels: 2, frameLength: 1024 }), /at 0 Hz/);
});
