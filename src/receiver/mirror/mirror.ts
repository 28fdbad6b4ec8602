// Screen mirroring (spec 4.4): the mirroring listener's routes (GET /stream.xml, POST /stream)
// and the one-session-at-a-time policy. The session itself is mirror-session.ts.
//
// Policy, one session at a time: a second sender's POST /stream while a session runs is refused
// (503, a reason, and the connection closed) and the first sender keeps the screen. This is what
// the open receivers do by default (UxPlay keeps the current sender unless run with -nohold);
// taking over would let any device on the network cut into someone's presentation.
// The session follows the media session (media-session.ts): the activity is
// `receivingScreenMirroring` (spec 2.1: igl 1, gcgl 1, flag 17 set) while it runs; POST /stop on
// the main port, a photo, slideshow or video taking the screen, or the connection closing end it.
//
// POST /stream gets no answer (real receivers send none: the connection stops being HTTP);
// refusals do get one, since the sender is still speaking HTTP when it is refused.

import { deviceKey } from '../access-list';
import { readMakerHeader, type Dialect } from '../../dialect';
import { describeError, RequestError } from '../../errors';
import { HEADER, STATUS } from '../../http';
import { portableNalKernel, type NalKernel, parseStreamRequest, streamCapabilities } from '../../mirror';
import { NTP_SENDER_PORT } from '../../timing';
import { encodeXmlPlistBytes } from '../../plist';
import type { Clock, Logger, UdpBinder, VideoDecoder } from '../../platform';
import type { ReceiverLimits } from '../limits';
import type { MediaFeature, MediaSession } from '../media/media-session';
import { MirrorSession } from './mirror-session';
import { hostPort } from '../connection/connection';
import { refusalOf, type Request, type Response, type Router } from '../connection/router';

/** Largest POST /stream body (spec 2.13: a small plist; param1/param2 are 72 and 16 bytes). */
const MAX_STREAM_REQUEST_BYTES = 16 * 1024;

interface MirrorContext {
  readonly log: Logger;
  readonly clock: Clock;
  readonly limits: ReceiverLimits;
  readonly dialect: Dialect;
  readonly media: MediaSession;
  readonly decoder: VideoDecoder;
  readonly udp: UdpBinder;
  readonly nalKernel?: NalKernel;
  /** spec 2.12 version: the receiver's implementation version. */
  readonly version: string;
  /** Local port of the NTP client (spec 4.5: 7011; 0 any). */
  readonly ntpPort: number;
}

export class MirrorFeature implements MediaFeature {
  private session: MirrorSession | undefined;

  constructor(private readonly context: MirrorContext) {
    context.media.register('mirror', this);
  }

  /** The session running, if any. */
  get current(): MirrorSession | undefined {
    return this.session?.active ? this.session : undefined;
  }

  /** spec 2.12: the display's real geometry and refresh. */
  streamXml(): Response {
    const { decoder, version, dialect } = this.context;
    return {
      status: STATUS.ok,
      headers: [[HEADER.contentType, dialect.mime.plistXml]],
      body: encodeXmlPlistBytes(streamCapabilities(decoder.geometry, version)),
    };
  }

  /**
   * spec 4.4 POST /stream: checks the request and turns the connection into the session's
   * stream. A refusal closes the connection: the sender may already be sending packets behind
   * its request, which cannot be read as requests.
   */
  startStream(request: Request): Response {
    try {
      return this.openStream(request);
    } catch (error) {
      return { ...refusalOf(error), close: true };
    }
  }

  /** POST /stream's work; throws a RequestError (a StreamRequestError for the body) to refuse. */
  private openStream(request: Request): Response {
    const { log, clock, media } = this.context;
    const peer = hostPort(request.remoteAddress, request.remotePort);
    const running = this.current;
    if (running) {
      throw new RequestError(STATUS.serviceUnavailable, `this receiver is mirroring ${running.peer} (session ${running.request.sessionId}); one mirroring session at a time: the first sender keeps the screen until it stops`);
    }
    const streamRequest = parseStreamRequest(request.body);
    let socket;
    try {
      socket = this.context.udp(this.context.ntpPort);
    } catch (error) {
      throw new RequestError(STATUS.serviceUnavailable, `the NTP client cannot bind UDP port ${this.context.ntpPort} (spec 4.5): ${describeError(error)}`);
    }
    const deviceHeader = readMakerHeader(request.head.headers, 'Device-ID');
    const origin = { sessionId: request.sessionId, address: request.remoteAddress, deviceId: deviceHeader ?? deviceKey(`0x${streamRequest.deviceId.toString(16)}`) };
    const session = new MirrorSession(
      peer,
      request.remoteAddress,
      streamRequest,
      {
        log,
        limits: this.context.limits,
        decoder: this.context.decoder,
        nalKernel: this.context.nalKernel ?? portableNalKernel,
        socket,
        now: () => clock.now(),
        wallTime: () => clock.wallTime(),
        onEnded: (ended) => {
          if (this.session === ended) this.session = undefined;
          media.end('mirror');
          media.announce('mirroring-stopped', origin);
        },
      },
      clock.now(),
    );
    this.session = session;
    log('info', `${peer} mirroring session ${streamRequest.sessionId} started (device ${deviceHeader ?? streamRequest.deviceId.toString(16)}, sender version ${streamRequest.version}, latency ${streamRequest.latencyMs} ms; NTP from UDP port ${socket.localPort} to ${request.remoteAddress}:${NTP_SENDER_PORT})`);
    media.takeScreen('mirror', request.order, 'screen mirroring took the screen');
    media.announce('mirroring-started', origin);
    return { status: STATUS.ok, stream: session };
  }

  /** POST /stop on the main port (spec 3): the mirroring sender stops with it too. */
  stop(_sessionId: string | undefined, _order: number): void {
    // The mirroring session's id is the plist's integer (spec 2.13), which POST /stop does not
    // carry: any POST /stop ends mirroring, as it ends what else is shown.
    this.current?.end('POST /stop');
  }

  /** A photo, slideshow or video takes the screen: real receivers stop mirroring for them. */
  yieldScreen(_order: number, reason: string): void {
    this.current?.end(reason);
  }

  /** The receiver stops. */
  close(reason: string): void {
    this.current?.end(reason);
  }
}

/** The mirroring listener's routes (spec 4.4). */
export function registerMirrorRoutes(router: Router, mirror: MirrorFeature): void {
  router.add({ protocol: 'HTTP', method: 'GET', path: '/stream.xml', handler: () => mirror.streamXml() });
  router.add({ protocol: 'HTTP', method: 'POST', path: '/stream', maxBodyBytes: MAX_STREAM_REQUEST_BYTES, handler: (request) => mirror.startStream(request) });
}
