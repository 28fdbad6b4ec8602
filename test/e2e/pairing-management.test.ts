// Pairing management and storage faults end to end: the real `vendorplay-receiver`
// command on loopback; npm hap-controller (a HomeKit-style client nobody here wrote) pairs, then
// lists, adds and removes pairings over its pair-verified connection (POST /pairings, TLV8
// methods 3/4/5); the `vendorplay-receiver pairings` command changes the table of a running
// receiver; a full table is recovered without touching files; and a data directory on a full
// disk (a tmpfs in a private mount namespace, so nothing outside this test sees it) gives TLV
// errors and clear log lines, not HTTP 500 or temporary files left behind.
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only; every client
// connects to 127.0.0.1.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpClient, PairMethods, type PairingData } from 'hap-controller';
import { concat, latin1Encode } from '../../src/bytes';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import { TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { freshDataDir, PROJECT_ROOT, RawClient, ReceiverProcess } from './receiver-process';

const PIN = '3939';
const COMMAND = path.join(PROJECT_ROOT, 'bin', 'vendorplay-receiver.js');

/** hap-controller insists on HomeKit's XXX-XX-XXX PIN format; the protocol's PIN is 4 digits. */
class PinClient extends HttpClient {
  override verifyPin(): void {}
}

/** A controller identity of our own (for addPairing), as hap-controller stores one. */
function controller(id: string, receiver: ReceiverProcess): { id: string; ltpk: Buffer; data: PairingData } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const ltpk = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  return {
    id,
    ltpk,
    data: {
      AccessoryPairingID: Buffer.from(receiver.deviceId).toString('hex'),
      AccessoryLTPK: receiver.txt('_vendorplay._tcp', 'pk'),
      iOSDevicePairingID: Buffer.from(id).toString('hex'),
      // libsodium's Ed25519 secret key: the seed followed by the public key.
      iOSDeviceLTSK: Buffer.concat([seed, ltpk]).toString('hex'),
      iOSDeviceLTPK: ltpk.toString('hex'),
    },
  };
}

/** listPairings' TLV as [identifier, permissions] pairs (hap-controller joins repeats into arrays). */
function pairingsIn(tlv: Map<number, Buffer | Buffer[]>): [string, number][] {
  const ids = [tlv.get(TLV.Identifier) ?? []].flat();
  const permissions = [tlv.get(TLV.Permissions) ?? []].flat();
  assert.equal([tlv.get(TLV.PublicKey) ?? []].flat().length, ids.length, 'a key per pairing');
  return ids.map((id, index) => [id.toString('utf8'), permissions[index][0]]);
}

/** `vendorplay-receiver pairings ...`: exit status and output. */
function pairingsCommand(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [COMMAND, 'pairings', ...args], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const rejectsWith = (code: number) => (error: { statusCode?: number }) => {
  assert.equal(error.statusCode, code, `hap-controller error ${String(error.statusCode)}, expected TLV error ${code}`);
  return true;
};

describe('pairing management with hap-controller and the pairings command', () => {
  let receiver: ReceiverProcess;
  let dataDir: string;
  let admin: PairingData;
  let adminId: string;

  before(async () => {
    dataDir = freshDataDir();
    // The default pairingTimeoutMs (30 s): hap-controller's SRP runs in this process, and on a
    // busy machine its M1 to M3 takes seconds (a deadline of 3 s turned its M3 away at M4).
    receiver = await ReceiverProcess.start({ dataDir, args: ['--pin', PIN, '--no-screen', '--limit', 'maxPairings=2'] });
  });
  after(async () => {
    await receiver?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('hap-controller pairs, then lists its own pairing (admin)', async () => {
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(PIN, PairMethods.PairSetup);
    admin = client.getLongTermData()!;
    adminId = Buffer.from(admin.iOSDevicePairingID, 'hex').toString('utf8');
    const listed = await new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, admin).listPairings();
    assert.deepEqual(pairingsIn(listed as Map<number, Buffer>), [[adminId, 1]]);
  });

  test('addPairing adds a user; that user is refused (Authentication); the full table answers MaxPeers; removePairing makes room', async () => {
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, admin);
    const user = controller('F1000000-0000-4000-8000-00000000000A', receiver);
    await client.addPairing(user.id, user.ltpk, false);
    assert.deepEqual(pairingsIn((await client.listPairings()) as Map<number, Buffer>), [
      [adminId, 1],
      [user.id, 0],
    ]);
    // The user pair-verifies (it is paired) but may not manage pairings.
    const asUser = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, user.data);
    await assert.rejects(asUser.listPairings(), rejectsWith(TLV_ERROR.Authentication));
    await assert.rejects(asUser.addPairing('F2000000-0000-4000-8000-00000000000B', user.ltpk, true), rejectsWith(TLV_ERROR.Authentication));
    // maxPairings=2: a third sender's pair-setup is answered MaxPeers.
    await assert.rejects(new PinClient(receiver.deviceId, '127.0.0.1', receiver.port).pairSetup(PIN, PairMethods.PairSetup), rejectsWith(TLV_ERROR.MaxPeers));
    // hap-controller takes a string identifier as hex; the bytes go as they are.
    await client.removePairing(Buffer.from(user.id));
    assert.deepEqual(pairingsIn((await client.listPairings()) as Map<number, Buffer>), [[adminId, 1]]);
    await assert.rejects(asUser.listPairings(), 'a removed pairing no longer pair-verifies');
  });

  test('without pair-verify, /pairings, /pair-add, /pair-remove and /pair-list answer 470', async () => {
    const raw = await RawClient.connect(receiver.port);
    try {
      for (const target of ['/pairings', '/pair-add', '/pair-remove', '/pair-list']) {
        raw.send(concat(latin1Encode(`POST ${target} HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 6\r\n\r\n`), new Uint8Array([6, 1, 1, 0, 1, 5])));
        const response = await raw.response();
        assert.equal(response.head.status, 470, target);
      }
    } finally {
      raw.close();
    }
  });

  test('a full table is recovered without touching files: `pairings list`, `remove ID`, `clear` on the running receiver', async () => {
    const second = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await second.pairSetup(PIN, PairMethods.PairSetup);
    const secondId = Buffer.from(second.getLongTermData()!.iOSDevicePairingID, 'hex').toString('utf8');
    await assert.rejects(new PinClient(receiver.deviceId, '127.0.0.1', receiver.port).pairSetup(PIN, PairMethods.PairSetup), rejectsWith(TLV_ERROR.MaxPeers));

    const listed = pairingsCommand('list', '--data-dir', dataDir);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^2 pairings in ${dataDir}\n${adminId}  admin  ${admin.iOSDeviceLTPK}\n${secondId}  admin  [0-9a-f]{64}\n$`));

    const removed = pairingsCommand('remove', secondId, '--data-dir', dataDir);
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /removed the pairing of .*; 1 left/);
    // The running receiver takes a new sender at once.
    await new PinClient(receiver.deviceId, '127.0.0.1', receiver.port).pairSetup(PIN, PairMethods.PairSetup);

    const missing = pairingsCommand('remove', 'nobody', '--data-dir', dataDir);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^vendorplay-receiver pairings: no pairing "nobody" in .* \(paired: /);

    const cleared = pairingsCommand('clear', '--data-dir', dataDir);
    assert.equal(cleared.status, 0, cleared.stderr);
    assert.match(cleared.stdout, /^removed 2 pairings from /);
    assert.equal(pairingsCommand('list', '--data-dir', dataDir).stdout, `0 pairings in ${dataDir}\n`);
    await assert.rejects(new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, admin).listPairings(), rejectsWith(TLV_ERROR.Authentication));
  });

  test('1,000 pipelined pair-setup M1s on one connection make at most pairingStepsPerSecondPerConnection SRP keys a second', async () => {
    const m1 = new Uint8Array([6, 1, 1, 0, 1, 0]);
    const one = concat(latin1Encode(`POST /pair-setup HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: ${m1.length}\r\n\r\n`), m1);
    const raw = await RawClient.connect(receiver.port);
    try {
      const started = performance.now();
      raw.send(concat(...Array.from({ length: 1000 }, () => one)));
      const answers = await raw.responsesOf(1000, 20_000);
      const seconds = (performance.now() - started) / 1000;
      const keys = answers.filter((answer) => decodeTlv8(answer.body).has(TLV.PublicKey)).length;
      const backoff = answers.filter((answer) => decodeTlv8(answer.body).get(TLV.Error)?.[0] === TLV_ERROR.Backoff).length;
      // The default limit, 8 a second, with a full bucket at the start.
      assert.ok(keys >= 1 && keys <= 8 * (1 + Math.ceil(seconds)), `${keys} SRP keys in ${seconds.toFixed(2)} s`);
      assert.equal(keys + backoff, 1000, 'every other M1 is Backoff');
      process.stdout.write(`# ${JSON.stringify({ figure: 'pipelined-m1', requests: 1000, srpKeys: keys, backoff, seconds: Number(seconds.toFixed(3)) })}\n`);
    } finally {
      raw.close();
    }
    await receiver.waitForLog(/costly pairing step.* refused.*\(Backoff\): pair-setup M1: more than limits\.pairingStepsPerSecondPerConnection \(8\)/);
  });

  test('the command: usage errors exit 2 in one line; a data directory that does not exist is not made', () => {
    const usage = pairingsCommand('frobnicate');
    assert.equal(usage.status, 2);
    assert.equal(usage.stderr.trim().split('\n').length, 1);
    const nowhere = path.join(dataDir, 'no-such-dir');
    const absent = pairingsCommand('list', '--data-dir', nowhere);
    assert.equal(absent.status, 1);
    assert.match(absent.stderr, /no data directory/);
    assert.equal(existsSync(nowhere), false);
  });
});

describe('records kept across a kill -9 and a stop', () => {
  test('a pairing answered 200 at M6 survives a SIGKILL at once: the restarted receiver lists it and pair-verifies it', async () => {
    const dataDir = freshDataDir();
    try {
      const first = await ReceiverProcess.start({ dataDir, args: ['--pin', PIN, '--no-screen'] });
      const client = new PinClient(first.deviceId, '127.0.0.1', first.port);
      await client.pairSetup(PIN, PairMethods.PairSetup);
      first.child.kill('SIGKILL');
      assert.deepEqual(await first.stop(), { code: null, signal: 'SIGKILL' });
      const paired = client.getLongTermData()!;
      const pairedId = Buffer.from(paired.iOSDevicePairingID, 'hex').toString('utf8');
      const listed = pairingsCommand('list', '--data-dir', dataDir);
      assert.equal(listed.status, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^1 pairing in ${dataDir}\n${pairedId}  admin  ${paired.iOSDeviceLTPK}\n$`));
      const second = await ReceiverProcess.start({ dataDir, args: ['--pin', PIN, '--no-screen'] });
      try {
        const pairings = await new PinClient(second.deviceId, '127.0.0.1', second.port, paired).listPairings();
        assert.deepEqual(pairingsIn(pairings as Map<number, Buffer>), [[pairedId, 1]]);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a gid changed just before SIGTERM is written by the stop (it waits off the request path otherwise)', async () => {
    const dataDir = freshDataDir();
    try {
      const receiver = await ReceiverProcess.start({ dataDir, args: ['--no-screen', '--activity-signal'] });
      receiver.child.kill('SIGUSR2');
      const line = await receiver.waitForLog(/activity: receivingVideo \(gid [0-9A-F-]+\)/i);
      const gid = /gid ([0-9A-F-]+)/i.exec(line)![1];
      assert.deepEqual(await receiver.stop(), { code: 0, signal: null });
      assert.equal(readFileSync(path.join(dataDir, 'gid'), 'utf8'), `receivingVideo ${gid}`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('storage faults', () => {
  test('stale temporary files of dead processes are removed at start; a live process\'s is kept', async () => {
    const dataDir = freshDataDir();
    // Above any pid_max Linux allows (2^22): no such process can exist.
    writeFileSync(path.join(dataDir, 'pairings.4194399.tmp'), '');
    writeFileSync(path.join(dataDir, `pairings.${process.pid}.tmp`), '');
    const receiver = await ReceiverProcess.start({ dataDir, args: ['--no-screen'] });
    try {
      const names = readdirSync(dataDir);
      assert.ok(!names.includes('pairings.4194399.tmp'), names.join(' '));
      assert.ok(names.includes(`pairings.${process.pid}.tmp`), 'another live process may be writing it');
    } finally {
      await receiver.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a record the data directory cannot give at start is one line on stderr and exit 1, without the help text', () => {
    const dataDir = freshDataDir();
    mkdirSync(path.join(dataDir, 'device-id'));
    try {
      const result = spawnSync(process.execPath, [COMMAND, '--no-mdns', '--no-screen', '--interface', 'lo', '--port', '0', '--data-dir', dataDir], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 20_000 });
      assert.equal(result.status, 1, result.stderr);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0], /^vendorplay-receiver: cannot read .*device-id: it is a directory, not a file \(EISDIR\)/);
      assert.doesNotMatch(result.stderr + result.stdout, /Usage:/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('a data directory on a full disk (tmpfs in a private mount namespace)', () => {
    let receiver: ReceiverProcess;
    let prepared: string;
    let mountPoint: string;

    /** The files in the receiver's data directory as the receiver sees them (inside its namespace). */
    const filesInside = (): string[] => execFileSync('nsenter', ['-t', String(receiver.child.pid), '-m', 'ls', '-A', mountPoint], { encoding: 'utf8' }).split('\n').filter(Boolean);

    before(async () => {
      // The identity and device id made by a first start, then copied onto a tmpfs filled up.
      prepared = freshDataDir();
      await (await ReceiverProcess.start({ dataDir: prepared, args: ['--no-screen'] })).stop();
      mountPoint = freshDataDir();
      const script = 'mount -t tmpfs -o size=128k tmpfs "$0" && cp -a "$1"/. "$0"/ && { dd if=/dev/zero of="$0/filler" bs=4096 2>/dev/null; true; } && shift && exec "$@"';
      receiver = await ReceiverProcess.start({ dataDir: mountPoint, args: ['--pin', PIN, '--no-screen'], prefix: ['unshare', '-m', '--propagation', 'private', 'sh', '-c', script, mountPoint, prepared] });
    });
    after(async () => {
      await receiver?.stop();
      rmSync(prepared, { recursive: true, force: true });
      rmSync(mountPoint, { recursive: true, force: true });
    });

    test('a pairing the disk cannot take is TLV Unknown at M6 and an error line; no temporary file is left', async () => {
      await assert.rejects(new PinClient(receiver.deviceId, '127.0.0.1', receiver.port).pairSetup(PIN, PairMethods.PairSetup), rejectsWith(TLV_ERROR.Unknown));
      await receiver.waitForLog(/error pair-setup M5: cannot write the "pairings" record: .*no space left on the device \(ENOSPC\)/);
      assert.doesNotMatch(receiver.stderr, / 500 /);
      assert.deepEqual(filesInside().filter((name) => name.endsWith('.tmp')), []);
    });

    test('a wrong PIN is still Authentication; with the count not stored every pair-setup is Busy', async () => {
      await assert.rejects(new PinClient(receiver.deviceId, '127.0.0.1', receiver.port).pairSetup('0000', PairMethods.PairSetup), rejectsWith(TLV_ERROR.Authentication));
      await receiver.waitForLog(/error cannot write the failed-attempt count/);
      await assert.rejects(new PinClient(receiver.deviceId, '127.0.0.1', receiver.port).pairSetup(PIN, PairMethods.PairSetup), rejectsWith(TLV_ERROR.Busy));
      assert.deepEqual(filesInside().filter((name) => name.endsWith('.tmp')), []);
    });
  });
});
