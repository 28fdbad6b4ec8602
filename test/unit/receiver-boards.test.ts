// The board table (src/receiver/boards.ts): each board's XS heap where it fits, each profile's
// limits from the board it needs, and picture budgets that hold what they must. The manifest's
// platform sections are checked against the table in test/xs/boards-manifest.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BOARDS, BOARD_LIMITS, PROFILE_BOARDS, boardLimits, pictureBudgetProblems } from '../../src/receiver/boards';
import { DEFAULT_LIMITS } from '../../src/receiver/limits';
import { PROFILES, isProfileName } from '../../src/receiver/profiles';

/** An XS slot on a 32-bit board, in bytes. */
const SLOT_BYTES = 16;
/** Internal RAM an ESP32-S3 leaves the app with Wi-Fi running (boards.ts). */
const INTERNAL_FREE = 300 * 1024;

test('a board whose XS heap does not fit internal RAM says it lives in PSRAM, and has the PSRAM for it', () => {
  for (const board of Object.values(BOARDS)) {
    if (!board.creation) continue;
    const bytes = board.creation.heapSlots * SLOT_BYTES + board.creation.chunkBytes;
    if (bytes > INTERNAL_FREE) assert.ok(board.xsHeapInPsram, `${board.name}: ${bytes} bytes of XS heap in internal RAM`);
    if (board.xsHeapInPsram) assert.ok(bytes < board.psramBytes, `${board.name}: ${bytes} bytes of XS heap exceed its PSRAM`);
  }
});

test('each board row\'s picture budget fits its chunk heap and holds a shown picture and one arriving', () => {
  for (const { board, profile, limits } of BOARD_LIMITS) {
    if (limits.pictureBudgetBytes === undefined) continue; // shows no pictures
    const all = { ...DEFAULT_LIMITS, ...PROFILES[profile].limits, ...limits };
    assert.deepEqual(pictureBudgetProblems(all), [], `${profile} on ${board}`);
    const creation = BOARDS[board].creation;
    // A quarter of a megabyte at least for everything else (the idle frame took 60 KB).
    if (creation) assert.ok(limits.pictureBudgetBytes + 240 * 1024 <= creation.chunkBytes, `${profile} on ${board}: budget ${limits.pictureBudgetBytes} in a ${creation.chunkBytes}-byte chunk heap`);
  }
});

test('each profile of a device takes its memory limits from the board it needs; the photo frame and the speaker need PSRAM', () => {
  for (const [profile, board] of Object.entries(PROFILE_BOARDS) as [keyof typeof PROFILE_BOARDS, keyof typeof BOARDS][]) {
    assert.ok(isProfileName(profile), `${profile} is not a profile`);
    const limits = boardLimits(board, profile);
    assert.ok(limits, `${profile} needs ${board}, which has no row for it`);
    for (const [name, value] of Object.entries(limits)) assert.equal(PROFILES[profile].limits?.[name as keyof typeof limits], value, `${profile}: ${name}`);
  }
  assert.equal(PROFILE_BOARDS['photo-frame'], 'esp32s3-psram-8mb');
  assert.ok(BOARDS[PROFILE_BOARDS['photo-frame']].xsHeapInPsram);
  // Realtime audio is held about 2 s ahead of its playing: the speaker needs PSRAM for it, and
  // without PSRAM its latency is capped where a classic stream was run at those sizes.
  assert.ok(BOARDS[PROFILE_BOARDS.speaker].psramBytes > 0, 'the speaker needs PSRAM');
  assert.equal(PROFILES.speaker.limits?.audioBufferMs, undefined, 'on its board the speaker keeps the default latency');
  assert.equal(boardLimits('esp32s3', 'speaker')?.audioBufferMs, 250);
});

test('a budget that cannot hold a shown picture and one arriving is named, as is a cache larger than the budget', () => {
  assert.deepEqual(pictureBudgetProblems(DEFAULT_LIMITS), []);
  const small = { pictureBudgetBytes: 3 * 1024 * 1024, maxPhotoBytes: 2 * 1024 * 1024, maxReverseBodyBytes: 1024, photoCacheBytes: 4 * 1024 * 1024 };
  assert.deepEqual(pictureBudgetProblems(small), [
    `pictureBudgetBytes ${3 * 1024 * 1024} holds less than a shown picture and one arriving (2 x ${2 * 1024 * 1024})`,
    `photoCacheBytes ${4 * 1024 * 1024} exceeds pictureBudgetBytes ${3 * 1024 * 1024}`,
  ]);
});
