// The man pages scripts/man.mjs makes from the options tables: they render with man (or groff)
// without a warning, and every option of both tables is in its page.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { OptionRow } from '../../hosts/node/option-table';
import { RECEIVER_OPTIONS } from '../../hosts/node/receiver-options';
import { SENDER_OPTIONS } from '../../sender/options';
import { NO_RENDERER, renderWarnings } from './packaging-checks';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the man pages', () => {
  before(() => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'man.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  });

  const pages: [string, readonly OptionRow[]][] = [
    ['vendorplay-receiver.1', RECEIVER_OPTIONS],
    ['vendorplay-send.1', SENDER_OPTIONS],
  ];
  for (const [name, rows] of pages) {
    test(`${name} names every option of its table, and has the usual sections`, () => {
      const text = readFileSync(path.join(ROOT, 'man', name), 'utf8');
      for (const row of rows) assert.ok(text.includes(`\\fB\\-\\-${row.name.replace(/-/g, '\\-')}\\fR`), `--${row.name} in ${name}`);
      for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'FILES', 'EXAMPLES']) assert.match(text, new RegExp(`^\\.SH ${section}$`, 'm'), section);
    });

    test(`${name} renders without a warning`, { skip: NO_RENDERER }, () => {
      assert.equal(renderWarnings(path.join(ROOT, 'man', name)), '');
    });
  }
});
