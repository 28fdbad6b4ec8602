// What video requests carry (spec 4.2): POST /play bodies in both forms real senders use, the
// seconds form of the start, the numbers of /scrub and /rate, the CMTime of /setProperty; and
// every way a body can be wrong, each with a reason.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Encode } from '../../src/bytes';
import { encodeBinaryPlist } from '../../src/plist/binary';
import { real, type PlistDict } from '../../src/plist/value';
import { encodeXmlPlistBytes } from '../../src/plist/xml';
import { queryNumber, readEndTime, readPlayRequest, VideoRequestError } from '../../src/receiver/video/video-request';

const URL_MP4 = 'http://192.0.2.7:8080/movies/clip.mp4';
const MAX_URL = 8192;

function refused(run: () => unknown, reason: RegExp): void {
  assert.throws(run, (error: unknown) => error instanceof VideoRequestError && reason.test(error.message));
}

test('text/parameters: Content-Location and Start-Position, as iTunes and npm airplay-protocol send them', () => {
  const asked = readPlayRequest(utf8Encode(`Content-Location: ${URL_MP4}\nStart-Position: 0.174051\n`), MAX_URL);
  assert.deepEqual(asked, { url: URL_MP4, start: { fraction: 0.174051 }, startPaused: false });
});

test('text/parameters: CRLF lines, names in any case, no Start-Position means the beginning', () => {
  const asked = readPlayRequest(utf8Encode(`content-location: ${URL_MP4}\r\n\r\n`), MAX_URL);
  assert.deepEqual(asked, { url: URL_MP4, start: { fraction: 0 }, startPaused: false });
});

test('binary plist: Start-Position-Seconds, the seconds form real senders add, wins over the fraction', () => {
  const body = encodeBinaryPlist({ 'Content-Location': URL_MP4, 'Start-Position': real(0.5), 'Start-Position-Seconds': real(42.5) });
  assert.deepEqual(readPlayRequest(body, MAX_URL), { url: URL_MP4, start: { seconds: 42.5 }, startPaused: false });
});

test('binary plist as pyatv sends it: the session id in the body, Start-Position an integer', () => {
  const body = encodeBinaryPlist({ 'Content-Location': URL_MP4, 'Start-Position': 0, 'X-Apple-Session-ID': 'C6D2B0C2-6A1F-4F06-9E5B-4D0F0D7C1E11' });
  assert.deepEqual(readPlayRequest(body, MAX_URL), { url: URL_MP4, start: { fraction: 0 }, startPaused: false, sessionId: 'C6D2B0C2-6A1F-4F06-9E5B-4D0F0D7C1E11' });
});

test('binary plist rate 0 asks to start paused; XML plists are read too', () => {
  assert.equal(readPlayRequest(encodeBinaryPlist({ 'Content-Location': URL_MP4, rate: real(0) }), MAX_URL).startPaused, true);
  assert.equal(readPlayRequest(encodeBinaryPlist({ 'Content-Location': URL_MP4, rate: real(1) }), MAX_URL).startPaused, false);
  assert.deepEqual(readPlayRequest(encodeXmlPlistBytes({ 'Content-Location': URL_MP4, 'Start-Position': real(1) }), MAX_URL).start, { fraction: 1 });
});

test('bad POST /play bodies are refused with their reason', () => {
  refused(() => readPlayRequest(new Uint8Array(0), MAX_URL), /no body/);
  refused(() => readPlayRequest(utf8Encode('Start-Position: 0.5\n'), MAX_URL), /without Content-Location/);
  refused(() => readPlayRequest(encodeBinaryPlist({ 'Start-Position': real(0.5) }), MAX_URL), /without Content-Location/);
  refused(() => readPlayRequest(utf8Encode(`Content-Location: ${URL_MP4}\nStart-Position: 1.5\n`), MAX_URL), /Start-Position 1.5 is not a fraction from 0 to 1/);
  refused(() => readPlayRequest(utf8Encode(`Content-Location: ${URL_MP4}\nStart-Position: -0.1\n`), MAX_URL), /is not a fraction/);
  refused(() => readPlayRequest(utf8Encode(`Content-Location: ${URL_MP4}\nStart-Position: half\n`), MAX_URL), /Start-Position "half" is not a number/);
  refused(() => readPlayRequest(encodeBinaryPlist({ 'Content-Location': URL_MP4, 'Start-Position-Seconds': real(-3) }), MAX_URL), /not a number of seconds/);
  refused(() => readPlayRequest(encodeBinaryPlist({ 'Content-Location': 7 }), MAX_URL), /Content-Location is the number 7, not a string/);
  refused(() => readPlayRequest(encodeBinaryPlist([URL_MP4]), MAX_URL), /not a dictionary/);
  refused(() => readPlayRequest(utf8Encode('bplist00\x01\x02garbage'), MAX_URL), /not a property list/);
  refused(() => readPlayRequest(utf8Encode('<plist><dict><key>Content-Location</key>'), MAX_URL), /not a property list/);
  refused(() => readPlayRequest(utf8Encode('just some text\n'), MAX_URL), /neither a property list nor text\/parameters/);
});

test('only http and https URLs, within limits.maxVideoUrlBytes, without spaces', () => {
  refused(() => readPlayRequest(utf8Encode('Content-Location: file:///etc/passwd\n'), MAX_URL), /not an http or https URL/);
  refused(() => readPlayRequest(utf8Encode('Content-Location: http:///nohost\n'), MAX_URL), /not an http or https URL/);
  refused(() => readPlayRequest(encodeBinaryPlist({ 'Content-Location': 'http://host/a b.mp4' }), MAX_URL), /space or a control character/);
  const long = `http://192.0.2.7/${'a'.repeat(100)}`;
  refused(() => readPlayRequest(utf8Encode(`Content-Location: ${long}\n`), 64), new RegExp(`is ${long.length} bytes; this receiver takes up to 64 \\(limits.maxVideoUrlBytes\\)`));
  assert.equal(readPlayRequest(utf8Encode('Content-Location: HTTPS://cdn.example/live/master.m3u8?token=a%20b\n'), MAX_URL).url, 'HTTPS://cdn.example/live/master.m3u8?token=a%20b');
});

test('query numbers: decimals as senders write them; missing, empty, hex and words refused', () => {
  assert.equal(queryNumber(new Map([['value', '1.000000']]), 'value'), 1);
  assert.equal(queryNumber(new Map([['position', '12.5']]), 'position'), 12.5);
  assert.equal(queryNumber(new Map([['value', '-2']]), 'value'), -2);
  refused(() => queryNumber(new Map(), 'position'), /no position= in the query/);
  refused(() => queryNumber(new Map([['value', '']]), 'value'), /value "" is not a number/);
  refused(() => queryNumber(new Map([['value', '0x10']]), 'value'), /is not a number/);
  refused(() => queryNumber(new Map([['value', 'Infinity']]), 'value'), /is not a number/);
});

function cmTime(value: number, timescale: number, flags = 1): Uint8Array {
  const time: PlistDict = { epoch: 0, flags, timescale, value };
  return encodeBinaryPlist({ value: time });
}

test('setProperty end times: CMTime value/timescale in seconds; invalid or infinite clears the end', () => {
  assert.equal(readEndTime(cmTime(90_000, 1000)), 90);
  assert.equal(readEndTime(cmTime(45, 2, 3)), 22.5, 'flags valid and rounded');
  assert.equal(readEndTime(cmTime(0, 0, 0)), undefined, 'kCMTimeInvalid');
  assert.equal(readEndTime(cmTime(0, 0, 1 | 4)), undefined, '+infinity');
  assert.equal(readEndTime(cmTime(0, 0, 1 | 16)), undefined, 'indefinite');
  refused(() => readEndTime(cmTime(10, 0)), /timescale 0 is not above 0/);
  refused(() => readEndTime(cmTime(-10, 1)), /before the start/);
  refused(() => readEndTime(encodeBinaryPlist({ value: 5 })), /not a time dictionary/);
  refused(() => readEndTime(encodeBinaryPlist({ value: { flags: 1, timescale: 1 } })), /value has no value/);
  refused(() => readEndTime(utf8Encode('nonsense')), /not a property list/);
});
