// The log port's level (src/platform.ts): what a leveled logger keeps and what it says of itself.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leveledLogger, logsAt, type LogLevel } from '../../src/platform';

test('a leveled logger keeps its level and the ones above, and names its level', () => {
  const written: string[] = [];
  const log = leveledLogger('warn', (level, message) => written.push(`${level} ${message}`));
  for (const level of ['error', 'warn', 'info', 'debug'] as LogLevel[]) log(level, 'x');
  assert.deepEqual(written, ['error x', 'warn x']);
  assert.equal(log.level, 'warn');
  assert.equal(logsAt(log, 'warn'), true);
  assert.equal(logsAt(log, 'info'), false);
  // A logger that names no level keeps everything.
  assert.equal(logsAt(() => {}, 'debug'), true);
});
