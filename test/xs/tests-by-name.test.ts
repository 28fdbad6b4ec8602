// Every source file has a test file of its name, so the next engineer finds it (STYLE: h11 keeps
// test_<module>.py beside each module): src/<folder>/<...>/<file>.ts is tested by
// test/unit/<folder>-<file>.test.ts (src/<file>.ts by test/unit/<file>.test.ts). A file with no
// behaviour of its own (types, a constant table, re-exports) needs none, but says so in the one
// table below, and the table is checked: what it calls types only must compile to nothing, a
// constant table to data without code, and a file it says is tested elsewhere must be reached by
// the imports of that test.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sourceFiles } from './source-files';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = path.join(ROOT, 'src');

/**
 * Source files without a test of their name, and why. A reason is one of:
 * - `types only`: the file compiles to no JavaScript;
 * - `constant table`: it compiles to constants (no function, class, branch or loop);
 * - `error type only`: error classes that set only their name;
 * - `re-exports`: an index of `export ... from` lines;
 * - `tested in <test file>` / `pending: tested through <test file>`: behaviour tested by a test
 *   of another name (pending: the source file is being rewritten, its test follows), and that
 *   test's imports reach the file.
 */
export const WITHOUT_TEST_BY_NAME: Readonly<Record<string, string>> = {
  'discovery/error.ts': 'error type only',
  'discovery/index.ts': 're-exports',
  'discovery/mdns/mdns-limits.ts': 'constant table',
  'http/index.ts': 're-exports',
  'receiver/photo/photo-refusals.ts': 'tested in test/unit/receiver-photo-stream.test.ts',
  'mirror/index.ts': 're-exports',
  'pairing/index.ts': 're-exports',
  'receiver/index.ts': 're-exports',
  'timing/index.ts': 're-exports',
  'audio/alac/index.ts': 're-exports',
  'receiver/session/session.ts': 'tested in test/unit/receiver-session-routes.test.ts',
  'receiver/audio/audio-playback.ts': 'tested in test/unit/receiver-session-audio.test.ts',
  'receiver/audio/now-playing.ts': 'tested in test/unit/receiver-session-audio.test.ts',
  'receiver/audio/playing-stream.ts': 'tested in test/unit/receiver-session-audio.test.ts',
  'receiver/audio/register-audio.ts': 'tested in test/unit/receiver-session-audio.test.ts',
  'receiver/audio/aac-stream.ts': 'tested in test/unit/receiver-session-audio.test.ts',
  'receiver/session/sessions.ts': 'tested in test/unit/receiver-session-routes.test.ts',
  'receiver/session/session-timing.ts': 'tested in test/unit/receiver-session-routes.test.ts',
  'http/message.ts': 'types only',
  'http/reverse-http.ts': 'constant table',
  'http/secure-channel.ts': 'types only',
  'pairing/tlv-types.ts': 'constant table',
  'plist/index.ts': 're-exports',
  'receiver/limits.ts': 'constant table',
  // A pairing-* test is not renamed while the pairing flows are rewritten.
  'pairing/aes128-ctr.ts': 'tested in test/unit/pairing-aes128.test.ts',
  // Being rewritten by others now; each is reached through the receiver by the test named.
  'pairing/pair-setup.ts': 'pending: tested through test/unit/pairing-flows.test.ts',
  'pairing/pair-verify.ts': 'pending: tested through test/unit/pairing-flows.test.ts',
  'pairing/pairings-admin.ts': 'pending: tested through test/unit/pairing-management.test.ts',
  'receiver/pairing/pairing-routes.ts': 'pending: tested through test/unit/pairing-flows.test.ts',
  'receiver/receiver.ts': 'pending: tested through test/unit/receiver-sans-io.test.ts',
  'receiver/connection/connection-driver.ts': 'pending: tested through test/host/flow-control.test.ts',
  'receiver/connection/reverse-route.ts': 'pending: tested through test/unit/receiver-reverse.test.ts',
  'receiver/slideshow/slideshow-routes.ts': 'pending: tested through test/unit/receiver-slideshow.test.ts',
  'receiver/video/video-replies.ts': 'pending: tested through test/unit/video-routes.test.ts',
  'receiver/video/video-session.ts': 'pending: tested through test/unit/video-routes.test.ts',
};


/**
 * The test files that count as tests of `relative` (a path under src/, `/`-separated): by
 * <folder>-<file> (an internal `_file` also without its underscore) in test/unit, test/kernels
 * or test/oracle, or by <file> alone in test/unit.
 */
export function testNamesFor(relative: string): string[] {
  const parts = relative.replace(/\.ts$/, '').split('/');
  const file = parts[parts.length - 1];
  const bare = file.replace(/^_/, '');
  const names = parts.length === 1 ? [file] : [`${parts[0]}-${bare}`, `${parts[0]}-${file}`];
  return [
    ...names.map((name) => `test/unit/${name}.test.ts`),
    `test/unit/${file}.test.ts`,
    ...names.map((name) => `test/kernels/${name}.test.ts`),
    ...names.flatMap((name) => [`test/oracle/${name}.test.ts`, `test/oracle/${name}.oracle.test.ts`]),
  ].filter((name, i, all) => all.indexOf(name) === i);
}

/** The JavaScript a TypeScript file compiles to, comments and the empty `export {}` left out. */
function emittedCode(text: string): string {
  const { outputText } = ts.transpileModule(text, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: true, verbatimModuleSyntax: false },
  });
  return outputText.replace(/^export \{\};?$/m, '').trim();
}

/** The files each file imports relatively (absolute paths), read once per run. */
const importsOf = new Map<string, string[]>();

function relativeImports(file: string): string[] {
  let imports = importsOf.get(file);
  if (imports) return imports;
  imports = [];
  for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), ref.fileName.replace(/\.(js|ts)$/, ''));
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    if (target) imports.push(target);
  }
  importsOf.set(file, imports);
  return imports;
}

/** Every file a test reaches by its relative imports, as absolute paths. */
function reachedFiles(testFile: string): Set<string> {
  const seen = new Set<string>();
  const pending = [testFile];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...relativeImports(file));
  }
  return seen;
}

/** What is wrong with the table's `reason` for the source file `relative` whose text is `text`, if anything. */
export function reasonProblem(relative: string, reason: string, text: string, reaches: (testFile: string) => Set<string> = reachedFiles): string | undefined {
  const code = emittedCode(text);
  const elsewhere = /^(?:tested in|pending: tested through) (test\/\S+\.test\.ts)$/.exec(reason);
  if (elsewhere) {
    const testFile = path.join(ROOT, elsewhere[1]);
    if (!existsSync(testFile)) return `src/${relative}: the table names ${elsewhere[1]}, which does not exist`;
    if (!reaches(testFile).has(path.join(SRC, relative))) return `src/${relative}: ${elsewhere[1]} does not import it, not even through other modules`;
    return undefined;
  }
  switch (reason) {
    case 'types only':
      return code === '' ? undefined : `src/${relative}: called types only, but it compiles to code`;
    case 're-exports':
      return /^(?:export\s+(?:\*|\{[^}]*\})\s+from\s+["'][^"']+["'];\s*)+$/.test(code) ? undefined : `src/${relative}: called re-exports, but it has more than export ... from lines`;
    case 'constant table':
      return /\b(?:function|class|if|for|while|switch|return)\b|=>/.test(code) ? `src/${relative}: called a constant table, but it has code (a function, class, branch or loop)` : undefined;
    case 'error type only':
      return /^(?:export\s+class\s+\w+\s+extends\s+Error\s*\{\s*name\s*=\s*["']\w+["'];\s*\}\s*)+$/.test(code) ? undefined : `src/${relative}: called an error type only, but its classes do more than set their name`;
    default:
      return `src/${relative}: "${reason}" is not a reason the table knows (types only, constant table, error type only, re-exports, tested in ..., pending: tested through ...)`;
  }
}

/** Problems of the source files `relatives` (under src/): no test by name and no honest table entry, or a stale entry. */
export function testByNameProblems(
  relatives: readonly string[],
  table: Readonly<Record<string, string>>,
  exists: (repoPath: string) => boolean,
  read: (relative: string) => string,
): string[] {
  const problems: string[] = [];
  for (const relative of relatives) {
    const tested = testNamesFor(relative).some(exists);
    const reason = table[relative];
    if (tested && reason !== undefined) problems.push(`src/${relative} has a test by name; remove it from the table ("${reason}")`);
    else if (!tested && reason === undefined) problems.push(`src/${relative} has no test by name: add ${testNamesFor(relative)[0]} (or a row in WITHOUT_TEST_BY_NAME if it has no behaviour)`);
    else if (!tested && reason !== undefined) {
      const problem = reasonProblem(relative, reason, read(relative));
      if (problem) problems.push(problem);
    }
  }
  for (const relative of Object.keys(table)) if (!relatives.includes(relative)) problems.push(`the table names src/${relative}, which does not exist`);
  return problems;
}

test('every source file has a test of its name, or a row in the table that says why not', () => {
  const relatives = sourceFiles(SRC).map((file) => path.relative(SRC, file).split(path.sep).join('/')).sort();
  assert.ok(relatives.length > 50, `only ${relatives.length} source files found`);
  const problems = testByNameProblems(
    relatives,
    WITHOUT_TEST_BY_NAME,
    (repoPath) => existsSync(path.join(ROOT, repoPath)),
    (relative) => readFileSync(path.join(SRC, relative), 'utf8'),
  );
  assert.deepEqual(problems, []);
});

test('test names: <folder>-<file> in test/unit (also without a leading underscore), <file> for top-level files', () => {
  assert.deepEqual(testNamesFor('uuid.ts').slice(0, 1), ['test/unit/uuid.test.ts']);
  assert.ok(testNamesFor('receiver/photo/photo-cache.ts').includes('test/unit/receiver-photo-cache.test.ts'));
  assert.ok(testNamesFor('http/_head-text.ts').includes('test/unit/http-head-text.test.ts'));
  assert.ok(testNamesFor('mirror/nal-kernel.ts').includes('test/kernels/mirror-nal-kernel.test.ts'));
  assert.ok(testNamesFor('plist/xml.ts').includes('test/oracle/plist-xml.oracle.test.ts'));
});

test('the check names a planted source file without a test, a dishonest row and a stale row', () => {
  const files: Record<string, string> = {
    'http/planted.ts': 'export function planted(): number { return 1; }\n',
    'http/shapes.ts': 'export interface Shape { readonly side: number }\nexport type Side = number;\n',
    'http/table.ts': "export const TABLE = { a: 1, b: 'two' } as const;\n",
    'http/not-a-table.ts': 'export const pick = (n: number) => n + 1;\n',
    'http/index.ts': "export { planted } from './planted';\nexport type { Shape } from './shapes';\n",
    'http/error.ts': "export class HttpError extends Error {\n  override name = 'HttpError';\n}\n",
    'http/loud-error.ts': "export class LoudError extends Error {\n  override name = 'LoudError';\n  shout(): string { return this.message.toUpperCase(); }\n}\n",
    'uuid.ts': 'export function uuid(): string { return ""; }\n',
  };
  const table = {
    'http/shapes.ts': 'types only',
    'http/table.ts': 'constant table',
    'http/not-a-table.ts': 'constant table',
    'http/index.ts': 're-exports',
    'http/error.ts': 'error type only',
    'http/loud-error.ts': 'error type only',
    'uuid.ts': 'types only',
    'http/gone.ts': 'types only',
  };
  const problems = testByNameProblems(Object.keys(files), table, (repoPath) => repoPath === 'test/unit/uuid.test.ts', (relative) => files[relative]);
  assert.deepEqual(problems, [
    'src/http/planted.ts has no test by name: add test/unit/http-planted.test.ts (or a row in WITHOUT_TEST_BY_NAME if it has no behaviour)',
    'src/http/not-a-table.ts: called a constant table, but it has code (a function, class, branch or loop)',
    'src/http/loud-error.ts: called an error type only, but its classes do more than set their name',
    'src/uuid.ts has a test by name; remove it from the table ("types only")',
    'the table names src/http/gone.ts, which does not exist',
  ]);
});

test('a row that says tested elsewhere needs that test to exist and to reach the file by its imports', () => {
  const reaches = () => new Set([path.join(SRC, 'pairing', 'aes128-ctr.ts')]);
  assert.equal(reasonProblem('pairing/aes128-ctr.ts', 'tested in test/unit/pairing-aes128.test.ts', '', reaches), undefined);
  assert.match(reasonProblem('pairing/der.ts', 'tested in test/unit/pairing-aes128.test.ts', '', reaches) ?? '', /does not import it/);
  assert.match(reasonProblem('pairing/der.ts', 'tested in test/unit/no-such.test.ts', '', reaches) ?? '', /does not exist/);
  assert.match(reasonProblem('pairing/der.ts', 'simple enough', '') ?? '', /not a reason the table knows/);
});
