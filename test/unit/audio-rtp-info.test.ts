// RTP-Info of RECORD and FLUSH: seq and rtptime as pyatv sends them, other parameters passed
// over, numbers out of their field's range refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtpInfoError, readRtpInfo, writeRtpInfo } from '../../src/audio/rtp-info';

test('RTP-Info: seq and rtptime of RECORD and FLUSH, pyatv\'s shape written back', () => {
  assert.deepEqual(readRtpInfo('seq=4660;rtptime=4294967295'), { seq: 4660, rtptime: 4294967295 });
  assert.deepEqual(readRtpInfo('rtptime=12'), { rtptime: 12 });
  assert.deepEqual(readRtpInfo('url=rtsp://x/1; seq=1'), { seq: 1 });
  assert.equal(writeRtpInfo({ seq: 0x12345, rtptime: -1 }), 'seq=9029;rtptime=4294967295', 'fields wrap as on the wire');
  assert.throws(() => readRtpInfo('seq=65536;rtptime=1'), (error) => error instanceof RtpInfoError && /seq=65536/.test(error.message));
  assert.throws(() => readRtpInfo('rtptime=-3'), /rtptime=-3/);
  assert.throws(() => readRtpInfo('nothing'), /names neither seq nor rtptime/);
});
