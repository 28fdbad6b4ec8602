// Pairing end to end (spec 5): the real `vendorplay-receiver` command on loopback, paired by a
// HomeKit-style pairing client nobody here wrote (npm hap-controller's HttpClient: SRP
// pair-setup, pair-verify, encrypted HTTP), and by our own client over a socket where
// hap-controller does not go (RTSP, certificate checks, tampered and replayed frames).
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only; every
// client connects to 127.0.0.1.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, verify as rsaVerify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpClient, PairMethods, PairingTypeFlags, type PairingData } from 'hap-controller';
import { concat, utf8Decode } from '../../src/bytes';
import { parseFeatures, parseFlags } from '../../src/discovery';
import { MessageParser, writeRequest, type Protocol, type ResponseHead } from '../../src/http';
import { authSetupCipherKeys } from '../../src/pairing/auth-setup';
import { createSenderChannel } from '../../src/pairing/channel';
import { chachaOpenWithNonceLabel, derivePairingKey, PAIRING_HKDF, PAIRING_NONCE } from '../../src/pairing/hkdf';
import { aes128Ctr, x25519KeyPair, x25519Shared } from '../../src/pairing/keys';
import { decodePeers, PEERS_KEY } from '../../src/pairing/peers';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import { PAIR_METHOD, TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { decodeBinaryPlist } from '../../src/plist/binary';
import { decodeXmlPlist } from '../../src/plist/xml';
import type { SecureChannel } from '../../src/http';
import { nodeRandom } from '../../hosts/node/ports';
import { PairVerifyClient, pairSetupM1, srpClientStep, type SenderIdentity } from '../support/pairing-client';
import { delay, freshDataDir, ReceiverProcess, within } from './receiver-process';

const PIN = '3939';
/** Short, so the stale-pairing check waits little; every step on loopback takes milliseconds. */
const PAIRING_TIMEOUT_MS = 3000;

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

/** Our own sender on a socket: requests over HTTP or RTSP, in the clear or through a channel. */
class SocketSender {
  private readonly parser = new MessageParser('response');
  private readonly responses: { head: ResponseHead; body: Uint8Array }[] = [];
  private current: { head: ResponseHead; parts: Uint8Array[] } | undefined;
  private channel: SecureChannel | undefined;
  private wake: (() => void) | undefined;
  private cseq = 1;
  ended = false;
  /** The bytes of the last request as they went on the wire (sealed when encrypted). */
  lastWire: Uint8Array = new Uint8Array(0);

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => {
      try {
        const bytes = new Uint8Array(data);
        for (const plaintext of this.channel ? this.channel.open(bytes) : [bytes]) this.parser.receive(plaintext);
      } catch {
        this.ended = true;
      }
      for (let event = this.parser.next(); event; event = this.parser.next()) {
        if (event.type === 'head') this.current = { head: event.head, parts: [] };
        else if (event.type === 'body') this.current?.parts.push(event.data.slice());
        else if (event.type === 'end' && this.current) {
          this.responses.push({ head: this.current.head, body: concat(...this.current.parts) });
          this.current = undefined;
        }
      }
      this.notify();
    });
    const end = () => {
      this.ended = true;
      this.notify();
    };
    socket.on('close', end);
    socket.on('error', end);
  }

  static connect(port: number): Promise<SocketSender> {
    return within(
      3000,
      `connect to 127.0.0.1:${port}`,
      new Promise((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(new SocketSender(socket)));
        socket.once('error', reject);
      }),
    );
  }

  encrypt(channel: SecureChannel): void {
    this.channel = channel;
  }

  /** The wire bytes of a request (sealed when encrypted), without sending them. */
  wire(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string } = {}): Uint8Array {
    const protocol = options.protocol ?? 'HTTP';
    const headers: [string, string][] = protocol === 'RTSP' ? [['CSeq', String(this.cseq++)]] : [['Host', '127.0.0.1']];
    if (options.body) headers.push(['Content-Type', options.contentType ?? 'application/octet-stream']);
    const bytes = writeRequest({ protocol, version: protocol === 'RTSP' ? '1.0' : '1.1', method, target, headers, body: options.body ?? (method === 'POST' ? new Uint8Array(0) : undefined) });
    return this.channel ? this.channel.seal(bytes) : bytes;
  }

  send(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string } = {}): void {
    this.lastWire = this.wire(method, target, options);
    this.socket.write(this.lastWire);
  }

  sendWire(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  async request(method: string, target: string, options: { protocol?: Protocol; body?: Uint8Array; contentType?: string } = {}) {
    this.send(method, target, options);
    return this.response();
  }

  async response(timeoutMs = 5000): Promise<{ head: ResponseHead; body: Uint8Array }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const next = this.responses.shift();
      if (next) return next;
      if (this.ended) throw new Error('connection ended before a response');
      if (Date.now() > deadline) throw new Error(`no response within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Whether the receiver closed the connection within `timeoutMs`. */
  async closedByPeer(timeoutMs = 2000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await delay(20);
    return this.ended;
  }

  close(): void {
    this.socket.destroy();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
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
    PIN,
    '--pin-required',
    '--auth-key',
    path.join(keyDir, 'key.pem'),
    '--auth-certificate',
    path.join(keyDir, 'cert.der'),
    '--limit',
    `pairingTimeoutMs=${PAIRING_TIMEOUT_MS}`,
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
      await receiver.waitForLog(new RegExp(`PIN ${PIN}\\b`));
    } finally {
      socket.close();
    }
  });

  test('hap-controller: a wrong PIN fails with Authentication, then pair-setup (Method 0) with the PIN pairs', async () => {
    const wrong = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await assert.rejects(wrong.pairSetup('1234', PairMethods.PairSetup), (error: { statusCode?: number }) => error.statusCode === TLV_ERROR.Authentication);
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(PIN, PairMethods.PairSetup);
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

  test('hap-controller: transient pair-setup M1 to M4; our client then uses the connection encrypted with K', async () => {
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(PIN, PairMethods.PairSetup, PairingTypeFlags.kPairingFlag_Transient);
    // hap-controller closes the connection after M4; our client shows the connection after M4 is encrypted.
    const socket = await SocketSender.connect(receiver.port);
    try {
      const m2 = await socket.request('POST', '/pair-setup', { body: pairSetupM1({ transient: true }), contentType: 'application/pairing+tlv8' });
      const step = srpClientStep(m2.body, PIN, nodeRandom);
      const m4 = items(await socket.request('POST', '/pair-setup', { body: step.m3 }), 4);
      assert.deepEqual(m4.get(TLV.Proof), step.expectedProof);
      socket.encrypt(createSenderChannel(step.sessionKey));
      assert.equal((await socket.request('GET', '/server-info')).head.status, 200);
    } finally {
      socket.close();
    }
  });

  test('Pair Setup with Auth: M4 carries the device signature and certificate; hap-controller (its default method) pairs', async () => {
    const socket = await SocketSender.connect(receiver.port);
    try {
      const m2 = await socket.request('POST', '/pair-setup', { body: pairSetupM1({ method: PAIR_METHOD.PairSetupWithAuth, transient: true }) });
      const step = srpClientStep(m2.body, PIN, nodeRandom);
      const m4 = items(await socket.request('POST', '/pair-setup', { body: step.m3 }), 4);
      const sealed = m4.get(TLV.EncryptedData)!;
      const sub = decodeTlv8(chachaOpenWithNonceLabel(derivePairingKey(step.sessionKey, PAIRING_HKDF.PairSetupEncrypt), PAIRING_NONCE.PairSetupM4, sealed));
      assert.deepEqual(sub.get(TLV.Certificate), certificate);
      const challenge = derivePairingKey(step.sessionKey, PAIRING_HKDF.MfiPairSetup, 32);
      const publicKey = new X509Certificate(Buffer.from(certificate)).publicKey;
      assert.equal(rsaVerify('sha1', challenge, publicKey, sub.get(TLV.Signature)!), true, 'RSA-SHA1 signature over the MFi HKDF key');
    } finally {
      socket.close();
    }
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(PIN);
    assert.ok(client.getLongTermData());
  });

  test('RTSP POST /auth-setup: the signature of both X25519 keys, AES-CTR encrypted, verifies with the certificate', async () => {
    const socket = await SocketSender.connect(receiver.port);
    try {
      const own = x25519KeyPair(nodeRandom);
      const reply = await socket.request('POST', '/auth-setup', { protocol: 'RTSP', body: concat(new Uint8Array([1]), own.publicKey) });
      assert.equal(reply.head.status, 200);
      const view = new DataView(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
      const receiverKey = reply.body.subarray(0, 32);
      const certificateLength = view.getUint32(32);
      assert.deepEqual(reply.body.subarray(36, 36 + certificateLength), certificate);
      const signatureLength = view.getUint32(36 + certificateLength);
      const encrypted = reply.body.subarray(40 + certificateLength, 40 + certificateLength + signatureLength);
      const { key, iv } = authSetupCipherKeys(x25519Shared(own.secretKey, receiverKey));
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

  test('an interrupted pair-setup: Busy for others while its connection lives, free when it closes or goes stale', async () => {
    const hold = async () => {
      const socket = await SocketSender.connect(receiver.port);
      items(await socket.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
      return socket;
    };
    const other = await SocketSender.connect(receiver.port);
    try {
      const first = await hold();
      assert.deepEqual(items(await other.request('POST', '/pair-setup', { body: pairSetupM1() }), 2).get(TLV.Error), new Uint8Array([TLV_ERROR.Busy]));
      first.close(); // the sender went away mid-pairing
      await delay(100);
      const free = items(await other.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
      assert.equal(free.get(TLV.Error), undefined);
      other.close();

      // Left open but silent: after pairingTimeoutMs another sender may pair.
      const silent = await hold();
      const next = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
      await assert.rejects(next.pairSetup(PIN, PairMethods.PairSetup), (error: { statusCode?: number }) => error.statusCode === TLV_ERROR.Busy);
      await delay(PAIRING_TIMEOUT_MS + 200);
      await next.pairSetup(PIN, PairMethods.PairSetup);
      silent.close();
    } finally {
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
    receiver = await ReceiverProcess.start({ dataDir, args: ['--pin', OWN_PIN, '--limit', `pairingTimeoutMs=${PAIRING_TIMEOUT_MS}`] });
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

  test('the PIN stays on the screen when a sender gives up mid-way and the next one starts (M1), until it pairs', async () => {
    const hidden = () => receiver.stderr.split('\n').filter((line) => line.includes('screen: pairing PIN hidden')).length;
    const before = hidden();
    const gone = await SocketSender.connect(receiver.port);
    assert.equal((await gone.request('POST', '/pair-pin-start')).head.status, 200);
    items(await gone.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
    gone.close();
    await delay(100);
    const next = await SocketSender.connect(receiver.port);
    try {
      assert.equal((await next.request('POST', '/pair-pin-start')).head.status, 200);
      items(await next.request('POST', '/pair-setup', { body: pairSetupM1() }), 2);
      await delay(100);
      assert.equal(hidden(), before, `the PIN was hidden at the next M1:\n${receiver.stderr}`);
    } finally {
      next.close();
    }
    // That one goes away too; hap-controller then pairs with the PIN still shown, and it goes.
    await delay(100);
    const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
    await client.pairSetup(OWN_PIN, PairMethods.PairSetup);
    await delay(100);
    assert.equal(hidden(), before + 1, `hidden once, when hap-controller paired:\n${receiver.stderr}`);
  });
});
