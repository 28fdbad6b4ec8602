// Realtime audio in senders' sessions: the classic way (ANNOUNCE with an SDP, SETUP with a
// Transport header, RECORD, FLUSH, TEARDOWN) and a session's type 96 stream (SETUP with
// `streams`), both played by one AudioPlayback. The spec shows neither ("the RTP streams: not
// shown"); both are served as real speakers serve them, unencrypted classic streams only (et=0:
// the RSA key of et=1 is not in the spec, so it is neither advertised nor taken).
//
// Decisions the spec leaves open, and what this receiver does:
// - ANNOUNCE opens a session on its connection (the classic way has no session SETUP), named
//   by the sender's DACP-ID and the SDP's origin; a second ANNOUNCE on it replaces the format
//   announced (senders announce again for a new stream) and ends the stream that played.
// - The classic SETUP answers `Session: 1` (the connection names the session; senders echo it).
// - A classic stream's latency is the SDP's a=min-latency where given, else 2 s (88200 frames at
//   44.1 kHz, what iTunes asks); a session stream's is its latencyMin. Either must fit the buffer
//   (limits.audioBufferMs), or the SETUP is refused: played early it would be out of step.

import { readAnnounceSdp, SdpError, type AudioStreamFormat } from '../../audio/sdp';
import { readSenderTransport, TransportHeaderError, writeReceiverTransport } from '../../audio/transport-header';
import { createPcmDecoder, AudioDecodeError, type AacDecoderFactory, type AudioDecoder } from '../../audio/decoder';
import { alacFmtp, createAlacDecoder, parseAlacFmtp, realtimeAlacConfig, type AlacKernel } from '../../audio/alac';
import { PacketCipher } from '../../audio/packet-cipher';
import { utf8Decode } from '../../bytes';
import { RequestError } from '../../errors';
import { HEADER, STATUS } from '../../http';
import type { PlistDict } from '../../plist';
import type { FrameKernel } from '../../pairing/frame-kernel';
import type { Logger } from '../../platform';
import { hostPort } from '../connection/connection';
import type { Request, Response, Router } from '../connection/router';
import type { SenderSession } from '../session/session';
import type { SessionAudio } from '../session/session-routes';
import { SessionRequestError, type SenderFacts } from '../session/session-setup';
import type { Sessions } from '../session/sessions';
import type { AudioPlayback, PlayingStream } from './audio-playback';
import { classicAacDecoder, classicAacRefusal, sessionAacDecoder } from './aac-stream';
import { readRealtimeStreamAsk } from './realtime-stream-ask';

/** iTunes' latency for a classic stream: 2 s at 44.1 kHz. */
const CLASSIC_LATENCY_FRAMES = 88200;

/** An SDP is a few hundred bytes. */
const ANNOUNCE_BODY_LIMIT = 4 * 1024;

/** The SDP's media type. */
const SDP_TYPE = 'application/sdp';

/** The session a classic SETUP answers with: the connection names it, senders echo this. */
const CLASSIC_SESSION_ID = '1';

/** What a stream's engine is built from (src/audio's AudioStream takes these). */
export interface StreamSetup {
  readonly label: string;
  readonly sampleRate: number;
  readonly channels: number;
  readonly framesPerPacket: number;
  readonly latencyFrames: number;
  readonly decoder: AudioDecoder;
  /** The sender's control port (retransmit requests go there); 0 when it named none. */
  readonly senderControlPort: number;
  /** A session stream's packet cipher; a classic stream is plain. */
  readonly cipher: PacketCipher | undefined;
  /**
   * The sender's clock, from its session's timing: sender ms = local ms + offset, in the sender's
   * NTP-timestamp milliseconds (src/timing ntpMs: what a sync packet's time reads as), if known.
   */
  senderOffsetAt(now: number): number | undefined;
}

interface SessionAudioContext {
  readonly log: Logger;
  readonly sessions: Sessions;
  readonly playback: AudioPlayback;
  readonly frameKernel: FrameKernel;
  readonly alacKernel: AlacKernel | undefined;
  /** The host's AAC decoder, where it has one (libavcodec). */
  readonly aacDecoder: AacDecoderFactory | undefined;
  /** The longest latency the jitter buffer holds, in ms (limits.audioBufferMs). */
  readonly maxLatencyMs: number;
  /** Builds a stream's engine. */
  createStream(setup: StreamSetup): PlayingStream;
  /** What plays, for the screen (DMAP, artwork, progress). */
  describe(session: SenderSession, contentType: string, body: Uint8Array): void;
  progress(session: SenderSession, progress: readonly [number, number, number]): void;
}

/** The formats a classic session announced, by session. */
type Announced = WeakMap<SenderSession, AudioStreamFormat>;

/**
 * Throws a 501 naming why a classic stream's format is not decoded here (its ANNOUNCE), without
 * opening a decoder: SETUP opens the stream's one.
 */
function checkDecodable(format: AudioStreamFormat, kernels: Pick<SessionAudioContext, 'alacKernel' | 'aacDecoder'>): void {
  if (format.codec === 'aac' && kernels.aacDecoder) {
    const refusal = classicAacRefusal(format.fmtp ?? '', format.sampleRate, format.channels);
    if (refusal !== undefined) throw new SessionRequestError(`the stream's format is not decoded here: ${refusal}`, 501, 'Audio Format Not Served');
    return;
  }
  decoderFor(format, kernels, 'classic');
}

/** The decoder of a format and the frames its packets hold, or a 501 naming what is not decoded. */
function decoderFor(format: AudioStreamFormat, kernels: Pick<SessionAudioContext, 'alacKernel' | 'aacDecoder'>, way: 'classic' | 'session'): { readonly decoder: AudioDecoder; readonly framesPerPacket: number } {
  try {
    if (format.codec === 'pcm') return { decoder: createPcmDecoder(format), framesPerPacket: format.framesPerPacket };
    if (format.codec === 'alac') return { decoder: createAlacDecoder(parseAlacFmtp(format.fmtp ?? ''), kernels.alacKernel), framesPerPacket: format.framesPerPacket };
    if (format.codec === 'aac' && kernels.aacDecoder) {
      if (way === 'session') return { decoder: sessionAacDecoder(kernels.aacDecoder, format.framesPerPacket, format.sampleRate, format.channels), framesPerPacket: format.framesPerPacket };
      const classic = classicAacDecoder(kernels.aacDecoder, format.fmtp ?? '', format.sampleRate, format.channels);
      return { decoder: classic.decoder, framesPerPacket: classic.framesPerUnit };
    }
  } catch (error) {
    if (!(error instanceof AudioDecodeError)) throw error;
    throw new SessionRequestError(`the stream's format is not decoded here: ${error.message}`, 501, 'Audio Format Not Served');
  }
  throw new SessionRequestError(`${format.codec.toUpperCase()} streams are not decoded on this host (PCM and ALAC are; AAC where the host has libavcodec)`, 501, 'Audio Format Not Served');
}

/**
 * What a classic sender says of itself: no session SETUP, so only its headers. DACP-ID names the
 * device (senders send it for remote control), the User-Agent what it is; the clock is asked for
 * once its SETUP names its timing_port.
 */
function classicSender(request: Request): SenderFacts {
  return {
    deviceId: request.head.headers.get(HEADER.dacpId) ?? request.remoteAddress,
    sessionUuid: `classic-${request.remotePort}`,
    timingProtocol: 'None',
    timingPort: undefined,
    name: request.head.headers.get(HEADER.userAgent)?.slice(0, 64),
    model: undefined,
    macAddress: undefined,
    osName: undefined,
    osVersion: undefined,
    sourceVersion: undefined,
    groupUuid: undefined,
    groupContainsGroupLeader: false,
    isRemoteControlOnly: false,
  };
}

function describeFormat(format: { readonly codec: string; readonly sampleRate: number; readonly channels: number }, way: string): string {
  return `${format.codec === 'pcm' ? 'PCM' : format.codec.toUpperCase()} ${format.sampleRate} Hz, ${format.channels} channel${format.channels === 1 ? '' : 's'}, ${way}`;
}

/** What the requests below share: the context, and the formats classic sessions announced. */
interface AudioRequests extends SessionAudioContext {
  readonly announced: Announced;
}

function maxLatencyFrames(context: SessionAudioContext, sampleRate: number): number {
  return Math.floor((context.maxLatencyMs * sampleRate) / 1000);
}

/** The sender's clock of `session`, from its timing (undefined until a sample). */
function offsetOf(session: SenderSession): (now: number) => number | undefined {
  return (now) => session.timing?.offsetAt(now);
}

/** `session`'s stream starts: whatever played ends, then its engine is built on the sink. */
function start(context: AudioRequests, session: SenderSession, setup: StreamSetup, what: string): void {
  context.playback.start(session, () => context.createStream(setup), setup.senderControlPort, setup.sampleRate, what);
}

/** ANNOUNCE: a classic stream's SDP; opens the connection's classic session (or replaces what it announced). */
function announce(context: AudioRequests, request: Request): Response {
  const { log, sessions, playback, announced } = context;
  const type = (request.head.headers.get(HEADER.contentType) ?? '').split(';')[0].trim().toLowerCase();
  if (type !== SDP_TYPE) throw new RequestError(STATUS.unsupportedMediaType, `ANNOUNCE: the body is ${type || 'untyped'}, not ${SDP_TYPE}`);
  let format: AudioStreamFormat;
  try {
    format = readAnnounceSdp(utf8Decode(request.body));
  } catch (error) {
    if (error instanceof SdpError) throw new SessionRequestError(`ANNOUNCE: ${error.message}`, error.unserved ? 501 : 400, error.unserved ? 'Audio Format Not Served' : undefined);
    throw new RequestError(STATUS.badRequest, 'ANNOUNCE: the body is not UTF-8 text');
  }
  checkDecodable(format, context);
  const latency = format.minLatencyFrames ?? CLASSIC_LATENCY_FRAMES;
  const most = maxLatencyFrames(context, format.sampleRate);
  if (latency > most) throw new SessionRequestError(`ANNOUNCE: a latency of ${latency} frames is more than this receiver buffers (${most} frames, limits.audioBufferMs)`, 400);
  let session = sessions.of(request.state);
  if (session && !announced.has(session)) throw new SessionRequestError(`ANNOUNCE in ${session.label}, which a session SETUP opened: its audio is a stream SETUP`, 455);
  if (!session) {
    const peer = hostPort(request.remoteAddress, request.remotePort);
    session = sessions.open({ peer, address: request.remoteAddress, connection: request.state }, classicSender(request)).session;
  } else {
    playback.stop(session, 'the sender announced another stream');
  }
  announced.set(session, format);
  log('debug', `${session.peer} ${session.label} announced ${describeFormat(format, 'classic')}, ${format.framesPerPacket} frames a packet`);
  return { status: STATUS.ok };
}

/** SETUP with a Transport header: the announced stream starts; the answer names the receiver's ports. */
function setupClassic(context: AudioRequests, session: SenderSession, request: Request): Response {
  const { sessions, playback, announced } = context;
  const format = announced.get(session);
  if (!format) throw new SessionRequestError(`SETUP with a Transport header in ${session.label}, which announced no stream (ANNOUNCE first)`, 455);
  let transport;
  try {
    transport = readSenderTransport(request.head.headers.get(HEADER.transport) ?? '');
  } catch (error) {
    if (error instanceof TransportHeaderError) throw new RequestError(error.status, `SETUP: ${error.message}`);
    throw error;
  }
  const timingPort = transport.timingPort !== undefined ? sessions.keepTime(session, transport.timingPort) : undefined;
  const { decoder, framesPerPacket } = decoderFor(format, context, 'classic');
  start(
    context,
    session,
    {
      label: `${session.peer} ${session.label}`,
      sampleRate: format.sampleRate,
      channels: format.channels,
      framesPerPacket,
      latencyFrames: format.minLatencyFrames ?? CLASSIC_LATENCY_FRAMES,
      decoder,
      senderControlPort: transport.controlPort ?? 0,
      cipher: undefined,
      senderOffsetAt: offsetOf(session),
    },
    describeFormat(format, 'classic'),
  );
  const ports = playback.ports;
  return {
    status: STATUS.ok,
    headers: {
      [HEADER.transport]: writeReceiverTransport({ serverPort: ports.data, controlPort: ports.control, timingPort: timingPort ?? 0 }),
      [HEADER.session]: CLASSIC_SESSION_ID,
      [HEADER.audioJackStatus]: 'connected; type=analog',
    },
  };
}

/** A session's type 96 stream starts; the answer's dictionary names the receiver's ports. */
function setupRealtime(context: AudioRequests, session: SenderSession, streams: readonly PlistDict[]): PlistDict[] {
  if (streams.length !== 1) throw new SessionRequestError(`SETUP in ${session.label}: ${streams.length} audio streams at once; one plays at a time`, 501, 'One Audio Stream At A Time');
  const ask = readRealtimeStreamAsk(streams[0], context.maxLatencyMs, context.aacDecoder ? ['pcm', 'alac', 'aac'] : ['pcm', 'alac']);
  const channels = 2;
  const format = { codec: ask.codec, sampleRate: ask.sampleRate, channels, bitsPerSample: 16, framesPerPacket: ask.framesPerPacket, fmtp: alacFmtp(realtimeAlacConfig(ask.framesPerPacket, ask.sampleRate, channels)) };
  start(
    context,
    session,
    {
      label: `${session.peer} ${session.label}`,
      sampleRate: ask.sampleRate,
      channels,
      framesPerPacket: ask.framesPerPacket,
      latencyFrames: ask.latencyMinFrames ?? CLASSIC_LATENCY_FRAMES,
      decoder: decoderFor(format, context, 'session').decoder,
      senderControlPort: ask.senderControlPort,
      cipher: new PacketCipher(ask.sharedKey, context.frameKernel),
      senderOffsetAt: offsetOf(session),
    },
    describeFormat(format, 'session stream type 96'),
  );
  const ports = context.playback.ports;
  return [{ type: 96, dataPort: ports.data, controlPort: ports.control }];
}

export function createSessionAudio(base: SessionAudioContext): SessionAudio & { announce(request: Request): Response } {
  const context: AudioRequests = { ...base, announced: new WeakMap() };
  const { playback } = context;
  return {
    announce: (request) => announce(context, request),
    setupClassic: (session, request) => setupClassic(context, session, request),
    setupRealtime: (session, streams) => setupRealtime(context, session, streams),
    record: (session, start) => void playback.record(session, start),
    flush: (session, until) => void playback.flush(session, until),
    endStream: (session, reason) => playback.stop(session, reason),
    setVolume: (session, db) => playback.setVolume(session, db),
    describe: (session, contentType, body) => context.describe(session, contentType, body),
    progress: (session, progress) => context.progress(session, progress),
  };
}

/** ANNOUNCE's route (RTSP), with the classic session it opens. */
export function registerAnnounceRoute(router: Router, audio: { announce(request: Request): Response }): void {
  router.add({ protocol: 'RTSP', method: 'ANNOUNCE', path: '*', maxBodyBytes: ANNOUNCE_BODY_LIMIT, handler: (request) => audio.announce(request) });
}
