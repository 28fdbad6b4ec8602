// `vendorplay-send`'s session, the way current senders open one before media (not in the spec;
// as pyatv and iOS do when the receiver has feature bit 38): RTSP SETUP with a binary plist
// naming the sender and its timing port, a timing server answering the receiver's RAOP timing
// requests from this host's clock, the event channel connected to the answer's eventPort, RECORD,
// POST /feedback every 2 s, and TEARDOWN at the end. On a paired receiver the receiver encrypts
// the event channel with keys from the control connection's pair-verify; nothing is asked of the
// sender on it yet, so what comes is read and dropped either way.

import dgram from 'node:dgram';
import { randomUUID } from 'node:crypto';
import type net from 'node:net';
import { HEADER } from '../src/http';
import { decodePlist, encodeBinaryPlist, isPlistDict } from '../src/plist';
import { isRaopTimingRequest, raopTimingReply } from '../src/timing';
import type { Dialect } from '../src/dialect';
import { connect, describeEndpoint, SendError, type ControlConnection } from './wire';

/** Feature bit 38: the receiver pairs and encrypts as current senders expect, and they open sessions. */
const SESSION_FEATURE_BIT = 38n;

/** Whether the receiver's GET /info says it takes sessions (feature bit 38); false when it has no /info. */
export async function takesSessions(control: ControlConnection): Promise<boolean> {
  const response = await control.request('GET', '/info');
  if (response.head.status !== 200) return false;
  const info = decodePlist(response.body);
  const features = isPlistDict(info) ? info.features : undefined;
  const mask = typeof features === 'bigint' ? features : typeof features === 'number' ? BigInt(features) : 0n;
  return ((mask >> SESSION_FEATURE_BIT) & 1n) === 1n;
}

/** What iOS and pyatv send: feedback every 2 s keeps the session. */
const FEEDBACK_INTERVAL_MS = 2000;

/** The sender's clock, served to the receiver: Unix time in ms (NTP timestamps from 1970 on). */
function senderClockMs(): number {
  return performance.timeOrigin + performance.now();
}

export interface SessionOptions {
  readonly dialect: Dialect;
  readonly say: (line: string) => void;
  /** `NTP` (the default, as pyatv) or `None`. */
  readonly timingProtocol: 'NTP' | 'None';
  /** The clock the timing server answers from (default: this host's, as Unix time). */
  readonly clockMs?: () => number;
  /** Runs between the session SETUP and RECORD (the audio command SETUPs its stream there, as pyatv does). */
  readonly beforeRecord?: () => Promise<void>;
}

export class SenderSession {
  private feedback: NodeJS.Timeout | undefined;
  private closed = false;
  /** Timing requests the receiver made, answered. */
  timingAnswered = 0;

  private constructor(
    private readonly control: ControlConnection,
    private readonly timing: dgram.Socket | undefined,
    private readonly events: net.Socket,
    readonly eventPort: number,
    private readonly clockMs: () => number,
  ) {}

  /** Opens a session on `control`; throws SendError with the receiver's answer when it refuses. */
  static async open(control: ControlConnection, options: SessionOptions): Promise<SenderSession> {
    const { endpoint } = control;
    const where = describeEndpoint(endpoint);
    const timing = options.timingProtocol === 'NTP' ? await timingServer() : undefined;
    let session: SenderSession | undefined;
    try {
      const body: Record<string, string | number | boolean> = {
        deviceID: 'AA:BB:CC:DD:EE:FF',
        sessionUUID: randomUUID().toUpperCase(),
        timingProtocol: options.timingProtocol,
        name: 'vendorplay-send',
        model: 'vendorplay-send',
        sourceVersion: '1.0',
        isRemoteControlOnly: false,
        groupContainsGroupLeader: false,
      };
      if (timing) body.timingPort = timing.address().port;
      const answer = await control.request('SETUP', `rtsp://${where}/${Math.floor(Math.random() * 2 ** 32)}`, [[HEADER.contentType, options.dialect.mime.plistBinary]], encodeBinaryPlist(body), 'RTSP');
      if (answer.head.status !== 200) throw new SendError(`SETUP (session) on ${where}: ${answer.head.status} ${answer.head.reason}${answer.body.length > 0 ? `: ${new TextDecoder().decode(answer.body).trim()}` : ''}`);
      const ports = decodePlist(answer.body);
      const eventPort = isPlistDict(ports) ? Number(ports.eventPort) : NaN;
      if (!Number.isInteger(eventPort) || eventPort < 1 || eventPort > 65535) throw new SendError(`SETUP (session) on ${where}: the answer names no eventPort`);
      const events = await connect({ host: endpoint.host, port: eventPort }, 15_000);
      // Nothing is asked of us on it yet; what comes is read and dropped.
      events.on('data', () => {});
      events.on('error', () => {});
      session = new SenderSession(control, timing, events, eventPort, options.clockMs ?? senderClockMs);
      if (timing) timing.on('message', (message, remote) => session!.answerTiming(message, remote));
      await options.beforeRecord?.();
      const record = await control.request('RECORD', `rtsp://${where}/1`, [], undefined, 'RTSP');
      if (record.head.status !== 200) throw new SendError(`RECORD on ${where}: ${record.head.status} ${record.head.reason}`);
      session.feedback = setInterval(() => void control.request('POST', '/feedback', [], undefined, 'RTSP').catch(() => {}), FEEDBACK_INTERVAL_MS);
      options.say(`session open on ${where}: events on port ${eventPort}, timing ${options.timingProtocol}${timing ? ` (served on UDP port ${timing.address().port})` : ''}`);
      return session;
    } catch (error) {
      if (session) await session.close(false);
      else timing?.close();
      throw error;
    }
  }

  /** Ends the session: TEARDOWN when the connection still stands (`tearDown`), then closes what it opened. */
  async close(tearDown = true): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.feedback) clearInterval(this.feedback);
    if (tearDown) await this.control.request('TEARDOWN', `rtsp://${describeEndpoint(this.control.endpoint)}/1`, [], undefined, 'RTSP').catch(() => undefined);
    this.events.destroy();
    this.timing?.close();
  }

  private answerTiming(message: Buffer, remote: dgram.RemoteInfo): void {
    const request = new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
    if (!isRaopTimingRequest(request)) return;
    const now = this.clockMs();
    this.timingAnswered++;
    this.timing?.send(raopTimingReply(request, now, this.clockMs()), remote.port, remote.address);
  }
}

/** A UDP socket on a free port, IPv4 (receivers ask from IPv4). */
function timingServer(): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}
