// `vendorplay-send pair`, `pairings`, `unpair`, and the pair-verify every other command runs
// on each connection to a receiver it has paired with.
//
// pair (spec 5.2-5.3, as pyatv and UxPlay's senders do): POST /pair-pin-start asks the receiver to
// show a PIN (unless --pin gives one), pair-setup M1-M6 with the PIN the person types, and the
// receiver's identifier and Ed25519 public key from M6 go into the credentials file beside the
// sender's own identity (made once). pair-verify (spec 5.3-5.4): M1-M4 on a new connection with
// those keys; the connection goes on encrypted.

import { randomBytes, randomUUID } from 'node:crypto';
import type net from 'node:net';
import { createInterface } from 'node:readline';
import { HEADER } from '../src/http';
import { TLV_ERROR } from '../src/pairing/tlv-types';
import { credentialsFile, loadCredentials, receiverAt, saveCredentials, withoutReceiver, withReceiver, withSenderIdentity, type StoredReceiver } from './credentials';
import { answerItems, checkPairSetupM4, listPairingsM1, readPairingList, removePairingM1, openPairSetupM6, PairingBroken, PairingRefused, pairSetupM1, pairSetupM5, PairVerifyClient, srpClientStep, type Random, type SenderIdentity } from './pairing-messages';
import { ControlConnection, describeEndpoint, plainExchange, SendError, type CommonHeaders, type Endpoint, type Message, type VerifiedConnection } from './wire';
import type { ResponseHead } from '../src/http';

const random: Random = (length) => new Uint8Array(randomBytes(length));

/** Pairing bodies are TLV8 (pyatv and iOS send them as octet-stream). */
const PAIRING_CONTENT_TYPE = 'application/octet-stream';

/** What a refusal means to the person pairing, by TLV error (spec 5.3; HomeKit's codes). */
export function refusalAdvice(refused: PairingRefused, where: string): string {
  switch (refused.code) {
    case TLV_ERROR.Authentication:
      return `wrong PIN: ${refused.message}; run pair again (a receiver that picks its PINs shows a new one)`;
    case TLV_ERROR.Backoff:
      return `${refused.message}: too many attempts; try again in ${refused.retryDelaySeconds ?? 'a few'} s`;
    case TLV_ERROR.MaxTries:
      return `${refused.message}: the receiver takes no more wrong PINs (a person at its screen can reset the count)`;
    case TLV_ERROR.Busy:
      return `${refused.message}: the receiver is pairing with another sender; try again in a moment`;
    case TLV_ERROR.MaxPeers:
      return `${refused.message}: the receiver has no room for another pairing (remove one on the receiver)`;
    case TLV_ERROR.Unavailable:
      return `${refused.message}: ${where} does not take this pairing now`;
    default:
      return refused.message;
  }
}

/** One pairing step's request on `control`; its body, or a SendError. */
async function step(control: ControlConnection, target: string, body: Uint8Array): Promise<Uint8Array> {
  const response = await control.request('POST', target, [[HEADER.contentType, PAIRING_CONTENT_TYPE]], body);
  return okBody(`POST ${target}`, response);
}

function okBody(what: string, response: Message<ResponseHead>): Uint8Array {
  if (response.head.status !== 200) throw new SendError(`${what}: the receiver answered ${response.head.status} ${response.head.reason}`);
  return response.body;
}

/** A line from stdin (the terminal, or a pipe: a script or a test may give the PIN so), after `prompt` on stdout. */
function readLine(prompt: string): Promise<string> {
  process.stdout.write(prompt);
  const lines = createInterface({ input: process.stdin, terminal: false });
  return new Promise((resolve, reject) => {
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      // Typed on a terminal, Enter ended the line; piped, the prompt's line is ended here.
      if (!process.stdin.isTTY) process.stdout.write('\n');
      resolve(line.trim());
    });
    lines.once('close', () => {
      if (!answered) reject(new SendError('no PIN given (the input ended)'));
    });
  });
}

export interface PairOptions {
  readonly endpoint: Endpoint;
  readonly headers: CommonHeaders;
  /** The PIN (or a receiver's password) when the person knows it already; else it is asked for. */
  readonly pin: string | undefined;
  readonly say: (line: string) => void;
  /** The credentials file (credentialsFile() unless a test says). */
  readonly file?: string;
}

/** `pair RECEIVER`: pair-setup M1-M6 and the pairing stored. */
export async function pair(options: PairOptions): Promise<void> {
  const { endpoint, say } = options;
  const file = options.file ?? credentialsFile();
  const where = describeEndpoint(endpoint);
  // Read first: a broken file is said before anyone types a PIN.
  const credentials = withSenderIdentity(loadCredentials(file), random, () => randomUUID().toUpperCase());
  const control = await ControlConnection.open(endpoint, options.headers);
  try {
    // spec 5.2: the receiver shows the PIN (on its screen and in its log) when asked.
    if (options.pin === undefined) okBody('POST /pair-pin-start', await control.request('POST', '/pair-pin-start'));
    const m2 = await step(control, '/pair-setup', pairSetupM1());
    // M2 may already say no (Backoff, Busy...): said before anyone is asked for a PIN.
    answerItems('pair-setup M2', m2, 2);
    const pin = options.pin ?? (await readLine(`enter the PIN shown by ${where}: `));
    if (pin === '') throw new SendError('no PIN given (an empty line)');
    const client = srpClientStep(m2, pin, random);
    checkPairSetupM4(await step(control, '/pair-setup', client.m3), client);
    const receiver = openPairSetupM6(client.sessionKey, await step(control, '/pair-setup', pairSetupM5(client.sessionKey, credentials.sender)));
    const stored: StoredReceiver = { ...receiver, address: where, pairedAt: new Date().toISOString() };
    saveCredentials(file, withReceiver(credentials, stored));
    say(`paired with ${receiver.id} at ${where}; the pairing is kept in ${file}`);
  } catch (error) {
    throw asSendError(error, where);
  } finally {
    control.close();
  }
}

/** `pairings`: the receivers paired with, one line each. */
export function listPairings(say: (line: string) => void, file = credentialsFile()): void {
  const { sender, receivers } = loadCredentials(file);
  if (receivers.length === 0) {
    say(`no pairings (${file})`);
    return;
  }
  say(`paired as ${sender?.id ?? '(no identity)'} (${file}):`);
  for (const receiver of receivers) say(`${receiver.address}  ${receiver.id}  paired ${receiver.pairedAt}`);
}

/**
 * `unpair HOST:PORT --on-receiver`: the receiver removes this sender's pairing too (HomeKit's
 * Remove Pairing, which only an admin pairing may ask; this receiver makes every pair-setup
 * pairing an admin). Refused here when this sender is the receiver's only admin and others are
 * paired: removing the last admin removes every pairing there (HAP), other senders' too.
 */
export async function removeOnReceiver(endpoint: Endpoint, headers: CommonHeaders, say: (line: string) => void, file = credentialsFile()): Promise<void> {
  const where = describeEndpoint(endpoint);
  const credentials = loadCredentials(file);
  const sender = credentials.sender;
  const verify = verifierFor(endpoint, headers, file);
  if (!sender || !verify) throw new SendError(`no pairing for ${where} in ${file} (see vendorplay-send pairings)`);
  const control = await ControlConnection.open({ ...endpoint, verify }, headers);
  try {
    const pairings = readPairingList(await step(control, '/pair-list', listPairingsM1()));
    const own = pairings.find((pairing) => pairing.id === sender.id);
    if (!own) {
      say(`${where} has no pairing for this sender any more`);
      return;
    }
    if (!own.admin) throw new SendError(`${where} keeps this sender as a user, not an admin: only an admin may remove pairings; not removed there`);
    const others = pairings.filter((pairing) => pairing !== own);
    if (others.length > 0 && !others.some((pairing) => pairing.admin)) {
      throw new SendError(`this sender is the only admin of ${where}: removing it would remove every pairing there (${others.length} other); not removed there`);
    }
    answerItems('remove pairing M2', await step(control, '/pair-remove', removePairingM1(sender.id)), 2);
    say(`${where} removed its pairing with this sender (${sender.id})`);
  } catch (error) {
    throw asSendError(error, where);
  } finally {
    control.close();
  }
}

/** `unpair RECEIVER`: forgets the pairing here (the receiver keeps its side unless told: removeOnReceiver). */
export function unpair(which: string, say: (line: string) => void, file = credentialsFile()): void {
  const { credentials, removed } = withoutReceiver(loadCredentials(file), which);
  if (!removed) throw new SendError(`no pairing for ${which} in ${file} (see vendorplay-send pairings)`);
  saveCredentials(file, credentials);
  say(`forgot the pairing with ${removed.id} at ${removed.address}`);
}

/**
 * How connections to `endpoint` pair-verify, from the credentials file: undefined when the
 * sender has not paired with the receiver at that address.
 */
export function verifierFor(endpoint: Endpoint, headers: CommonHeaders, file = credentialsFile()): Endpoint['verify'] {
  const credentials = loadCredentials(file);
  const receiver = receiverAt(credentials, describeEndpoint(endpoint));
  if (!receiver || !credentials.sender) return undefined;
  const sender = credentials.sender;
  return (socket) => pairVerify(socket, endpoint, headers, sender, receiver);
}

/** pair-verify M1-M4 on a new connection; the connection is encrypted from here on. */
async function pairVerify(socket: net.Socket, endpoint: Endpoint, headers: CommonHeaders, sender: SenderIdentity, receiver: StoredReceiver): Promise<VerifiedConnection> {
  const where = describeEndpoint(endpoint);
  const client = new PairVerifyClient(sender, receiver, random);
  const send = async (body: Uint8Array) =>
    okBody('POST /pair-verify', await plainExchange(socket, endpoint, 'POST', '/pair-verify', [...headers(), [HEADER.contentType, PAIRING_CONTENT_TYPE]], body));
  try {
    const m2 = await send(client.m1());
    return client.finish(await send(client.m3(m2)));
  } catch (error) {
    if (error instanceof PairingRefused && error.code === TLV_ERROR.Authentication) {
      throw new SendError(`${error.message}: ${where} no longer knows this sender (its pairing was removed there); pair again: vendorplay-send pair ${where}`);
    }
    if (error instanceof PairingBroken) throw new SendError(`${error.message}: ${where} is not the receiver paired at this address; pair again: vendorplay-send pair ${where}`);
    throw asSendError(error, where);
  }
}

function asSendError(error: unknown, where: string): unknown {
  if (error instanceof PairingRefused) return new SendError(refusalAdvice(error, where));
  if (error instanceof PairingBroken) return new SendError(error.message);
  return error;
}
