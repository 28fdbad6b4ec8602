// Screen mirroring end to end (spec 4.4, 4.5, 2.14): the real receiver command with --record, the
// real sender tool (`vendorplay-send mirror`), real sockets on loopback, real ffmpeg.
//
// - Bit-exact: ffmpeg makes a clip with known content; the sender tool streams it; ffmpeg's
//   per-frame checksums (-f framemd5) of the recorded stream equal those of the source.
// - NTP: a test sender with its own real UDP socket on port 7010 sees a request every 3 s
//   (+-0.2 s), each in the exact version 4 client format.
// - One session at a time: a second sender is refused with a reason while the first streams.
// - A stalled sender (no heartbeat) ends its session; hostile ones (an oversized payload size,
//   garbage avcC, a truncated header) end only their own; a plist missing keys is refused.
//
// Each sender has its own loopback address (127.0.0.7x), so each has its own port 7010.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { concat, latin1Encode } from '../../src/bytes';
import { buildAvcC } from '../../src/mirror/avcc';
import { NAL_TYPE, nalType, splitNalUnits } from '../../src/mirror/annexb-stream';
import { ntpServerReply } from '../../src/mirror/ntp';
import { PACKET_TYPE, writePacket, writePacketHeader } from '../../src/mirror/packet';
import { encodeBinaryPlist } from '../../src/plist';
import { ReceiverProcess, delay, runSender, within, type CommandRun } from './receiver-process';
import { STREAM_REQUEST, postStream } from '../support/mirror-stream';

const run = promisify(execFile);


/** Per-frame MD5s of a video as ffmpeg decodes it (the checksum column of -f framemd5). */
async function frameMd5s(file: string, format?: string): Promise<string[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', ...(format ? ['-f', format] : []), '-i', file, '-f', 'framemd5', '-'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split(',').pop()!.trim());
}

/** A mirroring connection from `localAddress`, for the tests that play a sender by hand. */
function connectFrom(localAddress: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

function closed(socket: net.Socket): Promise<string> {
  let received = '';
  socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

/** POST /stream of session 1234 (the log lines below name it). */
const postSession = (): Uint8Array => postStream({ ...STREAM_REQUEST, sessionID: 1234 });

let work: string;
let clip: string;
let sourceMd5s: string[];
let codecData: Uint8Array;

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'vendorplay-mirror-'));
  clip = path.join(work, 'bars.mp4');
  // Known content: ffmpeg's test pattern (with its moving gradient and counter), 320x240, 2 s at
  // 30 fps, main profile, a key frame every second.
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=30', '-t', '2', '-c:v', 'libx264', '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-g', '30', clip]);
  sourceMd5s = await frameMd5s(clip);
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', clip, '-c:v', 'copy', '-bsf:v', 'h264_mp4toannexb', '-f', 'h264', '-'], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  const units = splitNalUnits(new Uint8Array(stdout));
  // The stream repeats its SPS and PPS before each key frame; the codec data carries them once.
  codecData = writePacket(PACKET_TYPE.codecData, buildAvcC([units.find((unit) => nalType(unit) === NAL_TYPE.sps)!], [units.find((unit) => nalType(unit) === NAL_TYPE.pps)!]));
});

after(() => rmSync(work, { recursive: true, force: true }));

describe('screen mirroring with the sender tool and --record', () => {
  let receiver: ReceiverProcess;
  let record: string;

  before(async () => {
    record = path.join(work, 'record.h264');
    receiver = await ReceiverProcess.start({ args: ['--record', record, '--mirror-port', '0', '--ntp-port', '0', '--no-screen'] });
  });
  after(() => receiver.stop());

  test('feature bit 7 is advertised and the mirroring listener is up', () => {
    assert.ok(receiver.mirrorPort, receiver.stdout);
    const [low] = receiver.txt('_vendorplay._tcp', 'features').split(',');
    assert.ok(Number.parseInt(low, 16) & (1 << 7), `features ${low}`);
  });

  test('ffmpeg decodes the recorded stream to the same frames as the source (framemd5), and the sender answered NTP', async () => {
    assert.equal(sourceMd5s.length, 60);
    const sender = await runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.71'], 30_000);
    assert.equal(sender.code, 0, sender.stderr);
    assert.match(sender.stdout, /60 frames at 30\.000 fps/);
    assert.match(sender.stdout, /sent 60 frames; [1-9]\d* NTP requests answered/);
    await receiver.waitForLog(/mirroring session -?\d+ ended: the sender closed the mirroring connection \(60 video packets, 1 codec configurations\)/, 5000);
    assert.match(receiver.stderr, /activity: receivingScreenMirroring/);
    assert.match(receiver.stderr, /mirroring codec avc1\.4d40..?, NAL length size 4/);
    assert.ok(statSync(record).size > 0);
    assert.deepEqual(await frameMd5s(record, 'h264'), sourceMd5s);
  });
});

describe('mirroring sessions on one receiver', () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({
      args: ['--record', path.join(work, 'sessions.h264'), '--mirror-port', '0', '--ntp-port', '0', '--no-screen', '--limit', 'mirrorMissedHeartbeats=2'],
    });
  });
  after(() => receiver.stop());

  test('NTP: a request every 3 s (+-0.2 s) to port 7010, version 4 client mode, only the transmit timestamp set; the offset converges within 5 ms', async () => {
    const ntp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => ntp.bind(7010, '127.0.0.72', resolve));
    const arrivals: { at: number; bytes: Buffer; port: number }[] = [];
    // The sender's clock: Unix time (ms) plus a known offset, served as NTP seconds and fractions.
    const OFFSET_MS = 250_000.5;
    const senderClock = () => performance.timeOrigin + performance.now() + OFFSET_MS;
    ntp.on('message', (message, remote) => {
      const received = senderClock();
      arrivals.push({ at: performance.now(), bytes: message, port: remote.port });
      ntp.send(ntpServerReply(new Uint8Array(message), received, senderClock()), remote.port, remote.address);
    });
    const socket = await connectFrom('127.0.0.72', receiver.mirrorPort!);
    const ended = closed(socket);
    socket.write(concat(postSession(), codecData));
    const heartbeats = setInterval(() => socket.write(writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0))), 1000);
    try {
      const deadline = Date.now() + 12_000;
      while (arrivals.length < 4 && Date.now() < deadline) await delay(50);
      await delay(100);
    } finally {
      clearInterval(heartbeats);
      socket.end();
      ntp.close();
    }
    assert.ok(arrivals.length >= 4, `${arrivals.length} NTP requests in 12 s`);
    for (const { bytes, port } of arrivals) {
      assert.equal(bytes.length, 48);
      assert.equal(bytes[0], 0x23, 'LI 0, version 4, mode 3 (client)');
      assert.ok(bytes.subarray(1, 40).every((byte) => byte === 0), 'every field but the transmit timestamp is zero');
      assert.ok(bytes.subarray(40).some((byte) => byte !== 0), 'the transmit timestamp is set');
      assert.equal(port, receiver.ntpPort, 'from the NTP client port');
    }
    for (let i = 1; i < arrivals.length; i++) {
      const interval = arrivals[i].at - arrivals[i - 1].at;
      assert.ok(Math.abs(interval - 3000) <= 200, `request ${i + 1} came ${interval.toFixed(1)} ms after the one before`);
    }
    await ended;
    // The receiver says the recovered offset against its wall clock (the same system clock as
    // ours): after the answers so far it is the known offset, within 5 ms.
    const said = [...receiver.stderr.matchAll(/127\.0\.0\.72:\d+ NTP offset .* \(sender clock - wall clock (-?\d+\.\d+) ms\)/g)].map((match) => Number(match[1]));
    assert.ok(said.length >= 4, receiver.stderr);
    const last = said[said.length - 1];
    assert.ok(Math.abs(last - OFFSET_MS) < 5, `recovered ${last} ms, the sender is ${OFFSET_MS} ms ahead`);
  });

  test('a second sender is refused while one streams; the first goes on', async () => {
    const first = runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.73', '--hold', '1'], 30_000);
    let second: CommandRun;
    try {
      await receiver.waitForLog(/127\.0\.0\.73:\d+ mirroring session -?\d+ started/, 10_000);
      second = await runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.74'], 20_000);
    } finally {
      // The first sender's session must be over before the next test.
      await first.catch(() => undefined);
    }
    assert.equal(second.code, 1);
    assert.match(second.stderr, /POST \/stream: the receiver answered 503 Service Unavailable: this receiver is mirroring 127\.0\.0\.73:\d+ .*one mirroring session at a time/);
    const done = await first;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /sent 60 frames/);
  });

  test('a stalled sender (no heartbeat) ends its session; the receiver closes the connection', async () => {
    const socket = await connectFrom('127.0.0.75', receiver.mirrorPort!);
    const ended = closed(socket);
    const started = performance.now();
    socket.write(concat(postSession(), codecData));
    const received = await within(8000, 'the receiver closing a stalled stream', ended);
    const after = performance.now() - started;
    assert.equal(received, '', 'no HTTP answer to POST /stream');
    assert.ok(after >= 1900 && after < 4000, `closed after ${after.toFixed(0)} ms (2 missed heartbeats)`);
    await receiver.waitForLog(/127\.0\.0\.75:\d+ mirroring session 1234 ended: no packet from the sender for 2 s \(limits\.mirrorMissedHeartbeats 2\): the sender stalled/, 1000);
  });

  test('a plist missing required keys is refused (400, reason, closed); garbage avcC and a truncated header end their sessions with one line each', async () => {
    const incomplete = encodeBinaryPlist({ deviceID: 1, sessionID: 5, version: '130.16', fpsInfo: [], timestampInfo: [] });
    const refused = await connectFrom('127.0.0.78', receiver.mirrorPort!);
    const answer = closed(refused);
    refused.write(concat(latin1Encode(`POST /stream HTTP/1.1\r\nContent-Length: ${incomplete.length}\r\n\r\n`), incomplete, codecData));
    assert.match(await within(5000, 'the refusal', answer), /^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\nPOST \/stream: required key latencyMs missing\n$/);

    const garbage = await connectFrom('127.0.0.78', receiver.mirrorPort!);
    const garbageEnded = closed(garbage);
    garbage.write(concat(postSession(), writePacket(PACKET_TYPE.codecData, latin1Encode('not an avcC record'))));
    assert.equal(await within(5000, 'the end of the garbage session', garbageEnded), '');
    await receiver.waitForLog(/127\.0\.0\.78:\d+ mirroring session 1234 ended: codec data is not a valid avcC record: avcC version is 110/, 1000);

    const truncated = await connectFrom('127.0.0.78', receiver.mirrorPort!);
    const truncatedEnded = closed(truncated);
    truncated.write(concat(postSession(), codecData, writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0)).subarray(0, 90)));
    await delay(200);
    truncated.end();
    await within(5000, 'the end of the truncated session', truncatedEnded);
    await receiver.waitForLog(/127\.0\.0\.78:\d+ mirroring session 1234 ended: the stream ended inside a packet header \(90 of 128 bytes\)/, 1000);
  });

  test('an oversized payload size ends only that session; the next sender mirrors', async () => {
    const socket = await connectFrom('127.0.0.76', receiver.mirrorPort!);
    const ended = closed(socket);
    socket.write(concat(postSession(), codecData, writePacketHeader({ payloadSize: 0x7fffffff, payloadType: 0, option: 6, ntpSeconds: 0, ntpFraction: 0 })));
    await within(5000, 'the receiver closing a hostile stream', ended);
    await receiver.waitForLog(/127\.0\.0\.76:\d+ mirroring session 1234 ended: packet 2 \(type 0\) announces a 2147483647-byte payload/, 1000);
    const next = await runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.77'], 30_000);
    assert.equal(next.code, 0, next.stderr);
  });
});
