// The classic way to stream realtime audio (RAOP, as iTunes and pyatv's AirPlay 1 path do it):
// OPTIONS, ANNOUNCE with the SDP, SETUP with a Transport naming the sender's control and timing
// ports, RECORD with RTP-Info (the first packet's sequence number and RTP time), SET_PARAMETER
// volume, the packets (rtp-streamer.ts), TEARDOWN. Unencrypted: no rsaaeskey in the SDP.

import { writeRtpInfo } from '../../src/audio/rtp-info';
import { readReceiverTransport, writeSenderTransport } from '../../src/audio/transport-header';
import { HEADER } from '../../src/http';
import { encodeParametersBytes, TEXT_PARAMETERS } from '../../src/plist';
import { randomBytes } from 'node:crypto';
import { announceSdp } from './audio-format';
import { expectOk, randomStart, streamerFor, StreamStopper, type AudioOptions } from './audio-stream-setup';
import { describeStats } from './rtp-streamer';
import { TimingServer } from './timing-server';
import { bindUdp } from './udp';
import { describeEndpoint, SendError, type ControlConnection } from '../wire';

/** The receiver's ports from its SETUP answer's Transport; a SendError naming what is missing. */
function receiverPorts(transport: string): ReturnType<typeof readReceiverTransport> {
  try {
    return readReceiverTransport(transport);
  } catch (error) {
    throw new SendError(`SETUP: ${(error as Error).message} (Transport: ${transport})`);
  }
}

export async function streamClassic(control: ControlConnection, options: AudioOptions): Promise<void> {
  const { endpoint } = control;
  const where = describeEndpoint(endpoint);
  const start = randomStart();
  const url = `rtsp://${where}/${start.ssrc}`;
  // pyatv's DACP-ID and Active-Remote: the receiver names a classic session by the DACP-ID.
  const dacpId = randomBytes(8).toString('hex').toUpperCase();
  const remote: [string, string][] = [
    [HEADER.dacpId, dacpId],
    [HEADER.activeRemote, String(randomBytes(4).readUInt32BE(0))],
    [HEADER.clientInstance, dacpId],
  ];
  const request = (method: string, headers: [string, string | number][] = [], body?: Uint8Array) => control.request(method, url, [...remote, ...headers], body, 'RTSP');

  const timing = await TimingServer.open(endpoint.host, options.clock);
  const controlSocket = await bindUdp(endpoint.host);
  const dataSocket = await bindUdp(endpoint.host);
  const { source } = options;
  const stopper = new StreamStopper(control, options.say);
  try {
    expectOk('OPTIONS', await control.request('OPTIONS', '*', remote, undefined, 'RTSP'));
    const sdp = announceSdp({ codec: options.codec, sessionId: start.ssrc, localAddress: control.localAddress, remoteAddress: endpoint.host, latencyFrames: options.latencyFrames });
    expectOk('ANNOUNCE', await request('ANNOUNCE', [[HEADER.contentType, 'application/sdp']], new TextEncoder().encode(sdp)));
    const setup = await request('SETUP', [[HEADER.transport, writeSenderTransport({ controlPort: controlSocket.address().port, timingPort: timing.port })]]);
    expectOk('SETUP', setup);
    const transport = setup.head.headers.get(HEADER.transport);
    if (!transport) throw new SendError('SETUP: the answer has no Transport header');
    const ports = receiverPorts(transport);
    const session = setup.head.headers.get(HEADER.session) ?? '1';
    const inSession: [string, string][] = [[HEADER.session, session]];
    expectOk('RECORD', await request('RECORD', [...inSession, [HEADER.range, 'npt=0-'], [HEADER.rtpInfo, writeRtpInfo({ seq: start.sequence, rtptime: start.rtpTime })]]));
    expectOk('SET_PARAMETER volume', await request('SET_PARAMETER', [...inSession, [HEADER.contentType, TEXT_PARAMETERS]], encodeParametersBytes([['volume', options.volumeDb]])));
    options.say(`classic stream to ${where}: ${options.codec} audio to port ${ports.serverPort}, control ${ports.controlPort} (ours ${controlSocket.address().port}), timing served on ${timing.port}, latency ${options.latencyFrames} frames`);

    const streamer = streamerFor(options, { control: controlSocket, data: dataSocket }, endpoint.host, { data: ports.serverPort, control: ports.controlPort }, start);
    stopper.watch(streamer, options.stopAfterMs);
    await streamer.run(source);
    stopper.check();
    options.say(`${describeStats(streamer.stats)}; ${timing.answered} timing requests answered`);
    expectOk('TEARDOWN', await request('TEARDOWN', inSession));
  } finally {
    stopper.dispose();
    timing.close();
    controlSocket.close();
    dataSocket.close();
  }
}
