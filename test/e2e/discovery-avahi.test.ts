// Discovery beside avahi, on the built command in network namespaces of the test's own:
// - avahi-daemon runs in the receiver's namespace (a private system bus and /run:
//   test/support/beside-avahi.sh), and the receiver with --mdns auto registers its two services
//   through it. python-zeroconf in the sender's namespace resolves both with their TXT, sees a
//   TXT change, and avahi-daemon is the only program with UDP port 5353 bound in the receiver's
//   namespace (the built-in responder and its unicast answers do not run); avahi restarted gets
//   both services again.
// - a name taken on the link before the receiver starts (avahi reports the collision), or held by
//   another program on this machine (avahi refuses it): the receiver publishes "NAME (2)", as our
//   own responder would.
// - no system bus in the namespace: --mdns auto falls back to the built-in responder (which then
//   holds 5353 itself), and --mdns avahi stops start-up in one line.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_DIALECT, DIALECTS } from '../../src/dialect';
import { AUDIO_SERVICE_TYPE } from '../../src/discovery/index';
import { BROWSE, browseEvents, Child, DEBIAN_PYTHON, spawnChild, txtValue, type BrowseEvent, type TxtPairs } from './browse';
import { createNetnsPair, netnsUnavailable, type NetnsPair } from './netns';
import { LOG_PREFIX, PROJECT_ROOT, RECEIVER_COMMAND } from './receiver-process';

const BESIDE_AVAHI = path.join(PROJECT_ROOT, 'test/support/beside-avahi.sh');
const REGISTER = path.join(PROJECT_ROOT, 'test/e2e/zeroconf_register.py');
const MEDIA_TYPE = `${DIALECTS[DEFAULT_DIALECT].serviceType}.local.`;
const AUDIO_TYPE = `${AUDIO_SERVICE_TYPE}.local.`;
/** avahi's host name in the receiver's namespace: both services point at it. */
const AVAHI_HOST = 'vpavahi';
const PORT = 7000;

const STARTUP_MS = 30_000;
const RESOLVE_MS = 20_000;
const CHANGE_MS = 15_000;

function missingTool(): string | undefined {
  for (const tool of ['avahi-daemon', 'avahi-publish', 'dbus-daemon', 'unshare', 'ss']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (Debian: avahi-daemon avahi-utils dbus util-linux iproute2; .ci/run installs them)`;
    }
  }
  return undefined;
}

const unavailable = netnsUnavailable() ?? missingTool();

/** The receiver's printed services (`advertising "NAME" TYPE port N: k=v ...`), TXT whole at debug. */
function printedTxt(lines: readonly string[]): Map<string, TxtPairs> {
  const printed = new Map<string, TxtPairs>();
  for (const line of lines) {
    const match = /^advertising "(.*)" (\S+) port \d+: (.*)$/.exec(line.replace(LOG_PREFIX, ''));
    if (!match) continue;
    const txt = match[3].split(' ').map((pair): [string, string] => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]);
    printed.set(`${match[2]}.local.`, txt);
  }
  return printed;
}

/** UDP sockets bound to port 5353 in a namespace, by the program holding each (`ss -lunp`). */
function holdersOf5353(pair: NetnsPair): { programs: string[]; table: string } {
  const argv = pair.exec(pair.receiver, 'ss', ['-H', '-lunp', 'sport = :5353']);
  const table = execFileSync(argv.command, argv.args, { encoding: 'utf8', timeout: 5000 });
  const programs = table
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => /users:\(\("([^"]+)"/.exec(line)?.[1] ?? `(no process shown: ${line})`);
  return { programs, table };
}

/** The receiver command, its data in `dataDir`, and the lines it prints once both services are advertised. */
function receiverArgs(dataDir: string, name: string, more: string[]): string[] {
  return [RECEIVER_COMMAND, '--name', name, '--port', String(PORT), '--data-dir', dataDir, '--log-level', 'debug', '--no-screen', '--audio-out', 'none', ...more];
}

async function bothAdvertised(receiver: Child): Promise<void> {
  await receiver.waitFor('advertisement of both services', STARTUP_MS, (lines) =>
    lines.filter((line) => line.replace(LOG_PREFIX, '').startsWith('advertising ')).length >= 2 ? true : undefined,
  );
}

/**
 * Everything `child` writes to stderr (Child keeps only a tail), and a bounded wait for a pattern
 * in it: the log and the printed lines go by two pipes, so a log line written before a printed one
 * may still be on its way when the printed one has been read.
 */
function wholeStderr(child: Child): { text: () => string; shows: (pattern: RegExp, ms?: number) => Promise<void> } {
  let text = '';
  const listeners = new Set<() => void>();
  child.process.stderr!.on('data', (chunk: string) => {
    text += chunk;
    for (const listener of [...listeners]) listener();
  });
  const shows = (pattern: RegExp, ms = STARTUP_MS): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!pattern.test(text)) return;
        finish();
        resolve();
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no ${pattern} in ${child.label}'s log within ${ms} ms\n${child.report()}`));
      }, ms);
      const finish = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });
  return { text: () => text, shows };
}

/** A browser's events as they come, with a bounded wait for the first that `find` accepts. */
function nextEvent(browser: Child, what: string, ms: number, find: (event: BrowseEvent) => boolean): Promise<BrowseEvent> {
  return browser.waitFor(what, ms, (lines) => browseEvents(lines).find(find));
}

describe('beside avahi-daemon: the receiver registers through it, found by python-zeroconf from another namespace', { skip: unavailable, timeout: 150_000 }, () => {
  const NAME = 'AvahiRoom';
  let pair: NetnsPair | undefined;
  let dataDir: string | undefined;
  let receiver: Child | undefined;
  let log: ReturnType<typeof wholeStderr>;
  let browser: Child | undefined;

  const emergencyCleanup = (): void => {
    receiver?.process.kill('SIGKILL');
    browser?.process.kill('SIGKILL');
    pair?.destroy();
  };

  before(async () => {
    process.once('exit', emergencyCleanup);
    pair = createNetnsPair('vpavhi');
    dataDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-avahi-'));
    receiver = spawnChild(
      'receiver beside avahi',
      pair.exec(pair.receiver, 'unshare', ['-m', 'sh', BESIDE_AVAHI, pair.receiver.iface, AVAHI_HOST, process.execPath, ...receiverArgs(dataDir, NAME, ['--mdns', 'auto', '--activity-signal'])]),
    );
    log = wholeStderr(receiver);
    await bothAdvertised(receiver);
    browser = spawnChild('zeroconf', pair.exec(pair.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, AUDIO_TYPE, '--timeout', String(RESOLVE_MS / 1000), '--watch', '60']));
  });

  after(async () => {
    await Promise.all([browser?.stop('SIGKILL'), receiver?.stop('SIGTERM', 5000)]);
    pair?.destroy();
    process.removeListener('exit', emergencyCleanup);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('says it advertises through avahi-daemon, not with its own responder', async () => {
    await log.shows(/mdns: advertising through avahi-daemon \(avahi [\d.]+, on the D-Bus system bus\)/);
    assert.doesNotMatch(log.text(), /built-in responder \(|mdns: responder started/, receiver!.report());
  });

  it('python-zeroconf resolves both services at avahi’s host name with the TXT records the receiver printed', async () => {
    await nextEvent(browser!, 'both types resolved', RESOLVE_MS + 5000, (event) => event.event === 'ready' || event.event === 'timeout');
    const resolved = browseEvents(browser!.lines).filter((event) => event.event === 'resolved');
    const printed = printedTxt(receiver!.lines);
    for (const type of [MEDIA_TYPE, AUDIO_TYPE]) {
      const service = resolved.find((event) => event.type === type);
      assert.ok(service, `${type} resolved\n${browser!.report()}\n${receiver!.report()}`);
      assert.equal(service.server, `${AVAHI_HOST}.local.`);
      assert.equal(service.port, PORT);
      assert.deepEqual(service.addresses, [pair!.receiver.address]);
      assert.deepEqual(service.txt, printed.get(type), `${type}: the TXT record as printed`);
    }
    assert.equal(resolved.find((event) => event.type === MEDIA_TYPE)!.instance, NAME);
    assert.match(resolved.find((event) => event.type === AUDIO_TYPE)!.instance ?? '', new RegExp(`^[0-9A-F]{12}@${NAME}$`));
    await log.shows(new RegExp(`avahi-daemon established "${NAME}"`));
  });

  it('only avahi-daemon has UDP port 5353 bound in the receiver’s namespace', () => {
    const { programs, table } = holdersOf5353(pair!);
    assert.ok(programs.length > 0, `something listens on 5353:\n${table}`);
    assert.deepEqual([...new Set(programs)], ['avahi-daemon'], `ss -lunp sport = :5353 in the receiver's namespace:\n${table}`);
  });

  it('a TXT change (the activity, by SIGUSR2) reaches python-zeroconf through avahi-daemon', async () => {
    const resolved = browseEvents(browser!.lines).filter((event) => event.event === 'resolved');
    const oldGid = txtValue(resolved.find((event) => event.type === MEDIA_TYPE)!.txt!, 'gid');
    const oldSf = txtValue(resolved.find((event) => event.type === AUDIO_TYPE)!.txt!, 'sf');
    // beside-avahi.sh passes SIGUSR2 on; --activity-signal: it toggles idle <-> receiving video.
    receiver!.process.kill('SIGUSR2');
    const media = await nextEvent(browser!, 'media TXT update', CHANGE_MS, (event) => event.event === 'updated' && event.type === MEDIA_TYPE && txtValue(event.txt ?? [], 'gid') !== oldGid);
    const audio = await nextEvent(browser!, 'audio TXT update', CHANGE_MS, (event) => event.event === 'updated' && event.type === AUDIO_TYPE && txtValue(event.txt ?? [], 'sf') !== oldSf);
    assert.equal(media.instance, NAME);
    assert.notEqual(txtValue(media.txt!, 'flags'), '0x0', 'the media flags say the receiver is busy');
    assert.notEqual(txtValue(audio.txt!, 'sf'), oldSf);
  });

  it('registers both services again when avahi-daemon restarts', async () => {
    // beside-avahi.sh: SIGHUP stops avahi-daemon and starts it again.
    receiver!.process.kill('SIGHUP');
    await log.shows(/mdns: avahi-daemon left the system bus/, CHANGE_MS);
    await log.shows(new RegExp(`left the system bus[\\s\\S]*avahi-daemon established "${NAME}"`), CHANGE_MS);
    await log.shows(new RegExp(`left the system bus[\\s\\S]*avahi-daemon established "[0-9A-F]{12}@${NAME}"`), CHANGE_MS);
    const again = spawnChild('zeroconf after the restart', pair!.exec(pair!.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, AUDIO_TYPE, '--timeout', String(RESOLVE_MS / 1000)]));
    await Promise.race([again.exited, new Promise((resolve) => setTimeout(resolve, RESOLVE_MS + 5000).unref())]);
    await again.stop('SIGKILL');
    // A fresh browser resolves each instance once; python-zeroconf names that state change
    // Updated rather than Added when avahi's re-announcement lands as its first query goes out
    // (seen on a loaded machine), so either event is the instance resolved.
    const resolved = browseEvents(again.lines).filter((event) => event.event === 'resolved' || event.event === 'updated');
    assert.deepEqual([...new Set(resolved.map((event) => event.type))].sort(), [AUDIO_TYPE, MEDIA_TYPE].sort(), again.report());
    for (const service of resolved) assert.equal(service.server, `${AVAHI_HOST}.local.`);
  });

  it('withdraws both services through avahi-daemon on SIGTERM', async () => {
    // avahi's restart above said goodbye too: only a removal after this one counts.
    const isRemoval = (event: BrowseEvent): boolean => event.event === 'removed' && event.type === MEDIA_TYPE && event.instance === NAME;
    const earlier = browseEvents(browser!.lines).filter(isRemoval).length;
    await receiver!.stop('SIGTERM', 5000);
    assert.equal(receiver!.exitCode, 0, receiver!.report());
    await browser!.waitFor('goodbye of the media service', CHANGE_MS, (lines) => (browseEvents(lines).filter(isRemoval).length > earlier ? true : undefined));
    await log.shows(/mdns: withdrew .* \(avahi-daemon says goodbye\)/);
  });
});

describe('beside avahi-daemon, with the name taken on the link: avahi reports the collision and the receiver takes "NAME (2)"', { skip: unavailable, timeout: 120_000 }, () => {
  const NAME = 'TakenRoom';
  let pair: NetnsPair | undefined;
  let dataDir: string | undefined;
  let squatter: Child | undefined;
  let receiver: Child | undefined;
  let log: ReturnType<typeof wholeStderr>;

  const emergencyCleanup = (): void => {
    for (const child of [receiver, squatter]) child?.process.kill('SIGKILL');
    pair?.destroy();
  };

  before(async () => {
    process.once('exit', emergencyCleanup);
    pair = createNetnsPair('vpavcl');
    dataDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-avahi-'));
    // Another host on the link already has the media service's name.
    squatter = spawnChild('zeroconf squatter', pair.exec(pair.sender, DEBIAN_PYTHON, [REGISTER, `${NAME}.${MEDIA_TYPE}`, MEDIA_TYPE, pair.sender.address, '9']));
    await squatter.waitFor('the squatter registered', STARTUP_MS, (lines) => (lines.includes('registered') ? true : undefined));
    receiver = spawnChild('receiver beside avahi', pair.exec(pair.receiver, 'unshare', ['-m', 'sh', BESIDE_AVAHI, pair.receiver.iface, AVAHI_HOST, process.execPath, ...receiverArgs(dataDir, NAME, [])]));
    log = wholeStderr(receiver);
    await bothAdvertised(receiver);
  });

  after(async () => {
    await Promise.all([squatter?.stop('SIGTERM'), receiver?.stop('SIGTERM', 5000)]);
    pair?.destroy();
    process.removeListener('exit', emergencyCleanup);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs the collision and python-zeroconf resolves the receiver as "NAME (2)" beside the squatter', async () => {
    const renamed = `${NAME} (2)`;
    const browser = spawnChild('zeroconf', pair!.exec(pair!.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, '--timeout', String(RESOLVE_MS / 1000), '--watch', '8']));
    try {
      const ours = await nextEvent(browser, `"${renamed}" resolved`, RESOLVE_MS + 15_000, (event) => event.event === 'resolved' && event.instance === renamed);
      assert.equal(ours.server, `${AVAHI_HOST}.local.`);
      assert.equal(ours.port, PORT);
      assert.deepEqual(ours.addresses, [pair!.receiver.address]);
    } finally {
      await browser.stop('SIGKILL');
    }
    await log.shows(new RegExp(`mdns: "${NAME}" _\\w+\\._tcp: "${NAME}" the name is taken on the network; published as "${NAME} \\(2\\)"`));
  });
});

/**
 * `sh -c` script: avahi-publish (another program on this machine) takes the name $1 of type $2
 * first, its output in $3, and once avahi says it is established the rest of the arguments run.
 */
const PUBLISH_FIRST = [
  'avahi-publish -s "$1" "$2" 9 > "$3" 2>&1 &',
  'n=0; until grep -q Established "$3"; do n=$((n + 1)); if [ "$n" -ge 100 ]; then cat "$3" >&2; exit 1; fi; sleep 0.1; done',
  'shift 3; exec "$@"',
].join('\n');

describe('beside avahi-daemon, with the name held by another program on this machine: avahi refuses it and the receiver takes "NAME (2)"', { skip: unavailable, timeout: 90_000 }, () => {
  const NAME = 'LocalRoom';
  let pair: NetnsPair | undefined;
  let dataDir: string | undefined;
  let receiver: Child | undefined;
  let log: ReturnType<typeof wholeStderr>;

  const emergencyCleanup = (): void => {
    receiver?.process.kill('SIGKILL');
    pair?.destroy();
  };

  before(async () => {
    process.once('exit', emergencyCleanup);
    pair = createNetnsPair('vpavlc');
    dataDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-avahi-'));
    const published = path.join(dataDir, 'avahi-publish.out');
    receiver = spawnChild(
      'receiver beside avahi',
      pair.exec(pair.receiver, 'unshare', ['-m', 'sh', BESIDE_AVAHI, pair.receiver.iface, AVAHI_HOST, 'sh', '-c', PUBLISH_FIRST, 'publish-first', NAME, MEDIA_TYPE.replace(/\.local\.$/, ''), published, process.execPath, ...receiverArgs(dataDir, NAME, [])]),
    );
    log = wholeStderr(receiver);
    await bothAdvertised(receiver);
  });

  after(async () => {
    await receiver?.stop('SIGTERM', 5000);
    pair?.destroy();
    process.removeListener('exit', emergencyCleanup);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs it and python-zeroconf resolves the receiver as "NAME (2)" and avahi-publish’s as NAME', async () => {
    await log.shows(new RegExp(`mdns: "${NAME}" _\\w+\\._tcp: "${NAME}" another program on this machine publishes it; published as "${NAME} \\(2\\)"`));
    const browser = spawnChild('zeroconf', pair!.exec(pair!.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, '--timeout', String(RESOLVE_MS / 1000), '--watch', '5']));
    try {
      const ours = await nextEvent(browser, `"${NAME} (2)" resolved`, RESOLVE_MS + 10_000, (event) => event.event === 'resolved' && event.instance === `${NAME} (2)`);
      assert.equal(ours.port, PORT);
      const theirs = await nextEvent(browser, `"${NAME}" resolved`, RESOLVE_MS + 10_000, (event) => event.event === 'resolved' && event.instance === NAME);
      assert.equal(theirs.port, 9);
    } finally {
      await browser.stop('SIGKILL');
    }
  });
});

describe('no avahi-daemon (no system bus in the namespace)', { skip: unavailable, timeout: 90_000 }, () => {
  let pair: NetnsPair | undefined;
  let dataDir: string | undefined;
  let receiver: Child | undefined;

  const emergencyCleanup = (): void => {
    receiver?.process.kill('SIGKILL');
    pair?.destroy();
  };

  before(() => {
    process.once('exit', emergencyCleanup);
    pair = createNetnsPair('vpnoav');
    dataDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-avahi-'));
  });

  after(async () => {
    await receiver?.stop('SIGTERM');
    pair?.destroy();
    process.removeListener('exit', emergencyCleanup);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('--mdns avahi stops start-up in one line saying why', async () => {
    const failing = spawnChild('receiver --mdns avahi', pair!.exec(pair!.receiver, process.execPath, receiverArgs(dataDir!, 'NoAvahi', ['--mdns', 'avahi'])));
    const failingLog = wholeStderr(failing);
    await failingLog.shows(/vendorplay-receiver: --mdns avahi: no D-Bus system bus \(.*\); start avahi-daemon, or choose --mdns builtin\n/);
    await Promise.race([failing.exited, new Promise((resolve) => setTimeout(resolve, STARTUP_MS).unref())]);
    await failing.stop('SIGKILL');
    assert.equal(failing.exitCode, 1, failing.report());
    assert.equal(failing.lines.filter((line) => /advertising/.test(line)).length, 0, 'nothing advertised');
  });

  it('a system bus without avahi on it: --mdns avahi says so (auto asks the same question and falls back)', async () => {
    // A bus of the test's own (a session bus's rules; only the address matters here), given as the system bus.
    const socket = path.join(dataDir!, 'bus');
    const busPid = Number(execFileSync('dbus-daemon', ['--session', `--address=unix:path=${socket}`, '--fork', '--nopidfile', '--print-pid'], { encoding: 'utf8', timeout: 5000 }).trim());
    try {
      const failing = spawnChild('receiver --mdns avahi', pair!.exec(pair!.receiver, 'env', [`DBUS_SYSTEM_BUS_ADDRESS=unix:path=${socket}`, process.execPath, ...receiverArgs(dataDir!, 'NoAvahi', ['--mdns', 'avahi'])]));
      const failingLog = wholeStderr(failing);
      await failingLog.shows(/vendorplay-receiver: --mdns avahi: avahi-daemon is not on the D-Bus system bus \(no owner of org\.freedesktop\.Avahi\); start avahi-daemon, or choose --mdns builtin\n/);
      await Promise.race([failing.exited, new Promise((resolve) => setTimeout(resolve, STARTUP_MS).unref())]);
      await failing.stop('SIGKILL');
      assert.equal(failing.exitCode, 1, failing.report());
    } finally {
      process.kill(busPid, 'SIGTERM');
    }
  });

  it('--mdns auto falls back to the built-in responder, which holds 5353 and is found by python-zeroconf', async () => {
    receiver = spawnChild('receiver --mdns auto', pair!.exec(pair!.receiver, process.execPath, receiverArgs(dataDir!, 'NoAvahi', ['--mdns', 'auto'])));
    const autoLog = wholeStderr(receiver);
    await bothAdvertised(receiver);
    await autoLog.shows(/mdns: advertising with the built-in responder \(no D-Bus system bus/);
    const browser = spawnChild('zeroconf', pair!.exec(pair!.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, AUDIO_TYPE, '--timeout', String(RESOLVE_MS / 1000)]));
    await Promise.race([browser.exited, new Promise((resolve) => setTimeout(resolve, RESOLVE_MS + 5000).unref())]);
    await browser.stop('SIGKILL');
    const resolved = browseEvents(browser.lines).filter((event) => event.event === 'resolved');
    assert.deepEqual(resolved.map((event) => event.type).sort(), [AUDIO_TYPE, MEDIA_TYPE].sort(), browser.report());
    assert.equal(resolved.find((event) => event.type === MEDIA_TYPE)!.server, 'NoAvahi.local.');
    const { programs, table } = holdersOf5353(pair!);
    assert.ok(programs.length > 0 && programs.every((program) => program === 'node'), `the receiver holds 5353:\n${table}`);
  });
});
