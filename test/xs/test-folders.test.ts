// The test folders keep their promise (README, "Test what users run"): every file in test/e2e/ and
// test/browser/ starts the shipped command (bin/, npm start, or an installed package), never a
// host component in-process; a test that drives one host part on its own socket belongs in
// test/host/. A file that only builds the core as an oracle (discovery's expected TXT) is fine.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const TEST_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folders whose tests run what users run. */
const COMMAND_FOLDERS = ['e2e', 'browser'];

/** Each one starts the shipped command: the harness, the built bin, or npm start. */
const STARTS_THE_COMMAND = [/\bReceiverProcess\b/, /\bRECEIVER_COMMAND\b/, /\brunSender\b/, /\brunCommand\b/, /'npm', 'start'/, /vendorplay-receiver'/];

/** Each one starts a host part in this process instead of the command. */
const STARTS_A_HOST_PART = [/\bstartScreenServer\b/, /\bnew ConnectionDriver\b/, /\bnew MediaItem\b/, /\bnew Player\b/, /hosts\/node\/screen\/server'/, /hosts\/node\/io\/tcp'/];

/** What is wrong with one test file of a command folder, if anything. */
export function commandFolderProblem(name: string, text: string): string | undefined {
  const inProcess = STARTS_A_HOST_PART.find((pattern) => pattern.test(text));
  if (inProcess) return `${name} starts a host part in-process (${inProcess.source}): move it to test/host/`;
  if (!STARTS_THE_COMMAND.some((pattern) => pattern.test(text))) return `${name} never starts the shipped command: move it to test/host/ or test/unit/`;
  return undefined;
}

test('every end-to-end and browser test starts the shipped command, and no host part in-process', () => {
  const problems: string[] = [];
  let files = 0;
  for (const folder of COMMAND_FOLDERS) {
    for (const name of readdirSync(path.join(TEST_ROOT, folder)).filter((file) => file.endsWith('.test.ts'))) {
      files++;
      const problem = commandFolderProblem(`test/${folder}/${name}`, readFileSync(path.join(TEST_ROOT, folder, name), 'utf8'));
      if (problem) problems.push(problem);
    }
  }
  assert.ok(files >= 10, `only ${files} test files found`);
  assert.deepEqual(problems, []);
});

test('the check names a planted in-process server and a file that never starts the command', () => {
  assert.match(commandFolderProblem('x', "import { startScreenServer } from '../../hosts/node/screen/server';\nReceiverProcess.start()") ?? '', /in-process/);
  assert.match(commandFolderProblem('x', "import net from 'node:net';\nnet.connect(7000)") ?? '', /never starts/);
  assert.equal(commandFolderProblem('x', "const receiver = await ReceiverProcess.start({ args: [] });"), undefined);
});
