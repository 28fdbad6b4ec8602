// Checks of what the package ships beside the code, shared by the host tests (on this checkout)
// and the package test (on the installed package): a man page rendered with every warning on,
// and a systemd unit verified by systemd-analyze.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The units, by where they go: user/ for `systemctl --user`, system/ with a user of its own. */
export const UNITS = { user: 'packaging/systemd/user/vendorplay-receiver.service', system: 'packaging/systemd/system/vendorplay-receiver.service' };
export const MAN_PAGES = ['man/vendorplay-receiver.1', 'man/vendorplay-send.1'];

/** Whether a program is on the PATH. */
function has(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
}

/** Why man pages cannot be rendered here (a skip message), or undefined. */
export const NO_RENDERER = has('man') || has('groff') ? undefined : 'neither man nor groff is installed (Debian: man-db or groff-base)';
/** Why units cannot be verified here (a skip message), or undefined. */
export const NO_ANALYZE = has('systemd-analyze') ? undefined : "systemd-analyze is not installed (Debian's systemd package)";

/** What rendering a page says on stderr: man -l with every warning on (man-db), else groff's man macros with every warning. */
export function renderWarnings(file: string): string {
  if (has('man')) return spawnSync('man', ['-l', '--warnings=all', '-E', 'UTF-8', file], { encoding: 'utf8', env: { ...process.env, MANWIDTH: '100' } }).stderr;
  return spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', file], { encoding: 'utf8' }).stderr;
}

/**
 * What `systemd-analyze verify` says of `unitText` with its ExecStart program (the bare command
 * name) replaced by `command`, which must exist: the exit status and everything it printed
 * (empty when the unit is clean). The user unit is verified as the user manager reads it.
 */
export function verifyUnit(unitText: string, command: string, user: boolean): { status: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vendorplay-unit-'));
  try {
    const file = path.join(dir, 'vendorplay-receiver.service');
    writeFileSync(file, unitText.replace(/^ExecStart=vendorplay-receiver\b/m, `ExecStart=${command}`));
    // --man=no: the Documentation= page is checked by the man page tests, not by man here.
    const run = spawnSync('systemd-analyze', [...(user ? ['--user'] : []), 'verify', '--man=no', file], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: dir, SYSTEMD_LOG_COLOR: '0' } });
    return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
