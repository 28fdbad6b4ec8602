// The README's quick start, as a new user runs it: `npm start` with no option at all (mDNS on, no
// --interface, the default ports and data directory), in a network namespace of the test's own,
// found from another namespace by two browsers nobody here wrote: Debian's python-zeroconf and
// avahi. A start that crashed on every default launch once passed a suite whose every test of
// the command passed --no-mdns; this is the test that would have failed.
//
// HOME is a fresh temporary directory, so the default data directory
// (~/.local/share/vendorplay-receiver) is the test's own. The namespaces have their own ports, so
// the default 7000, 7080, 7100 and 7011 are free there whatever the machine runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_DIALECT, DIALECTS } from '../../src/dialect';
import { AUDIO_SERVICE_TYPE } from '../../src/discovery/index';
import { CONTROL_PORT } from '../../src/discovery/services';
import { BROWSE, browseEvents, Child, DEBIAN_PYTHON, spawnChild, txtValue, type BrowseEvent } from './browse';
import { createNetnsPair, netnsUnavailable, type NetnsPair } from './netns';
import { LOG_PREFIX, PROJECT_ROOT } from './receiver-process';

const AVAHI_BROWSE = path.join(PROJECT_ROOT, 'test/e2e/avahi_browse.sh');
const MEDIA_TYPE = DIALECTS[DEFAULT_DIALECT].serviceType;
/** The default --name, and the host name both services point at (spec 2.1: one host). */
const DEFAULT_NAME = 'Receiver';
const DEFAULT_HOST = 'Receiver.local';

/** Bounds on each wait; the start itself includes npm's own start-up. */
const STARTUP_MS = 30_000;
const RESOLVE_MS = 20_000;

function missingTool(): string | undefined {
  for (const tool of ['avahi-daemon', 'avahi-browse', 'dbus-daemon', 'unshare', 'npm']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (Debian: avahi-daemon avahi-utils dbus util-linux; .ci/run installs them)`;
    }
  }
  return undefined;
}

const unavailable = netnsUnavailable() ?? missingTool();

describe('npm start with no option advertises both services, found by python-zeroconf and avahi from another namespace', { skip: unavailable, timeout: 120_000 }, () => {
  let pair: NetnsPair | undefined;
  let home: string | undefined;
  let receiver: Child | undefined;
  const children: Child[] = [];

  const emergencyCleanup = (): void => {
    for (const child of [receiver, ...children]) child?.process.kill('SIGKILL');
    pair?.destroy();
  };

  before(async () => {
    process.once('exit', emergencyCleanup);
    pair = createNetnsPair('vpdflt');
    home = mkdtempSync(path.join(tmpdir(), 'vendorplay-home-'));
    receiver = spawnChild('npm start', pair.exec(pair.receiver, 'env', [`HOME=${home}`, 'npm', 'start']));
    await receiver.waitFor('advertisement of both services', STARTUP_MS, (lines) =>
      lines.filter((line) => line.replace(LOG_PREFIX, '').startsWith('advertising ')).length >= 2 ? true : undefined,
    );
  });

  after(async () => {
    await Promise.all([...children.map((child) => child.stop('SIGKILL')), receiver?.stop('SIGTERM')]);
    pair?.destroy();
    process.removeListener('exit', emergencyCleanup);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** Runs a browser in the sender namespace to its end (bounded) and returns it. */
  async function browse(label: string, command: string, args: string[]): Promise<Child> {
    const child = spawnChild(label, pair!.exec(pair!.sender, command, args));
    children.push(child);
    await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, RESOLVE_MS + 10_000).unref())]);
    await child.stop('SIGKILL');
    return child;
  }

  it('keeps its identity in the default data directory under HOME', () => {
    const identity = path.join(home!, '.local/share/vendorplay-receiver/identity');
    assert.ok(existsSync(identity), `no ${identity}\n${receiver!.report()}`);
    assert.ok(statSync(identity).size > 0);
  });

  it('python-zeroconf resolves both services to one host name, at the receiver address and the default port', async () => {
    const browser = await browse('zeroconf', DEBIAN_PYTHON, [BROWSE, `${MEDIA_TYPE}.local.`, `${AUDIO_SERVICE_TYPE}.local.`, '--timeout', String(RESOLVE_MS / 1000)]);
    const resolved = browseEvents(browser.lines).filter((event) => event.event === 'resolved');
    const media = resolved.find((event) => event.type === `${MEDIA_TYPE}.local.`);
    const audio = resolved.find((event) => event.type === `${AUDIO_SERVICE_TYPE}.local.`);
    assert.ok(media && audio, `both types resolved\n${browser.report()}\n${receiver!.report()}`);
    assert.equal(media.instance, DEFAULT_NAME);
    assert.match(audio.instance ?? '', new RegExp(`^[0-9A-F]{12}@${DEFAULT_NAME}$`));
    for (const service of [media, audio]) {
      assert.equal(service.server, `${DEFAULT_HOST}.`);
      assert.equal(service.port, CONTROL_PORT);
      assert.deepEqual(service.addresses, [pair!.receiver.address]);
    }
    assert.ok(txtValue(media.txt!, 'features'), 'the media TXT carries features');
  });

  it('answers a unicast PTR question with PTR, TXT and SRV in one reply of at most 512 bytes', async () => {
    const asker = await browse('unicast', DEBIAN_PYTHON, [BROWSE, `${MEDIA_TYPE}.local.`, `${AUDIO_SERVICE_TYPE}.local.`, '--unicast', pair!.receiver.address]);
    const events: BrowseEvent[] = browseEvents(asker.lines);
    assert.equal(events.length, 2, `one answer per type\n${asker.report()}`);
    for (const event of events) {
      assert.equal(event.event, 'unicast-resolved', JSON.stringify(event));
      assert.equal(event.server, `${DEFAULT_HOST}.`);
      const reply = event.ptr_reply!;
      assert.ok(reply.size <= 512, `PTR reply of ${reply.size} bytes: ${JSON.stringify(reply)}`);
      assert.equal(reply.truncated, false, JSON.stringify(reply));
      for (const type of ['PTR', 'TXT', 'SRV']) {
        assert.ok(reply.records.some((record) => record.startsWith(`${type} `)), `the ${event.type} PTR reply holds a ${type} record: ${JSON.stringify(reply)}`);
      }
    }
  });

  it('avahi resolves both services to one host name, at the receiver address and the default port', async () => {
    const browser = await browse('avahi', 'unshare', ['-m', 'sh', AVAHI_BROWSE, pair!.sender.iface, String(RESOLVE_MS / 1000), `${MEDIA_TYPE}`, `${AUDIO_SERVICE_TYPE}`]);
    assert.equal(browser.exitCode, 0, `avahi resolved both types\n${browser.report()}\n${receiver!.report()}`);
    // avahi-browse -p: =;iface;protocol;name;type;domain;host;address;port;"txt"...
    const resolved = browser.lines.filter((line) => line.startsWith('=;')).map((line) => line.split(';'));
    const media = resolved.find((fields) => fields[4] === MEDIA_TYPE);
    const audio = resolved.find((fields) => fields[4] === AUDIO_SERVICE_TYPE);
    assert.ok(media && audio, browser.report());
    assert.equal(media[3], DEFAULT_NAME);
    for (const fields of [media, audio]) {
      assert.equal(fields[6], DEFAULT_HOST);
      assert.equal(fields[7], pair!.receiver.address);
      assert.equal(Number(fields[8]), CONTROL_PORT);
    }
    assert.match(media.slice(9).join(';'), /"features=0x[0-9A-F]+,0x[0-9A-F]+"/);
  });
});
