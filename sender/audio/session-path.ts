// Realtime audio in a session (AirPlay 2 style, as pyatv's AirPlay 2 path and iOS do it): the
// session opened as `play --setup` opens it (SETUP with the sender's timing port, the event
// channel), then a stream SETUP `{streams: [{type: 96, ct, spf, sr, shk, controlPort, ...}]}`
// answered with the receiver's dataPort and controlPort, RECORD, SET_PARAMETER volume, the
// packets sealed with ChaCha20-Poly1305 under shk (packet-cipher.ts, the nonce a counter that grows
// by one per packet; pyatv sends 0 for every packet), and at the end TEARDOWN of the stream, then
// of the session.

import { randomBytes } from 'node:crypto';
import { PacketCipher } from '../../src/audio/packet-cipher';
import { HEADER } from '../../src/http';
import { portableFrameKernel } from '../../src/pairing';
import { decodePlist, encodeBinaryPlist, encodeParametersBytes, isPlistDict, TEXT_PARAMETERS } from '../../src/plist';
import type { Dialect } from '../../src/dialect';
import { SENDER_CODECS } from './audio-format';
import { expectOk, randomStart, streamerFor, StreamStopper, type AudioOptions } from './audio-stream-setup';
import { describeStats, FRAMES_PER_PACKET } from './rtp-streamer';
import { bindUdp } from './udp';
import { SenderSession } from '../session';
import { describeEndpoint, SendError, type ControlConnection } from '../wire';

/** The stream type of realtime audio in a session's SETUP. */
const REALTIME_AUDIO_STREAM = 96;
/** What pyatv asks: 0.25 s to 2 s at 44.1 kHz; latencyMin is raised to the command's latency. */
const LATENCY_MIN_FRAMES = 11025;
const LATENCY_MAX_FRAMES = 88200;
const SHARED_KEY_BYTES = 32;

function port(value: unknown, name: string): number {
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) throw new SendError(`SETUP (stream): the answer's ${name} is not a port`);
  return number;
}

export async function streamInSession(control: ControlConnection, dialect: Dialect, options: AudioOptions): Promise<void> {
  const { endpoint } = control;
  const where = describeEndpoint(endpoint);
  const url = `rtsp://${where}/1`;
  const start = randomStart();
  const sharedKey = new Uint8Array(randomBytes(SHARED_KEY_BYTES));
  const cipher = new PacketCipher(sharedKey, portableFrameKernel);
  const controlSocket = await bindUdp(endpoint.host);
  const dataSocket = await bindUdp(endpoint.host);
  const { source } = options;
  const codec = SENDER_CODECS[options.codec];
  let ports: { dataPort: number; controlPort: number } | undefined;
  let session: SenderSession | undefined;
  const stopper = new StreamStopper(control, options.say);
  try {
    session = await SenderSession.open(control, {
      dialect,
      say: options.say,
      timingProtocol: 'NTP',
      clockMs: () => options.clock.now(),
      beforeRecord: async () => {
        const stream = {
          type: REALTIME_AUDIO_STREAM,
          ct: codec.ct,
          audioFormat: codec.audioFormat,
          audioMode: 'default',
          spf: FRAMES_PER_PACKET,
          sr: 44100,
          shk: sharedKey,
          controlPort: controlSocket.address().port,
          latencyMin: Math.max(LATENCY_MIN_FRAMES, options.latencyFrames),
          latencyMax: Math.max(LATENCY_MAX_FRAMES, options.latencyFrames),
          isMedia: true,
          supportsDynamicStreamID: false,
          streamConnectionID: start.ssrc,
        };
        const request = encodeBinaryPlist({ streams: [stream] });
        // The key stays in the cipher only (it copied it): wipe ours and the plist's copy once written.
        sharedKey.fill(0);
        const answer = await control.request('SETUP', url, [[HEADER.contentType, dialect.mime.plistBinary]], request, 'RTSP');
        request.fill(0);
        expectOk('SETUP (stream)', answer);
        const body = decodePlist(answer.body);
        const first = isPlistDict(body) && Array.isArray(body.streams) && isPlistDict(body.streams[0]) ? body.streams[0] : undefined;
        if (!first) throw new SendError('SETUP (stream): the answer has no streams');
        ports = { dataPort: port(first.dataPort, 'dataPort'), controlPort: port(first.controlPort, 'controlPort') };
      },
    });
    if (!ports) throw new SendError('SETUP (stream) was not answered');
    expectOk('SET_PARAMETER volume', await control.request('SET_PARAMETER', url, [[HEADER.contentType, TEXT_PARAMETERS]], encodeParametersBytes([['volume', options.volumeDb]]), 'RTSP'));
    options.say(`session stream to ${where}: ${options.codec} audio (ct ${codec.ct}) sealed, to port ${ports.dataPort}, control ${ports.controlPort} (ours ${controlSocket.address().port}), latency ${options.latencyFrames} frames`);
    const streamer = streamerFor(options, { control: controlSocket, data: dataSocket }, endpoint.host, { data: ports.dataPort, control: ports.controlPort }, start, (header, payload, packetNumber) =>
      cipher.seal(header, payload, BigInt(packetNumber)),
    );
    stopper.watch(streamer, options.stopAfterMs);
    await streamer.run(source);
    stopper.check();
    options.say(`${describeStats(streamer.stats)}; ${session.timingAnswered} timing requests answered`);
    const teardown = await control.request('TEARDOWN', url, [[HEADER.contentType, dialect.mime.plistBinary]], encodeBinaryPlist({ streams: [{ type: REALTIME_AUDIO_STREAM }] }), 'RTSP');
    expectOk('TEARDOWN (stream)', teardown);
    await session.close();
    session = undefined;
  } finally {
    stopper.dispose();
    cipher.wipe();
    if (session) await session.close(false);
    controlSocket.close();
    dataSocket.close();
  }
}
