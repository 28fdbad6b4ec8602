// Realtime audio on the receiver (src/receiver/audio/: the session audio, the playback, what
// plays), through its connections and UDP sockets (in-memory ports, a manual clock): the classic
// way (ANNOUNCE, Transport SETUP, RECORD, RTP) and a session's type 96 stream (sealed packets),
// each heard in the sink sample for sample; a lost packet asked again and recovered; volume, FLUSH,
// TEARDOWN; what plays on the screen; refusals that name the cause; the TXT record and feature
// bits only where a sink is given.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeAuHeaders } from '../../src/audio/aac-au-headers';
import { createPcmDecoder, type AacDecoderFactory } from '../../src/audio/decoder';
import { PacketCipher } from '../../src/audio/packet-cipher';
import { readRetransmitRequest, writeAudioPacket, writeResentPacket } from '../../src/audio/rtp-packets';
import { utf8Encode } from '../../src/bytes';
import { featureMask } from '../../src/discovery';
import { portableFrameKernel } from '../../src/pairing/frame-kernel';
import { decodeBinaryPlist, encodeBinaryPlist, isPlistDict, type PlistDict } from '../../src/plist';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { TimerDriver } from '../../src/receiver/timers';
import { MemoryAudioSink } from '../support/memory-audio-sink';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { MemoryUdpSocket } from '../support/mirror-ports';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const SENDER = '192.0.2.20';
const FRAMES = 352;
const CHANNELS = 2;
const SSRC = 0x1234abcd;
/** The sender's control port (retransmit requests go there). */
const SENDER_CONTROL = 51_001;

function speaker(options: { withSink?: boolean; display?: RecordingDisplay; aacDecoder?: AacDecoderFactory } = {}) {
  const clock = new ManualClock();
  const log = recordingLogger();
  const sink = new MemoryAudioSink();
  const data = new MemoryUdpSocket(6000);
  const control = new MemoryUdpSocket(6001);
  const timingSocket = new MemoryUdpSocket(7012);
  const withSink = options.withSink ?? true;
  const receiver = new Receiver(makeConfig({ name: 'Kitchen', profile: 'speaker', deviceId: '58:55:CA:1A:E2:88' }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(9),
    store: new MemoryStore(),
    log,
    timingSocket,
    display: options.display,
    aacDecoder: options.aacDecoder,
    ...(withSink ? { audioSink: sink, audioSockets: { data, control } } : {}),
  });
  new TimerDriver(receiver, clock);
  const sender = new MemorySender(receiver, 50_000, SENDER);
  const lines = (about: string) => log.lines.filter((line) => line.message.includes(about)).map((line) => `${line.level} ${line.message}`);
  return { clock, log, sink, data, control, receiver, sender, lines };
}

/** `packets` packets of stereo frames, a pattern no two frames share. */
function sourcePcm(packets: number): Int16Array {
  const pcm = new Int16Array(packets * FRAMES * CHANNELS);
  for (let i = 0; i < pcm.length; i++) pcm[i] = ((i * 7919) % 65536) - 32768;
  return pcm;
}

/** One packet's frames as L16 (big-endian). */
function l16(pcm: Int16Array, packet: number): Uint8Array {
  const samples = pcm.subarray(packet * FRAMES * CHANNELS, (packet + 1) * FRAMES * CHANNELS);
  const bytes = new Uint8Array(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    bytes[2 * i] = samples[i] >> 8;
    bytes[2 * i + 1] = samples[i] & 0xff;
  }
  return bytes;
}

const SDP = ['v=0', 'o=iTunes 3413821438 0 IN IP4 192.0.2.20', 's=iTunes', 'c=IN IP4 192.0.2.1', 't=0 0', 'm=audio 0 RTP/AVP 96', 'a=rtpmap:96 L16/44100/2', 'a=fmtp:96 352 0 16 40 10 14 2 255 0 0 44100', ''].join('\r\n');

function announce(sender: MemorySender, sdp = SDP) {
  return sender.request('ANNOUNCE', 'rtsp://192.0.2.20/3413821438', { protocol: 'RTSP', contentType: 'application/sdp', body: utf8Encode(sdp) });
}

function classicSetup(sender: MemorySender) {
  return sender.request('SETUP', 'rtsp://192.0.2.20/3413821438', { protocol: 'RTSP', headers: [['Transport', `RTP/AVP/UDP;unicast;interleaved=0-1;mode=record;control_port=${SENDER_CONTROL};timing_port=51002`]] });
}

/** Sends packets `from` to `to` (exclusive), one every packet's duration, `skip` left out. */
function stream(setup: ReturnType<typeof speaker>, pcm: Int16Array, from: number, to: number, seal?: PacketCipher, skip: readonly number[] = []) {
  const { clock, data } = setup;
  for (let packet = from; packet < to; packet++) {
    const fields = { marker: packet === 0, sequence: 100 + packet, timestamp: 5000 + packet * FRAMES, ssrc: SSRC };
    const payload = l16(pcm, packet);
    const bytes = seal ? seal.seal(writeAudioPacket(fields, new Uint8Array(0)), payload, BigInt(packet)) : writeAudioPacket(fields, payload);
    if (!skip.includes(packet)) data.deliver(bytes, SENDER, 51_000);
    clock.advance((FRAMES * 1000) / 44100);
  }
}

test('a classic L16 stream is announced, set up and heard sample for sample from its first frame', () => {
  const setup = speaker();
  const { sender, sink, clock, lines, receiver } = setup;
  assert.equal(announce(sender).head.status, 200);
  const answer = classicSetup(sender);
  assert.equal(answer.head.status, 200);
  assert.equal(answer.head.headers.get('Transport'), 'RTP/AVP/UDP;unicast;mode=record;server_port=6000;control_port=6001;timing_port=7012');
  assert.equal(answer.head.headers.get('Session'), '1');
  assert.equal(sender.request('RECORD', 'rtsp://192.0.2.20/3413821438', { protocol: 'RTSP', headers: [['RTP-Info', 'seq=100;rtptime=5000']] }).head.status, 200);
  assert.equal(receiver.activity, 'receivingAudio');
  const pcm = sourcePcm(300);
  stream(setup, pcm, 0, 300);
  clock.advance(3000);
  assert.deepEqual(sink.format, { sampleRate: 44100, channels: 2 });
  const heard = sink.samples();
  assert.ok(heard.length >= pcm.length, `${heard.length / 2} frames heard of ${pcm.length / 2}`);
  assert.deepEqual(heard.subarray(0, pcm.length), pcm);
  assert.deepEqual(lines('audio stream set up'), ['info 192.0.2.20:50000 session 1 audio stream set up: PCM 44100 Hz, 2 channels, classic; RTP on UDP port 6000, control on 6001']);
  assert.equal(sender.request('TEARDOWN', 'rtsp://192.0.2.20/3413821438', { protocol: 'RTSP' }).head.status, 200);
  assert.equal(sink.ends, 1);
  assert.equal(receiver.activity, 'idle');
  assert.match(lines('audio stream ended')[0], /ended: its session ended \(TEARDOWN\); 300 packets, \d+ frames played; 0 lost/);
});

test('a lost packet is asked for again on the sender control port, and the resent one is heard in its place', () => {
  const setup = speaker();
  const { sender, sink, clock, control } = setup;
  announce(sender);
  classicSetup(sender);
  sender.request('RECORD', 'rtsp://192.0.2.20/3413821438', { protocol: 'RTSP', headers: [['RTP-Info', 'seq=100;rtptime=5000']] });
  const pcm = sourcePcm(200);
  stream(setup, pcm, 0, 50, undefined, [20]);
  const requests = control.sent.filter((sent) => sent.port === SENDER_CONTROL && sent.address === SENDER).map((sent) => readRetransmitRequest(sent.bytes));
  assert.deepEqual(requests, [{ firstSequence: 120, count: 1 }]);
  control.deliver(writeResentPacket(writeAudioPacket({ marker: false, sequence: 120, timestamp: 5000 + 20 * FRAMES, ssrc: SSRC }, l16(pcm, 20))), SENDER, SENDER_CONTROL);
  stream(setup, pcm, 50, 200);
  clock.advance(3000);
  assert.deepEqual(sink.samples().subarray(0, pcm.length), pcm);
});

test('a session stream (type 96) is set up with its key, its packets opened and heard', () => {
  const setup = speaker();
  const { sender, sink, clock } = setup;
  const session = sender.request('SETUP', 'rtsp://192.0.2.1/3413821438', {
    protocol: 'RTSP',
    contentType: 'application/x-apple-binary-plist',
    body: encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: 'B2C1D0E9-0000-4000-8000-000000000001', timingProtocol: 'None', name: 'pyatv' }),
  });
  assert.equal(session.head.status, 200);
  const key = new Uint8Array(32).map((_, i) => i * 3);
  const streams: PlistDict = { type: 96, ct: 1, spf: FRAMES, sr: 44100, shk: key, controlPort: SENDER_CONTROL, latencyMin: 11025, latencyMax: 88200, audioFormat: 0x800, audioMode: 'default', isMedia: true };
  const answer = sender.request('SETUP', 'rtsp://192.0.2.1/3413821438', { protocol: 'RTSP', contentType: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ streams: [streams] }) });
  assert.equal(answer.head.status, 200);
  const plist = decodeBinaryPlist(answer.body);
  assert.ok(isPlistDict(plist));
  assert.deepEqual(plist.streams, [{ type: 96, dataPort: 6000, controlPort: 6001 }]);
  sender.request('RECORD', 'rtsp://192.0.2.1/3413821438', { protocol: 'RTSP' });
  const pcm = sourcePcm(120);
  stream(setup, pcm, 0, 120, new PacketCipher(key, portableFrameKernel));
  // A packet sealed with another key is dropped and counted; playback goes on.
  setup.data.deliver(new PacketCipher(new Uint8Array(32), portableFrameKernel).seal(writeAudioPacket({ marker: false, sequence: 100 + 120, timestamp: 5000 + 120 * FRAMES, ssrc: SSRC }, new Uint8Array(0)), l16(pcm, 0), 0n), SENDER, 51_000);
  clock.advance(1000);
  assert.deepEqual(sink.samples().subarray(0, pcm.length), pcm);
  assert.equal(sender.request('TEARDOWN', 'rtsp://192.0.2.1/3413821438', { protocol: 'RTSP', contentType: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ streams: [{ type: 96 }] }) }).head.status, 200);
  assert.match(setup.lines('audio stream ended')[0], /TEARDOWN of the stream; 121 packets.*dropped: 1 authentication/);
  assert.equal(setup.receiver.sessions.count, 1, 'the session goes on without its stream');
});

test('volume, metadata and cover art go to the sink and the screen', () => {
  const display = new RecordingDisplay();
  const setup = speaker({ display });
  const { sender, sink } = setup;
  announce(sender);
  classicSetup(sender);
  assert.equal(sender.request('SET_PARAMETER', '*', { protocol: 'RTSP', contentType: 'text/parameters', body: utf8Encode('volume: -11.5\r\n') }).head.status, 200);
  assert.equal(sink.volumeDb, -11.5);
  // mlit { minm "Song", asar "Band" }
  const item = (tag: string, text: string) => [...utf8Encode(tag), 0, 0, 0, text.length, ...utf8Encode(text)];
  const inner = [...item('minm', 'Song'), ...item('asar', 'Band')];
  const dmap = new Uint8Array([...utf8Encode('mlit'), 0, 0, 0, inner.length, ...inner]);
  assert.equal(sender.request('SET_PARAMETER', '*', { protocol: 'RTSP', contentType: 'application/x-dmap-tagged', body: dmap }).head.status, 200);
  const cover = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
  assert.equal(sender.request('SET_PARAMETER', '*', { protocol: 'RTSP', contentType: 'image/jpeg', body: cover }).head.status, 200);
  assert.equal(setup.lines('playing: Song / Band').length, 1);
  assert.equal(sender.request('SET_PARAMETER', '*', { protocol: 'RTSP', contentType: 'text/parameters', body: utf8Encode('progress: 1000/45100/442000\r\n') }).head.status, 200);
  assert.equal(sender.request('TEARDOWN', '*', { protocol: 'RTSP' }).head.status, 200);
  const nowPlaying = display.calls.flatMap((call) => (call.kind === 'nowPlaying' ? [call.playing] : []));
  assert.deepEqual(nowPlaying.slice(0, 3), [
    { title: 'Song', artist: 'Band' },
    { title: 'Song', artist: 'Band', artwork: { mime: 'image/jpeg', bytes: cover } },
    { title: 'Song', artist: 'Band', artwork: { mime: 'image/jpeg', bytes: cover }, progress: { startRtp: 1000, currentRtp: 45100, endRtp: 442000, sampleRate: 44100 } },
  ]);
  assert.equal(nowPlaying.at(-1), undefined, 'the stream ended: nothing plays');
});

test('refusals name what is not served', () => {
  const { sender, lines } = speaker();
  const aac = SDP.replace('L16/44100/2', 'mpeg4-generic/44100/2');
  assert.equal(announce(sender, aac).head.status, 501);
  const encrypted = SDP + 'a=rsaaeskey:AAAA\r\na=aesiv:AAAA\r\n';
  assert.equal(announce(sender, encrypted).head.status, 501);
  const opus = announce(sender, SDP.replace('L16/44100/2', 'opus/48000/2'));
  assert.equal(opus.head.status, 501);
  assert.equal(opus.head.reason, 'Audio Format Not Served', 'the phrase says it to a sender that shows only the status line');
  assert.equal(announce(sender, 'garbage').head.status, 400);
  assert.equal(classicSetup(sender).head.status, 455, 'SETUP before a stream was announced');
  assert.ok(lines('ANNOUNCE').length >= 3);
  assert.equal(sender.request('ANNOUNCE', '*', { protocol: 'RTSP', contentType: 'text/plain', body: utf8Encode(SDP) }).head.status, 415);
});

test('without a sink the receiver neither advertises audio nor takes a stream', () => {
  const withSink = speaker();
  const without = speaker({ withSink: false });
  const audioBits = featureMask(['Audio', 'AudioFormat2', 'AudioFormat3']);
  assert.equal(withSink.receiver.features & audioBits, audioBits);
  assert.equal(without.receiver.features & audioBits, 0n);
  const raop = (receiver: Receiver) => Object.fromEntries(receiver.services().find((service) => service.type === '_raop._tcp')!.txt);
  assert.equal(raop(withSink.receiver).cn, '0,1');
  assert.equal(raop(without.receiver).cn, '0');
  assert.equal(announce(without.sender).head.status, 501);
});

test('where the host decodes AAC: a classic mpeg4-generic stream (AU headers) and a session ct 4 stream reach its decoder with their configs', () => {
  // A stand-in for libavcodec: records each config, and reads each access unit as L16.
  const configs: string[] = [];
  const aacDecoder: AacDecoderFactory = (config, sampleRate, channels) => {
    configs.push(`${[...config].map((byte) => byte.toString(16).padStart(2, '0')).join('')} ${sampleRate} ${channels}`);
    return createPcmDecoder({ channels, bitsPerSample: 16, framesPerPacket: FRAMES });
  };
  const classic = speaker({ aacDecoder });
  assert.equal(Object.fromEntries(classic.receiver.services().find((service) => service.type === '_raop._tcp')!.txt).cn, '0,1,2');
  const aac = SDP.replace('L16/44100/2', 'mpeg4-generic/44100/2').replace('a=fmtp:96 352 0 16 40 10 14 2 255 0 0 44100', 'a=fmtp:96 mode=AAC-hbr; config=1210; sizeLength=13; indexLength=3; indexDeltaLength=3');
  assert.equal(announce(classic.sender, aac).head.status, 200);
  assert.equal(classicSetup(classic.sender).head.status, 200);
  classic.sender.request('RECORD', 'rtsp://192.0.2.20/3413821438', { protocol: 'RTSP', headers: [['RTP-Info', 'seq=100;rtptime=5000']] });
  const pcm = sourcePcm(40);
  for (let packet = 0; packet < 40; packet++) {
    classic.data.deliver(writeAudioPacket({ marker: false, sequence: 100 + packet, timestamp: 5000 + packet * FRAMES, ssrc: SSRC }, writeAuHeaders([l16(pcm, packet)])), SENDER, 51_000);
    classic.clock.advance((FRAMES * 1000) / 44100);
  }
  classic.clock.advance(3000);
  assert.deepEqual(classic.sink.samples().subarray(0, pcm.length), pcm);
  // An AAC-ELD announcement is refused: ELD is not played here.
  const eld = speaker({ aacDecoder });
  assert.equal(announce(eld.sender, aac.replace('config=1210', 'config=F8E85000').replace('mode=AAC-hbr', 'mode=AAC-eld')).head.status, 501);
  // A session's ct 4 stream: its config implied by rate, channels and frames per packet.
  const session = speaker({ aacDecoder });
  session.sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', contentType: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: 'B2C1D0E9-0000-4000-8000-000000000002', timingProtocol: 'None' }) });
  const streams: PlistDict = { type: 96, ct: 4, spf: 1024, sr: 44100, shk: new Uint8Array(32), controlPort: SENDER_CONTROL };
  assert.equal(session.sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', contentType: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ streams: [streams] }) }).head.status, 200);
  assert.deepEqual(configs, ['1210 44100 2', '1210 44100 2'], 'one decoder per stream: its SETUP opens it, ANNOUNCE only reads the fmtp');
  // Without a decoder, ct 4 is refused naming what is played.
  const without = speaker();
  without.sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', contentType: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ deviceID: 'AA:BB:CC:DD:EE:FF', sessionUUID: 'B2C1D0E9-0000-4000-8000-000000000003', timingProtocol: 'None' }) });
  assert.equal(without.sender.request('SETUP', 'rtsp://192.0.2.1/1', { protocol: 'RTSP', contentType: 'application/x-apple-binary-plist', body: encodeBinaryPlist({ streams: [streams] }) }).head.status, 501);
});
