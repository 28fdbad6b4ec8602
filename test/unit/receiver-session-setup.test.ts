// Reading SETUP bodies: a session's sender facts with their types, streams by type, and each
// way a body can be wrong refused with the status and the key named.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBinaryPlist } from '../../src/plist';
import { SessionRequestError, describeStreamType, parseSetup } from '../../src/receiver/session/session-setup';

const SESSION = { deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: 'B0E1C7A2-0000-4000-8000-000000000001', timingProtocol: 'NTP', timingPort: 49_152 };

function refusal(body: Uint8Array): SessionRequestError {
  try {
    parseSetup(body);
  } catch (error) {
    if (error instanceof SessionRequestError) return error;
    throw error;
  }
  assert.fail('accepted');
}

test("a session's facts: required keys, optional ones, booleans defaulting to false, integers as bigints too", () => {
  const setup = parseSetup(encodeBinaryPlist({ ...SESSION, timingPort: 49_152n, name: 'Kitchen iPad', model: 'iPad13,1', isRemoteControlOnly: true, groupUUID: 'G', unknownKey: [1, 2] }));
  assert.equal(setup.kind, 'session');
  if (setup.kind !== 'session') return;
  assert.deepEqual(setup.sender, {
    deviceId: 'AA:BB:CC:DD:EE:FF',
    sessionUuid: 'B0E1C7A2-0000-4000-8000-000000000001',
    timingProtocol: 'NTP',
    timingPort: 49_152,
    name: 'Kitchen iPad',
    model: 'iPad13,1',
    macAddress: undefined,
    osName: undefined,
    osVersion: undefined,
    sourceVersion: undefined,
    groupUuid: 'G',
    groupContainsGroupLeader: false,
    isRemoteControlOnly: true,
  });
});

test('streams: each with its type and fields; named in words', () => {
  const setup = parseSetup(encodeBinaryPlist({ streams: [{ type: 96, ct: 2, spf: 352 }, { type: 130, seed: 5 }] }));
  assert.equal(setup.kind, 'streams');
  if (setup.kind !== 'streams') return;
  assert.deepEqual(setup.streams.map((stream) => stream.type), [96, 130]);
  assert.equal(setup.streams[0].fields.ct, 2);
  assert.equal(describeStreamType(103), 'type 103 (buffered audio)');
  assert.equal(describeStreamType(7), 'type 7 (unknown)');
});

test('every wrong body is a 400 naming what is wrong; FairPlay keys a 501', () => {
  const cases: [unknown, RegExp, number?][] = [
    [{ ...SESSION, sessionUUID: 7 }, /sessionUUID is a integer|sessionUUID is an integer/],
    [{ ...SESSION, timingPort: 0 }, /timingPort 0 is not a UDP port/],
    [{ ...SESSION, timingPort: 1.5 }, /timingPort is a real, not an integer/],
    [{ ...SESSION, deviceID: '' }, /deviceID is 0 characters/],
    [{ streams: 'all' }, /streams is a string, not an array/],
    [{ streams: [] }, /streams is empty/],
    [{ streams: new Array(9).fill({ type: 96 }) }, /9 streams \(at most 8\)/],
    [{ streams: [5] }, /streams\[0\] is a integer, not a dictionary|streams\[0\] is an integer/],
    [{ ...SESSION, ekey: new Uint8Array(4) }, /ekey present/, 501],
  ];
  for (const [body, reason, status = 400] of cases) {
    const error = refusal(encodeBinaryPlist(body as never));
    assert.equal(error.status, status, String(reason));
    assert.match(error.message, reason);
  }
  assert.match(refusal(new Uint8Array([1, 2, 3])).message, /not a binary property list/);
  assert.match(refusal(new Uint8Array(0)).message, /without a body/);
});
