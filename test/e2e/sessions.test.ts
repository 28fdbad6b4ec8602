// Senders' sessions end to end on the built command (loopback): `vendorplay-send play` opening a
// session the way pyatv and iOS do; a session SETUP with each timing protocol; the receiver's
// clock estimate of a sender whose clock is known (served here, Unix time plus an offset);
// a paired session's encrypted event channel, written with keys derived here; feedback keeping a
// session and its timeout ending it with its video; TEARDOWN of a stream and of the session; a
// second sender; bad bodies and strangers refused with a log line, the receiver serving on.

import assert from 'node:assert/strict';
import { hkdfSync } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { utf8Decode, utf8Encode } from '../../src/bytes';
import { ControlChannel, createSenderChannel } from '../../src/pairing/channel';
import { decodeBinaryPlist, encodeBinaryPlist, isPlistDict, type PlistDict } from '../../src/plist';
import { isRaopTimingRequest, raopTimingReply } from '../../src/timing';
import { nodeRandom } from '../../hosts/node/io/ports';
import { pairSetupM1, srpClientStep } from '../support/pairing-client';
import { ReceiverProcess, runSender, until } from './receiver-process';
import { SocketSender } from './socket-sender';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const BOUND = { timeout: 120_000 };
const PLIST = 'application/x-apple-binary-plist';
/** Never fetched (no screen page is open); the discard port, on loopback. */
const MOVIE = 'http://127.0.0.1:9/movies/clip.mp4';

function sessionBody(overrides: PlistDict = {}): Uint8Array {
  return encodeBinaryPlist({
    deviceID: 'AA:BB:CC:DD:EE:FF',
    sessionUUID: '6F0A1E2B-5C4D-4E3F-9A8B-7C6D5E4F3A2B',
    timingProtocol: 'None',
    name: 'e2e',
    model: 'iPhone14,3',
    ...overrides,
  });
}

function plistOf(body: Uint8Array): PlistDict {
  const plist = decodeBinaryPlist(body);
  assert.ok(isPlistDict(plist), 'a dictionary');
  return plist;
}

/** A sender's timing server: answers RAOP timing requests with Unix time plus `offsetMs`. */
async function timingServer(offsetMs: number): Promise<{ port: number; answered: () => number; close: () => void }> {
  const socket = dgram.createSocket('udp4');
  let answered = 0;
  socket.on('message', (message, remote) => {
    const request = new Uint8Array(message);
    if (!isRaopTimingRequest(request)) return;
    const now = performance.timeOrigin + performance.now() + offsetMs;
    answered++;
    socket.send(raopTimingReply(request, now, now), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, answered: () => answered, close: () => socket.close() };
}

/** Connects to the event port (from `localAddress`, another loopback address for a stranger); `closedByPeer` says when it closed. */
function connectEvents(port: number, localAddress = '127.0.0.1'): Promise<net.Socket & { closedByPeer?: boolean }> {
  return new Promise((resolve, reject) => {
    const socket: net.Socket & { closedByPeer?: boolean } = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.on('close', () => (socket.closedByPeer = true));
    socket.on('data', () => {});
    socket.once('error', reject);
  });
}

describe('senders’ sessions on the built command', BOUND, () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--dialect', 'apple', '--limit', 'sessionTimeoutMs=3000'] });
  });

  after(async () => {
    await receiver?.stop();
  });

  const log = (from: number) => receiver.stderr.slice(from);
  const logged = (from: number, pattern: RegExp, what: string) => until(() => `${what}; log: ${log(from)}`, () => pattern.test(log(from)));

  test('vendorplay-send play opens a session as current senders do: SETUP, event channel, RECORD, feedback, the receiver asks its clock, TEARDOWN', async () => {
    const from = receiver.stderr.length;
    const run = await runSender(['play', `127.0.0.1:${receiver.port}`, MOVIE, '--stop-after', '5', '--dialect', 'apple'], 30_000);
    assert.equal(run.code, 0, run.stderr);
    const opened = /^session open on 127\.0\.0\.1:\d+: events on port (\d+), timing NTP \(served on UDP port \d+\)$/m.exec(run.stdout);
    assert.ok(opened, run.stdout);
    const text = log(from);
    assert.match(text, /session 1 \(vendorplay-send, vendorplay-send\) opened: device AA:BB:CC:DD:EE:FF, session [0-9A-F-]{36}, timing NTP/);
    assert.match(text, new RegExp(`event channel of session 1 \\(vendorplay-send, vendorplay-send\\) open\\n`));
    assert.match(text, /RTSP RECORD \S+ -> 200/);
    assert.match(text, /RTSP POST \/feedback -> 200/);
    assert.match(text, /timing offset -?[\d.]+ ms, delay [\d.]+ ms; sender clock - wall clock -?[\d.]+ ms/);
    await logged(from, /session 1 \(vendorplay-send, vendorplay-send\) ended: TEARDOWN; clock: \d+ samples, sender clock - wall clock -?[\d.]+ ms/, 'the session ended by TEARDOWN');
    assert.match(log(from), /video \d+ stopped/);
  });

  test('a sender clock 12,345.678 ms ahead of Unix time: the receiver estimates it over RAOP timing within 1 ms (half the least round trip on a busy machine) and its wall clock\'s resolution', async () => {
    const OFFSET = 12_345.678;
    const server = await timingServer(OFFSET);
    const sender = await SocketSender.connect(receiver.port);
    const from = receiver.stderr.length;
    try {
      const answer = await sender.request('SETUP', 'rtsp://127.0.0.1/1', { protocol: 'RTSP', body: sessionBody({ timingProtocol: 'NTP', timingPort: server.port }), contentType: PLIST });
      assert.equal(answer.head.status, 200);
      const ports = plistOf(answer.body);
      assert.equal(typeof ports.eventPort, 'number');
      assert.equal(typeof ports.timingPort, 'number', 'NTP: the receiver names its timing port');
      // Four exchanges (one at once, then every 3 s); feedback meanwhile keeps the session.
      while (server.answered() < 4) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal((await sender.request('POST', '/feedback', { protocol: 'RTSP' })).head.status, 200);
      }
      await logged(from, /(timing offset[^\n]*\n[^]*){4}/, 'four samples');
      assert.equal((await sender.request('TEARDOWN', 'rtsp://127.0.0.1/1', { protocol: 'RTSP' })).head.status, 200);
      // The answer on the socket may be read before the log line on the receiver's stderr pipe.
      const endedLine = /ended: TEARDOWN; clock: (\d+) samples, sender clock - wall clock (-?[\d.]+) ms/;
      await logged(from, endedLine, 'the session ended by TEARDOWN');
      const ended = endedLine.exec(log(from));
      assert.ok(ended, log(from));
      // RFC 5905 8: a sample's offset is off by at most half its round trip; on a quiet machine
      // loopback round trips are well under 2 ms, on a busy one the least round trip seen bounds
      // it. The log says the estimate against the receiver's wall clock, Date.now(), which counts
      // whole milliseconds: up to 1 ms more, seen from outside (1.14 ms at a 0.98 ms round trip).
      const delays = [...log(from).matchAll(/timing offset -?[\d.]+ ms, delay ([\d.]+) ms/g)].map((match) => Number(match[1]));
      const WALL_CLOCK_RESOLUTION_MS = 1;
      const bound = Math.max(1, Math.min(...delays) / 2) + WALL_CLOCK_RESOLUTION_MS;
      assert.ok(Math.abs(Number(ended[2]) - OFFSET) <= bound, `estimate ${ended[2]} ms, true ${OFFSET} ms, least round trip ${Math.min(...delays)} ms`);
    } finally {
      sender.close();
      server.close();
    }
  });

  test('timingProtocol None: only the event port; PTP: 501 with the reason; a stream: 501 naming its type; bad bodies: 400, and the receiver serves on', async () => {
    const sender = await SocketSender.connect(receiver.port);
    try {
      const none = await sender.request('SETUP', 'rtsp://127.0.0.1/1', { protocol: 'RTSP', body: sessionBody(), contentType: PLIST });
      assert.equal(none.head.status, 200);
      assert.deepEqual(Object.keys(plistOf(none.body)), ['eventPort']);
      // Buffered audio (type 103) is not served, with or without an audio output (realtime audio, type 96: test/e2e/audio.test.ts).
      const stream = await sender.request('SETUP', 'rtsp://127.0.0.1/1', { protocol: 'RTSP', body: encodeBinaryPlist({ streams: [{ type: 103, ct: 2, spf: 352, sr: 44_100 }] }), contentType: PLIST });
      assert.equal(stream.head.status, 501);
      assert.equal(stream.head.reason, 'Audio And Data Streams Not Served');
      assert.match(utf8Decode(stream.body), /type 103 \(buffered audio\) not served/);
      const teardownStream = await sender.request('TEARDOWN', 'rtsp://127.0.0.1/1', { protocol: 'RTSP', body: encodeBinaryPlist({ streams: [{ type: 103 }] }), contentType: PLIST });
      assert.equal(teardownStream.head.status, 200);
      assert.equal((await sender.request('RECORD', 'rtsp://127.0.0.1/1', { protocol: 'RTSP' })).head.status, 200, 'the session is still there');
    } finally {
      sender.close();
    }
    const other = await SocketSender.connect(receiver.port);
    try {
      const ptp = await other.request('SETUP', 'rtsp://127.0.0.1/2', { protocol: 'RTSP', body: sessionBody({ timingProtocol: 'PTP' }), contentType: PLIST });
      assert.equal(ptp.head.status, 501);
      assert.match(utf8Decode(ptp.body), /timingProtocol PTP is not served/);
      const garbage = await other.request('SETUP', 'rtsp://127.0.0.1/2', { protocol: 'RTSP', body: utf8Encode('<plist>nope'), contentType: PLIST });
      assert.equal(garbage.head.status, 400);
      const wrongType = await other.request('SETUP', 'rtsp://127.0.0.1/2', { protocol: 'RTSP', body: sessionBody({ timingPort: 'seven' }), contentType: PLIST });
      assert.equal(wrongType.head.status, 400);
      assert.match(utf8Decode(wrongType.body), /timingPort is a string, not an integer/);
      assert.equal((await other.request('GET', '/info', { protocol: 'RTSP' })).head.status, 200, 'the connection serves on');
    } finally {
      other.close();
    }
  });

  test("a paired session: its event channel is encrypted with the Events keys, the sender writing with Events-Read (derived here, as pyatv does); a stranger's connection and a second one are closed", async () => {
    const sender = await SocketSender.connect(receiver.port);
    const from = receiver.stderr.length;
    try {
      // Transient pair-setup with the spec's public PIN: the connection is encrypted with K.
      const m2 = await sender.request('POST', '/pair-setup', { body: pairSetupM1({ transient: true }), contentType: 'application/pairing+tlv8' });
      const step = srpClientStep(m2.body, '3939', nodeRandom);
      await sender.request('POST', '/pair-setup', { body: step.m3, contentType: 'application/pairing+tlv8' });
      sender.encrypt(createSenderChannel(step.sessionKey, portableCryptoKernels));
      const answer = await sender.request('SETUP', 'rtsp://127.0.0.1/3', { protocol: 'RTSP', body: sessionBody(), contentType: PLIST });
      assert.equal(answer.head.status, 200);
      const eventPort = Number(plistOf(answer.body).eventPort);
      // From another address than the session's sender: closed at once.
      const stranger = await connectEvents(eventPort, '127.0.0.2');
      await until(() => 'the stranger closed', () => stranger.closedByPeer === true);
      assert.match(log(from), /127\.0\.0\.2:\d+ event channel refused: no session from that address is waiting for one \(SETUP first\)/);
      const events = await connectEvents(eventPort);
      await logged(from, /event channel of session \d+ \(e2e, iPhone14,3\) open \(encrypted\)/, 'the channel taken');
      const key = (info: string) => new Uint8Array(hkdfSync('sha512', step.sessionKey, 'Events-Salt', info, 32));
      const channel = new ControlChannel(key('Events-Write-Encryption-Key'), key('Events-Read-Encryption-Key'));
      // A frame sealed with the key the sender writes with: the receiver opens it.
      events.write(channel.seal(utf8Encode('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n')));
      await logged(from, /event channel: the sender wrote 28 bytes; nothing was asked of it, so they are dropped/, 'the frame opened and counted');
      const late = await connectEvents(eventPort);
      await until(() => 'a second channel for the same session closed', () => late.closedByPeer === true);
      assert.match(log(from), /event channel refused: every session from that address has its event channel already/);
      // Garbage on the channel: closed, the session goes on.
      events.write(new Uint8Array([5, 0, 1, 2, 3, 4, 5, ...new Uint8Array(16)]));
      await until(() => 'the channel closed on bad frames', () => events.closedByPeer === true);
      assert.match(log(from), /event channel closed: its encryption failed/);
      assert.equal((await sender.request('RECORD', 'rtsp://127.0.0.1/3', { protocol: 'RTSP' })).head.status, 200);
    } finally {
      sender.close();
    }
  });

  test('a session whose sender goes quiet ends after sessionTimeoutMs, with the video it carried; a second sender keeps its own', async () => {
    const from = receiver.stderr.length;
    const quiet = await SocketSender.connect(receiver.port);
    const talker = await SocketSender.connect(receiver.port);
    try {
      assert.equal((await quiet.request('SETUP', 'rtsp://127.0.0.1/4', { protocol: 'RTSP', body: sessionBody({ name: 'quiet' }), contentType: PLIST })).head.status, 200);
      assert.equal((await talker.request('SETUP', 'rtsp://127.0.0.1/5', { protocol: 'RTSP', body: sessionBody({ name: 'talker' }), contentType: PLIST })).head.status, 200);
      const play = await quiet.request('POST', '/play', { body: encodeBinaryPlist({ 'Content-Location': MOVIE, 'Start-Position-Seconds': 0 }), contentType: PLIST });
      assert.equal(play.head.status, 200);
      // The talker sends feedback every 500 ms; the quiet one nothing (sessionTimeoutMs is 3 s here).
      const feedback = setInterval(() => void talker.request('POST', '/feedback', { protocol: 'RTSP' }).catch(() => {}), 500);
      try {
        await logged(from, /\(quiet, iPhone14,3\) ended: no request from the sender for 3 s \(limits.sessionTimeoutMs\)/, 'the quiet session ended');
      } finally {
        clearInterval(feedback);
      }
      assert.match(log(from), /video \d+ stopped: the connection that carried its POST \/play \(127\.0\.0\.1:\d+\) ended its session \(no request from the sender for 3 s/);
      assert.doesNotMatch(log(from), /\(talker, iPhone14,3\) ended/);
      assert.equal((await talker.request('TEARDOWN', 'rtsp://127.0.0.1/5', { protocol: 'RTSP' })).head.status, 200);
      await logged(from, /\(talker, iPhone14,3\) ended: TEARDOWN/, 'the talker ended by TEARDOWN');
    } finally {
      quiet.close();
      talker.close();
    }
  });
});
