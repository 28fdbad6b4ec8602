// Pairing end to end (spec 5): the real `vendorplay-receiver` command on loopback, paired by a
// HomeKit-style pairing client nobody here wrote (npm hap-controller's HttpClient: SRP
// pair-setup, pair-verify, encrypted HTTP), and by our own client over a socket where
// hap-controller does not go (RTSP, certificate checks, tampered and replayed frames).
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only; every
// client connects to 127.0.0.1.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, verify as rsaVerify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpClient, PairMethods, PairingTypeFlags, type PairingData } from 'hap-controller';
import { concat, utf8Decode } from '../../src/bytes';
import { parseFeatures, parseFlags } from '../../src/discovery';
import type { ResponseHead } from '../../src/http';
import { authSetupCipherKeys } from '../../src/pairing/auth-setup';
import { createSenderChannel } from '../../src/pairing/channel';
import { chachaOpenWithNonceLabel, derivePairingKey, PAIRING_HKDF, PAIRING_NONCE } from '../../src/pairing/hkdf';
import { aes128Ctr, x25519KeyPair, x25519Shared } from '../../src/pairing/keys';
import { decodePeers, PEERS_KEY } from '../../src/pairing/peers';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import { PAIR_METHOD, TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { decodeBinaryPlist } from '../../src/plist/binary';
import { decodeXmlPlist } from '../../src/plist/xml';
import { nodeRandom } from '../../hosts/node/io/ports';
import { newSenderIdentity, openPairSetupM6, PairVerifyClient, pairSetupM1, pairSetupM5, srpClientStep, type SenderIdentity } from '../support/pairing-client';
import { freshDataDir, PROMPT_MS, RECEIVER_COMMAND, ReceiverProcess, until } from './receiver-process';
import { SocketSender } from './socket-sender';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const PIN = '3939';
/** The PIN of the receiver that requires one: a secret (3939 is the spec's public code). */
const REQUIRED_PIN = '4821';
/**
 * The stale-pairing check's pairingTimeoutMs: it waits this long. Every pair-setup that must fit
 * in it is our own client's (one SRP step, tens of ms on a quiet machine, a second or so on a busy
 * one); hap-controller's take seconds on a busy machine and run with the default (30 s).
 */
const PAIRING_TIMEOUT_MS = 5000;

/**
 * hap-controller checks that a PIN looks like a HomeKit setup code (XXX-XX-XXX) before it uses
 * it as the SRP password. The protocol's PIN is 4 digits (spec 5.3: 3939), so this client skips
 * that format check and nothing else; the PIN still goes into SRP as given.
 */
class PinClient extends HttpClient {
  override verifyPin(): void {}
}

/** hap-controller's verified connection, which its API keeps for HAP's own paths. */
interface HapConnection {
  get(path: string): Promise<{ statusCode: number; headers: Record<string, string>; body: Buffer }>;
  close(): void;
}
function verifiedConnection(client: HttpClient): Promise<HapConnection> {
  return (client as unknown as { getDefaultVerifiedConnection(): Promise<HapConnection> }).getDefaultVerifiedConnection();
}


/** The items of a 200 pairing reply with State `state`. */
function items(response: { head: ResponseHead; body: Uint8Array }, state: number): Map<number, Uint8Array> {
  assert.equal(response.head.status, 200);
  const decoded = decodeTlv8(response.body);
  assert.deepEqual(decoded.get(TLV.State), new Uint8Array([state]));
  return decoded;
}

/** Our sender identity and the receiver's, from what hap-controller stored after pairing. */
function identitiesOf(data: PairingData): { sender: SenderIdentity; receiver: { id: string; publicKey: Uint8Array } } {
  const hex = (value: string) => new Uint8Array(Buffer.from(value, 'hex'));
  // libsodium's Ed25519 secret key is the 32-byte seed followed by the public key.
  const ltsk = hex(data.iOSDeviceLTSK);
  return {
    sender: { id: utf8Decode(hex(data.iOSDevicePairingID)), keys: { secretKey: ltsk.slice(0, 32), publicKey: hex(data.iOSDeviceLTPK) } },
    receiver: { id: utf8Decode(hex(data.AccessoryPairingID)), publicKey: hex(data.AccessoryLTPK) },
  };
}

/** Pair-verify over our own socket with the identities hap-controller paired; returns the encrypted sender. */
async function verifyOver(port: number, data: PairingData): Promise<SocketSender> {
  const { sender, receiver } = identitiesOf(data);
  const socket = await SocketSender.connect(port);
  const client = new PairVerifyClient(sender, receiver, nodeRandom);
  const m2 = await socket.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m1() });
  items(m2, 2);
  const m4 = items(await socket.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m3(m2.body) }), 4);
  assert.equal(m4.get(TLV.Error), undefined);
  socket.encrypt(client.channel());
  return socket;
}

describe('pairing with a real HomeKit-style client (hap-controller) and our own over sockets', () => {
  let receiver: ReceiverProcess;
  let keyDir: string;
  let dataDir: string;
  let certificate: Uint8Array;
  let paired: PairingData;

  const args = () => [
    '--pin',
    REQUIRED_PIN,
    '--pin-required',
    '--auth-key',
    path.join(keyDir, 'key.pem'),
    '--auth-certificate',
    path.join(keyDir, 'cert.der'),
  ];

  before(async () => {
    // A throwaway device key and self-signed certificate, made now (spec 5.5 signs with RSA-1024).
    keyDir = mkdtempSync(path.join(tmpdir(), 'vendorplay-auth-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:1024', '-nodes', '-keyout', path.join(keyDir, 'key.pem'), '-outform', 'DER', '-out', path.join(keyDir, 'cert.der'), '-subj', '/CN=vendorplay-test', '-days', '2'], { stdio: 'ignore' });
    certificate = new Uint8Array(readFileSync(path.join(keyDir, 'cert.der')));
    dataDir = freshDataDir();
    receiver = await ReceiverProcess.start({ dataDir, args: args() });
  });

  after(async () => {
    await receiver?.stop();
    rmSync(keyDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('features and flags: pairing, transient pairing, certificate auth (key configured), PINRequired', () => {
    const value = parseFeatures(receiver.txt('_vendorplay._tcp', 'features'));
    for (const bit of [26n, 38n, 48n, 51n]) assert.equal((value >> bit) & 1n, 1n, `bit ${bit}`);
    assert.equal((value >> 46n) & 1n, 0n);
    assert.equal((parseFlags(receiver.txt('_vendorplay._tcp', 'flags')) >> 3) & 1, 1, 'PINRequired');
  });

  test('before pairing, /server-info is 403, /info is served, and /pair-pin-start shows the PIN', async () => {
    const socket = await SocketSender.connect(receiver.port);
    try {
      assert.equal((await socket.request('GET', '/server-info')).head.status, 403);
      assert.equal((await socket.request('GET', '/info', { protocol: 'RTSP' })).head.status, 200);
      // spec 5.2: the sender asks for the PIN; the receiver shows it on its (virtual) screen.
      assert.equal((await socket.request('POST', '/pair-pin-start', { protocol: 'RTSP' })).head.status, 200);
      await receiver.waitForLog(new RegExp(`PIN ${REQUIRED_PIN}\\b`));
    } finally {
      socket.close();
    }
  });

  test('hap-controller: a wrong PIN fails with Authentication, then pair-setup (Method 0) with the PIN pairs', async () => {
    const wrong = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await assert.rejects(wrong.pairSetup('1234', PairMethods.PairSetup), (error: { statusCode?: number }) => error.statusCode === TLV_ERROR.Authentication);
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(REQUIRED_PIN, PairMethods.PairSetup);
    paired = client.getLongTermData()!;
    assert.ok(paired);
    // The receiver identifies itself by its device id and signs with its TXT pk.
    assert.equal(utf8Decode(new Uint8Array(Buffer.from(paired.AccessoryPairingID, 'hex'))), receiver.deviceId);
    assert.equal(paired.AccessoryLTPK, receiver.txt('_vendorplay._tcp', 'pk'));
    // The pairing is in the store record, written atomically.
    const peers = decodePeers(new Uint8Array(readFileSync(path.join(dataDir, PEERS_KEY))));
    assert.ok(peers.some((peer) => Buffer.from(peer.publicKey).toString('hex') === paired.iOSDeviceLTPK));
  });

  test('hap-controller: pair-verify, then GET /server-info over its encrypted connection', async () => {
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, paired);
    const connection = await verifiedConnection(client);
    try {
      const response = await connection.get('/server-info');
      assert.equal(response.statusCode, 200);
      const record = decodeXmlPlist(response.body.toString('utf8')) as Record<string, unknown>;
      assert.equal(record.deviceid, receiver.deviceId);
      // A second request on the same encrypted connection (frame counters move on).
      assert.equal((await connection.get('/server-info')).statusCode, 200);
    } finally {
      connection.close();
    }
  });

  test('our client: pair-verify on RTSP with the same pairing, then RTSP GET /info and HTTP through the channel', async () => {
    const socket = await verifyOver(receiver.port, paired);
    try {
      const info = await socket.request('GET', '/info', { protocol: 'RTSP' });
      assert.equal(info.head.status, 200);
      assert.equal((decodeBinaryPlist(info.body) as Record<string, unknown>).deviceID, receiver.deviceId);
      assert.equal((await socket.request('GET', '/server-info')).head.status, 200);
    } finally {
      socket.close();
    }
  });

  test('transient pair-setup (the public 3939) is refused Unavailable where a PIN is required, with a log line; hap-controller gets the error', async () => {
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await assert.rejects(client.pairSetup(PIN, PairMethods.PairSetup, PairingTypeFlags.kPairingFlag_Transient), (error: { statusCode?: number }) => error.statusCode === TLV_ERROR.Unavailable);
    const socket = await SocketSender.connect(receiver.port);
    try {
      const m2 = items(await socket.request('POST', '/pair-setup', { body: pairSetupM1({ transient: true }), contentType: 'application/pairing+tlv8' }), 2);
      assert.deepEqual(m2.get(TLV.Error), new Uint8Array([TLV_ERROR.Unavailable]));
      await receiver.waitForLog(/transient pairing uses the public code 3939 and this receiver requires a PIN: refused/);
      assert.equal((await socket.request('GET', '/server-info')).head.status, 403, 'nothing served');
    } finally {
      socket.close();
    }
  });

  test('Pair Setup with Auth: M4 carries the device signature and certificate; hap-controller (its default method) pairs', async () => {
    const socket = await SocketSender.connect(receiver.port);
    try {
      const m2 = await socket.request('POST', '/pair-setup', { body: pairSetupM1({ method: PAIR_METHOD.PairSetupWithAuth }) });
      const step = srpClientStep(m2.body, REQUIRED_PIN, nodeRandom);
      const m4 = items(await socket.request('POST', '/pair-setup', { body: step.m3 }), 4);
      const sealed = m4.get(TLV.EncryptedData)!;
      const sub = decodeTlv8(chachaOpenWithNonceLabel(derivePairingKey(step.sessionKey, PAIRING_HKDF.PairSetupEncrypt, 32, portableCryptoKernels), PAIRING_NONCE.PairSetupM4, sealed));
      assert.deepEqual(sub.get(TLV.Certificate), certificate);
      const challenge = derivePairingKey(step.sessionKey, PAIRING_HKDF.MfiPairSetup, 32, portableCryptoKernels);
      const publicKey = new X509Certificate(Buffer.from(certificate)).publicKey;
      assert.equal(rsaVerify('sha1', challenge, publicKey, sub.get(TLV.Signature)!), true, 'RSA-SHA1 signature over the MFi HKDF key');
    } finally {
      socket.close();
    }
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(REQUIRED_PIN);
    assert.ok(client.getLongTermData());
  });

  test('RTSP POST /auth-setup: the signature of both X25519 keys, AES-CTR encrypted, verifies with the certificate', async () => {
    const socket = await SocketSender.connect(receiver.port);
    try {
      const own = x25519KeyPair(nodeRandom, portableCryptoKernels);
      const reply = await socket.request('POST', '/auth-setup', { protocol: 'RTSP', body: concat(new Uint8Array([1]), own.publicKey) });
      assert.equal(reply.head.status, 200);
      const view = new DataView(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
      const receiverKey = reply.body.subarray(0, 32);
      const certificateLength = view.getUint32(32);
      assert.deepEqual(reply.body.subarray(36, 36 + certificateLength), certificate);
      const signatureLength = view.getUint32(36 + certificateLength);
      const encrypted = reply.body.subarray(40 + certificateLength, 40 + certificateLength + signatureLength);
      const { key, iv } = authSetupCipherKeys(x25519Shared(own.secretKey, receiverKey, portableCryptoKernels));
      const signature = aes128Ctr(key, iv, encrypted);
      const publicKey = new X509Certificate(Buffer.from(certificate)).publicKey;
      assert.equal(rsaVerify('sha1', concat(receiverKey, own.publicKey), publicKey, signature), true);
      assert.equal((await socket.request('POST', '/auth-setup', { protocol: 'RTSP', body: new Uint8Array(32) })).head.status, 400);
    } finally {
      socket.close();
    }
  });

  test('a tampered frame and a replayed frame each close only their connection', async () => {
    for (const spoil of ['tamper', 'replay'] as const) {
      const socket = await verifyOver(receiver.port, paired);
      try {
        assert.equal((await socket.request('GET', '/server-info')).head.status, 200);
        if (spoil === 'tamper') {
          // The next frame, with the right counter, one ciphertext bit flipped.
          const wire = socket.wire('GET', '/server-info');
          wire[5] ^= 0x01;
          socket.sendWire(wire);
        } else {
          socket.sendWire(socket.lastWire); // the frame of the last request, again: its counter is spent
        }
        assert.equal(await socket.closedByPeer(), true, `${spoil}ed frame closes the connection`);
      } finally {
        socket.close();
      }
      const other = await verifyOver(receiver.port, paired);
      assert.equal((await other.request('GET', '/server-info')).head.status, 200, `others are served after a ${spoil}ed frame`);
      other.close();
    }
  });

  test('pairings survive a restart: pair-verify with the stored pairing after the process is replaced', async () => {
    await receiver.stop();
    receiver = await ReceiverProcess.start({ dataDir, args: args() });
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, paired);
    const connection = await verifiedConnection(client);
    try {
      assert.equal((await connection.get('/server-info')).statusCode, 200);
    } finally {
      connection.close();
    }
  });
});

describe('pairing as senders do it against a receiver started with --pin 1234', () => {
  let receiver: ReceiverProcess;
  let dataDir: string;
  const OWN_PIN = '1234';

  before(async () => {
    dataDir = freshDataDir();
    receiver = await ReceiverProcess.start({ dataDir, args: ['--pin', OWN_PIN] });
  });

  after(async () => {
    await receiver?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('hap-controller: transient pair-setup with 3939 pairs (spec 5.3), normal pair-setup takes the PIN', async () => {
    const transient = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await transient.pairSetup('3939', PairMethods.PairSetup, PairingTypeFlags.kPairingFlag_Transient);
    const wrong = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await assert.rejects(wrong.pairSetup('3939', PairMethods.PairSetup), (error: { statusCode?: number }) => error.statusCode === TLV_ERROR.Authentication);
    const normal = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await normal.pairSetup(OWN_PIN, PairMethods.PairSetup);
    assert.ok(normal.getLongTermData());
  });

  test('hap-controller: transient pair-setup M1 to M4 with 3939; our client then uses the connection encrypted with K', async () => {
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(PIN, PairMethods.PairSetup, PairingTypeFlags.kPairingFlag_Transient);
    // hap-controller closes the connection after M4; our client shows the connection after M4 is encrypted.
    const socket = await SocketSender.connect(receiver.port);
    try {
      const m2 = await socket.request('POST', '/pair-setup', { body: pairSetupM1({ transient: true }), contentType: 'application/pairing+tlv8' });
      const step = srpClientStep(m2.body, PIN, nodeRandom);
      const m4 = items(await socket.request('POST', '/pair-setup', { body: step.m3 }), 4);
      assert.deepEqual(m4.get(TLV.Proof), step.expectedProof);
      socket.encrypt(createSenderChannel(step.sessionKey, portableCryptoKernels));
      assert.equal((await socket.request('GET', '/server-info')).head.status, 200);
    } finally {
      socket.close();
    }
  });

  test('the PIN stays on the screen when a sender gives up mid-way and the next one starts (M1), until it pairs', async () => {
    const hidden = () => receiver.stderr.split('\n').filter((line) => line.includes('screen: pairing PIN hidden')).length;
    /** The receiver has dealt with `sender` going away (its log says so). */
    const gone = (sender: SocketSender) => receiver.waitForLog(new RegExp(`127\\.0\\.0\\.1:${sender.localPort} closing: peer closed the connection`));
    const before = hidden();
    const first = await SocketSender.connect(receiver.port);
    assert.equal((await first.request('POST', '/pair-pin-start')).head.status, 200);
    items(await first.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
    first.close();
    await gone(first);
    const next = await SocketSender.connect(receiver.port);
    try {
      assert.equal((await next.request('POST', '/pair-pin-start')).head.status, 200);
      assert.equal(items(await next.request('POST', '/pair-setup', { body: pairSetupM1() }), 2).get(TLV.Error), undefined, 'the next sender holds the pair-setup');
      // The log line of that answer comes after anything its M1 did (one ordered stream).
      await receiver.waitForLog(new RegExp(`127\\.0\\.0\\.1:${next.localPort} HTTP POST /pair-setup -> 200`));
      assert.equal(hidden(), before, `the PIN was hidden at the next M1:\n${receiver.stderr}`);
    } finally {
      next.close();
    }
    // That one goes away too; hap-controller then pairs with the PIN still shown, and it goes.
    await gone(next);
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(OWN_PIN, PairMethods.PairSetup);
    await until(() => `the PIN not hidden after hap-controller paired:\n${receiver.stderr}`, () => hidden() > before, PROMPT_MS);
    assert.equal(hidden(), before + 1, `hidden once, when hap-controller paired:\n${receiver.stderr}`);
  });
});

describe('an interrupted pair-setup (pairingTimeoutMs 5 s)', () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--pin', PIN, '--no-screen', '--limit', `pairingTimeoutMs=${PAIRING_TIMEOUT_MS}`] });
  });

  after(async () => {
    await receiver?.stop();
  });

  test('Busy for others while its connection lives, free when it closes or goes stale (after pairingTimeoutMs, not before)', async () => {
    const hold = async () => {
      const socket = await SocketSender.connect(receiver.port);
      items(await socket.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
      return socket;
    };
    const m1 = async (socket: SocketSender) => items(await socket.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
    const other = await SocketSender.connect(receiver.port);
    try {
      const first = await hold();
      assert.deepEqual((await m1(other)).get(TLV.Error), new Uint8Array([TLV_ERROR.Busy]));
      first.close(); // the sender went away mid-pairing
      await receiver.waitForLog(new RegExp(`127\\.0\\.0\\.1:${first.localPort} closing: peer closed the connection`));
      assert.equal((await m1(other)).get(TLV.Error), undefined, 'free once the holder\'s connection closed');
    } finally {
      other.close();
    }

    // Left open but silent: Busy for another sender until pairingTimeoutMs has passed since its
    // M1, then that sender may pair. The other sender asks again every half second.
    const heldFrom = performance.now();
    const silent = await hold();
    const next = await SocketSender.connect(receiver.port);
    try {
      assert.deepEqual((await m1(next)).get(TLV.Error), new Uint8Array([TLV_ERROR.Busy]));
      let m2: Uint8Array = new Uint8Array(0);
      await until(
        () => 'still Busy',
        async () => {
          const response = await next.request('POST', '/pair-setup', { body: pairSetupM1() });
          m2 = response.body;
          return !items(response, 2).has(TLV.Error);
        },
        60_000,
        500,
      );
      const freedAfter = performance.now() - heldFrom;
      assert.ok(freedAfter >= PAIRING_TIMEOUT_MS, `free after ${freedAfter.toFixed(0)} ms, before pairingTimeoutMs`);
      // ... and pairs: its M3 is answered with the receiver's proof (M4).
      const step = srpClientStep(m2, PIN, nodeRandom);
      const m4 = items(await next.request('POST', '/pair-setup', { body: step.m3 }), 4);
      assert.equal(m4.get(TLV.Error), undefined);
      assert.deepEqual(m4.get(TLV.Proof), step.expectedProof);
    } finally {
      next.close();
      silent.close();
    }
  });
});

/** One pair-setup attempt with a wrong PIN over its own socket: M1, then M3 answered Authentication. */
async function wrongGuess(port: number): Promise<void> {
  const socket = await SocketSender.connect(port);
  try {
    const m2 = await socket.request('POST', '/pair-setup', { body: pairSetupM1() });
    assert.equal(items(m2, 2).get(TLV.Error), undefined, 'the guess gets its M2');
    const m4 = items(await socket.request('POST', '/pair-setup', { body: srpClientStep(m2.body, '0000', nodeRandom).m3 }), 4);
    assert.deepEqual(m4.get(TLV.Error), new Uint8Array([TLV_ERROR.Authentication]));
  } finally {
    socket.close();
  }
}

/** A pair-setup M1's Error item (undefined: it got its M2), over its own socket. */
async function m1Error(port: number): Promise<number | undefined> {
  const socket = await SocketSender.connect(port);
  try {
    return items(await socket.request('POST', '/pair-setup', { body: pairSetupM1() }), 2).get(TLV.Error)?.[0];
  } finally {
    socket.close();
  }
}

describe('--pin-required alone: a random PIN per pairing, read from the log and the screen page', () => {
  let receiver: ReceiverProcess;
  let dataDir: string;

  before(async () => {
    dataDir = freshDataDir();
    receiver = await ReceiverProcess.start({ dataDir, args: ['--pin-required'] });
  });

  after(async () => {
    await receiver?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the M1 draws a PIN, shown on the screen page (/state) and logged; pair-setup with it pairs, and pair-verify then encrypts', async () => {
    await receiver.waitForLog(/a PIN is required: each pairing gets a random PIN, shown on the screen and in this log/);
    const socket = await SocketSender.connect(receiver.port);
    let sender: SenderIdentity;
    let paired: { id: string; publicKey: Uint8Array };
    try {
      const m2 = await socket.request('POST', '/pair-setup', { body: pairSetupM1() });
      assert.equal(items(m2, 2).get(TLV.Error), undefined);
      const logged = await receiver.waitForLog(new RegExp(`pairing PIN for 127\\.0\\.0\\.1:${socket.localPort}: (\\d{4})`));
      const pin = /: (\d{4})$/.exec(logged)![1];
      assert.notEqual(pin, PIN, 'not the public code (1 in 10,000 by chance)');
      const state = (await (await fetch(new URL('state', receiver.screenUrl))).json()) as { pin: string | null };
      assert.equal(state.pin, pin, 'the screen page shows the PIN the log says');
      const step = srpClientStep(m2.body, pin, nodeRandom);
      assert.equal(items(await socket.request('POST', '/pair-setup', { body: step.m3 }), 4).get(TLV.Error), undefined);
      sender = newSenderIdentity('E2E-RANDOM-PIN-SENDER', nodeRandom);
      const m6 = await socket.request('POST', '/pair-setup', { body: pairSetupM5(step.sessionKey, sender) });
      items(m6, 6);
      paired = openPairSetupM6(step.sessionKey, m6.body);
    } finally {
      socket.close();
    }
    assert.equal(paired.id, receiver.deviceId);
    const verified = await SocketSender.connect(receiver.port);
    try {
      const client = new PairVerifyClient(sender, paired, nodeRandom);
      const v2 = await verified.request('POST', '/pair-verify', { body: client.m1() });
      assert.equal(items(await verified.request('POST', '/pair-verify', { body: client.m3(v2.body) }), 4).get(TLV.Error), undefined);
      verified.encrypt(client.channel());
      assert.equal((await verified.request('GET', '/server-info')).head.status, 200);
    } finally {
      verified.close();
    }
  });

  test('transient pairing with the public 3939 is refused (Unavailable), and a plain request stays 403', async () => {
    const socket = await SocketSender.connect(receiver.port);
    try {
      const m2 = items(await socket.request('POST', '/pair-setup', { body: pairSetupM1({ transient: true }) }), 2);
      assert.deepEqual(m2.get(TLV.Error), new Uint8Array([TLV_ERROR.Unavailable]));
      assert.equal((await socket.request('GET', '/server-info')).head.status, 403);
    } finally {
      socket.close();
    }
  });
});

describe('a fixed PIN locked out after pairingMaxFailures wrong proofs', () => {
  let receiver: ReceiverProcess;
  let dataDir: string;
  const LOCKED_PIN = '2468';
  const args = ['--pin', LOCKED_PIN, '--limit', 'pairingMaxFailures=2'];

  before(async () => {
    dataDir = freshDataDir();
    receiver = await ReceiverProcess.start({ dataDir, args });
  });

  after(async () => {
    await receiver?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('stays locked across a restart; `pairings reset-tries` clears it on the running receiver, and so does the screen page\'s reset', async () => {
    await wrongGuess(receiver.port);
    await wrongGuess(receiver.port);
    assert.equal(await m1Error(receiver.port), TLV_ERROR.MaxTries);
    await receiver.stop();
    receiver = await ReceiverProcess.start({ dataDir, args });
    assert.equal(await m1Error(receiver.port), TLV_ERROR.MaxTries, 'the count survives a restart');

    const reset = spawnSync(process.execPath, [RECEIVER_COMMAND, 'pairings', 'reset-tries', '--data-dir', dataDir], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(reset.status, 0, reset.stderr);
    assert.match(reset.stdout, /^reset the count of wrong PINs in .* \(it was 2\); pairing with the PIN is allowed again\n$/);
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(LOCKED_PIN, PairMethods.PairSetup);
    assert.ok(client.getLongTermData(), 'pairs with the PIN after the reset');

    await wrongGuess(receiver.port);
    await wrongGuess(receiver.port);
    assert.equal(await m1Error(receiver.port), TLV_ERROR.MaxTries);
    const origin = new URL(receiver.screenUrl!).origin;
    const refused = await fetch(new URL('pairing/reset-tries', receiver.screenUrl), { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://example.com' } });
    assert.equal(refused.status, 403, 'another site in the same browser may not reset it');
    assert.equal(await m1Error(receiver.port), TLV_ERROR.MaxTries);
    const pressed = await fetch(new URL('pairing/reset-tries', receiver.screenUrl), { method: 'POST', headers: { 'Sec-Fetch-Site': 'same-origin', Origin: origin } });
    assert.equal(pressed.status, 204);
    await receiver.waitForLog(/the failed-attempt count \(2\) was reset; pairing is allowed/);
    assert.equal(await m1Error(receiver.port), undefined);
  });
});
