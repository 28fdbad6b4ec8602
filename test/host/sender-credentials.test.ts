// The sender's credentials file (sender/credentials.ts) on the real file system: where it lives
// (XDG_CONFIG_HOME, else ~/.config), that it is written whole with mode 0600, read back equal,
// that the sender's identity is made once, that a receiver's pairing replaces an older one with
// its identifier or address, that unpair forgets only the one named, and that a broken file is
// one error naming the file and what is wrong.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  credentialsFile,
  CredentialsError,
  loadCredentials,
  NO_CREDENTIALS,
  receiverAt,
  saveCredentials,
  withoutReceiver,
  withReceiver,
  withSenderIdentity,
  type StoredReceiver,
} from '../../sender/credentials';

const scratch = mkdtempSync(path.join(tmpdir(), 'vendorplay-credentials-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Counting bytes, not random ones: the key pair they make is a fixed one. */
const bytes = (length: number) => Uint8Array.from({ length }, (_, i) => i + 1);

const receiver = (id: string, address: string, fill: number): StoredReceiver => ({ id, address, publicKey: new Uint8Array(32).fill(fill), pairedAt: '2026-11-27T05:00:00.000Z' });

test('the file: $XDG_CONFIG_HOME/vendorplay/sender.json, ~/.config without it or with a relative one', () => {
  assert.equal(credentialsFile({ XDG_CONFIG_HOME: '/x/config' }, '/home/a'), '/x/config/vendorplay/sender.json');
  assert.equal(credentialsFile({}, '/home/a'), '/home/a/.config/vendorplay/sender.json');
  assert.equal(credentialsFile({ XDG_CONFIG_HOME: 'relative' }, '/home/a'), '/home/a/.config/vendorplay/sender.json');
});

test('no file yet: no credentials; saved in a new folder with mode 0600 and read back equal', () => {
  const file = path.join(scratch, 'fresh', 'vendorplay', 'sender.json');
  assert.deepEqual(loadCredentials(file), NO_CREDENTIALS);
  const credentials = withReceiver(withSenderIdentity(NO_CREDENTIALS, bytes, () => 'SENDER-1'), receiver('AA:BB:CC:DD:EE:01', '127.0.0.1:7000', 7));
  saveCredentials(file, credentials);
  assert.equal(statSync(file).mode & 0o777, 0o600, 'only its owner reads the secret key');
  assert.equal(statSync(path.dirname(file)).mode & 0o077, 0, 'nor the folder, which it made');
  assert.deepEqual(readdirSync(path.dirname(file)), ['sender.json'], 'no temporary file left');
  const read = loadCredentials(file);
  assert.deepEqual(read, credentials);
  assert.equal(read.sender?.keys.secretKey.length, 32);
  assert.match(readFileSync(file, 'utf8'), /"address": "127\.0\.0\.1:7000"/, 'a person can read it');
});

test('the sender identity is made once; pairing again replaces the same receiver or address; unpair forgets one', () => {
  let made = 0;
  const first = withSenderIdentity(NO_CREDENTIALS, bytes, () => `SENDER-${++made}`);
  const again = withSenderIdentity(first, bytes, () => `SENDER-${++made}`);
  assert.equal(made, 1);
  assert.equal(again.sender, first.sender);

  let credentials = withReceiver(first, receiver('AA:01', '127.0.0.1:7000', 1));
  credentials = withReceiver(credentials, receiver('AA:02', '127.0.0.1:7001', 2));
  credentials = withReceiver(credentials, receiver('AA:01', '10.0.0.5:7000', 3));
  assert.deepEqual(
    credentials.receivers.map((stored) => `${stored.id}@${stored.address}`),
    ['AA:02@127.0.0.1:7001', 'AA:01@10.0.0.5:7000'],
    'the same receiver at a new address: one pairing',
  );
  credentials = withReceiver(credentials, receiver('AA:03', '127.0.0.1:7001', 4));
  assert.deepEqual(credentials.receivers.map((stored) => stored.id), ['AA:01', 'AA:03'], 'another receiver at an address: the old pairing there goes');
  assert.equal(receiverAt(credentials, '10.0.0.5:7000')?.id, 'AA:01');
  assert.equal(receiverAt(credentials, '10.0.0.5:7001'), undefined);

  const byAddress = withoutReceiver(credentials, '127.0.0.1:7001');
  assert.equal(byAddress.removed?.id, 'AA:03');
  assert.deepEqual(byAddress.credentials.receivers.map((stored) => stored.id), ['AA:01']);
  const byId = withoutReceiver(credentials, 'AA:01');
  assert.deepEqual(byId.credentials.receivers.map((stored) => stored.id), ['AA:03']);
  assert.equal(withoutReceiver(credentials, 'AA:99').removed, undefined);
  assert.equal(byId.credentials.sender, credentials.sender, 'the identity stays');
});

test('a save over an existing file replaces it whole (mode 0600 again)', () => {
  const file = path.join(scratch, 'replace', 'sender.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '{"receivers": []}\n', { mode: 0o644 });
  const credentials = withSenderIdentity(NO_CREDENTIALS, bytes, () => 'SENDER-2');
  saveCredentials(file, credentials);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(loadCredentials(file), credentials);
});

test('a broken file is one CredentialsError naming the file and the fault', () => {
  const file = path.join(scratch, 'broken.json');
  const cases: [string, RegExp][] = [
    ['not json', /is not a sender credentials file: .*JSON/],
    ['[]', /the file is not an object/],
    ['{}', /receivers is not a list/],
    ['{"receivers": [{"id": "A", "publicKey": "00", "address": "h:1", "pairedAt": "t"}]}', /receivers\[0\]\.publicKey is not 32 bytes of hex/],
    ['{"sender": {"id": "", "publicKey": "", "secretKey": ""}, "receivers": []}', /sender\.id is not a text/],
  ];
  for (const [text, pattern] of cases) {
    writeFileSync(file, text);
    assert.throws(
      () => loadCredentials(file),
      (error: Error) => error instanceof CredentialsError && error.message.startsWith(file) && pattern.test(error.message),
      text,
    );
  }
});

test('a file that cannot be written is a CredentialsError naming it', () => {
  // Its folder is a file: no one, root included, makes a file under it.
  const blocker = path.join(scratch, 'a-file');
  writeFileSync(blocker, '');
  const file = path.join(blocker, 'vendorplay', 'sender.json');
  assert.throws(() => saveCredentials(file, NO_CREDENTIALS), (error: Error) => error instanceof CredentialsError && error.message.startsWith(`cannot write ${file}`));
});
