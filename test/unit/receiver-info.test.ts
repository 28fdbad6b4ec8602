// The information records (spec 2.5, 2.11), the advertised services and their activity changes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concat, toHex, utf8Decode, utf8Encode } from '../../src/bytes';
import { parseFeatures, parseFlags, parseTxtBytes } from '../../src/discovery';
import { decodeBinaryPlist } from '../../src/plist/binary';
import { PlistReal, isPlistDict, type PlistDict } from '../../src/plist/value';
import { decodeXmlPlist } from '../../src/plist/xml';
import { makeConfig, type ReceiverConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { ManualClock, MemoryConnection, MemoryStore, RecordingAdvertiser, recordingLogger, seededRandom } from '../support/memory-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

function makeReceiver(overrides: Partial<ReceiverConfig> = {}, store = new MemoryStore(), seed = 9) {
  const advertiser = new RecordingAdvertiser();
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Living Room', deviceId: '58:55:ca:1a:e2:88', profile: 'speaker', ...overrides }), {
    crypto: portableCryptoKernels,
    clock: new ManualClock(),
    random: seededRandom(seed),
    store,
    log,
    advertiser,
  });
  return { receiver, advertiser, store, logs: log.lines.map((line) => `${line.level} ${line.message}`) };
}

async function body(receiver: Receiver, request: string): Promise<{ head: string; body: Uint8Array }> {
  const connection = new MemoryConnection();
  receiver.accept(connection);
  connection.send(request);
  const bytes = connection.written;
  let end = 0;
  while (!(bytes[end] === 13 && bytes[end + 1] === 10 && bytes[end + 2] === 13 && bytes[end + 3] === 10)) end++;
  return { head: connection.text.slice(0, end), body: bytes.subarray(end + 4) };
}

const txtOf = (entries: [string, string][]) => Object.fromEntries(entries);

test('/server-info holds the spec 2.5 keys with the values of the TXT record', async () => {
  const { receiver } = makeReceiver();
  const reply = await body(receiver, 'GET /server-info HTTP/1.1\r\n\r\n');
  const info = decodeXmlPlist(reply.body) as PlistDict;
  assert.deepEqual(Object.keys(info).sort(), ['deviceid', 'features', 'model', 'protovers', 'srcvers']);
  const txt = txtOf(receiver.services()[0].txt);
  assert.equal(info.deviceid, txt.deviceid);
  assert.equal(info.deviceid, '58:55:CA:1A:E2:88');
  assert.equal(BigInt(info.features as number), parseFeatures(txt.features));
  assert.equal(info.model, txt.model);
  assert.equal(info.srcvers, txt.srcvers);
  assert.equal(info.protovers, txt.protovers);
});

const INFO_KEYS = [
  'PTPInfo', 'build', 'deviceID', 'features', 'initialVolume', 'macAddress', 'firmwareBuildDate', 'firmwareRevision',
  'keepAliveLowPower', 'keepAliveSendStatsAsBody', 'manufacturer', 'model', 'name', 'nameIsFactoryDefault', 'pi', 'pk',
  'playbackCapabilities', 'protocolVersion', 'psi', 'senderAddress', 'sdk', 'sourceVersion', 'statusFlags', 'txtAirPlay',
  'txtRAOP', 'volumeControlType', 'vv',
];

test('RTSP /info holds every key of spec 2.11, with raw TXT bytes equal to the advertised records', async () => {
  const { receiver } = makeReceiver();
  const reply = await body(receiver, 'GET /info RTSP/1.0\r\nCSeq: 2\r\nX-Vendor-ProtocolVersion: 1\r\n\r\n');
  assert.match(reply.head, /^RTSP\/1\.0 200 OK\r\n/);
  assert.match(reply.head, /\r\nContent-Type: application\/x-vendor-binary-plist\r\n/);
  assert.match(reply.head, /\r\nCSeq: 2\r\n/);
  const info = decodeBinaryPlist(reply.body, { exactReals: true }) as PlistDict;
  assert.deepEqual(Object.keys(info).sort(), [...INFO_KEYS].sort());
  const [media, audio] = receiver.services();
  assert.deepEqual(parseTxtBytes(info.txtAirPlay as Uint8Array), media.txt);
  assert.deepEqual(parseTxtBytes(info.txtRAOP as Uint8Array), audio.txt);
  assert.equal(info.statusFlags, parseFlags(txtOf(media.txt).flags));
  assert.equal(BigInt(info.features as number), parseFeatures(txtOf(media.txt).features));
  assert.equal(info.senderAddress, '192.0.2.20:50000');
  assert.ok(info.initialVolume instanceof PlistReal);
  assert.ok(isPlistDict(info.playbackCapabilities));
  assert.equal((info.playbackCapabilities as PlistDict).supportsFPSSecureStop, false);
  assert.deepEqual(info.pk, receiver.identity.publicKey);
  assert.equal(info.name, 'Living Room');
});

test('the speaker profile advertises the RAOP and pairing bits and nothing it cannot do', () => {
  const { receiver } = makeReceiver();
  // RAOP (30), SupportsCorePairingAndEncryption (38), SupportsTransientPairing (48).
  assert.equal(receiver.features, (1n << 30n) | (1n << 38n) | (1n << 48n));
  const [media, audio] = receiver.services();
  assert.equal(media.type, '_vendorplay._tcp');
  assert.equal(audio.type, '_raop._tcp');
  assert.equal(audio.name, '5855CA1AE288@Living Room');
});

test('the photo-frame profile publishes no audio service', () => {
  const { receiver } = makeReceiver({ profile: 'photo-frame' });
  assert.deepEqual(receiver.services().map((service) => service.type), ['_vendorplay._tcp']);
});

test('the apple dialect answers with the real-world names', async () => {
  const { receiver } = makeReceiver({ dialect: 'apple' });
  const reply = await body(receiver, 'GET /info RTSP/1.0\r\nCSeq: 1\r\n\r\n');
  assert.match(reply.head, /\r\nContent-Type: application\/x-apple-binary-plist\r\n/);
  assert.match(reply.head, /\r\nServer: AirTunes\/220\.68\r\n/);
  assert.equal(receiver.services()[0].type, '_airplay._tcp');
});

test('an activity change publishes new TXT: gid changes, flag 17 set, pgid equal to gid', () => {
  const { receiver, advertiser } = makeReceiver();
  receiver.start();
  const before = txtOf(receiver.services()[0].txt);
  receiver.setActivity('receivingVideo');
  const updates = advertiser.events.filter((event) => event.kind === 'update');
  assert.equal(updates.length, 2, 'both services are published again');
  const after = txtOf(updates[0].service.txt);
  assert.notEqual(after.gid, before.gid);
  assert.equal(after.pgid, after.gid);
  assert.equal(after.igl, '0');
  assert.equal((parseFlags(after.flags) >> 17) & 1, 1);
  receiver.setActivity('receivingVideo');
  assert.equal(advertiser.events.filter((event) => event.kind === 'update').length, 2, 'no change, no re-publish');
});

test('stop withdraws every published service', () => {
  const { receiver, advertiser } = makeReceiver();
  receiver.start();
  receiver.stop();
  assert.deepEqual(advertiser.events.map((event) => event.kind), ['publish', 'publish', 'withdraw', 'withdraw']);
});

test('the identity survives a restart with the same store, and an unreadable record is kept aside', () => {
  const store = new MemoryStore();
  const first = makeReceiver({}, store).receiver.identity;
  const second = makeReceiver({}, store, 10).receiver.identity;
  assert.deepEqual(second.publicKey, first.publicKey);
  assert.equal(second.pairingId, first.pairingId);
  store.put('identity', new Uint8Array([1, 2, 3]));
  const third = makeReceiver({}, store, 11).receiver.identity;
  assert.notEqual(third.pairingId, first.pairingId);
  assert.deepEqual(store.get('identity.bad'), new Uint8Array([1, 2, 3]));
});

test('the identity keeps its public key with a check: an older record gains it, a damaged one is derived again from the secret', () => {
  const store = new MemoryStore();
  const made = makeReceiver({}, store).receiver.identity;
  assert.deepEqual(made.publicKey, ed25519.getPublicKey(made.secretKey));
  const record = JSON.parse(utf8Decode(store.get('identity')!)) as Record<string, unknown>;
  assert.equal(record.publicKey, toHex(made.publicKey));
  assert.equal(typeof record.keyCheck, 'string');

  // A start takes a kept key whose check holds as it is: it derives nothing (a key made up here,
  // with its check, is what the receiver then has).
  const madeUp = new Uint8Array(32).fill(7);
  const check = sha512(concat(made.secretKey, madeUp)).subarray(0, 8);
  store.put('identity', utf8Encode(JSON.stringify({ ...record, publicKey: toHex(madeUp), keyCheck: toHex(check) })));
  assert.deepEqual(makeReceiver({}, store, 12).receiver.identity.publicKey, madeUp);

  // A record from before the key was kept: the key is derived once and written back.
  const { publicKey, keyCheck, ...older } = record;
  store.put('identity', utf8Encode(JSON.stringify(older)));
  assert.deepEqual(makeReceiver({}, store, 10).receiver.identity.publicKey, made.publicKey);
  assert.deepEqual(JSON.parse(utf8Decode(store.get('identity')!)), record);

  // One hex digit of the kept key changed: the check fails, the secret decides, the record is repaired.
  const damaged = { ...record, publicKey: `${String(publicKey).slice(0, -1)}${String(publicKey).endsWith('0') ? '1' : '0'}` };
  store.put('identity', utf8Encode(JSON.stringify(damaged)));
  const { receiver, logs } = makeReceiver({}, store, 11);
  assert.deepEqual(receiver.identity.publicKey, made.publicKey);
  assert.ok(logs.some((line) => line.includes('public key does not match its check')), logs.join('\n'));
  assert.deepEqual(JSON.parse(utf8Decode(store.get('identity')!)), record);
  assert.equal(keyCheck, record.keyCheck);
});

test('GET /info over HTTP/1.1 is the same record as over RTSP/1.0, with an HTTP status line', async () => {
  const { receiver } = makeReceiver();
  const rtsp = await body(receiver, 'GET /info RTSP/1.0\r\nCSeq: 2\r\n\r\n');
  const http = await body(receiver, 'GET /info HTTP/1.1\r\nHost: speaker\r\n\r\n');
  assert.match(http.head, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(http.head, /\r\nContent-Type: application\/x-vendor-binary-plist\r\n/);
  const fromRtsp = decodeBinaryPlist(rtsp.body) as PlistDict;
  const fromHttp = decodeBinaryPlist(http.body) as PlistDict;
  assert.deepEqual(Object.keys(fromHttp), Object.keys(fromRtsp));
  assert.deepEqual(fromHttp.txtAirPlay, fromRtsp.txtAirPlay);
});

test('POST /auth-setup is served over HTTP/1.1 as over RTSP/1.0 (without a device key: 501 with its reason)', async () => {
  const { receiver } = makeReceiver();
  const http = await body(receiver, 'POST /auth-setup HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
  assert.match(http.head, /^HTTP\/1\.1 501 Not Implemented\r\n/);
  assert.match(new TextDecoder().decode(http.body), /no device key and certificate configured/);
  const rtsp = await body(receiver, 'POST /auth-setup RTSP/1.0\r\nCSeq: 3\r\nContent-Length: 0\r\n\r\n');
  assert.match(rtsp.head, /^RTSP\/1\.0 501 Not Implemented\r\n/);
});

test('audio requests a receiver without an audio output does not serve get 501 naming them, never 404; OPTIONS lists only what is served', async () => {
  const { receiver } = makeReceiver();
  const log = receiver.ports.log as ReturnType<typeof recordingLogger>;
  for (const method of ['ANNOUNCE', 'FLUSHBUFFERED', 'SETRATEANCHORTIME', 'SETPEERS']) {
    const reply = await body(receiver, `${method} rtsp://192.0.2.1/1234 RTSP/1.0\r\nCSeq: 4\r\nContent-Length: 0\r\n\r\n`);
    assert.match(reply.head, /^RTSP\/1\.0 501 Not Implemented\r\n/, method);
    const why = method === 'ANNOUNCE' ? 'this host has no audio output: it answers the audio information request but plays no audio' : 'this receiver plays realtime audio \\(RTP\\), not buffered audio, PTP groups or FairPlay streams';
    assert.match(new TextDecoder().decode(reply.body), new RegExp(`^${method} /1234: ${why}\\n$`));
    assert.ok(log.lines.some((line) => line.message.includes(`RTSP ${method} rtsp://192.0.2.1/1234: 501 (${method} /1234: `)), `${method} is logged by name`);
  }
  const fairPlay = await body(receiver, 'POST /fp-setup RTSP/1.0\r\nCSeq: 5\r\nContent-Length: 0\r\n\r\n');
  assert.match(fairPlay.head, /^RTSP\/1\.0 501 Not Implemented\r\n/);
  // A session's requests are served (test/unit/receiver-session-routes.test.ts); OPTIONS lists them.
  const options = await body(receiver, 'OPTIONS * RTSP/1.0\r\nCSeq: 6\r\n\r\n');
  assert.match(options.head, /\r\nPublic: GET, OPTIONS, SETUP, RECORD, FLUSH, TEARDOWN, GET_PARAMETER, SET_PARAMETER, POST\r\n/);
});

test('gid survives a restart and changes only with the activity (spec 2.1); a change is kept at the storeWrite deadline or at stop', () => {
  const store = new MemoryStore();
  const first = makeReceiver({}, store, 1).receiver;
  const gidOf = (receiver: Receiver) => txtOf(receiver.services()[0].txt).gid;
  const initial = gidOf(first);
  assert.equal(gidOf(makeReceiver({}, store, 2).receiver), initial, 'a restart keeps it');
  first.setActivity('receivingVideo');
  const receiving = gidOf(first);
  assert.notEqual(receiving, initial, 'an activity change makes a new one');
  first.setActivity('idle');
  const idle = gidOf(first);
  assert.notEqual(idle, receiving);
  assert.equal(gidOf(makeReceiver({}, store, 6).receiver), initial, 'not written on the request path');
  first.handleTimeout(first.timers.deadline('storeWrite')!);
  assert.equal(gidOf(makeReceiver({}, store, 3).receiver), idle, 'the idle one is kept');
  first.setActivity('receivingVideo');
  first.stop();
  const restarted = gidOf(makeReceiver({}, store, 5).receiver);
  assert.notEqual(restarted, gidOf(first), 'stopped while receiving, a start (idle) is another activity: another gid');
  assert.notEqual(gidOf(makeReceiver({}, new MemoryStore(), 4).receiver), idle, 'another device has its own');
});

test("/info replies are kept per sender connection up to limits.infoRepliesKept (boards: 2); each connection still gets its own senderAddress", async () => {
  const { receiver } = makeReceiver();
  assert.equal(receiver.config.limits.infoRepliesKept, 2, 'the speaker keeps two');
  for (let port = 50_001; port <= 50_005; port++) {
    const connection = new MemoryConnection();
    connection.remotePort = port;
    receiver.accept(connection);
    connection.send('GET /info RTSP/1.0\r\nCSeq: 1\r\n\r\nGET /info RTSP/1.0\r\nCSeq: 2\r\n\r\n');
    const bytes = connection.written;
    // Two answers on one connection, the second from the kept reply: the same body.
    const text = connection.text;
    const first = text.indexOf('bplist00');
    const second = text.indexOf('bplist00', first + 1);
    assert.ok(first > 0 && second > first, 'two binary plist bodies');
    const length = Number(/Content-Length: (\d+)/.exec(text)![1]);
    const one = decodeBinaryPlist(bytes.subarray(first, first + length)) as PlistDict;
    assert.equal(one.senderAddress, `192.0.2.20:${port}`);
    assert.deepEqual(bytes.subarray(second, second + length), bytes.subarray(first, first + length));
  }
});
