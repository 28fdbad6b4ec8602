// What `vendorplay-send` keeps between runs to pair: its own identity (a pairing identifier and an
// Ed25519 key pair, made once) and, per receiver it paired with, the receiver's identifier and
// Ed25519 public key from pair-setup M6, the address used and when. One JSON file,
// $XDG_CONFIG_HOME/vendorplay/sender.json (~/.config without it), readable by its owner only
// (it holds the secret key), replaced whole on every change (a new file, flushed, then renamed
// over the old one), so a crash leaves the old file or the new one, never half of one.

import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ed25519KeyPair } from '../src/pairing/keys';
import { SENDER_CRYPTO, type PairedReceiver, type Random, type SenderIdentity } from './pairing-messages';
import { SendError } from './wire';

/** A receiver paired with, as stored. */
export interface StoredReceiver extends PairedReceiver {
  /** The HOST:PORT given to `pair` (commands find the pairing by it). */
  readonly address: string;
  /** When it was paired (ISO 8601). */
  readonly pairedAt: string;
}

export interface Credentials {
  /** Made at the first pairing; the same for every receiver after. */
  readonly sender: SenderIdentity | undefined;
  readonly receivers: readonly StoredReceiver[];
}

export const NO_CREDENTIALS: Credentials = { sender: undefined, receivers: [] };

/** A credentials file that cannot be read, parsed or written: the message names the file. */
export class CredentialsError extends SendError {
  override name = 'CredentialsError';
}

/**
 * The file: under $XDG_CONFIG_HOME when it is set to an absolute path (the XDG Base Directory
 * rule: a relative one is ignored), else under ~/.config.
 */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configHome = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return path.join(configHome, 'vendorplay', 'sender.json');
}

/** The file's credentials; none when it does not exist yet. */
export function loadCredentials(file: string): Credentials {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_CREDENTIALS;
    throw new CredentialsError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return fromJson(JSON.parse(text));
  } catch (error) {
    throw new CredentialsError(`${file} is not a sender credentials file: ${(error as Error).message}`);
  }
}

/** Replaces the file with `credentials`: a new file (mode 0600) flushed, then renamed over the old one. */
export function saveCredentials(file: string, credentials: Credentials): void {
  const dir = path.dirname(file);
  const temporary = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    rmSync(temporary, { force: true });
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(toJson(credentials), null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing was made (its folder could not be)
    }
    throw new CredentialsError(`cannot write ${file}: ${(error as Error).message}`);
  }
  // The rename itself outlives a power cut only once the directory is flushed; where a file
  // system cannot flush a directory, the file is written as well as it can be.
  try {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // not every file system flushes directories
  }
}

/** The sender's identity, made now (a random UUID and a new key pair) when there is none yet. */
export function withSenderIdentity(credentials: Credentials, random: Random, newId: () => string): Credentials & { sender: SenderIdentity } {
  return { ...credentials, sender: credentials.sender ?? { id: newId(), keys: ed25519KeyPair(random, SENDER_CRYPTO) } };
}

/** With `receiver` paired: it replaces any pairing with the same identifier or at the same address. */
export function withReceiver(credentials: Credentials, receiver: StoredReceiver): Credentials {
  const others = credentials.receivers.filter((stored) => stored.id !== receiver.id && stored.address !== receiver.address);
  return { ...credentials, receivers: [...others, receiver] };
}

/** The pairing for the receiver at `address` (HOST:PORT as commands write it), if any. */
export function receiverAt(credentials: Credentials, address: string): StoredReceiver | undefined {
  return credentials.receivers.find((stored) => stored.address === address);
}

/** Without the pairing named by `which` (its address or its identifier); `removed` is what went. */
export function withoutReceiver(credentials: Credentials, which: string): { credentials: Credentials; removed: StoredReceiver | undefined } {
  const removed = credentials.receivers.find((stored) => stored.address === which || stored.id === which);
  return { credentials: { ...credentials, receivers: credentials.receivers.filter((stored) => stored !== removed) }, removed };
}

// --- JSON ----------------------------------------------------------------------------------------

/** The file's shape: keys as hex, so a person can read (and diff) it. */
interface CredentialsJson {
  readonly sender?: { readonly id: string; readonly publicKey: string; readonly secretKey: string };
  readonly receivers: { readonly id: string; readonly publicKey: string; readonly address: string; readonly pairedAt: string }[];
}

function toJson(credentials: Credentials): CredentialsJson {
  const { sender } = credentials;
  return {
    ...(sender ? { sender: { id: sender.id, publicKey: hex(sender.keys.publicKey), secretKey: hex(sender.keys.secretKey) } } : {}),
    receivers: credentials.receivers.map((receiver) => ({ id: receiver.id, publicKey: hex(receiver.publicKey), address: receiver.address, pairedAt: receiver.pairedAt })),
  };
}

function fromJson(value: unknown): Credentials {
  const record = object(value, 'the file');
  const senderJson = record.sender === undefined ? undefined : object(record.sender, 'sender');
  const sender = senderJson && {
    id: text(senderJson.id, 'sender.id'),
    keys: { publicKey: key(senderJson.publicKey, 'sender.publicKey'), secretKey: key(senderJson.secretKey, 'sender.secretKey') },
  };
  if (!Array.isArray(record.receivers)) throw new Error('receivers is not a list');
  const receivers = record.receivers.map((item: unknown, index: number): StoredReceiver => {
    const where = `receivers[${index}]`;
    const receiver = object(item, where);
    return {
      id: text(receiver.id, `${where}.id`),
      publicKey: key(receiver.publicKey, `${where}.publicKey`),
      address: text(receiver.address, `${where}.address`),
      pairedAt: text(receiver.pairedAt, `${where}.pairedAt`),
    };
  });
  return { sender, receivers };
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where} is not an object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${where} is not a text`);
  return value;
}

/** An Ed25519 key: 32 bytes as 64 hex digits. */
function key(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/i.test(value)) throw new Error(`${where} is not 32 bytes of hex`);
  return new Uint8Array(Buffer.from(value, 'hex'));
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
