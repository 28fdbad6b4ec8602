// The systemd units in packaging/systemd/ (user/ for `systemctl --user`, system/ with a user of its
// own): `systemd-analyze verify` finds nothing in either, with ExecStart pointed at this checkout's
// command (verify wants the program to exist), and the system unit keeps its hardening.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NO_ANALYZE, UNITS, verifyUnit } from './packaging-checks';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the systemd units', () => {
  const command = path.join(ROOT, 'bin', 'vendorplay-receiver.js');

  for (const [kind, unit] of Object.entries(UNITS)) {
    test(`the ${kind} unit: systemd-analyze verify finds nothing`, { skip: NO_ANALYZE }, () => {
      const text = readFileSync(path.join(ROOT, unit), 'utf8');
      assert.match(text, /^ExecStart=vendorplay-receiver\b/m, 'ExecStart names the installed command');
      assert.deepEqual(verifyUnit(text, command, kind === 'user'), { status: 0, output: '' });
    });
  }

  test('a wrong value is caught (the check can fail)', { skip: NO_ANALYZE }, () => {
    const text = readFileSync(path.join(ROOT, UNITS.system), 'utf8').replace('ProtectSystem=strict', 'ProtectSystem=stricter');
    assert.match(verifyUnit(text, command, false).output, /ProtectSystem|protect system/i);
  });

  test('the system unit runs as a user of its own, its data in StateDirectory, hardened, with the system config file', () => {
    const text = readFileSync(path.join(ROOT, UNITS.system), 'utf8');
    for (const line of ['DynamicUser=yes', 'StateDirectory=vendorplay', 'ProtectSystem=strict', 'ProtectHome=yes', 'NoNewPrivileges=yes', 'PrivateTmp=yes', 'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK', 'Restart=on-failure']) {
      assert.ok(text.split('\n').includes(line), line);
    }
    assert.match(text, /^ExecStart=vendorplay-receiver --config \/etc\/vendorplay\/receiver\.conf --data-dir \/var\/lib\/vendorplay$/m);
  });
});
