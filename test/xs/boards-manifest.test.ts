// The board table (src/receiver/boards.ts) and the Moddable manifest agree: every ESP32 target a
// board names has a `platforms` section in manifest.json with exactly that board's XS creation
// sizes and no growth, ahead of the `esp32/*` catch-all (mcconfig takes the first section that
// matches). The table's own checks are portable: test/unit/receiver-boards.test.ts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BOARDS } from '../../src/receiver/boards';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Section {
  comment?: string;
  config?: { board?: string };
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
      assert.equal(section.config?.board, board.name, `${target}: config board names its row, so the profile takes that board's limits`);
    }
  }
});

test('every esp32 section with creation sizes belongs to a board of the table', () => {
  const named = new Set(Object.values(BOARDS).flatMap((board) => board.targets));
  for (const [name, section] of Object.entries(platforms)) {
    if (name.startsWith('esp32') && section.creation) assert.ok(named.has(name), `${name} has creation sizes no board gives`);
  }
});

