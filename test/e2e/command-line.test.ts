// The two commands as a person meets them: a refusal or a usage error is one
// line that says what to do, never a stack trace or the whole help; a taken screen port or an
// unusable data directory stops start-up naming it; --help says what is not served yet.
//
// Network safety: receivers run with --no-mdns on loopback only (receiver-process.ts); the
// start-up failures below end before anything listens.

import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hasFeature, parseFeatures } from '../../src/discovery/features';
import { freshDataDir, PROJECT_ROOT, RECEIVER_COMMAND, ReceiverProcess, runCommand, runSender, until, type CommandRun } from './receiver-process';

/** The lines of `text`, without the empty one after the last newline. */
function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1);
}

/** What the command said to the person, without its timestamped log lines. */
function said(stderr: string): string[] {
  return lines(stderr).filter((line) => !/^\d{4}-\d\d-\d\dT\S+ (error|warn|info|debug) /.test(line));
}

/** A start of the receiver that must fail before it listens: loopback, no mDNS, any port. */
function startReceiver(args: string[]): Promise<CommandRun> {
  return runCommand(RECEIVER_COMMAND, ['--no-mdns', '--interface', 'lo', '--port', '0', ...args]);
}

describe('vendorplay-send against a receiver without slideshows', () => {
  let receiver: ReceiverProcess;
  let pictures: string;

  before(async () => {
    pictures = mkdtempSync(path.join(tmpdir(), 'vendorplay-cli-pictures-'));
    writeFileSync(path.join(pictures, 'a.jpg'), Uint8Array.of(0xff, 0xd8, 0xff, 0xd9));
    receiver = await ReceiverProcess.start({ args: ['--no-screen'] });
  });

  after(async () => {
    await receiver?.stop();
    rmSync(pictures, { recursive: true, force: true });
  });

  test('slideshow ends with one line saying so, exit status 1, no stack trace', async () => {
    const result = await runSender(['slideshow', `127.0.0.1:${receiver.port}`, pictures, '--stop-after', '5']);
    assert.deepEqual(lines(result.stderr), [`vendorplay-send: 127.0.0.1:${receiver.port} does not do slideshows (GET /slideshow-features: 404)`]);
    assert.equal(result.code, 1);
  });

  test('a refused photo prints the receiver\'s reason (its one-line text body)', async () => {
    const result = await runSender(['photo', `127.0.0.1:${receiver.port}`, path.join(pictures, 'a.jpg')]);
    const [line, ...rest] = lines(result.stderr);
    assert.match(line, /the receiver answered 501 Not Implemented: this receiver does not implement this method$/);
    assert.deepEqual(rest, []);
    assert.equal(result.code, 1);
  });
});

describe('usage errors: one line and a pointer to --help', () => {
  test('vendorplay-send with an unknown command or option', async () => {
    const command = await runSender(['show', '127.0.0.1:7000']);
    assert.deepEqual(lines(command.stderr), ['vendorplay-send: unknown command "show": photo, slideshow, play, scrub, rate, info, stop, mirror, audio, pair, pairings, unpair (see --help)']);
    assert.equal(command.code, 2);
    const option = await runSender(['photo', '127.0.0.1:7000', 'a.jpg', '--bogus']);
    assert.deepEqual(lines(option.stderr), ['vendorplay-send: unknown option --bogus (see --help)']);
    assert.equal(option.code, 2);
  });

  test('vendorplay-send video commands with a missing or bad argument', async () => {
    const cases: [string[], string][] = [
      [['play', '127.0.0.1:7000'], 'play: the video URL is missing'],
      [['play', '127.0.0.1:7000', 'http://127.0.0.1:9/a.mp4', '--start', '2'], '--start "2" is not a number from 0 to 1'],
      [['play', '127.0.0.1:7000', 'http://127.0.0.1:9/a.mp4', '--start', '0.5', '--start-seconds', '3'], '--start and --start-seconds: give one of them'],
      [['rate', '127.0.0.1:7000'], 'rate: the rate (0 pauses, 1 plays) is missing'],
      [['rate', '127.0.0.1:7000', 'fast'], 'rate: VALUE "fast" is not a number from -64 to 64'],
      [['scrub', '127.0.0.1:7000', 'later'], 'scrub: SECONDS "later" is not a number from 0 to 31536000'],
      [['scrub', '127.0.0.1:7000', '--', '-3'], 'scrub: SECONDS "-3" is not a number from 0 to 31536000'],
      [['info', '127.0.0.1:7000', 'extra'], 'info: unexpected argument "extra"'],
      [['info', '127.0.0.1:7000', '--start', '0.5'], '--start: only for play'],
    ];
    for (const [args, message] of cases) {
      const result = await runSender(args);
      assert.deepEqual(lines(result.stderr), [`vendorplay-send: ${message} (see --help)`], args.join(' '));
      assert.equal(result.code, 2);
    }
    const help = await runSender(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^ {2}vendorplay-send play HOST:PORT URL \[--start FRACTION \| --start-seconds SECONDS\]$/m);
    assert.match(help.stdout, /^ {2}info {8}prints the playback information/m);
  });

  test('vendorplay-receiver with an unknown option or a bad value', async () => {
    const option = await runCommand(RECEIVER_COMMAND, ['--bogus']);
    assert.deepEqual(lines(option.stderr), ['vendorplay-receiver: unknown option --bogus (see --help)']);
    assert.equal(option.code, 2);
    const value = await runCommand(RECEIVER_COMMAND, ['--port', 'seven']);
    assert.deepEqual(lines(value.stderr), ['vendorplay-receiver: --port "seven" is not a port number (0 to 65535) (see --help)']);
    assert.equal(value.code, 2);
  });

  test('a --name discovery cannot publish (40 "é": 40 characters, 80 bytes): one line, exit status 2', async () => {
    const name = 'é'.repeat(40);
    const result = await startReceiver(['--no-screen', '--name', name]);
    assert.deepEqual(lines(result.stderr), [
      `vendorplay-receiver: --name "${name}" is 80 bytes of UTF-8; at most 50 fit (the audio service's DNS-SD name, MAC@name, is one 63-byte label) (see --help)`,
    ]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
  });

  test('the longest --name allowed (50 bytes of UTF-8) starts and names both services', async () => {
    const name = 'é'.repeat(25);
    const receiver = await ReceiverProcess.start({ args: ['--no-screen', '--name', name] });
    try {
      assert.deepEqual(
        receiver.services.map((service) => service.name),
        [name, `${receiver.deviceId.replace(/:/g, '')}@${name}`],
      );
    } finally {
      await receiver.stop();
    }
  });

  test('--help fits 100 columns: the limits are listed in their own section, not on --limit\'s line', async () => {
    for (const help of [await runCommand(RECEIVER_COMMAND, ['--help']), await runSender(['--help'])]) {
      assert.equal(help.code, 0);
      assert.deepEqual(
        help.stdout.split('\n').filter((line) => line.length > 100),
        [],
      );
    }
    const help = (await runCommand(RECEIVER_COMMAND, ['--help'])).stdout;
    assert.match(help, /^ {2}--limit NAME=VALUE +set a limit \(repeatable\); the names and their defaults are listed under\n +Limits\n/m);
    assert.match(help, /^Limits \(--limit NAME=VALUE\), with their defaults:\n {2}maxConnections=256 maxConnectionsPerAddress=32 /m);
  });

  test('--help says when the mirroring port is served', async () => {
    const help = await runCommand(RECEIVER_COMMAND, ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--mirror-port PORT +screen mirroring port; served when the receiver mirrors: a profile with\n +mirroring and the screen page \(which decodes it\), or --record FILE;\n +start-up stops if it is taken \(default: 7100; with --port N, N\+100\)\n/);
  });
});

describe('start-up stops, naming the cause', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'vendorplay-cli-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('a data directory that is a file, or lies under one', async () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'not a directory');
    const itself = await startReceiver(['--data-dir', file, '--no-screen']);
    assert.deepEqual(lines(itself.stderr), [`vendorplay-receiver: data directory ${file} cannot be used: it exists and is not a directory (EEXIST); choose another with --data-dir DIR (see --help)`]);
    assert.equal(itself.code, 2);
    const under = path.join(file, 'receiver');
    const below = await startReceiver(['--data-dir', under, '--no-screen']);
    assert.deepEqual(lines(below.stderr), [`vendorplay-receiver: data directory ${under} cannot be used: a part of the path is a file, not a directory (ENOTDIR); choose another with --data-dir DIR (see --help)`]);
    assert.equal(below.code, 2);
  });

  test('a --screen-port another program holds: nothing advertised or served, one line', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const result = await startReceiver(['--data-dir', path.join(scratch, 'data'), '--screen-port', String(port)]);
      assert.deepEqual(said(result.stderr), [`vendorplay-receiver: --screen-port ${port}: the port is in use by another program; choose another port (0 picks a free one) or --no-screen`]);
      assert.equal(result.code, 1);
      assert.doesNotMatch(result.stdout, /advertising|listening on/);
    } finally {
      holder.close();
    }
  });

  test('a --mirror-port another program holds: one line naming it, nothing advertised or served (no bit 7 without its port)', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      // The desktop profile with the screen page mirrors: the listener is wanted.
      const result = await startReceiver(['--data-dir', path.join(scratch, 'data'), '--screen-port', '0', '--ntp-port', '0', '--mirror-port', String(port)]);
      assert.deepEqual(said(result.stderr), [`vendorplay-receiver: --mirror-port ${port}: the port is in use by another program; choose another port (0 picks a free one)`]);
      assert.equal(result.code, 1);
      assert.doesNotMatch(result.stdout, /advertising|listening on/);
      // A receiver that does not mirror (--no-screen, no --record) never listens there: it starts.
      const receiver = await ReceiverProcess.start({ args: ['--no-screen', '--mirror-port', String(port)] });
      try {
        assert.equal(receiver.mirrorPort, undefined);
        assert.equal(hasFeature(parseFeatures(receiver.txt('_vendorplay._tcp', 'features')), 'Screen'), false, 'bit 7 clear');
      } finally {
        await receiver.stop();
      }
    } finally {
      holder.close();
    }
  });

  test('an --ntp-port another program holds (mirroring with --record): one line, nothing served', async () => {
    const holder = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => holder.bind(0, resolve));
    const port = holder.address().port;
    try {
      const result = await startReceiver(['--data-dir', path.join(scratch, 'data'), '--no-screen', '--record', path.join(scratch, 'record.h264'), '--ntp-port', String(port)]);
      assert.deepEqual(said(result.stderr), [`vendorplay-receiver: --ntp-port ${port}: the port is in use by another program; choose another port (0 picks a free one)`]);
      assert.equal(result.code, 1);
      assert.doesNotMatch(result.stdout, /advertising|listening on/);
    } finally {
      holder.close();
    }
  });
});

describe('the data directory keeps the secret key from other users', () => {
  const modeOf = (file: string): number => statSync(file).mode & 0o777;

  test('a data directory the receiver makes is 0700, every record in it 0600, and a record written again is 0600', async () => {
    const parent = freshDataDir();
    const dataDir = path.join(parent, 'missing', 'vendorplay-receiver');
    const receiver = await ReceiverProcess.start({ dataDir, args: ['--no-screen', '--activity-signal'] });
    try {
      assert.equal(modeOf(dataDir).toString(8), '700');
      const records = readdirSync(dataDir).sort();
      assert.deepEqual(records, ['device-id', 'gid', 'identity']);
      for (const record of records) assert.equal(modeOf(path.join(dataDir, record)).toString(8), '600', record);
      assert.doesNotMatch(receiver.stderr, /secret key/);
      // The gid record is written again when the activity changes (spec 2.1; SIGUSR2 here).
      const gid = path.join(dataDir, 'gid');
      chmodSync(gid, 0o644);
      receiver.child.kill('SIGUSR2');
      await until(() => `${gid} written again 0600 (mode ${modeOf(gid).toString(8)})`, () => modeOf(gid) === 0o600);
    } finally {
      await receiver.stop();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test('an identity others can read (an older version wrote it 0644): a warning at start naming it; the directory left as it was', async () => {
    const dataDir = freshDataDir();
    try {
      await (await ReceiverProcess.start({ dataDir, args: ['--no-screen'] })).stop();
      const identity = path.join(dataDir, 'identity');
      chmodSync(identity, 0o644);
      chmodSync(dataDir, 0o755);
      const receiver = await ReceiverProcess.start({ dataDir, args: ['--no-screen'] });
      await receiver.stop();
      const warnings = lines(receiver.stderr).filter((line) => / warn /.test(line)).map((line) => line.replace(/^\S+ /, ''));
      assert.deepEqual(warnings, [`warn  ${identity} holds the receiver's secret key and other users can read it (mode 0644); make it yours alone: chmod 600 ${identity}`]);
      assert.equal(modeOf(identity).toString(8), '644', 'not changed behind the person\'s back');
      assert.equal(modeOf(dataDir).toString(8), '755', 'a directory the person made keeps its mode');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('--version, the config file and --port as the base of every port', () => {
  const version = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  let dir: string;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vendorplay-cli-config-'));
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('--version and -V print the package\'s version, for both commands', async () => {
    for (const flag of ['--version', '-V']) {
      const receiver = await runCommand(RECEIVER_COMMAND, [flag]);
      assert.deepEqual([receiver.code, receiver.stdout], [0, `vendorplay-receiver ${version}\n`]);
      const sender = await runSender([flag]);
      assert.deepEqual([sender.code, sender.stdout], [0, `vendorplay-send ${version}\n`]);
    }
  });

  test('a receiver takes its settings from --config FILE, the command line winning key by key', async () => {
    const file = path.join(dir, 'receiver.conf');
    // port = 1 would fail (a privileged port): the command line's --port 0 wins over it.
    writeFileSync(file, ['# a receiver for the test', 'name = From the file', 'port = 1', 'limit = maxSessions=3', 'no-screen = true', ''].join('\n'));
    const receiver = await ReceiverProcess.start({ args: ['--config', file] });
    try {
      assert.deepEqual(
        receiver.services.map((service) => service.name),
        ['From the file', `${receiver.deviceId.replace(/:/g, '')}@From the file`],
      );
      assert.equal(receiver.screenUrl, undefined, 'no-screen = true');
      assert.match(receiver.stderr, new RegExp(`info  config file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
    } finally {
      await receiver.stop();
    }
  });

  test('a bad line in the config file stops start-up with one line naming the file, the line and the key', async () => {
    const cases: [string[], string][] = [
      [['name = Fine', 'port = seven'], `2: port: "seven" is not a port number (0 to 65535)`],
      [['# comment', '', 'colour = blue'], `3: colour: unknown key (the keys are the long options of --help, without --)`],
      [['no-mdns = yes'], `1: no-mdns: "yes" is not true or false`],
      [['limit = maxSessions=2', 'limit = maxSessoins=2'], `2: limit: maxSessoins=2: unknown limit "maxSessoins" (the names are under Limits in --help)`],
      [['name = One', 'name = Two'], `2: name: given again (line 1 gave it already)`],
      [['version = true'], `1: version: only on the command line`],
    ];
    for (const [text, problem] of cases) {
      const file = path.join(dir, 'bad.conf');
      writeFileSync(file, `${text.join('\n')}\n`);
      const result = await runCommand(RECEIVER_COMMAND, ['--config', file, '--data-dir', path.join(dir, 'data')]);
      assert.deepEqual([result.code, said(result.stderr)], [2, [`vendorplay-receiver: ${file}:${problem} (see --help)`]], text.join(' / '));
    }
    const missing = await runCommand(RECEIVER_COMMAND, ['--config', path.join(dir, 'absent.conf')]);
    assert.deepEqual([missing.code, said(missing.stderr)], [2, [`vendorplay-receiver: config file ${path.join(dir, 'absent.conf')} cannot be read: no such file (see --help)`]]);
  });

  test('--port N moves every listener to its offset from N', async () => {
    // A base where nothing of this machine's listens, probed: N, N+1 (TCP), N+80, N+100.
    const base = await freeBase();
    const result = await runCommand(RECEIVER_COMMAND, ['--no-mdns', '--interface', 'lo', '--port', String(base), '--data-dir', path.join(dir, 'ports')], 30_000, async (output, child) => {
      await until(() => `no screen line in:\n${output()}`, () => /screen on http/.test(output()), 25_000);
      child.kill('SIGTERM');
    });
    const listening = lines(result.stdout).map((line) => line.replace(/^\S+ info {2}/, ''));
    assert.ok(listening.includes(`listening on 127.0.0.1:${base} (HTTP and RTSP)`), listening.join('\n'));
    assert.ok(listening.some((line) => line.startsWith(`listening on 127.0.0.1:${base + 100} (screen mirroring; NTP client on UDP port ${base + 11}`)), listening.join('\n'));
    assert.ok(listening.includes(`listening on 127.0.0.1:${base + 1} (session events)`), listening.join('\n'));
    assert.ok(listening.some((line) => line.startsWith(`screen on http://127.0.0.1:${base + 80}/`)), listening.join('\n'));
  });
});

/** A port N with N, N+1, N+80 and N+100 free on loopback (TCP), tried from a random start. */
async function freeBase(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let base = 20_000 + Math.floor(Math.random() * 30_000); ; base += 7) {
    if ((await free(base)) && (await free(base + 1)) && (await free(base + 80)) && (await free(base + 100))) return base;
  }
}
