// Static proof that src/ stays portable: every import is relative (inside src/) or one of the
// pure-ECMAScript libraries the design allows. A host module import fails here by name.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sourceFiles } from './source-files';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Packages src/ may import: pure ECMAScript, and they run on XS (DESIGN 2). */
const ALLOWED_PACKAGES = ['@noble/hashes', '@noble/curves', '@noble/ciphers'];


/** Problems with one import specifier of `file`, or undefined when it is allowed. */
export function importProblem(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) {
    const target = path.resolve(path.dirname(file), specifier);
    if (!target.startsWith(SRC + path.sep) && target !== SRC) return `relative import leaves src/: ${specifier}`;
    if (/\.(ts|js|mjs)$/.test(specifier)) return `import has a file extension (Moddable resolves extensionless): ${specifier}`;
    return undefined;
  }
  if (ALLOWED_PACKAGES.some((name) => specifier === name || specifier.startsWith(name + '/'))) return undefined;
  return `host or unapproved module: ${specifier}`;
}

test('src/ imports only relative modules and the allowed pure-ECMAScript libraries', () => {
  const files = sourceFiles(SRC);
  assert.ok(files.length > 0);
  const problems: string[] = [];
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const ref of info.importedFiles) {
      const problem = importProblem(file, ref.fileName);
      if (problem) problems.push(`${path.relative(SRC, file)}: ${problem}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the import check itself rejects host modules and escaping paths', () => {
  const file = path.join(SRC, 'plist', 'xml.ts');
  assert.match(importProblem(file, 'node:fs') ?? '', /host or unapproved module/);
  assert.match(importProblem(file, 'fs') ?? '', /host or unapproved module/);
  assert.match(importProblem(file, '../../hosts/node/main') ?? '', /leaves src/);
  assert.match(importProblem(file, '../bytes.ts') ?? '', /file extension/);
  assert.equal(importProblem(file, '../bytes'), undefined);
  assert.equal(importProblem(file, '@noble/hashes/sha2'), undefined);
});

const SENDER = fileURLToPath(new URL('../../sender', import.meta.url));
const RECEIVER = path.join(SRC, 'receiver');

test('the sender (sender/) takes protocol facts from src/, never from the receiver in src/receiver/', () => {
  const problems: string[] = [];
  for (const file of sourceFiles(SENDER)) {
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), ref.fileName);
      if (target === RECEIVER || target.startsWith(RECEIVER + path.sep)) problems.push(`${path.relative(SENDER, file)} imports ${ref.fileName}`);
    }
  }
  assert.deepEqual(problems, []);
});
