// The mirroring listener's records: GET /stream.xml from the display's geometry (spec 2.12) and
// the POST /stream plist's checks (spec 2.13): required keys and types, DRM keys refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBinaryPlist, encodeXmlPlist, type PlistDict } from '../../src/plist';
import { parseStreamRequest, streamCapabilities, StreamRequestError, STREAM_REQUEST_REQUIRED } from '../../src/mirror/stream-request';

const GOOD_STREAM_REQUEST: PlistDict = {
  deviceID: 181221086727016,
  sessionID: -808788724,
  version: '130.16',
  latencyMs: 90,
  fpsInfo: [{ name: 'SubS' }, { name: 'B4En' }],
  timestampInfo: [{ name: 'SubSu' }],
};

test('stream.xml says the display: height, width, overscanned, refreshRate as a real, version', () => {
  const xml = encodeXmlPlist(streamCapabilities({ width: 1280, height: 720, refreshRate: 1 / 60, overscanned: true }, '220.68'));
  assert.match(xml, /<key>height<\/key>\s*<integer>720<\/integer>/);
  assert.match(xml, /<key>width<\/key>\s*<integer>1280<\/integer>/);
  assert.match(xml, /<key>overscanned<\/key>\s*<true\/>/);
  assert.match(xml, /<key>refreshRate<\/key>\s*<real>0\.01666666666666666/);
  assert.match(xml, /<key>version<\/key>\s*<string>220\.68<\/string>/);
});

test('a complete request is read', () => {
  const request = parseStreamRequest(encodeBinaryPlist(GOOD_STREAM_REQUEST));
  assert.equal(request.deviceId, 181221086727016n);
  assert.equal(request.sessionId, -808788724n);
  assert.equal(request.latencyMs, 90);
  assert.deepEqual(request.fpsInfo, ['SubS', 'B4En']);
});

function refusal(plist: PlistDict | Uint8Array): StreamRequestError {
  try {
    parseStreamRequest(plist instanceof Uint8Array ? plist : encodeBinaryPlist(plist));
  } catch (error) {
    if (error instanceof StreamRequestError) return error;
    throw error;
  }
  throw new Error('accepted');
}

test('each required key missing is named (400)', () => {
  for (const [key] of STREAM_REQUEST_REQUIRED) {
    const plist = { ...GOOD_STREAM_REQUEST };
    delete plist[key];
    const error = refusal(plist);
    assert.equal(error.status, 400);
    assert.match(error.message, new RegExp(`required key ${key} missing`));
  }
});

test('wrong types and bodies are refused with what was found (400)', () => {
  assert.match(refusal({ ...GOOD_STREAM_REQUEST, version: 130 }).message, /version is a integer, not a string|version is a integer/);
  assert.match(refusal({ ...GOOD_STREAM_REQUEST, sessionID: 'x' }).message, /sessionID is a string, not an integer/);
  assert.match(refusal({ ...GOOD_STREAM_REQUEST, fpsInfo: [1] }).message, /fpsInfo\[0\] is not a dictionary with a name/);
  assert.match(refusal({ ...GOOD_STREAM_REQUEST, latencyMs: -1 }).message, /latencyMs -1 is not 0 to 60000/);
  assert.match(refusal(Uint8Array.of(1, 2, 3)).message, /not a binary property list/);
  assert.match(refusal(encodeBinaryPlist([1])).message, /is a array, not a dictionary|not a dictionary/);
});

test('param1/param2 (video encrypted with a DRM scheme the spec does not show) are refused with 501', () => {
  const error = refusal({ ...GOOD_STREAM_REQUEST, param1: new Uint8Array(72), param2: new Uint8Array(16) });
  assert.equal(error.status, 501);
  assert.match(error.message, /param1 and param2 present: the video is encrypted with a DRM scheme/);
});
