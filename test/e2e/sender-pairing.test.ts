// `vendorplay-send pair` end to end, on the built commands: a receiver that requires a PIN and
// picks a random one per attempt (--pin-required, no --pin) refuses the sender's photo with
// "pair first"; `pair` asks the receiver to show a PIN, asks for it on stdin, and the test reads
// it off the screen page's /state (as a person reads the screen) and types it; then `photo` and
// `slideshow` pair-verify and go through the encrypted channel (the receiver logs each connection
// encrypted); `pairings` lists the receiver; a wrong PIN is refused with the receiver's TLV error
// named; `unpair --on-receiver` has the receiver remove it too, and forgets it here. Each run of the sender has its own XDG_CONFIG_HOME.
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only; the sender
// connects to 127.0.0.1.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sampleJpeg } from '../support/jpeg-samples';
import { PROJECT_ROOT, PROMPT_MS, ReceiverProcess, SEND_COMMAND, until, within, type CommandRun } from './receiver-process';

/** Runs vendorplay-send with XDG_CONFIG_HOME `config`; `typed` (if given) is written to its stdin once it asks for the PIN. */
function send(config: string, args: string[], typed?: () => Promise<string>, timeoutMs = 30_000): Promise<CommandRun> {
  const child = spawn(process.execPath, [SEND_COMMAND, ...args], { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, XDG_CONFIG_HOME: config } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<CommandRun>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  const typing = (async () => {
    if (!typed) return child.stdin.end();
    await until(() => `the PIN prompt; stdout: ${stdout}; stderr: ${stderr}`, () => stdout.includes('enter the PIN') || child.exitCode !== null, PROMPT_MS);
    if (child.exitCode === null) child.stdin.end(`${await typed()}\n`);
  })();
  return within(timeoutMs, `vendorplay-send ${args.join(' ')}`, Promise.all([exited, typing]).then(([run]) => run)).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  });
}

describe('vendorplay-send pair, then photo and slideshow through the encrypted channel (--pin-required, a random PIN)', () => {
  let receiver: ReceiverProcess;
  let work: string;
  let config: string;
  let address: string;
  let photo: string;
  let pictures: string;

  /** The PIN the screen page shows now (GET /state), as a person reads it off the screen. */
  const screenPin = async (): Promise<string> => {
    let pin: string | null = null;
    await until(
      () => `a PIN on the screen page; log:\n${receiver.stderr}`,
      async () => {
        const state = (await (await fetch(new URL('state', receiver.screenUrl))).json()) as { pin: string | null };
        pin = state.pin;
        return pin !== null;
      },
      PROMPT_MS,
      50,
    );
    return pin!;
  };

  const encryptedConnections = () => receiver.stderr.split('\n').filter((line) => / connection encrypted$/.test(line)).length;
  /** The count of encrypted connections once it has reached `count` (the receiver's log is read as it comes). */
  const encryptedOnceAt = async (count: number): Promise<number> => {
    await until(() => `${count} encrypted connections in the log:\n${receiver.stderr}`, () => encryptedConnections() >= count, PROMPT_MS);
    return encryptedConnections();
  };

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'vendorplay-sender-pairing-'));
    config = path.join(work, 'config');
    photo = path.join(work, 'photo.jpg');
    writeFileSync(photo, sampleJpeg(3000));
    pictures = path.join(work, 'pictures');
    mkdirSync(pictures);
    for (const seed of [1, 2]) writeFileSync(path.join(pictures, `picture-${seed}.jpg`), sampleJpeg(2000, seed));
    receiver = await ReceiverProcess.start({ args: ['--pin-required'] });
    address = `127.0.0.1:${receiver.port}`;
    assert.ok(receiver.screenUrl, 'the receiver serves its screen page');
  });

  after(async () => {
    await receiver?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('unpaired, photo is refused with "pair first"', async () => {
    const run = await send(config, ['photo', address, photo]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /PUT \/photo: the receiver answered 403 Forbidden; pair first: vendorplay-send pair 127\.0\.0\.1:\d+\n$/);
  });

  test('pair: the PIN read off the screen page is typed on stdin; the pairing is kept in XDG_CONFIG_HOME, mode 0600', async () => {
    let shown = '';
    const run = await send(config, ['pair', address], async () => (shown = await screenPin()));
    assert.equal(run.code, 0, run.stderr);
    assert.match(shown, /^\d{4}$/);
    // The receiver's log says the same PIN (a person without a screen reads it there).
    await receiver.waitForLog(new RegExp(`pairing PIN for 127\\.0\\.0\\.1:\\d+: ${shown}$`));
    const file = path.join(config, 'vendorplay', 'sender.json');
    assert.match(run.stdout, new RegExp(`^enter the PIN shown by ${address}: \\npaired with ${receiver.deviceId} at ${address}; the pairing is kept in ${file}\\n$`));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { sender: { id: string }; receivers: { id: string; address: string; publicKey: string }[] };
    assert.deepEqual(
      stored.receivers.map(({ id, address: at }) => ({ id, address: at })),
      [{ id: receiver.deviceId, address }],
    );
    assert.equal(stored.receivers[0].publicKey, receiver.txt('_vendorplay._tcp', 'pk'), "M6's key is the receiver's TXT pk");
  });

  test('paired, photo pair-verifies and is shown through the encrypted channel', async () => {
    const before = encryptedConnections();
    const run = await send(config, ['photo', address, photo]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /shown: 200 OK/);
    assert.equal(await encryptedOnceAt(before + 1), before + 1, 'one connection, encrypted');
    const state = (await (await fetch(new URL('state', receiver.screenUrl))).json()) as { photo: unknown };
    assert.ok(state.photo, 'the screen shows the photo');
  });

  test('paired, slideshow: the control and reverse connections all pair-verify; the pictures are served encrypted', async () => {
    const before = encryptedConnections();
    const run = await send(config, ['slideshow', address, pictures, '--duration', '1', '--connections', '1', '--stop-after', '3']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /asset 1: picture-1\.jpg/);
    assert.match(run.stdout, /event: slideshow playing/);
    assert.equal(await encryptedOnceAt(before + 3), before + 3, 'control, event and slideshow connections');
  });

  test('pairings lists the receiver; --no-pair goes without and is refused', async () => {
    const run = await send(config, ['pairings']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^${address.replace(/\./g, '\\.')}  ${receiver.deviceId}  paired \\d{4}-\\d\\d-\\d\\dT`, 'm'));
    const plain = await send(config, ['photo', address, photo, '--no-pair']);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /403 Forbidden; pair first/);
  });

  test('a wrong PIN: pair fails naming Authentication, and nothing is stored', async () => {
    const other = path.join(work, 'other-config');
    const run = await send(other, ['pair', address], async () => {
      const pin = await screenPin();
      return String((Number(pin) + 1) % 10_000).padStart(4, '0');
    });
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /^vendorplay-send: wrong PIN: pair-setup M4: the receiver answered Authentication;/);
    const list = await send(other, ['pairings']);
    assert.match(list.stdout, /^no pairings/);
  });

  test('unpair --on-receiver: the receiver removes the pairing too (the old credentials are refused after), and it is forgotten here', async () => {
    const file = path.join(config, 'vendorplay', 'sender.json');
    const kept = readFileSync(file);
    const run = await send(config, ['unpair', address, '--on-receiver']);
    assert.equal(run.code, 0, run.stderr);
    const senderId = (JSON.parse(kept.toString('utf8')) as { sender: { id: string } }).sender.id;
    assert.equal(run.stdout, `${address} removed its pairing with this sender (${senderId})\nforgot the pairing with ${receiver.deviceId} at ${address}\n`);
    await receiver.waitForLog(new RegExp(`pairing management: ${senderId} removed ${senderId}`));
    assert.match((await send(config, ['pairings'])).stdout, /^no pairings/);
    assert.match((await send(config, ['photo', address, photo])).stderr, /pair first: vendorplay-send pair/);
    // The credentials as they were: the receiver no longer knows them.
    writeFileSync(file, kept);
    const stale = await send(config, ['photo', address, photo]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, new RegExp(`pair-verify M4: the receiver answered Authentication: ${address.replace(/\./g, '\\.')} no longer knows this sender .*; pair again: vendorplay-send pair ${address.replace(/\./g, '\\.')}\n$`));
  });
});
