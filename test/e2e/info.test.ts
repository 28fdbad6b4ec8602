// The information endpoints end to end: the real `vendorplay-receiver` command on loopback,
// driven by clients nobody here wrote (Node's fetch, the curl binary, raw sockets) and checked
// with Python's plistlib as the plist oracle. Spec 2.1, 2.2, 2.5, 2.11, 4.2, 4.3, 7.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { concat, fromHex } from '../../src/bytes';
import { AUDIO_SERVICE_TYPE, parseFeatures, parseFlags, parseTxtBytes } from '../../src/discovery';
import { MessageParser } from '../../src/http';
import { encodeBinaryPlist } from '../../src/plist';
import { plistlibLoads, type Tagged } from '../support/oracle';
import { PROMPT_MS, RawClient, ReceiverProcess, delay, exchange, freshDataDir, type RawResponse } from './receiver-process';

const run = promisify(execFile);

/** spec 2.5: the keys of the server information record, exactly. */
const SERVER_INFO_KEYS = ['deviceid', 'features', 'model', 'protovers', 'srcvers'];

/** spec 2.11: every key of the audio-service information record, with its type (dots: nested). */
const INFO_RECORD_KEYS: [path: string, type: Tagged['t']][] = [
  ['PTPInfo', 'str'],
  ['build', 'str'],
  ['deviceID', 'str'],
  ['features', 'int'],
  ['initialVolume', 'real'],
  ['macAddress', 'str'],
  ['firmwareBuildDate', 'str'],
  ['firmwareRevision', 'str'],
  ['keepAliveLowPower', 'bool'],
  ['keepAliveSendStatsAsBody', 'bool'],
  ['manufacturer', 'str'],
  ['model', 'str'],
  ['name', 'str'],
  ['nameIsFactoryDefault', 'bool'],
  ['pi', 'str'],
  ['pk', 'data'],
  ['playbackCapabilities.supportsFPSSecureStop', 'bool'],
  ['playbackCapabilities.supportsUIForAudioOnlyContent', 'bool'],
  ['protocolVersion', 'str'],
  ['psi', 'str'],
  ['senderAddress', 'str'],
  ['sdk', 'str'],
  ['sourceVersion', 'str'],
  ['statusFlags', 'int'],
];

/** RFC 9110 5.6.7 IMF-fixdate, the only form a server sends. */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A last bound on each suite, beyond the bounds on every wait inside it: far above what a quiet
 * machine takes (a few seconds), so that only a hang, not a busy machine, reaches it.
 */
const BOUND = { timeout: 180_000 };

const MEDIA_TYPE = { vendor: '_vendorplay._tcp', apple: '_airplay._tcp' } as const;

// ---------------------------------------------------------------------------------------------
// Helpers

/** plistlib's reading of one document; fails the test when plistlib refuses it. */
function plistlib(document: Uint8Array): Tagged {
  const [decoded] = plistlibLoads([document]);
  if ('error' in decoded) return assert.fail(`plistlib refused the document: ${decoded.error}`);
  return decoded;
}

/** A tagged dictionary's entries by key; fails when the value is not a dictionary. */
function entriesOf(value: Tagged | undefined): Map<string, Tagged> {
  if (!value || value.t !== 'dict') return assert.fail(`expected a dictionary, got ${JSON.stringify(value)}`);
  return new Map(value.v);
}

/** The value at a dotted key path (`playbackCapabilities.supportsFPSSecureStop`). */
function at(root: Tagged, keyPath: string): Tagged | undefined {
  let value: Tagged | undefined = root;
  for (const key of keyPath.split('.')) value = value && value.t === 'dict' ? new Map(value.v).get(key) : undefined;
  return value;
}

/** Date, Server and Content-Length on every response (the receiver's contract). */
function assertCommonHeaders(get: (name: string) => string | null | undefined, bodyLength: number, server: string): void {
  const date = get('Date');
  assert.ok(date, 'Date header');
  assert.match(date, IMF_FIXDATE);
  assert.ok(Math.abs(Date.parse(date) - Date.now()) < 5 * 60_000, `Date ${date} is now`);
  assert.equal(get('Server'), server);
  assert.equal(get('Content-Length'), String(bodyLength));
}

/** spec 2.5: the record has exactly its keys, and model, deviceid, srcvers, features equal the TXT record's. */
function assertServerInfoMatchesTxt(body: Uint8Array, receiver: ReceiverProcess, mediaType: string): void {
  const record = plistlib(body);
  const entries = entriesOf(record);
  assert.deepEqual([...entries.keys()].sort(), SERVER_INFO_KEYS);
  const txt = (key: string) => receiver.txt(mediaType, key);
  assert.deepEqual(entries.get('deviceid'), { t: 'str', v: txt('deviceid') });
  assert.deepEqual(entries.get('model'), { t: 'str', v: txt('model') });
  assert.deepEqual(entries.get('srcvers'), { t: 'str', v: txt('srcvers') });
  assert.deepEqual(entries.get('protovers'), { t: 'str', v: txt('protovers') });
  assert.deepEqual(entries.get('features'), { t: 'int', v: parseFeatures(txt('features')).toString() });
}

/** Every response in bytes holding whole responses (curl -i output). */
function splitResponses(bytes: Uint8Array): RawResponse[] {
  const parser = new MessageParser('response');
  parser.receive(bytes);
  parser.receiveEnd();
  const out: RawResponse[] = [];
  let current: { head: RawResponse['head']; chunks: Uint8Array[] } | undefined;
  for (let event = parser.next(); event; event = parser.next()) {
    if (event.type === 'head') current = { head: event.head, chunks: [] };
    else if (event.type === 'body') current?.chunks.push(event.data);
    else if (event.type === 'end' && current) out.push({ head: current.head, body: concat(...current.chunks) });
    else if (event.type === 'error') assert.fail(`unparseable response: ${event.reason}`);
  }
  return out;
}

/** `text` as a literal inside a RegExp. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The tokens of a comma-separated header (`Public: GET, OPTIONS`). */
function tokens(value: string | undefined): string[] {
  return (value ?? '').split(',').map((token) => token.trim()).filter(Boolean);
}

/** A GET /server-info on a new connection is still answered 200 (the receiver survived). */
/** A classic audio stream's ANNOUNCE (pyatv's SDP) on a connection of its own: 200, then the connection closes. */
async function announces(port: number): Promise<void> {
  const client = await RawClient.connect(port);
  try {
    const sdp = new TextEncoder().encode(['v=0', 'o=iTunes 1 0 IN IP4 127.0.0.1', 's=iTunes', 'c=IN IP4 127.0.0.1', 't=0 0', 'm=audio 0 RTP/AVP 96', 'a=rtpmap:96 L16/44100/2', ''].join('\r\n'));
    client.send(concat(new TextEncoder().encode(`ANNOUNCE rtsp://127.0.0.1/1 RTSP/1.0\r\nCSeq: 1\r\nContent-Type: application/sdp\r\nContent-Length: ${sdp.length}\r\n\r\n`), sdp));
    const response = await client.response();
    assert.equal(response.head.status, 200, 'ANNOUNCE, listed in Public, is served');
  } finally {
    client.close();
  }
}

async function assertStillServing(receiver: ReceiverProcess): Promise<void> {
  const response = await exchange(receiver.port, 'GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  assert.equal(response.head.status, 200, 'a new connection still gets /server-info');
}

/** RTSP GET /info as a sender sends it (spec 4.3), with the given dialect's header names. */
function infoRequest(cseq: number, maker: 'Vendor' | 'Apple'): string {
  return (
    `GET /info RTSP/1.0\r\n` +
    `X-${maker}-ProtocolVersion: 1\r\n` +
    `CSeq: ${cseq}\r\n` +
    `DACP-ID: 14413BE4996FEA4D\r\n` +
    `Active-Remote: 2543110914\r\n` +
    `User-Agent: ${maker}Play/550.10\r\n\r\n`
  );
}

/**
 * spec 2.11 and 4.3: the /info answer of `receiver` to `client`: RTSP/1.0 200, CSeq echoed,
 * every key with its type, values equal to the advertised records and the client's address.
 */
function assertInfoResponse(response: RawResponse, client: RawClient, receiver: ReceiverProcess, dialect: 'vendor' | 'apple', cseq: number): Tagged {
  const mediaType = MEDIA_TYPE[dialect];
  assert.equal(response.head.protocol, 'RTSP');
  assert.equal(response.head.version, '1.0');
  assert.equal(response.head.status, 200);
  assert.equal(response.head.reason, 'OK');
  assert.equal(response.head.headers.get('CSeq'), String(cseq));
  assert.equal(response.head.headers.get('Content-Type'), `application/x-${dialect}-binary-plist`);
  const server = `${dialect === 'apple' ? 'AirTunes' : 'VendorTunes'}/${receiver.txt(mediaType, 'srcvers')}`;
  assertCommonHeaders((name) => response.head.headers.get(name), response.body.length, server);

  const record = plistlib(response.body);
  for (const [keyPath, type] of INFO_RECORD_KEYS) {
    const value = at(record, keyPath);
    assert.ok(value, `/info has ${keyPath}`);
    assert.equal(value.t, type, `/info ${keyPath} is a ${type}`);
  }
  const txt = (key: string) => receiver.txt(mediaType, key);
  const value = (keyPath: string) => at(record, keyPath);
  assert.deepEqual(value('deviceID'), { t: 'str', v: txt('deviceid') });
  assert.deepEqual(value('macAddress'), { t: 'str', v: txt('deviceid') });
  assert.deepEqual(value('features'), { t: 'int', v: parseFeatures(txt('features')).toString() });
  assert.deepEqual(value('statusFlags'), { t: 'int', v: String(parseFlags(txt('flags'))) });
  assert.deepEqual(value('model'), { t: 'str', v: txt('model') });
  assert.deepEqual(value('manufacturer'), { t: 'str', v: txt('manufacturer') });
  assert.deepEqual(value('firmwareRevision'), { t: 'str', v: txt('fv') });
  assert.deepEqual(value('sourceVersion'), { t: 'str', v: txt('srcvers') });
  assert.deepEqual(value('protocolVersion'), { t: 'str', v: txt('protovers') });
  assert.deepEqual(value('pi'), { t: 'str', v: txt('pi') });
  assert.deepEqual(value('psi'), { t: 'str', v: txt('psi') });
  assert.deepEqual(value('pk'), { t: 'data', v: txt('pk').toLowerCase() });
  assert.deepEqual(value('name'), { t: 'str', v: receiver.service(mediaType).name });
  assert.deepEqual(value('senderAddress'), { t: 'str', v: `${client.localAddress}:${client.localPort}` });

  // txtAirPlay / txtRAOP: the raw TXT bytes of both services, equal to what is advertised.
  for (const [key, type] of [
    ['txtAirPlay', mediaType],
    ['txtRAOP', AUDIO_SERVICE_TYPE],
  ] as const) {
    const raw = value(key);
    if (!raw || raw.t !== 'data') return assert.fail(`/info ${key} is data, got ${JSON.stringify(raw)}`);
    assert.deepEqual(parseTxtBytes(fromHex(raw.v)), receiver.service(type).txt, `${key} parses to the ${type} record`);
  }
  return record;
}

// ---------------------------------------------------------------------------------------------

describe('vendor dialect (the spec names), on loopback', BOUND, () => {
  let receiver: ReceiverProcess;
  const vendor = MEDIA_TYPE.vendor;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--name', 'Living Room'] });
  });
  after(async () => {
    await receiver?.stop();
  });

  test('prints one port for all loopback listeners and the two records it would advertise', () => {
    const addresses = receiver.listening.map((listener) => listener.address);
    assert.ok(addresses.includes('127.0.0.1'), `listens on 127.0.0.1: ${addresses.join(', ')}`);
    assert.ok(addresses.every((address) => address === '127.0.0.1' || address === '::1'), `loopback only: ${addresses.join(', ')}`);
    assert.ok(receiver.listening.every((listener) => listener.port === receiver.port && listener.port > 0));
    assert.equal(receiver.dialect, 'vendor');
    const media = receiver.service(vendor);
    const audio = receiver.service(AUDIO_SERVICE_TYPE);
    assert.equal(media.name, 'Living Room');
    assert.equal(media.port, receiver.port);
    assert.equal(audio.port, receiver.port);
    // spec 2.2: the audio instance name is the MAC in hex without separators, @, the name.
    assert.equal(audio.name, `${receiver.txt(vendor, 'deviceid').replace(/:/g, '')}@Living Room`);
    assert.equal(receiver.txt(vendor, 'deviceid'), receiver.deviceId);
    assert.equal(receiver.txt(AUDIO_SERVICE_TYPE, 'txtvers'), '1');
  });

  test('fetch GET /server-info: 200, XML plist with exactly the spec 2.5 keys, values equal to the TXT record', async () => {
    const response = await fetch(`http://127.0.0.1:${receiver.port}/server-info`, { signal: AbortSignal.timeout(PROMPT_MS) });
    const body = new Uint8Array(await response.arrayBuffer());
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('Content-Type'), 'text/x-vendor-plist+xml');
    assertCommonHeaders((name) => response.headers.get(name), body.length, `VendorTunes/${receiver.txt(vendor, 'srcvers')}`);
    assertServerInfoMatchesTxt(body, receiver, vendor);
  });

  test('curl GET /server-info on every loopback listener (127.0.0.1, [::1]) gets the same answer and the same body bytes', async () => {
    const viaFetch = new Uint8Array(await (await fetch(`http://127.0.0.1:${receiver.port}/server-info`, { signal: AbortSignal.timeout(PROMPT_MS) })).arrayBuffer());
    const hosts = receiver.listening.map((listener) => (listener.address.includes(':') ? `[${listener.address}]` : listener.address));
    for (const url of hosts.map((host) => `http://${host}:${receiver.port}/server-info`)) {
      const { stdout } = await run('curl', ['-s', '-i', '-g', '--noproxy', '*', '--max-time', String(PROMPT_MS / 1000), url], { encoding: 'buffer', timeout: 2 * PROMPT_MS });
      const responses = splitResponses(new Uint8Array(stdout));
      assert.equal(responses.length, 1, `one response from ${url}`);
      const [{ head, body }] = responses;
      assert.equal(head.status, 200);
      assert.equal(head.version, '1.1');
      assert.equal(head.headers.get('Content-Type'), 'text/x-vendor-plist+xml');
      assertCommonHeaders((name) => head.headers.get(name), body.length, `VendorTunes/${receiver.txt(vendor, 'srcvers')}`);
      assert.deepEqual(body, viaFetch);
      assertServerInfoMatchesTxt(body, receiver, vendor);
    }
  });

  test('keep-alive: pipelined HTTP requests in one write are answered in order, then more on the same socket', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
      client.send(get('/server-info') + get('/no-such-path') + get('/server-info?x=1') + get('/also-missing'));
      const pipelined = await client.responsesOf(4);
      assert.deepEqual(pipelined.map((response) => response.head.status), [200, 404, 200, 404]);
      assert.deepEqual(pipelined[2].body, pipelined[0].body);
      // A refusal says why in one line of text (the body of a 4xx).
      assert.equal(pipelined[1].head.headers.get('Content-Type'), 'text/plain; charset=utf-8');
      assert.equal(new TextDecoder().decode(pipelined[1].body), 'no such path on this receiver\n');
      for (const response of pipelined) assert.equal(response.head.headers.get('Connection'), undefined);
      // Sequential requests afterwards, on the same connection.
      for (let i = 0; i < 3; i++) {
        client.send(get('/server-info'));
        const response = await client.response();
        assert.equal(response.head.status, 200);
        assert.deepEqual(response.body, pipelined[0].body);
      }
    } finally {
      client.close();
    }
  });

  test('keep-alive: pipelined RTSP requests are answered in order, each with its CSeq', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      client.send(`OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n` + infoRequest(2, 'Vendor') + `OPTIONS * RTSP/1.0\r\nCSeq: 3\r\n\r\n` + infoRequest(4, 'Apple'));
      const responses = await client.responsesOf(4);
      assert.deepEqual(responses.map((response) => response.head.headers.get('CSeq')), ['1', '2', '3', '4']);
      assert.deepEqual(responses.map((response) => response.head.status), [200, 200, 200, 200]);
      assert.equal(responses[0].body.length, 0);
      assert.ok(responses[1].body.length > 0 && responses[3].body.length > 0);
    } finally {
      client.close();
    }
  });

  test('a request arriving in pieces is answered once it is whole', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      const request = infoRequest(21, 'Vendor');
      for (const piece of [request.slice(0, 3), request.slice(3, 20), request.slice(20, -3), request.slice(-3)]) {
        client.send(piece);
        // Apart, so the receiver most likely reads them one by one; the answer is the same if
        // a busy machine delivers them together (the parser's contract, tested byte by byte in
        // test/unit/http-parser.test.ts).
        await delay(30);
      }
      assertInfoResponse(await client.response(), client, receiver, 'vendor', 21);
    } finally {
      client.close();
    }
  });

  test('HTTP/1.0 closes after the response unless it asks for keep-alive; HTTP/1.1 closes on Connection: close', async () => {
    const plain = await RawClient.connect(receiver.port);
    try {
      plain.send('GET /server-info HTTP/1.0\r\n\r\n');
      const response = await plain.response();
      assert.equal(response.head.status, 200);
      assert.equal(response.head.version, '1.0');
      assert.equal(response.head.headers.get('Connection'), undefined);
      assert.equal(await plain.closedByPeer(), true, 'HTTP/1.0 without keep-alive is closed');
    } finally {
      plain.close();
    }

    const kept = await RawClient.connect(receiver.port);
    try {
      for (let i = 0; i < 2; i++) {
        kept.send('GET /server-info HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
        const response = await kept.response();
        assert.equal(response.head.status, 200);
        assert.equal(response.head.version, '1.0');
        assert.equal(response.head.headers.get('Connection'), 'keep-alive');
      }
      kept.send('GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      const last = await kept.response();
      assert.equal(last.head.status, 200);
      assert.equal(last.head.headers.get('Connection'), 'close');
      assert.equal(await kept.closedByPeer(), true, 'Connection: close is honoured');
    } finally {
      kept.close();
    }
  });

  test('RTSP GET /info (vendor header names): RTSP/1.0 200, CSeq 7, binary plist with every spec 2.11 key', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      client.send(infoRequest(7, 'Vendor'));
      const response = await client.response();
      assert.ok(client.receivedText().startsWith('RTSP/1.0 200 OK\r\n'), 'status line is RTSP/1.0 200 OK');
      const record = assertInfoResponse(response, client, receiver, 'vendor', 7);
      assert.deepEqual(at(record, 'nameIsFactoryDefault'), { t: 'bool', v: false }, '--name was given');
    } finally {
      client.close();
    }
  });

  test('RTSP GET /info with the apple dialect header names is answered the same', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      client.send(infoRequest(7, 'Apple'));
      assertInfoResponse(await client.response(), client, receiver, 'vendor', 7);
    } finally {
      client.close();
    }
  });

  test('RTSP OPTIONS: Public lists exactly the methods served; a method not listed gets 501', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      client.send('OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n');
      const options = await client.response();
      assert.equal(options.head.status, 200);
      const methods = tokens(options.head.headers.get('Public'));
      assert.ok(methods.includes('OPTIONS') && methods.includes('GET'), `Public: ${methods.join(', ')}`);
      let cseq = 2;
      // Each listed method is served: /info for GET and OPTIONS, the pairing endpoints for POST
      // (spec 5: /pair-pin-start takes an empty body), /setProperty for PUT, a sender's session
      // for the others (SETUP opens it with a binary plist, TEARDOWN, asked last, ends it).
      const session = encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: '6F0A1E2B-5C4D-4E3F-9A8B-7C6D5E4F3A2B', timingProtocol: 'None' });
      const served: Record<string, { path: string; type?: string; body?: Uint8Array }> = {
        POST: { path: '/pair-pin-start' },
        SETUP: { path: 'rtsp://127.0.0.1/1', type: 'application/x-apple-binary-plist', body: session },
        GET_PARAMETER: { path: 'rtsp://127.0.0.1/1', type: 'text/parameters', body: new TextEncoder().encode('volume\r\n') },
        SET_PARAMETER: { path: 'rtsp://127.0.0.1/1', type: 'text/parameters', body: new TextEncoder().encode('volume: -20\r\n') },
        // The video requests answer RTSP too (pyatv sends them so inside a session).
        PUT: { path: '/setProperty?isInterestedInDateRange', type: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ value: true }) },
      };
      const order = (method: string) => (method === 'SETUP' ? 0 : method === 'TEARDOWN' ? 2 : 1);
      for (const method of [...methods].sort((x, y) => order(x) - order(y))) {
        if (method === 'ANNOUNCE') {
          // Listed where the command plays audio (aplay installed): a classic stream's SDP, on a
          // connection of its own (this one carries a session SETUP opened).
          await announces(receiver.port);
          continue;
        }
        const { path, type, body } = served[method] ?? { path: method === 'GET' || method === 'OPTIONS' ? '/info' : 'rtsp://127.0.0.1/1' };
        const head = `${method} ${path} RTSP/1.0\r\nCSeq: ${cseq}\r\n${type ? `Content-Type: ${type}\r\n` : ''}${body ? `Content-Length: ${body.length}\r\n` : ''}\r\n`;
        client.send(body ? concat(new TextEncoder().encode(head), body) : head);
        const response = await client.response();
        assert.equal(response.head.headers.get('CSeq'), String(cseq++));
        assert.equal(response.head.status, 200, `${method} ${path}, listed in Public, is served`);
      }
      const unlisted = ['ANNOUNCE', 'SETPEERS', 'FLUSHBUFFERED', 'SETRATEANCHORTIME'].find((method) => !methods.includes(method));
      assert.ok(unlisted);
      client.send(`${unlisted} rtsp://127.0.0.1/1 RTSP/1.0\r\nCSeq: ${cseq}\r\n\r\n`);
      const refused = await client.response();
      assert.equal(refused.head.status, 501, `${unlisted}, not in Public, is not implemented`);
      assert.equal(refused.head.headers.get('CSeq'), String(cseq));
    } finally {
      client.close();
    }
  });

  test('odd but real requests get an answer: CSeq 0, bare-LF lines, no Host, an empty RTSP URI', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      client.send('OPTIONS * RTSP/1.0\r\nCSeq: 0\r\n\r\n');
      const zero = await client.response();
      assert.equal(zero.head.status, 200);
      assert.equal(zero.head.headers.get('CSeq'), '0');

      // Some senders end lines with a bare LF.
      client.send('GET /info RTSP/1.0\nCSeq: 8\nX-Vendor-ProtocolVersion: 1\n\n');
      assertInfoResponse(await client.response(), client, receiver, 'vendor', 8);

      // RTSP requests carry no Host; an HTTP/1.1 request without one is tolerated too.
      client.send('GET /server-info HTTP/1.1\r\n\r\n');
      const noHost = await client.response();
      assert.equal(noHost.head.protocol, 'HTTP');
      assert.equal(noHost.head.status, 200);

      // Some senders send `TEARDOWN  RTSP/1.0`: the empty URI is not a malformed request.
      client.send('TEARDOWN  RTSP/1.0\r\nCSeq: 9\r\n\r\n');
      const teardown = await client.response();
      assert.equal(teardown.head.protocol, 'RTSP');
      assert.equal(teardown.head.headers.get('CSeq'), '9');
      assert.notEqual(teardown.head.status, 400);

      client.send('OPTIONS * RTSP/1.0\r\nCSeq: 10\r\n\r\n');
      assert.equal((await client.response()).head.headers.get('CSeq'), '10', 'the connection still serves');
    } finally {
      client.close();
    }
  });

  describe('bad requests get a status (and a close when the stream is lost); the receiver keeps serving', () => {
    const filler = 'a'.repeat(9000);
    const cases: { name: string; request: string | Uint8Array; protocol: 'HTTP' | 'RTSP'; status: number; closes: boolean; cseq?: string }[] = [
      // A TLS ClientHello on the plain port starts 16 03 01.
      { name: 'binary garbage', request: new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]), protocol: 'HTTP', status: 400, closes: true },
      { name: 'text garbage', request: 'hello there, receiver\r\n\r\n', protocol: 'HTTP', status: 400, closes: true },
      { name: 'a huge HTTP header', request: `GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${filler}\r\n\r\n`, protocol: 'HTTP', status: 431, closes: true },
      { name: 'too many HTTP header lines', request: `GET /server-info HTTP/1.1\r\n${'X-Line: 1\r\n'.repeat(100)}\r\n`, protocol: 'HTTP', status: 431, closes: true },
      // RTSP has no 431 (RFC 2326 7.1.1).
      { name: 'a huge RTSP header', request: `GET /info RTSP/1.0\r\nCSeq: 5\r\nX-Filler: ${filler}\r\n\r\n`, protocol: 'RTSP', status: 400, closes: true },
      { name: 'HTTP/2.0', request: 'GET /server-info HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n', protocol: 'HTTP', status: 505, closes: true },
      {
        name: 'both Content-Length and Transfer-Encoding',
        request: 'POST /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        protocol: 'HTTP',
        status: 400,
        closes: true,
      },
      { name: 'an unknown path', request: 'GET /no-such-thing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', protocol: 'HTTP', status: 404, closes: false },
      { name: 'an unknown RTSP path', request: 'GET /no-such-thing RTSP/1.0\r\nCSeq: 12\r\n\r\n', protocol: 'RTSP', status: 404, closes: false, cseq: '12' },
      // HTTP routes serve POST (/pair-setup, /reverse...), so POST on a GET-only path is 405
      // (RFC 9110 15.5.6), with Allow: GET, HEAD.
      { name: 'POST on GET-only /server-info', request: 'POST /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n', protocol: 'HTTP', status: 405, closes: false },
    ];
    for (const bad of cases) {
      test(`${bad.name}: ${bad.protocol} ${bad.status}${bad.closes ? ' and close' : ', connection kept'}`, async () => {
        const client = await RawClient.connect(receiver.port);
        try {
          client.send(bad.request);
          const response = await client.response();
          assert.equal(response.head.protocol, bad.protocol);
          assert.equal(response.head.status, bad.status);
          // A refusal says why in one line of text a person can act on.
          const reason = new TextDecoder().decode(response.body);
          assert.match(reason, /^[^\n]{8,}\n$/);
          assert.equal(response.head.headers.get('Content-Type'), 'text/plain; charset=utf-8');
          const server = `VendorTunes/${receiver.txt(vendor, 'srcvers')}`;
          assertCommonHeaders((name) => response.head.headers.get(name), response.body.length, server);
          if (bad.cseq !== undefined) assert.equal(response.head.headers.get('CSeq'), bad.cseq);
          // DESIGN 2.6: a log line names the peer and the status.
          await receiver.waitForLog(new RegExp(`${literal(client.localAddress)}:${client.localPort} .*\\b${bad.status}\\b`));
          if (bad.closes) {
            if (bad.protocol === 'HTTP') assert.equal(response.head.headers.get('Connection'), 'close');
            assert.equal(await client.closedByPeer(), true, 'the connection is closed');
          } else {
            client.send('GET /server-info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
            assert.equal((await client.response()).head.status, 200, 'the same connection still serves');
          }
        } finally {
          client.close();
        }
        await assertStillServing(receiver);
      });
    }
  });
});

describe('apple dialect (real senders\' names), on loopback', BOUND, () => {
  let receiver: ReceiverProcess;
  const airplay = MEDIA_TYPE.apple;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--dialect', 'apple'] });
  });
  after(async () => {
    await receiver?.stop();
  });

  test('prints the media service as _airplay._tcp, beside _raop._tcp', () => {
    assert.equal(receiver.dialect, 'apple');
    assert.deepEqual(receiver.services.map((service) => service.type), [airplay, AUDIO_SERVICE_TYPE]);
  });

  test('GET /server-info: text/x-apple-plist+xml, Server AirTunes/srcvers, same record', async () => {
    const response = await fetch(`http://127.0.0.1:${receiver.port}/server-info`, { signal: AbortSignal.timeout(PROMPT_MS) });
    const body = new Uint8Array(await response.arrayBuffer());
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('Content-Type'), 'text/x-apple-plist+xml');
    assertCommonHeaders((name) => response.headers.get(name), body.length, `AirTunes/${receiver.txt(airplay, 'srcvers')}`);
    assertServerInfoMatchesTxt(body, receiver, airplay);
  });

  test('RTSP GET /info in either dialect: application/x-apple-binary-plist, Server AirTunes, txtAirPlay of _airplay._tcp', async () => {
    const client = await RawClient.connect(receiver.port);
    try {
      client.send(infoRequest(7, 'Apple'));
      const record = assertInfoResponse(await client.response(), client, receiver, 'apple', 7);
      assert.deepEqual(at(record, 'nameIsFactoryDefault'), { t: 'bool', v: true }, 'no --name was given');
      const sdk = at(record, 'sdk');
      assert.ok(sdk?.t === 'str' && sdk.v.startsWith('AirPlay;'), `sdk ${JSON.stringify(sdk)}`);
      client.send(infoRequest(8, 'Vendor'));
      assertInfoResponse(await client.response(), client, receiver, 'apple', 8);
    } finally {
      client.close();
    }
  });
});

describe('identity', BOUND, () => {
  const dataDir = freshDataDir();
  const started: ReceiverProcess[] = [];
  after(async () => {
    await Promise.all(started.map((receiver) => receiver.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a restart with the same data directory keeps pk, pi, psi and the device id; another directory gets its own', async () => {
    const first = await ReceiverProcess.start({ dataDir });
    started.push(first);
    const identity = (receiver: ReceiverProcess) => ({
      deviceid: receiver.txt(MEDIA_TYPE.vendor, 'deviceid'),
      pk: receiver.txt(MEDIA_TYPE.vendor, 'pk'),
      pi: receiver.txt(MEDIA_TYPE.vendor, 'pi'),
      psi: receiver.txt(MEDIA_TYPE.vendor, 'psi'),
    });
    const before = identity(first);
    assert.match(before.pk, /^[0-9a-f]{64}$/);
    // SIGTERM stops it cleanly.
    assert.deepEqual(await first.stop(), { code: 0, signal: null });

    const [again, other] = await Promise.all([ReceiverProcess.start({ dataDir }), ReceiverProcess.start()]);
    started.push(again, other);
    assert.deepEqual(identity(again), before);
    const client = await RawClient.connect(again.port);
    try {
      client.send(infoRequest(1, 'Vendor'));
      const record = plistlib((await client.response()).body);
      assert.deepEqual(at(record, 'pk'), { t: 'data', v: before.pk });
      assert.deepEqual(at(record, 'pi'), { t: 'str', v: before.pi });
      assert.deepEqual(at(record, 'deviceID'), { t: 'str', v: before.deviceid });
    } finally {
      client.close();
    }

    const fresh = identity(other);
    for (const key of ['deviceid', 'pk', 'pi', 'psi'] as const) assert.notEqual(fresh[key], before[key], `a new data directory has a new ${key}`);
  });
});
