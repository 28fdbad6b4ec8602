// Discovery end to end: the desktop receiver advertises in one network namespace, and Debian's
// python-zeroconf, a browser nobody here wrote, finds, resolves and follows it from another.
// The receiver is the built command (bin/vendorplay-receiver.js, as `npm start` runs it: a start
// that crashed on loading the mDNS library once passed a suite that ran the TypeScript source),
// started with no --interface, on a veth whose peer lives in the other namespace, so `ip link`
// names it `X@ifN` (as in containers).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_DIALECT, DIALECTS } from '../../src/dialect';
import { AUDIO_SERVICE_TYPE, hasFlag, parseFeatures, parseFlags, type Activity } from '../../src/discovery/index';
import { DEFAULT_LIMITS, makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { isUuid } from '../../src/uuid';
import { fileStore, nodeClock, nodeRandom } from '../../hosts/node/io/ports';
import { DEFAULT_MIRROR_GEOMETRY, PageDecoder } from '../../hosts/node/screen/page-decoder';
import { PagePlayer } from '../../hosts/node/screen/player';
import { onPath } from '../../hosts/node/audio/audio-out';
import { MemoryAudioSink } from '../support/memory-audio-sink';
import { MemoryUdpSocket, memoryUdp } from '../support/mirror-ports';
import { BROWSE, browseEvents, Child, DEBIAN_PYTHON, spawnChild, txtValue, type BrowseEvent, type TxtPairs } from './browse';
import { createNetnsPair, netnsUnavailable, type NetnsPair } from './netns';
import { LOG_PREFIX, RECEIVER_COMMAND } from './receiver-process';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const NAME = 'Test Frame';
const PORT = 7000;
/** Given on the command line, so the expected records do not depend on a stored random one. */
const DEVICE_ID = '02:56:50:0E:2E:01';
const MEDIA_TYPE = `${DIALECTS[DEFAULT_DIALECT].serviceType}.local.`;
const AUDIO_TYPE = `${AUDIO_SERVICE_TYPE}.local.`;

/** Every wait is bounded; together they stay well under the suite's minute. */
const STARTUP_MS = 20_000;
const RESOLVE_MS = 20_000;
const CHANGE_MS = 10_000;
const GOODBYE_MS = 8_000;

/** `txt` with the value of each key in `keys` replaced, so a record can be compared whole. */
function withValues(txt: TxtPairs, values: Record<string, string>): TxtPairs {
  return txt.map(([key, value]) => [key, Object.hasOwn(values, key) ? values[key] : value]);
}

const unavailable = netnsUnavailable();

describe('discovery by multicast DNS, seen by python-zeroconf from another network namespace', { skip: unavailable, timeout: 60_000 }, () => {
  let pair: NetnsPair | undefined;
  let dataDir: string | undefined;
  let receiver: Child | undefined;
  let browser: Child | undefined;
  /** The receiver as the test builds it from the same configuration and stored identity. */
  let expected: Receiver | undefined;
  let idleGid: string | undefined;

  // A safety net should the runner end this process without the after hook.
  const emergencyCleanup = (): void => {
    receiver?.process.kill('SIGKILL');
    browser?.process.kill('SIGKILL');
    pair?.destroy();
  };

  before(async () => {
    process.once('exit', emergencyCleanup);
    pair = createNetnsPair('vpdisc');
    // The case this suite is about: ip prints the receiver's link as `<name>@if<N>`.
    const links = execFileSync('ip', ['-n', pair.receiver.namespace, '-o', 'link', 'show'], { encoding: 'utf8' });
    assert.match(links, new RegExp(`^\\d+: ${pair.receiver.iface}@if\\d+:`, 'm'), `ip link in the receiver namespace:\n${links}`);
    dataDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-discovery-'));
    receiver = spawnChild(
      'receiver',
      pair.exec(pair.receiver, process.execPath, [
        RECEIVER_COMMAND,
        '--name', NAME,
        '--port', String(PORT),
        '--device-id', DEVICE_ID,
        '--data-dir', dataDir,
        '--log-level', 'debug',
        '--activity-signal',
      ]),
    );
    // The command prints what it advertises once the receiver has started (and stored its identity).
    await receiver.waitFor('advertisement of both services', STARTUP_MS, (lines) =>
      lines.filter((line) => line.replace(LOG_PREFIX, '').startsWith('advertising ')).length >= 2 ? true : undefined,
    );
    browser = spawnChild(
      'browser',
      pair.exec(pair.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, AUDIO_TYPE, '--timeout', String(RESOLVE_MS / 1000), '--watch', '40', '--server-info', MEDIA_TYPE]),
    );
    const store = fileStore(dataDir);
    expected = new Receiver(makeConfig({ name: NAME, deviceId: DEVICE_ID, port: PORT }), {
      crypto: portableCryptoKernels,
      clock: nodeClock,
      random: nodeRandom,
      store,
      log: () => {},
      // The command has its virtual screen, so it offers the screen features (photos, slideshows),
      // and the screen page plays video (bits 0 and 4) and shows mirroring (bit 7, with UDP for NTP)
      // and what realtime audio plays (md). It plays audio where aplay is installed (bits 9, 19, 20).
      display: { showPhoto() {}, clear() {}, showStatus() {}, showPin() {}, hidePin() {}, showNowPlaying() {} },
      player: new PagePlayer(),
      videoDecoder: new PageDecoder({ geometry: DEFAULT_MIRROR_GEOMETRY, now: () => nodeClock.now(), log: () => {}, maxQueueBytes: DEFAULT_LIMITS.mirrorDisplayQueueBytes }),
      udp: memoryUdp().binder,
      ...(onPath('aplay') ? { audioSink: new MemoryAudioSink(), audioSockets: { data: new MemoryUdpSocket(6000), control: new MemoryUdpSocket(6001) } } : {}),
    });
  });

  after(async () => {
    await Promise.all([browser?.stop('SIGKILL'), receiver?.stop('SIGTERM')]);
    pair?.destroy();
    process.removeListener('exit', emergencyCleanup);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The first event matching `match` after `from` events, within `ms`. */
  function nextEvent(what: string, ms: number, match: (event: BrowseEvent) => boolean, from = 0): Promise<BrowseEvent> {
    return browser!.waitFor(what, ms, (lines) => {
      const events = browseEvents(lines);
      const timeout = events.find((event) => event.event === 'timeout');
      if (timeout) throw new Error(`the browser gave up; missing ${timeout.missing?.join(', ')}\n${browser!.report()}\n${receiver!.report()}`);
      return events.slice(from).find(match);
    });
  }

  function resolved(type: string): Promise<BrowseEvent> {
    return nextEvent(`${type} resolved`, RESOLVE_MS, (event) => event.event === 'resolved' && event.type === type);
  }

  /** The TXT record the receiver builds for `activity`, with the gid the browser saw. */
  function expectedTxt(serviceType: string, activity: Activity, gid: string): TxtPairs {
    expected!.setActivity(activity);
    const service = expected!.services().find((candidate) => `${candidate.type}.local.` === serviceType);
    assert.ok(service, `the receiver builds no ${serviceType} service`);
    return withValues(service.txt, { gid, pgid: gid });
  }

  it('finds the media service under the receiver name, at the receiver address and port', async () => {
    const media = await resolved(MEDIA_TYPE);
    assert.equal(media.instance, NAME);
    assert.equal(media.port, PORT);
    assert.deepEqual(media.addresses, [pair!.receiver.address]);
    assert.match(media.server ?? '', /\.local\.$/);
  });

  it('advertises on the veth with no --interface (not loopback only)', async () => {
    await resolved(MEDIA_TYPE);
    // The log (stderr) says where the responder listens.
    const started = receiver!.stderr.split('\n').find((line) => line.includes('mdns: responder started'));
    assert.ok(started?.includes(`on ${pair!.receiver.iface} (and loopback)`), `start line names the veth: ${String(started)}`);
  });

  it('points both services at one host name, <name>.local', async () => {
    const media = await resolved(MEDIA_TYPE);
    const audio = await resolved(AUDIO_TYPE);
    assert.equal(media.server, 'Test-Frame.local.');
    assert.equal(audio.server, media.server);
  });

  /** python-zeroconf asking the receiver's address directly, as "scan this host" does. */
  async function askDirectly(extra: string[]): Promise<BrowseEvent[]> {
    const asker = spawnChild('unicast asker', pair!.exec(pair!.sender, DEBIAN_PYTHON, [BROWSE, MEDIA_TYPE, AUDIO_TYPE, '--unicast', pair!.receiver.address, ...extra]));
    await Promise.race([asker.exited, new Promise((resolve) => setTimeout(resolve, RESOLVE_MS).unref())]);
    await asker.stop('SIGKILL');
    const events = browseEvents(asker.lines);
    assert.equal(events.length, 2, `one answer per type\n${asker.report()}`);
    return events;
  }

  it('answers a legacy unicast query (RFC 6762 6.7) from the other namespace at its source port', async () => {
    const media = await resolved(MEDIA_TYPE);
    const audio = await resolved(AUDIO_TYPE);
    for (const [event, multicast] of (await askDirectly([])).map((event, i) => [event, [media, audio][i]] as const)) {
      assert.equal(event.event, 'unicast-resolved', JSON.stringify(event));
      assert.notEqual(event.source_port, 5353);
      assert.equal(event.instance, multicast.instance);
      assert.equal(event.port, PORT);
      assert.equal(event.server, multicast.server);
      assert.deepEqual(event.addresses, [pair!.receiver.address]);
      assert.deepEqual(event.txt, multicast.txt);
      assert.equal(event.ids_echoed, true, 'the reply repeats the query ID');
      assert.equal(event.questions_echoed, true, 'the reply repeats the question');
      assert.ok(event.max_ttl! <= 10, `legacy TTLs at most 10 s, got ${event.max_ttl}`);
      assert.equal(event.cache_flush, false, 'no cache-flush bit in a legacy reply');
      // A sender that asks only the PTR question (pyatv --scan-hosts) must find everything it
      // needs in that one reply: the TXT record (features, pk) and the SRV record, within the
      // 512 bytes of a legacy unicast answer (RFC 6762 6.7), without truncation.
      const reply = event.ptr_reply!;
      assert.ok(reply.size <= 512, `PTR reply of ${reply.size} bytes: ${JSON.stringify(reply)}`);
      assert.equal(reply.truncated, false, JSON.stringify(reply));
      for (const type of ['PTR', 'TXT', 'SRV']) {
        assert.ok(reply.records.some((record) => record.startsWith(`${type} `)), `the PTR reply holds a ${type} record: ${JSON.stringify(reply)}`);
      }
    }
  });

  it('answers QU questions sent from port 5353 straight to its address, by unicast', async () => {
    const media = await resolved(MEDIA_TYPE);
    const events = await askDirectly(['--from-5353', pair!.sender.address]);
    for (const event of events) {
      assert.equal(event.event, 'unicast-resolved', JSON.stringify(event));
      assert.equal(event.source_port, 5353);
      assert.equal(event.server, media.server);
      assert.deepEqual(event.addresses, [pair!.receiver.address]);
    }
    assert.deepEqual(events[0].txt, media.txt);
  });

  it('finds the audio service named <MAC in hex>@<name> on the same port', async () => {
    const audio = await resolved(AUDIO_TYPE);
    assert.equal(audio.instance, `${DEVICE_ID.replaceAll(':', '')}@${NAME}`);
    assert.equal(audio.port, PORT);
    assert.deepEqual(audio.addresses, [pair!.receiver.address]);
  });

  it('resolves TXT records equal, key for key and in order, to what the receiver builds', async () => {
    const media = await resolved(MEDIA_TYPE);
    const audio = await resolved(AUDIO_TYPE);
    const mediaTxt = media.txt!;
    idleGid = txtValue(mediaTxt, 'gid') ?? undefined;
    assert.ok(idleGid && isUuid(idleGid), `gid ${String(idleGid)} is a UUID`);
    for (const key of ['deviceid', 'features', 'flags', 'model', 'srcvers', 'pk', 'pi', 'psi', 'gid', 'igl', 'gcgl']) {
      assert.notEqual(txtValue(mediaTxt, key), undefined, `media TXT has ${key}`);
    }
    assert.equal(txtValue(mediaTxt, 'deviceid'), DEVICE_ID);
    assert.deepEqual(mediaTxt, expectedTxt(MEDIA_TYPE, 'idle', idleGid));
    assert.deepEqual(audio.txt, expectedTxt(AUDIO_TYPE, 'idle', idleGid));
  });

  it('answers GET /server-info at the advertised address with the TXT record values', async () => {
    const media = await resolved(MEDIA_TYPE);
    const info = await nextEvent('/server-info reply', RESOLVE_MS, (event) => event.event === 'server-info');
    assert.equal(info.error, undefined, `GET ${String(info.url)} failed: ${String(info.error)}`);
    assert.equal(info.status, 200);
    const plist = info.plist!;
    const txt = media.txt!;
    assert.equal(plist.deviceid, txtValue(txt, 'deviceid'));
    // The plist holds the 64 bits as one integer; the TXT record as low and high words (spec 2.1).
    assert.equal(BigInt(plist.features as string), parseFeatures(txtValue(txt, 'features')!));
    assert.equal(plist.model, txtValue(txt, 'model'));
    assert.equal(plist.srcvers, txtValue(txt, 'srcvers'));
    assert.equal(plist.protovers, txtValue(txt, 'protovers'));
  });

  it('sees the TXT change when activity changes (spec 2.1: idle to receiving video)', async () => {
    const media = await resolved(MEDIA_TYPE);
    await nextEvent('ready', RESOLVE_MS, (event) => event.event === 'ready');
    const before = media.txt!;
    const oldGid = txtValue(before, 'gid')!;
    const seen = browseEvents(browser!.lines).length;
    // --activity-signal: SIGUSR2 toggles idle <-> receiving video.
    receiver!.process.kill('SIGUSR2');
    const changed = (type: string) => (event: BrowseEvent): boolean =>
      event.event === 'updated' && event.type === type && txtValue(event.txt ?? [], 'gid') !== oldGid;
    const update = await nextEvent('media TXT update with a new gid', CHANGE_MS, changed(MEDIA_TYPE), seen);
    const txt = update.txt!;
    const gid = txtValue(txt, 'gid')!;
    assert.ok(isUuid(gid), `new gid ${gid} is a UUID`);
    assert.notEqual(gid, oldGid, 'gid differs between activities');
    assert.ok(hasFlag(parseFlags(txtValue(txt, 'flags')!), 'ReceiverSessionIsActive'), `flags ${txtValue(txt, 'flags')} has bit 17`);
    assert.ok(!hasFlag(parseFlags(txtValue(before, 'flags')!), 'ReceiverSessionIsActive'), 'bit 17 was clear while idle');
    assert.equal(txtValue(txt, 'igl'), '0');
    assert.equal(txtValue(txt, 'gcgl'), '0');
    assert.equal(txtValue(txt, 'pgid'), gid);
    assert.equal(txtValue(txt, 'pgcgl'), '0');
    assert.deepEqual(txt, expectedTxt(MEDIA_TYPE, 'receivingVideo', gid));
    // The audio record follows too: its sf carries the same status flags.
    const audio = await nextEvent('audio TXT update', CHANGE_MS, (event) => event.event === 'updated' && event.type === AUDIO_TYPE && hasFlag(parseFlags(txtValue(event.txt ?? [], 'sf') ?? '0x0'), 'ReceiverSessionIsActive'), seen);
    assert.deepEqual(audio.txt, expectedTxt(AUDIO_TYPE, 'receivingVideo', gid));
  });

  it('says goodbye for both services when the receiver stops', async () => {
    await nextEvent('ready', RESOLVE_MS, (event) => event.event === 'ready');
    const seen = browseEvents(browser!.lines).length;
    receiver!.process.kill('SIGTERM');
    const removed = (type: string) => (event: BrowseEvent): boolean => event.event === 'removed' && event.type === type;
    const media = await nextEvent('media service goodbye', GOODBYE_MS, removed(MEDIA_TYPE), seen);
    const audio = await nextEvent('audio service goodbye', GOODBYE_MS, removed(AUDIO_TYPE), seen);
    assert.equal(media.instance, NAME);
    assert.equal(audio.instance, `${DEVICE_ID.replaceAll(':', '')}@${NAME}`);
    await Promise.race([receiver!.exited, new Promise((resolve) => setTimeout(resolve, GOODBYE_MS).unref())]);
    assert.equal(receiver!.exitCode, 0, `receiver exit code\n${receiver!.report()}`);
  });
});
