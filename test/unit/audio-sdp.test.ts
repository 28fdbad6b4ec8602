// The ANNOUNCE body read into the stream's format: pyatv's exact body (L16 with an ALAC-shaped
// fmtp), iTunes' AppleLossless, AAC, latencies; encrypted streams and garbage refused naming the line.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SdpError, readAnnounceSdp } from '../../src/audio/sdp';

/** pyatv 0.14.5's ANNOUNCE_PAYLOAD (support/rtsp.py) for 16-bit stereo at 44100 Hz. */
const PYATV_BODY =
  'v=0\r\n' +
  'o=iTunes 3735928559 0 IN IP4 127.0.0.1\r\n' +
  's=iTunes\r\n' +
  'c=IN IP4 127.0.0.1\r\n' +
  't=0 0\r\n' +
  'm=audio 0 RTP/AVP 96\r\n' +
  'a=rtpmap:96 L16/44100/2\r\n' +
  'a=fmtp:96 352 0 16 40 10 14 2 255 0 0 44100\r\n';

test('pyatv\'s body is 16-bit stereo PCM at 44100 Hz, 352 frames a packet', () => {
  assert.deepEqual(readAnnounceSdp(PYATV_BODY), {
    codec: 'pcm',
    sampleRate: 44100,
    channels: 2,
    bitsPerSample: 16,
    framesPerPacket: 352,
    fmtp: '352 0 16 40 10 14 2 255 0 0 44100',
  });
});

test('AppleLossless takes everything from its fmtp and keeps it for the ALAC decoder; bare LF lines too', () => {
  const body = PYATV_BODY.replace('L16/44100/2', 'AppleLossless').replace('352 0 16 40 10 14 2 255 0 0 44100', '4096 0 24 40 10 14 1 255 0 0 48000').replace(/\r\n/g, '\n');
  assert.deepEqual(readAnnounceSdp(body), { codec: 'alac', sampleRate: 48000, channels: 1, bitsPerSample: 24, framesPerPacket: 4096, fmtp: '4096 0 24 40 10 14 1 255 0 0 48000' });
});

test('AAC is read as 1024 frames a packet; latencies where given', () => {
  const body = 'v=0\r\nm=audio 0 RTP/AVP 96\r\na=rtpmap:96 mpeg4-generic/44100/2\r\na=fmtp:96 mode=AAC-hbr; sizelength=13\r\na=min-latency:11025\r\na=max-latency:88200\r\n';
  assert.deepEqual(readAnnounceSdp(body), {
    codec: 'aac',
    sampleRate: 44100,
    channels: 2,
    bitsPerSample: 16,
    framesPerPacket: 1024,
    fmtp: 'mode=AAC-hbr; sizelength=13',
    minLatencyFrames: 11025,
    maxLatencyFrames: 88200,
  });
});

test('an encrypted stream (a=rsaaeskey, a=aesiv) is refused as such', () => {
  assert.throws(() => readAnnounceSdp(PYATV_BODY + 'a=rsaaeskey:AAAA\r\na=aesiv:BBBB\r\n'), (error) => error instanceof SdpError && /a=rsaaeskey.*encrypted stream \(et=1\)/.test(error.message));
  assert.throws(() => readAnnounceSdp(PYATV_BODY + 'a=aesiv:BBBB\r\n'), /a=aesiv/);
});

test('garbage is refused naming the line', () => {
  const cases: [string, RegExp][] = [
    [PYATV_BODY.replace('t=0 0', 'what is this'), /line 'what is this' is not 'type=value'/],
    [PYATV_BODY.replace('m=audio 0 RTP/AVP 96', 'm=video 0 RTP/AVP 96'), /'m=video 0 RTP\/AVP 96': media 'video'/],
    [PYATV_BODY.replace('L16/44100/2', 'opus/48000/2'), /'a=rtpmap:96 opus\/48000\/2': encoding 'opus'/],
    [PYATV_BODY.replace('L16/44100/2', 'L16/fast/2'), /clock rate 'fast' is not a number/],
    [PYATV_BODY.replace('L16/44100/2', 'L16/44100/99'), /channels 99 is outside 1 to 8/],
    [PYATV_BODY.replace('a=rtpmap:96', 'a=rtpmap:97'), /'a=rtpmap:97 L16\/44100\/2': payload type is not the media line's \(96\)/],
    [PYATV_BODY.replace('a=fmtp:96 352', 'a=fmtp:96 99999'), /frames per packet 99999 is outside/],
    [PYATV_BODY.replace('L16/44100/2', 'AppleLossless').replace(' 44100\r\n', '\r\n'), /'a=fmtp:96 352 0 16 40 10 14 2 255 0 0': .*10 parameters, expected 11/],
    ['v=0\r\n', /without an m=audio line/],
    ['v=0\r\nm=audio 0 RTP/AVP 96\r\n', /without a=rtpmap for payload type 96/],
    [PYATV_BODY + 'a=min-latency:9\r\na=max-latency:3\r\n', /min-latency 9 is above max-latency 3/],
  ];
  for (const [body, reason] of cases) assert.throws(() => readAnnounceSdp(body), (error) => error instanceof SdpError && reason.test(error.message), `${reason}`);
});
