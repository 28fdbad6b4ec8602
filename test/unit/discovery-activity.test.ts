// Activity of spec 2.1: the state-dependent TXT fields row by row, gid changes, and version 4 UUIDs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVITY_TABLE, activityFields, activityRow, changeActivity, type Activity } from '../../src/discovery/index';
import { isUuid, uuidFromBytes } from '../../src/uuid';

const GID = '11111111-2222-4333-8444-555555555555';

function uuidSource(): () => string {
  let n = 0;
  return () => {
    n++;
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  };
}

test('the activity table is spec 2.1 row by row', () => {
  // [activity, igl, gcgl, pgid present, pgcgl (null = absent), flag bit 17]
  const expected: [Activity, boolean, boolean, boolean, boolean | null, boolean][] = [
    ['idle', true, true, false, null, false],
    ['playingLocalMedia', true, true, false, null, false],
    ['receivingAudio', false, false, true, false, true],
    ['receivingVideo', false, false, true, false, true],
    ['receivingScreenMirroring', true, true, false, null, true],
  ];
  assert.deepEqual(
    ACTIVITY_TABLE.map((row) => [row.activity, row.igl, row.gcgl, row.pgid, row.pgcgl, row.receiverSessionIsActive]),
    expected,
  );
  assert.deepEqual(
    ACTIVITY_TABLE.map((row) => row.description),
    ['idle', 'playing local media', 'receiving audio', 'receiving video', 'receiving screen mirroring'],
  );
});

test('activityRow finds each row', () => {
  for (const row of ACTIVITY_TABLE) assert.equal(activityRow(row.activity), row);
});

test('idle and playing local media: igl and gcgl 1, no parent group, session flag clear', () => {
  for (const activity of ['idle', 'playingLocalMedia'] as const) {
    assert.deepEqual(activityFields({ activity, gid: GID }), {
      gid: GID,
      igl: true,
      gcgl: true,
      receiverSessionIsActive: false,
    });
  }
});

test('receiving audio or video: igl and gcgl 0, pgid equal to gid, pgcgl 0, session flag set', () => {
  for (const activity of ['receivingAudio', 'receivingVideo'] as const) {
    assert.deepEqual(activityFields({ activity, gid: GID }), {
      gid: GID,
      igl: false,
      gcgl: false,
      pgid: GID,
      pgcgl: false,
      receiverSessionIsActive: true,
    });
  }
});

test('receiving screen mirroring: igl and gcgl 1, no parent group, session flag set', () => {
  assert.deepEqual(activityFields({ activity: 'receivingScreenMirroring', gid: GID }), {
    gid: GID,
    igl: true,
    gcgl: true,
    receiverSessionIsActive: true,
  });
});

test('changing activity takes a new gid; staying keeps it', () => {
  const next = uuidSource();
  const idle = { activity: 'idle' as const, gid: GID };
  assert.equal(changeActivity(idle, 'idle', next), idle);
  const audio = changeActivity(idle, 'receivingAudio', next);
  assert.deepEqual(audio, { activity: 'receivingAudio', gid: '00000000-0000-4000-8000-000000000001' });
  assert.equal(changeActivity(audio, 'receivingAudio', next), audio);
  const back = changeActivity(audio, 'idle', next);
  assert.deepEqual(back, { activity: 'idle', gid: '00000000-0000-4000-8000-000000000002' });
  assert.equal(activityFields(audio).pgid, audio.gid);
});

test('a source that repeats the current gid is drawn again', () => {
  const values = [GID, '00000000-0000-4000-8000-0000000000aa'];
  const state = changeActivity({ activity: 'idle', gid: GID }, 'receivingVideo', () => values.shift() ?? '');
  assert.equal(state.gid, '00000000-0000-4000-8000-0000000000aa');
});

test('uuidFromBytes writes a version 4 UUID in RFC 9562 form', () => {
  assert.equal(uuidFromBytes(new Uint8Array(16)), '00000000-0000-4000-8000-000000000000');
  assert.equal(uuidFromBytes(new Uint8Array(16).fill(0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
  const counting = Uint8Array.from({ length: 16 }, (_, i) => i);
  assert.equal(uuidFromBytes(counting), '00010203-0405-4607-8809-0a0b0c0d0e0f');
  assert.equal(counting[6], 6, 'the input is not modified');
  assert.equal(isUuid(uuidFromBytes(counting)), true);
});

test('uuidFromBytes wants exactly 16 bytes', () => {
  let caught: unknown = undefined;
  try {
    uuidFromBytes(new Uint8Array(15));
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof Error);
  assert.match((caught as Error).message, /need 16 random bytes, got 15/);
});

test('isUuid accepts either case and rejects other shapes', () => {
  assert.equal(isUuid('3008B5C8-9BD3-4479-A564-90BFB3D780C0'), true);
  assert.equal(isUuid('3008b5c8-9bd3-4479-a564-90bfb3d780c0'), true);
  assert.equal(isUuid('3008b5c89bd34479a56490bfb3d780c0'), false);
  assert.equal(isUuid('3008b5c8-9bd3-4479-a564-90bfb3d780c'), false);
  assert.equal(isUuid(''), false);
});
