// One screen mirroring session (spec 4.4, 4.5, 2.14): what a mirroring connection becomes after
// POST /stream. Sans-I/O (a StreamTakeover): packet bytes and time in, and out to the ports the
// host gave: the VideoDecoder (codec data -> configure, video -> Annex B access units with their
// local presentation time -> decode) and the NTP client's UDP socket. Its deadlines are the NTP
// requests (every 3 s) and the heartbeat (no packet for limits.mirrorMissedHeartbeats seconds
// ends the session).
//
// Every way it ends (the sender closes, POST /stop, another feature takes the screen, a hostile
// or broken stream) ends this session only, with one log line naming why, and resets the decoder.

import { concat, equal } from '../../bytes';
import type { Logger, UdpSocket, VideoDecoder } from '../../platform';
import { AvcCError, codecString, parameterSetsAnnexB, parseAvcC, NalError, type NalKernel, HEARTBEAT_INTERVAL_MS, PACKET_HEADER_BYTES, PACKET_TYPE, PacketReader, type PacketHeader, type StreamRequest } from '../../mirror';
import { ClockRecovery, NTP_FORMAT, NTP_SENDER_PORT, TimingClient, againstWallClock, ntpMs } from '../../timing';
import type { ReceiverLimits } from '../limits';
import type { StreamTakeover } from '../connection/router';
import { describeError } from '../../errors';

interface MirrorSessionContext {
  readonly log: Logger;
  readonly limits: Pick<ReceiverLimits, 'maxMirrorPayloadBytes' | 'mirrorMissedHeartbeats'>;
  readonly decoder: VideoDecoder;
  readonly nalKernel: NalKernel;
  /** The NTP client's socket, bound for this session (closed when it ends). */
  readonly socket: UdpSocket;
  /** The monotonic clock, for NTP answers (they arrive outside receive and handleTimeout). */
  now(): number;
  /** The wall clock (ms since the Unix epoch), to say the sender's clock against it in the log. */
  wallTime(): number;
  /** Called once when the session has ended. */
  onEnded(session: MirrorSession, reason: string): void;
}

/** How the session ended: `warn` for a broken or hostile stream, `info` for a normal end. */
type Ending = 'info' | 'warn';

export class MirrorSession implements StreamTakeover {
  onWake: () => void = () => {};
  onEnd: (reason: string) => void = () => {};
  private readonly reader: PacketReader;
  private readonly ntp: TimingClient;
  private readonly clock: ClockRecovery;
  private heartbeatDeadline: number;
  private ended = false;
  /** The codec data in force (its bytes, to tell a change), and what video packets need from it. */
  private avcC: Uint8Array | undefined;
  private lengthSize: 1 | 2 | 4 = 4;
  private parameterSets: Uint8Array = new Uint8Array(0);
  private readonly unknownTypes = new Set<number>();
  private videoBeforeCodecData = 0;
  /** Figures for the log and the tests. */
  videoPackets = 0;
  configurations = 0;

  constructor(
    readonly peer: string,
    readonly senderAddress: string,
    readonly request: StreamRequest,
    private readonly context: MirrorSessionContext,
    now: number,
  ) {
    this.reader = new PacketReader({ maxPayloadBytes: context.limits.maxMirrorPayloadBytes });
    this.ntp = new TimingClient(NTP_FORMAT, now);
    this.clock = new ClockRecovery(this.ntp.filter);
    this.heartbeatDeadline = now + this.heartbeatTimeoutMs;
    context.socket.onPacket = (bytes, address, port) => this.ntpAnswer(bytes, address, port);
  }

  private get heartbeatTimeoutMs(): number {
    return this.context.limits.mirrorMissedHeartbeats * HEARTBEAT_INTERVAL_MS;
  }

  get active(): boolean {
    return !this.ended;
  }

  /** The sender's clock minus ours (ms), once NTP has answered. */
  get clockOffset(): number | undefined {
    return this.clock.synchronised ? this.clock.offset : undefined;
  }

  get wantsRead(): boolean {
    return !this.ended;
  }

  get heldBytes(): number {
    return this.reader.buffered;
  }

  receive(bytes: Uint8Array, now: number): void {
    if (this.ended) return;
    this.reader.receive(bytes);
    for (let event = this.reader.next(); event && !this.ended; event = this.reader.next()) {
      if (event.type === 'error') {
        this.finish(event.reason, 'warn');
        return;
      }
      this.heartbeatDeadline = now + this.heartbeatTimeoutMs;
      if (event.type === 'skipped') this.skipped(event.header);
      else this.packet(event.header, event.payload, now);
    }
  }

  transportClosed(_now: number): void {
    const partial = this.reader.partial;
    if (partial && partial.headerBytes < PACKET_HEADER_BYTES) {
      this.finish(`the stream ended inside a packet header (${partial.headerBytes} of ${PACKET_HEADER_BYTES} bytes)`, 'warn');
    } else if (partial) {
      this.finish(`the stream ended inside a packet payload (${partial.payloadBytes} of ${partial.payloadSize} bytes)`, 'warn');
    } else {
      this.finish('the sender closed the mirroring connection', 'info');
    }
  }

  pollTimeout(): number | undefined {
    if (this.ended) return undefined;
    return Math.min(this.heartbeatDeadline, this.ntp.pollTimeout());
  }

  handleTimeout(now: number): void {
    if (this.ended) return;
    if (now >= this.heartbeatDeadline) {
      this.finish(`no packet from the sender for ${this.heartbeatTimeoutMs / 1000} s (limits.mirrorMissedHeartbeats ${this.context.limits.mirrorMissedHeartbeats}): the sender stalled`, 'warn');
      return;
    }
    this.ntp.handleTimeout(now);
    for (let request = this.ntp.pollTransmit(); request; request = this.ntp.pollTransmit()) {
      try {
        this.context.socket.send(request, this.senderAddress, NTP_SENDER_PORT);
      } catch (error) {
        // A lost request is like a lost datagram: the next one comes in 3 s.
        this.context.log('debug', `${this.peer} NTP request not sent: ${describeError(error)}`);
      }
    }
  }

  /** Ends the session (POST /stop, the screen taken, the receiver stopping). */
  end(reason: string): void {
    this.finish(reason, 'info');
  }

  private finish(reason: string, level: Ending): void {
    if (this.ended) return;
    this.ended = true;
    const { log, decoder, socket } = this.context;
    socket.onPacket = () => {};
    try {
      socket.close();
    } catch {
      // Already closed: nothing more to release.
    }
    decoder.reset();
    log(level, `${this.peer} mirroring session ${this.request.sessionId} ended: ${reason} (${this.videoPackets} video packets, ${this.configurations} codec configurations)`);
    this.context.onEnded(this, reason);
    this.onEnd(reason);
  }

  private skipped(header: PacketHeader): void {
    // spec 2.14 names three types; others are read past (newer senders send more).
    const first = !this.unknownTypes.has(header.payloadType);
    this.unknownTypes.add(header.payloadType);
    this.context.log(first ? 'info' : 'debug', `${this.peer} mirroring packet of unknown type ${header.payloadType} (${header.payloadSize} bytes) skipped`);
  }

  private packet(header: PacketHeader, payload: Uint8Array, now: number): void {
    switch (header.payloadType) {
      case PACKET_TYPE.codecData:
        this.codecData(payload);
        return;
      case PACKET_TYPE.video:
        this.video(header, payload, now);
        return;
      default:
        // A heartbeat: its arrival already moved the deadline.
        return;
    }
  }

  /** spec 2.14: avcC, at the start and whenever the video changes: the decoder is reconfigured on every change. */
  private codecData(payload: Uint8Array): void {
    if (this.avcC && equal(this.avcC, payload)) return;
    let avcC;
    try {
      avcC = parseAvcC(payload);
    } catch (error) {
      if (!(error instanceof AvcCError)) throw error;
      this.finish(`codec data is not a valid avcC record: ${error.message}`, 'warn');
      return;
    }
    this.avcC = payload;
    this.lengthSize = avcC.lengthSize;
    this.parameterSets = parameterSetsAnnexB(avcC);
    const codec = codecString(avcC);
    this.configurations++;
    this.context.log('info', `${this.peer} mirroring codec ${codec}, NAL length size ${avcC.lengthSize}, ${avcC.sps.length} SPS, ${avcC.pps.length} PPS`);
    this.context.decoder.configure({ codec, avcC: payload, parameterSets: this.parameterSets });
  }

  private video(header: PacketHeader, payload: Uint8Array, now: number): void {
    if (!this.avcC) {
      // Nothing to decode with yet; real senders send codec data first.
      if (this.videoBeforeCodecData++ === 0) this.context.log('warn', `${this.peer} mirroring video before any codec data: dropped until codec data comes`);
      return;
    }
    let unit;
    try {
      unit = this.context.nalKernel.toAnnexB(payload, this.lengthSize);
    } catch (error) {
      if (!(error instanceof NalError)) throw error;
      this.finish(`video packet ${this.videoPackets + 1} is malformed: ${error.message}`, 'warn');
      return;
    }
    this.videoPackets++;
    // Decoders that read a byte stream need the parameter sets before a key frame (VideoDecoder).
    const accessUnit = unit.keyFrame ? concat(this.parameterSets, unit.accessUnit) : unit.accessUnit;
    // spec 4.5: the header's timestamp is on the sender's clock; shown latencyMs later (2.13).
    const presentationTime = this.clock.toLocal(ntpMs(header.ntpSeconds, header.ntpFraction), now) + this.request.latencyMs;
    this.context.decoder.decode(accessUnit, presentationTime, unit.keyFrame);
  }

  private ntpAnswer(bytes: Uint8Array, address: string, port: number): void {
    if (this.ended) return;
    // Only the sender's clock counts (spec 4.5: its port 7010); anything else is not an answer.
    if (address !== this.senderAddress || port !== NTP_SENDER_PORT) {
      this.context.log('debug', `${this.peer} NTP: datagram from ${address}:${port} ignored (not the sender's ${NTP_SENDER_PORT})`);
      return;
    }
    const now = this.context.now();
    const sample = this.ntp.receive(bytes, now);
    if (typeof sample === 'string') {
      this.context.log('debug', `${this.peer} NTP: ${sample}`);
      return;
    }
    const best = this.ntp.filter.best()!;
    // The sender's clock against this receiver's wall clock too, for a person comparing clocks
    // (a sender that serves Unix time shows its drift there; offsets are against the monotonic clock).
    const { words } = againstWallClock(best.offset, now, this.context.wallTime());
    this.context.log('debug', `${this.peer} NTP offset ${sample.offset.toFixed(3)} ms, delay ${sample.delay.toFixed(3)} ms; clock offset in use ${best.offset.toFixed(3)} ms (${words})`);
    this.onWake();
  }
}
