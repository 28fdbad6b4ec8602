// Our own mDNS responder (src/discovery/mdns/) on a real socket, found by two browsers nobody here
// wrote: Debian's python-zeroconf and avahi. A small Node harness (mdns-harness.ts) binds a dgram
// socket on 5353 as the UdpSocket port, inside a network namespace of the test's own where only
// `lo` is up (multicast on), so nothing leaves the machine. The browsers resolve both services
// with the full TXT record, see the TXT change, get a legacy unicast answer, and see the goodbye.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { BROWSE, browseEvents, Child, DEBIAN_PYTHON, type BrowseEvent, type TxtPairs } from '../e2e/browse';
import { netnsUnavailable } from '../e2e/netns';
import { PROJECT_ROOT } from '../e2e/receiver-process';
import { MDNS_HARNESS_SERVICES, MDNS_HARNESS_UPDATE } from './mdns-harness-services';

const HARNESS = path.join(PROJECT_ROOT, 'test/host/mdns-harness.ts');
const AVAHI_ROUNDS = path.join(PROJECT_ROOT, 'test/host/avahi_rounds.sh');
const ADDRESS = '127.0.0.1';
const HOST = 'Harness-Frame.local';
const [MEDIA, AUDIO] = MDNS_HARNESS_SERVICES;
const TYPES = [`${MEDIA.type}.local.`, `${AUDIO.type}.local.`];
const STARTUP_MS = 20_000;
const RESOLVE_MS = 20_000;
/** avahi rounds asked after the change before giving up on seeing it. */
const AVAHI_ROUNDS_MAX = 3;

function missingTool(): string | undefined {
  for (const tool of ['avahi-daemon', 'avahi-browse', 'dbus-daemon', 'unshare', DEBIAN_PYTHON]) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (Debian: avahi-daemon avahi-utils dbus util-linux python3-zeroconf; .ci/run installs them)`;
    }
  }
  return undefined;
}

const unavailable = netnsUnavailable() ?? missingTool();

/** avahi-browse -p: =;iface;protocol;name;type;domain;host;address;port;"txt"... (TXT strings in reverse order). */
function avahiResolved(lines: readonly string[], type: string): { host: string; address: string; port: number; txt: string[] } | undefined {
  const fields = lines.filter((line) => line.startsWith('=;')).map((line) => line.split(';')).find((parts) => parts[4] === type);
  if (!fields) return undefined;
  const txt = (fields.slice(9).join(';').match(/"((?:[^"\\]|\\.)*)"/g) ?? []).map((quoted) => quoted.slice(1, -1));
  return { host: fields[6], address: fields[7], port: Number(fields[8]), txt };
}

const asStrings = (txt: readonly (readonly [string, string | null])[]): string[] => txt.map(([key, value]) => (value === null ? key : `${key}=${value}`)).sort();

describe('our mDNS responder, resolved by python-zeroconf and avahi on loopback in a namespace of its own', { skip: unavailable, timeout: 120_000 }, () => {
  const namespace = `vpmdns-${process.pid}`;
  let harness: Child | undefined;
  const children: Child[] = [];

  const inNamespace = (command: string, args: string[]): { command: string; args: string[] } => ({ command: 'ip', args: ['netns', 'exec', namespace, command, ...args] });
  const start = (label: string, argv: { command: string; args: string[] }): Child => {
    const child = new Child(label, spawn(argv.command, argv.args, { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'] }));
    children.push(child);
    return child;
  };
  const destroy = (): void => {
    for (const child of children) child.process.kill('SIGKILL');
    // What the children left (avahi's daemons fork) would hold their output pipes open.
    try {
      for (const pid of execFileSync('ip', ['netns', 'pids', namespace], { encoding: 'utf8' }).split(/\s+/).filter(Boolean)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // No such namespace, or nothing left in it.
    }
    try {
      execFileSync('ip', ['netns', 'del', namespace], { stdio: 'ignore' });
    } catch {
      // Not made, or already gone.
    }
  };

  before(async () => {
    process.once('exit', destroy);
    execFileSync('ip', ['netns', 'add', namespace]);
    // Loopback only, with multicast: 224.0.0.251 is routed there and every socket hears every datagram.
    execFileSync('ip', ['-n', namespace, 'link', 'set', 'lo', 'up']);
    execFileSync('ip', ['-n', namespace, 'link', 'set', 'lo', 'multicast', 'on']);
    execFileSync('ip', ['-n', namespace, 'route', 'add', '224.0.0.0/4', 'dev', 'lo']);
    harness = start('harness', inNamespace(process.execPath, ['--import', 'tsx', HARNESS, ADDRESS]));
    await harness.waitFor('both services advertised', STARTUP_MS, (lines) => (lines.filter((line) => line.startsWith('info mdns: advertising ')).length >= 2 ? true : undefined));
  });

  after(async () => {
    destroy();
    await Promise.all(children.map((child) => child.stop('SIGKILL')));
    process.removeListener('exit', destroy);
  });

  it('logs "advertising" for each service only after the host name is claimed', () => {
    const lines = harness!.lines;
    const claimed = lines.indexOf(`info mdns: host name ${HOST} claimed`);
    assert.ok(claimed >= 0, harness!.report());
    const advertising = lines.filter((line) => line.startsWith('info mdns: advertising '));
    assert.deepEqual(advertising.sort(), [
      `info mdns: advertising "${AUDIO.name}" ${AUDIO.type} port ${AUDIO.port} on ${HOST}`,
      `info mdns: advertising "${MEDIA.name}" ${MEDIA.type} port ${MEDIA.port} on ${HOST}`,
    ]);
    assert.ok(lines.findIndex((line) => line.startsWith('info mdns: advertising ')) > claimed);
  });

  it('python-zeroconf and avahi resolve both services with the full TXT record, and both see it change', async () => {
    const zeroconf = start('zeroconf', inNamespace(DEBIAN_PYTHON, [BROWSE, ...TYPES, '--timeout', String(RESOLVE_MS / 1000), '--watch', '30']));
    const avahi = start('avahi', inNamespace('unshare', ['-m', 'sh', AVAHI_ROUNDS, 'lo', String(RESOLVE_MS / 1000), MEDIA.type, AUDIO.type]));
    await zeroconf.waitFor('zeroconf ready', RESOLVE_MS + 5000, (lines) => (browseEvents(lines).some((event) => event.event === 'ready') ? true : undefined));
    await avahi.waitFor('avahi round 1', RESOLVE_MS + 5000, (lines) => lines.find((line) => line.startsWith('round 1 ')));
    assert.ok(avahi.lines.includes('round 1 done'), avahi.report());

    const resolved = browseEvents(zeroconf.lines).filter((event) => event.event === 'resolved');
    for (const service of [MEDIA, AUDIO]) {
      const event = resolved.find((candidate) => candidate.type === `${service.type}.local.`);
      assert.ok(event, `zeroconf resolved ${service.type}\n${zeroconf.report()}`);
      assert.equal(event.instance, service.name);
      assert.equal(event.server, `${HOST}.`);
      assert.equal(event.port, service.port);
      assert.deepEqual(event.addresses, [ADDRESS]);
      assert.deepEqual(event.txt, service.txt, 'every TXT entry, in record order');
      const seen = avahiResolved(avahi.lines, service.type);
      assert.ok(seen, `avahi resolved ${service.type}\n${avahi.report()}`);
      assert.deepEqual({ ...seen, txt: [...seen.txt].sort() }, { host: HOST, address: ADDRESS, port: service.port, txt: asStrings(service.txt) });
    }

    harness!.process.stdin!.write('update\n');
    const updated = await zeroconf.waitFor('zeroconf sees the new TXT', RESOLVE_MS, (lines) =>
      browseEvents(lines).find((event: BrowseEvent) => event.event === 'updated' && event.type === TYPES[0] && JSON.stringify(event.txt) === JSON.stringify(MDNS_HARNESS_UPDATE)),
    );
    assert.deepEqual(updated.txt as TxtPairs, MDNS_HARNESS_UPDATE);
    // avahi, asked again with the same daemon, answers from what it has heard since.
    let seen: ReturnType<typeof avahiResolved>;
    for (let round = 2; round <= 1 + AVAHI_ROUNDS_MAX; round++) {
      const from = avahi.lines.length;
      avahi.process.stdin!.write('again\n');
      await avahi.waitFor(`avahi round ${round}`, RESOLVE_MS + 5000, (lines) => lines.slice(from).find((line) => line.startsWith(`round ${round} `)));
      seen = avahiResolved(avahi.lines.slice(from), MEDIA.type);
      if (seen?.txt.includes('flags=0x204')) break;
    }
    assert.deepEqual(seen?.txt.sort(), asStrings(MDNS_HARNESS_UPDATE), avahi.report());
    avahi.process.stdin!.end();
    await zeroconf.stop('SIGKILL');
    await avahi.stop('SIGTERM');
  });

  it('answers a legacy unicast query with its ID and question, TTLs of at most 10 s, no cache-flush bits', async () => {
    const asker = start('unicast', inNamespace(DEBIAN_PYTHON, [BROWSE, ...TYPES, '--unicast', ADDRESS]));
    await asker.exited;
    const events = browseEvents(asker.lines);
    assert.equal(events.length, 2, asker.report());
    for (const event of events) {
      assert.equal(event.event, 'unicast-resolved', JSON.stringify(event));
      assert.equal(event.server, `${HOST}.`);
      assert.equal(event.ids_echoed, true);
      assert.equal(event.questions_echoed, true);
      assert.ok(event.max_ttl! <= 10, JSON.stringify(event));
      assert.equal(event.cache_flush, false);
      for (const type of ['PTR', 'TXT', 'SRV']) assert.ok(event.ptr_reply!.records.some((record) => record.startsWith(`${type} `)), JSON.stringify(event.ptr_reply));
    }
    const media = events.find((event) => event.type === TYPES[0])!;
    assert.deepEqual(media.txt, MDNS_HARNESS_UPDATE);
  });

  it('says goodbye on stop: python-zeroconf sees both services removed at once', async () => {
    const zeroconf = start('zeroconf-goodbye', inNamespace(DEBIAN_PYTHON, [BROWSE, ...TYPES, '--timeout', String(RESOLVE_MS / 1000), '--watch', '20']));
    await zeroconf.waitFor('zeroconf ready', RESOLVE_MS + 5000, (lines) => (browseEvents(lines).some((event) => event.event === 'ready') ? true : undefined));
    harness!.process.stdin!.write('stop\n');
    const removed = await zeroconf.waitFor('both removed', 10_000, (lines) => {
      const types = browseEvents(lines).filter((event) => event.event === 'removed').map((event) => event.type);
      return TYPES.every((type) => types.includes(type)) ? types : undefined;
    });
    assert.deepEqual([...removed].sort(), [...TYPES].sort());
    await harness!.exited;
    assert.equal(harness!.exitCode, 0, harness!.report());
    assert.ok(harness!.lines.includes('stopped'), harness!.report());
    assert.ok(!harness!.lines.some((line) => line.startsWith('error ') || line.startsWith('warn ')), harness!.report());
  });
});
