// The board table (src/receiver/boards.ts) and the Moddable manifest agree: every ESP32 target a
// board names has a `platforms` section in manifest.json with exactly that board's XS creation
// sizes and no growth, ahead of the `esp32/*` catch-all (mcconfig takes the first section that
// matches), and each profile's limits are those of the board it needs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BOARDS, BOARD_LIMITS, PROFILE_BOARDS, pictureBudgetProblems } from '../../src/receiver/boards';
import { DEFAULT_LIMITS } from '../../src/receiver/limits';
import { PROFILES } from '../../src/receiver/profiles';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Section {
  comment?: string;
  creation?: { chunk?: { initial: number; incremental: number }; heap?: { initial: number; incremental: number } };
}

const platforms = (JSON.parse(readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')) as { platforms: Record<string, Section> }).platforms;

/** mcmanifest.js matchPlatform: the first section, in the manifest's order, that matches the target. */
function sectionFor(target: string): [string, Section] | undefined {
  for (const [name, section] of Object.entries(platforms)) {
    if (name.endsWith('/*') ? target.startsWith(name.slice(0, -1)) : name === target) return [name, section];
  }
  return undefined;
}

test('each ESP32 target of a board gets that board\'s creation sizes, fixed, with a comment saying why', () => {
  for (const board of Object.values(BOARDS)) {
    for (const target of board.targets) {
      const probe = target.endsWith('/*') ? target.replace('*', 'esp32s3') : target;
      const found = sectionFor(probe);
      assert.ok(found, `${board.name}: no platforms section for ${target}`);
      const [name, section] = found;
      assert.equal(name, target, `${board.name}: ${probe} takes the section ${name}, not ${target}`);
      assert.ok(board.creation, `${board.name}: a board target needs creation sizes`);
      assert.deepEqual(section.creation?.heap, { initial: board.creation.heapSlots, incremental: 0 }, `${target}: heap slots`);
      assert.deepEqual(section.creation?.chunk, { initial: board.creation.chunkBytes, incremental: 0 }, `${target}: chunk bytes`);
      assert.match(section.comment ?? '', new RegExp(board.name.replace(/-/g, '-')), `${target}: the comment names ${board.name}`);
    }
  }
});

test('every esp32 section with creation sizes belongs to a board of the table', () => {
  const named = new Set(Object.values(BOARDS).flatMap((board) => board.targets));
  for (const [name, section] of Object.entries(platforms)) {
    if (name.startsWith('esp32') && section.creation) assert.ok(named.has(name), `${name} has creation sizes no board gives`);
  }
});

test('a board whose XS heap does not fit internal RAM says it lives in PSRAM, and has the PSRAM for it', () => {
  const internalFree = 300 * 1024;
  for (const board of Object.values(BOARDS)) {
    if (!board.creation) continue;
    const bytes = board.creation.heapSlots * 16 + board.creation.chunkBytes;
    if (bytes > internalFree) assert.ok(board.xsHeapInPsram, `${board.name}: ${bytes} bytes of XS heap in internal RAM`);
    if (board.xsHeapInPsram) assert.ok(bytes < board.psramBytes, `${board.name}: ${bytes} bytes of XS heap exceed its PSRAM`);
  }
});

test('each board row\'s picture budget fits its chunk heap and holds a shown picture and one arriving', () => {
  for (const { board, profile, limits } of BOARD_LIMITS) {
    const all = { ...DEFAULT_LIMITS, ...PROFILES[profile].limits, ...limits };
    if (limits.pictureBudgetBytes === undefined) continue; // shows no pictures
    assert.deepEqual(pictureBudgetProblems(all), [], `${profile} on ${board}`);
    const creation = BOARDS[board].creation;
    // A quarter of a megabyte at least for everything else (the idle frame took 60 KB).
    if (creation) assert.ok(limits.pictureBudgetBytes + 240 * 1024 <= creation.chunkBytes, `${profile} on ${board}: budget ${limits.pictureBudgetBytes} in a ${creation.chunkBytes}-byte chunk heap`);
  }
});

test('each profile takes its memory limits from the board it needs', () => {
  for (const [profile, board] of Object.entries(PROFILE_BOARDS) as [keyof typeof PROFILE_BOARDS, keyof typeof BOARDS][]) {
    const row = BOARD_LIMITS.find((entry) => entry.board === board && entry.profile === profile);
    assert.ok(row, `${profile} needs ${board}, which has no row for it`);
    for (const [name, value] of Object.entries(row.limits)) assert.equal(PROFILES[profile].limits?.[name as keyof typeof row.limits], value, `${profile}: ${name}`);
  }
  assert.equal(PROFILE_BOARDS['photo-frame'], 'esp32s3-psram-8mb');
  assert.ok(BOARDS[PROFILE_BOARDS['photo-frame']].xsHeapInPsram);
});

test('the desktop defaults hold a shown picture and one arriving too', () => {
  assert.deepEqual(pictureBudgetProblems(DEFAULT_LIMITS), []);
});
