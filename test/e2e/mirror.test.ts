// Screen mirroring end to end (spec 4.4, 4.5, 2.14): the real receiver command with --record, the
// real sender tool (`vendorplay-send mirror`), real sockets on loopback, real ffmpeg.
//
// - Bit-exact: ffmpeg makes a clip with known content; the sender tool streams it; ffmpeg's
//   per-frame checksums (-f framemd5) of the recorded stream equal those of the source.
// - NTP: a test sender with its own real UDP socket on port 7010 sees requests at 3 s steps,
//   each in the exact version 4 client format, and the receiver recovers its clock offset.
// - One session at a time: a second sender is refused with a reason while the first streams.
// - A stalled sender (no heartbeat) ends its session; hostile ones (an oversized payload size,
//   garbage avcC, a truncated header) end only their own; a plist missing keys is refused.
//
// Each sender has its own loopback address (127.0.0.7x), so each has its own port 7010.
//
// On a loaded machine: every wait is on a condition (a log line, a closed socket, a count of
// datagrams) with a generous bound, never a sleep; timing is asserted only where load cannot
// break it (never earlier than a limit, a schedule read in whole steps, the NTP offset within
// half the round trip the receiver measured).

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
import { NAL_TYPE, lengthPrefixed, nalType, splitNalUnits } from '../../src/mirror/annexb-stream';
import { msToNtp, ntpServerReply } from '../../src/timing';
import { PACKET_TYPE, writePacket, writePacketHeader } from '../../src/mirror/packet';
import { encodeBinaryPlist } from '../../src/plist';
import { readH264Clip } from '../../sender/h264-file';
import { PROMPT_MS, ReceiverProcess, runSender, until, within } from './receiver-process';
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
/** The clip's 60 pictures as video packets (spec 2.14), timestamped at 30 fps from 0. */
let videoPackets: Uint8Array[];

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
  // The pictures as the sender tool cuts them (parameter sets travel in the codec data).
  videoPackets = (await readH264Clip(clip, 30)).accessUnits.map((accessUnit, index) => {
    const { seconds, fraction } = msToNtp((index * 1000) / 30);
    return writePacket(PACKET_TYPE.video, lengthPrefixed(accessUnit, 4), seconds, fraction);
  });
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
    const sender = await runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.71'], 60_000);
    assert.equal(sender.code, 0, sender.stderr);
    assert.match(sender.stdout, /60 frames at 30\.000 fps/);
    assert.match(sender.stdout, /sent 60 frames; [1-9]\d* NTP requests answered/);
    await receiver.waitForLog(/mirroring session -?\d+ ended: the sender closed the mirroring connection \(60 video packets, 1 codec configurations\)/, PROMPT_MS);
    assert.match(receiver.stderr, /activity: receivingScreenMirroring/);
    assert.match(receiver.stderr, /mirroring codec avc1\.4d40..?, NAL length size 4/);
    assert.ok(statSync(record).size > 0);
    assert.deepEqual(await frameMd5s(record, 'h264'), sourceMd5s);
  });
});

describe('mirroring sessions on one receiver', () => {
  let receiver: ReceiverProcess;

  before(async () => {
    // The default heartbeat limit (5 s without a packet): the senders played by hand below send a
    // heartbeat every second, as real senders do, so a test process starved of the CPU for a
    // moment does not end their sessions. The stall test has its own receiver.
    receiver = await ReceiverProcess.start({ args: ['--record', path.join(work, 'sessions.h264'), '--mirror-port', '0', '--ntp-port', '0', '--no-screen'] });
  });
  after(() => receiver.stop());

  test('NTP: requests at 3 s steps to port 7010, version 4 client mode, only the transmit timestamp set; the recovered offset is the sender\'s within half the round trip', async () => {
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
    const offsetLines = () => [...receiver.stderr.matchAll(/127\.0\.0\.72:\d+ NTP offset -?\d+\.\d+ ms, delay (-?\d+\.\d+) ms; .* \(sender clock - wall clock (-?\d+\.\d+) ms\)/g)];
    const socket = await connectFrom('127.0.0.72', receiver.mirrorPort!);
    const ended = closed(socket);
    socket.write(concat(postSession(), codecData));
    const heartbeats = setInterval(() => socket.write(writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0))), 1000);
    try {
      await until(() => `${arrivals.length} NTP requests so far`, () => arrivals.length >= 4, 30_000);
      // Four answers taken in (one line each), before the session ends.
      await until(() => `the receiver took ${offsetLines().length} NTP answers:\n${receiver.stderr}`, () => offsetLines().length >= 4, PROMPT_MS);
    } finally {
      clearInterval(heartbeats);
      socket.end();
      ntp.close();
    }
    for (const { bytes, port } of arrivals) {
      assert.equal(bytes.length, 48);
      assert.equal(bytes[0], 0x23, 'LI 0, version 4, mode 3 (client)');
      assert.ok(bytes.subarray(1, 40).every((byte) => byte === 0), 'every field but the transmit timestamp is zero');
      assert.ok(bytes.subarray(40).some((byte) => byte !== 0), 'the transmit timestamp is set');
      assert.equal(port, receiver.ntpPort, 'from the NTP client port');
    }
    // spec 4.5: one request every 3 s, the first at once. Request i is due 3 i s after the first
    // (the client keeps its schedule, mirror-ntp.test.ts proves it on a manual clock); a busy
    // machine only makes one late, so each is read as a whole number of steps: 3 s steps, not
    // 1 s or 6 s ones, however late a timer fired.
    const steps = arrivals.map(({ at }) => (at - arrivals[0].at) / 3000);
    assert.deepEqual(steps.map(Math.round), steps.map((_, index) => index), `requests at ${steps.map((step) => (step * 3).toFixed(2)).join(', ')} s`);
    await within(PROMPT_MS, 'the receiver closing the ended session', ended);
    // The receiver says the recovered offset against its wall clock (the same system clock as
    // ours). RFC 5905 8: an offset is off by at most half the round trip of its exchange, and the
    // receiver uses its exchange with the least round trip; 5 ms more for the two processes'
    // clocks (milliseconds, read at different moments).
    const said = offsetLines().map((match) => ({ delay: Number(match[1]), offset: Number(match[2]) }));
    const least = Math.min(...said.map((sample) => sample.delay));
    const last = said[said.length - 1].offset;
    assert.ok(Math.abs(last - OFFSET_MS) <= 5 + least / 2, `recovered ${last} ms (least round trip ${least} ms), the sender is ${OFFSET_MS} ms ahead`);
  });

  test('a second sender is refused while one streams; the first goes on', async () => {
    // The first sender is played by hand, so its session lasts for as long as the second needs to
    // start (the sender command runs ffmpeg and ffprobe before it connects: seconds on a busy
    // machine, longer than a clip of 2 s).
    const first = await connectFrom('127.0.0.73', receiver.mirrorPort!);
    const firstEnded = closed(first);
    const heartbeats = setInterval(() => first.write(writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0))), 1000);
    try {
      first.write(concat(postSession(), codecData, ...videoPackets.slice(0, 30)));
      await receiver.waitForLog(/127\.0\.0\.73:\d+ mirroring session 1234 started/, PROMPT_MS);
      const second = await runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.74'], 60_000);
      assert.equal(second.code, 1, second.stdout);
      assert.match(second.stderr, /POST \/stream: the receiver answered 503 Service Unavailable: this receiver is mirroring 127\.0\.0\.73:\d+ \(session 1234\); one mirroring session at a time/);
      // The first goes on: the rest of its pictures count in the same session.
      first.end(concat(...videoPackets.slice(30)));
    } finally {
      clearInterval(heartbeats);
      first.end();
    }
    assert.equal(await within(PROMPT_MS, 'the end of the first session', firstEnded), '', 'no HTTP answer to the first POST /stream');
    await receiver.waitForLog(/127\.0\.0\.73:\d+ mirroring session 1234 ended: the sender closed the mirroring connection \(60 video packets, 1 codec configurations\)/, PROMPT_MS);
  });

  test('a plist missing required keys is refused (400, reason, closed); garbage avcC and a truncated header end their sessions with one line each', async () => {
    const incomplete = encodeBinaryPlist({ deviceID: 1, sessionID: 5, version: '130.16', fpsInfo: [], timestampInfo: [] });
    const refused = await connectFrom('127.0.0.78', receiver.mirrorPort!);
    const answer = closed(refused);
    refused.write(concat(latin1Encode(`POST /stream HTTP/1.1\r\nContent-Length: ${incomplete.length}\r\n\r\n`), incomplete, codecData));
    assert.match(await within(PROMPT_MS, 'the refusal', answer), /^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\nPOST \/stream: required key latencyMs missing\n$/);

    const garbage = await connectFrom('127.0.0.78', receiver.mirrorPort!);
    const garbageEnded = closed(garbage);
    garbage.write(concat(postSession(), writePacket(PACKET_TYPE.codecData, latin1Encode('not an avcC record'))));
    assert.equal(await within(PROMPT_MS, 'the end of the garbage session', garbageEnded), '');
    await receiver.waitForLog(/127\.0\.0\.78:\d+ mirroring session 1234 ended: codec data is not a valid avcC record: avcC version is 110/, PROMPT_MS);

    const truncated = await connectFrom('127.0.0.78', receiver.mirrorPort!);
    const truncatedEnded = closed(truncated);
    // The end follows the 90 bytes on the same stream: TCP delivers them first, however it splits them.
    truncated.end(concat(postSession(), codecData, writePacket(PACKET_TYPE.heartbeat, new Uint8Array(0)).subarray(0, 90)));
    await within(PROMPT_MS, 'the end of the truncated session', truncatedEnded);
    await receiver.waitForLog(/127\.0\.0\.78:\d+ mirroring session 1234 ended: the stream ended inside a packet header \(90 of 128 bytes\)/, PROMPT_MS);
  });

  test('an oversized payload size ends only that session; the next sender mirrors', async () => {
    const socket = await connectFrom('127.0.0.76', receiver.mirrorPort!);
    const ended = closed(socket);
    socket.write(concat(postSession(), codecData, writePacketHeader({ payloadSize: 0x7fffffff, payloadType: 0, option: 6, ntpSeconds: 0, ntpFraction: 0 })));
    await within(PROMPT_MS, 'the receiver closing a hostile stream', ended);
    await receiver.waitForLog(/127\.0\.0\.76:\d+ mirroring session 1234 ended: packet 2 \(type 0\) announces a 2147483647-byte payload/, PROMPT_MS);
    const next = await runSender(['mirror', `127.0.0.1:${receiver.mirrorPort}`, clip, '--bind', '127.0.0.77'], 60_000);
    assert.equal(next.code, 0, next.stderr);
  });
});

describe('a stalled mirroring sender', () => {
  let receiver: ReceiverProcess;

  before(async () => {
    receiver = await ReceiverProcess.start({ args: ['--record', path.join(work, 'stalled.h264'), '--mirror-port', '0', '--ntp-port', '0', '--no-screen', '--limit', 'mirrorMissedHeartbeats=2'] });
  });
  after(() => receiver.stop());

  test('a stalled sender (no heartbeat) ends its session after mirrorMissedHeartbeats seconds; the receiver closes the connection', async () => {
    const socket = await connectFrom('127.0.0.75', receiver.mirrorPort!);
    const ended = closed(socket);
    const started = performance.now();
    socket.write(concat(postSession(), codecData));
    const received = await within(PROMPT_MS, 'the receiver closing a stalled stream', ended);
    const after = performance.now() - started;
    assert.equal(received, '', 'no HTTP answer to POST /stream');
    // Never before the limit (load only makes the close later; a timer fires at most 1 ms early).
    assert.ok(after >= 1990, `closed after ${after.toFixed(0)} ms, before 2 missed heartbeats`);
    await receiver.waitForLog(/127\.0\.0\.75:\d+ mirroring session 1234 ended: no packet from the sender for 2 s \(limits\.mirrorMissedHeartbeats 2\): the sender stalled/, PROMPT_MS);
  });
});
