// Time synchronisation for mirroring (spec 4.5): the NTP (RFC 5905) packet codec, the receiver's
// sans-I/O client (a request every 3 s, deadlines by pollTimeout/handleTimeout), the RFC 5905
// offset and delay, a filter over the samples, and the clock recovery that maps the sender's
// presentation timestamps (spec 2.14) to the receiver's monotonic clock. Also the server's
// answer, for the sender tool and tests.
//
// Timestamps are kept as milliseconds (a double: microsecond-exact for any NTP era). The
// sender's clock starts at the session start (spec 4.5 "reference date"), some real senders use
// the NTP era instead: the mapping works the same for both, since only differences matter.

/** RFC 5905 7.3: the packet is 48 bytes without extensions. */
export const NTP_PACKET_BYTES = 48;

/** spec 4.5: the sender serves its clock on 7010; the receiver asks from 7011. */
export const NTP_SENDER_PORT = 7010;
export const NTP_RECEIVER_PORT = 7011;

/** spec 4.5, 8: a request every 3 seconds. */
const NTP_INTERVAL_MS = 3000;

/** spec 4.5: version 4, mode client (LI 0, VN 4, mode 3), and the server's mode 4. */
const NTP_CLIENT_FIRST_BYTE = 0x23;
const NTP_SERVER_FIRST_BYTE = 0x24;

const MODE_SERVER = 4;
const TWO_32 = 2 ** 32;

/** Offsets of the fields RFC 5905 7.3 lays out. */
const FIELD = { stratum: 1, referenceId: 12, reference: 16, origin: 24, receive: 32, transmit: 40 } as const;

export function readTimestamp(packet: Uint8Array, at: number): number {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  return ntpMs(view.getUint32(at), view.getUint32(at + 4));
}

function writeTimestamp(packet: Uint8Array, at: number, ms: number): void {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const { seconds, fraction } = msToNtp(ms);
  view.setUint32(at, seconds);
  view.setUint32(at + 4, fraction);
}

/** An NTP 64-bit timestamp given as seconds and fraction (spec 2.14's packet header) in ms. */
export function ntpMs(seconds: number, fraction: number): number {
  return seconds * 1000 + (fraction * 1000) / TWO_32;
}

/** Milliseconds as NTP seconds and fraction, each a 32-bit unsigned field (the seconds wrap as the era does). */
export function msToNtp(ms: number): { readonly seconds: number; readonly fraction: number } {
  let seconds = Math.floor(ms / 1000);
  let fraction = Math.round(((ms - seconds * 1000) / 1000) * TWO_32);
  // A fraction that rounds up to a whole second carries into the seconds.
  if (fraction >= TWO_32) {
    fraction -= TWO_32;
    seconds++;
  }
  return { seconds: seconds >>> 0, fraction: fraction >>> 0 };
}

/** spec 4.5: the client's request: first byte 0x23, every field zero but the transmit timestamp. */
export function ntpRequest(transmitMs: number): Uint8Array {
  const packet = new Uint8Array(NTP_PACKET_BYTES);
  packet[0] = NTP_CLIENT_FIRST_BYTE;
  writeTimestamp(packet, FIELD.transmit, transmitMs);
  return packet;
}

/**
 * spec 4.5: the server's answer: first byte 0x24, stratum 1, a four-character reference id,
 * origin = the request's transmit timestamp (copied byte for byte, RFC 5905 8), receive and
 * transmit from the server's clock.
 */
export function ntpServerReply(request: Uint8Array, receiveMs: number, transmitMs: number, referenceId = 'LOCL'): Uint8Array {
  const packet = new Uint8Array(NTP_PACKET_BYTES);
  packet[0] = NTP_SERVER_FIRST_BYTE;
  packet[FIELD.stratum] = 1;
  for (let i = 0; i < 4; i++) packet[FIELD.referenceId + i] = referenceId.charCodeAt(i) & 0x7f;
  writeTimestamp(packet, FIELD.reference, receiveMs);
  packet.set(request.subarray(FIELD.transmit, FIELD.transmit + 8), FIELD.origin);
  writeTimestamp(packet, FIELD.receive, receiveMs);
  writeTimestamp(packet, FIELD.transmit, transmitMs);
  return packet;
}

/** Whether a datagram is a client request a server should answer. */
export function isNtpClientRequest(packet: Uint8Array): boolean {
  return packet.length >= NTP_PACKET_BYTES && (packet[0] & 0x07) === 3;
}

/** One exchange's result (RFC 5905 8): the sender's clock minus ours, and the round trip. */
interface NtpSample {
  /** theta: sender time = local time + offset (ms). */
  readonly offset: number;
  /** delta: the round-trip delay, the server's hold time taken out (ms). */
  readonly delay: number;
  /** Local time the answer arrived. */
  readonly at: number;
}

/** RFC 5905 8: offset ((T2 - T1) + (T3 - T4)) / 2 and delay (T4 - T1) - (T3 - T2). */
export function offsetAndDelay(t1: number, t2: number, t3: number, t4: number): { readonly offset: number; readonly delay: number } {
  return { offset: (t2 - t1 + (t3 - t4)) / 2, delay: t4 - t1 - (t3 - t2) };
}

/**
 * The clock filter (after RFC 5905 10, simplified): of the last `size` samples, the one with the
 * least delay says the offset best (queueing only ever adds delay, and adds error with it).
 */
class ClockFilter {
  private readonly samples: NtpSample[] = [];

  constructor(private readonly size = 8) {}

  add(sample: NtpSample): void {
    this.samples.push(sample);
    if (this.samples.length > this.size) this.samples.shift();
  }

  get count(): number {
    return this.samples.length;
  }

  /** The sample with the least delay, if any. */
  best(): NtpSample | undefined {
    let best: NtpSample | undefined;
    for (const sample of this.samples) if (!best || sample.delay < best.delay) best = sample;
    return best;
  }
}

interface NtpClientOptions {
  readonly intervalMs?: number;
  /** Samples the filter keeps. */
  readonly filterSize?: number;
}

/**
 * The receiver's NTP client, sans-I/O: `pollTimeout()` says when the next request is due,
 * `handleTimeout(now)` makes it, `pollTransmit()` hands it out (the owner sends it to the
 * sender's port 7010), `receive(bytes, now)` takes an answer. The first request goes at once.
 */
export class NtpClient {
  private nextAt: number;
  private readonly intervalMs: number;
  private pending: Uint8Array | undefined;
  /** The request waiting for its answer: its transmit timestamp's bytes and its local time. */
  private outstanding: { readonly transmit: Uint8Array; readonly sentAt: number } | undefined;
  readonly filter: ClockFilter;
  requestsSent = 0;

  constructor(now: number, options: NtpClientOptions = {}) {
    this.intervalMs = options.intervalMs ?? NTP_INTERVAL_MS;
    this.filter = new ClockFilter(options.filterSize ?? 8);
    this.nextAt = now;
  }

  pollTimeout(): number {
    return this.nextAt;
  }

  handleTimeout(now: number): void {
    if (now < this.nextAt) return;
    const request = ntpRequest(now);
    this.pending = request;
    this.outstanding = { transmit: request.slice(FIELD.transmit, FIELD.transmit + 8), sentAt: now };
    this.requestsSent++;
    // Every interval from the first request, not from a late timer: no drift in the schedule.
    this.nextAt += this.intervalMs;
    if (this.nextAt <= now) this.nextAt = now + this.intervalMs;
  }

  pollTransmit(): Uint8Array | undefined {
    const request = this.pending;
    this.pending = undefined;
    return request;
  }

  /**
   * Takes a datagram from the sender's port; returns the sample, or why the datagram was not
   * one (not a server answer, not to our outstanding request: RFC 5905 8's bogus checks).
   */
  receive(packet: Uint8Array, now: number): NtpSample | string {
    if (packet.length < NTP_PACKET_BYTES) return `${packet.length}-byte datagram, not an NTP packet (${NTP_PACKET_BYTES} bytes)`;
    if ((packet[0] & 0x07) !== MODE_SERVER) return `NTP mode ${packet[0] & 0x07}, not a server answer (4)`;
    if (packet[FIELD.stratum] === 0) return 'NTP kiss-o-death (stratum 0)';
    const outstanding = this.outstanding;
    if (!outstanding) return 'NTP answer with no request outstanding (a duplicate or a late one)';
    for (let i = 0; i < 8; i++) {
      if (packet[FIELD.origin + i] !== outstanding.transmit[i]) return 'NTP answer to another request (origin timestamp differs)';
    }
    this.outstanding = undefined;
    const t2 = readTimestamp(packet, FIELD.receive);
    const t3 = readTimestamp(packet, FIELD.transmit);
    const { offset, delay } = offsetAndDelay(outstanding.sentAt, t2, t3, now);
    if (delay < 0) return `NTP answer with a negative delay (${delay.toFixed(3)} ms): the server's timestamps are inconsistent`;
    const sample = { offset, delay, at: now };
    this.filter.add(sample);
    return sample;
  }
}

/**
 * Maps the sender's clock to the receiver's (spec 4.5 "clock recovery"): local = sender - offset,
 * with the filter's best offset. Before the first NTP answer, the first timestamp seen is taken
 * to be now (the best guess there is); the NTP offset replaces the guess once it comes.
 */
export class ClockRecovery {
  private guess: number | undefined;

  constructor(private readonly filter: ClockFilter) {}

  /** The offset in use (sender = local + offset), if any yet. */
  get offset(): number | undefined {
    return this.filter.best()?.offset ?? this.guess;
  }

  get synchronised(): boolean {
    return this.filter.count > 0;
  }

  /** Local monotonic ms of the sender's time `senderMs`, seen at local time `now`. */
  toLocal(senderMs: number, now: number): number {
    const best = this.filter.best();
    if (best) return senderMs - best.offset;
    if (this.guess === undefined) this.guess = senderMs - now;
    return senderMs - this.guess;
  }
}
