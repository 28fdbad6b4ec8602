// The mpeg4-generic fmtp (RFC 3640 4.1): config= hex read and checked to name AAC-LC or AAC-ELD,
// the AU header lengths read, parameter names in any case with any spacing; malformed ones refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/bytes';
import { AudioDecodeError } from '../../src/audio/decoder';
import { aacConfigFromFmtp, readAacFmtp } from '../../src/audio/aac-fmtp';

const CLASSIC = 'mode=AAC-hbr; config=1210; sizeLength=13; indexLength=3; indexDeltaLength=3; constantDuration=1024';

test("a classic RAOP sender's fmtp gives the config bytes and the AAC-hbr header layout", () => {
  assert.equal(toHex(aacConfigFromFmtp(CLASSIC)), '1210');
  const fmtp = readAacFmtp(CLASSIC);
  assert.equal(fmtp.mode, 'AAC-hbr');
  assert.deepEqual(fmtp.auHeaders, { sizeLength: 13, indexLength: 3, indexDeltaLength: 3 });
  assert.deepEqual(fmtp.aac, { objectType: 'lc', sampleRate: 44100, channels: 2, frameLength: 1024, lowDelaySbr: false });
});

test('names in any case, spaces around them, a trailing semicolon and upper-case hex are read', () => {
  const fmtp = readAacFmtp(' streamtype=5;MODE=AAC-hbr ;CONFIG=F8E85000;SIZELENGTH=13;');
  assert.equal(toHex(fmtp.config), 'f8e85000');
  assert.equal(fmtp.aac.objectType, 'eld');
  assert.deepEqual(fmtp.auHeaders, { sizeLength: 13, indexLength: 0, indexDeltaLength: 0 }, 'lengths not given are 0 (RFC 3640 4.1)');
});

test('an fmtp without config, with config not hex, or naming another object type is refused', () => {
  assert.throws(() => aacConfigFromFmtp('mode=AAC-hbr; sizeLength=13'), (error) => error instanceof AudioDecodeError && /has no config=/.test(error.message));
  assert.throws(() => aacConfigFromFmtp('config=121'), /config '121' is not hex bytes/);
  assert.throws(() => aacConfigFromFmtp('config=12zz'), /not hex bytes/);
  assert.throws(() => aacConfigFromFmtp('config='), /not hex bytes/);
  assert.throws(() => aacConfigFromFmtp(`config=${'12'.repeat(65)}`), /65 bytes, more than 64/);
  assert.throws(() => aacConfigFromFmtp('config=2b10'), /object type 5/, 'HE-AAC');
  assert.throws(() => aacConfigFromFmtp('config=1210; config=1188'), /config given twice/);
  assert.throws(() => aacConfigFromFmtp('config=1210; 13'), /'13' is not name=value/);
  assert.throws(() => readAacFmtp('config=1210; sizeLength=17'), /sizeLength=17 is not 0 to 16/);
  assert.throws(() => readAacFmtp('config=1210; indexLength=x'), /indexLength=x/);
});

test('a mode=AAC-eld fmtp without config implies the ELD config from the rtpmap\'s rate and channels', () => {
  const stream = { sampleRate: 44100, channels: 2 };
  assert.equal(toHex(aacConfigFromFmtp('mode=AAC-eld; constantDuration=480', stream)), 'f8e85000');
  assert.equal(toHex(aacConfigFromFmtp('mode=AAC-eld', stream)), 'f8e85000', '480 frames when constantDuration is not given');
  assert.equal(readAacFmtp('mode=AAC-eld; constantDuration=512', { sampleRate: 48000, channels: 1 }).aac.frameLength, 512);
  assert.throws(() => aacConfigFromFmtp('mode=AAC-eld; constantDuration=480'), /has no config=/, 'without the stream there is nothing to imply');
  assert.throws(() => aacConfigFromFmtp('mode=AAC-hbr; constantDuration=1024', stream), /has no config=/, 'only AAC-eld implies a config');
  assert.throws(() => aacConfigFromFmtp('mode=AAC-eld; constantDuration=1024', stream), /AAC-ELD of 1024 frames per unit: 512 or 480/);
  assert.throws(() => aacConfigFromFmtp('mode=AAC-eld; constantDuration=x', stream), /constantDuration=x is not a frame count/);
  assert.equal(toHex(aacConfigFromFmtp('mode=AAC-eld; config=1210', stream)), '1210', 'a config given wins');
});
