// Mirroring stream packets (spec 2.14): a 128-byte little-endian header (only the first 64 bytes
// used), then the payload. The header's writer (the sender tool, tests) and the incremental
// reader (the receiver's `stream` mode), read like src/http/parser.ts: bytes in, `next()` out,
// the same packets however the bytes are split, and bounded memory: the reader holds at most
// one packet, and reads nothing more until that packet has been taken.

/** spec 8: the sender sends a heartbeat packet every second. */
export const HEARTBEAT_INTERVAL_MS = 1000;

/** spec 2.14: every packet starts with 128 header bytes. */
export const PACKET_HEADER_BYTES = 128;

/** spec 2.14: the payload types. */
export const PACKET_TYPE = {
  video: 0,
  codecData: 1,
  heartbeat: 2,
} as const;

/** spec 2.14: the 2 bytes after the type are 0x1e for a heartbeat, otherwise 6. */
function packetOption(type: number): number {
  return type === PACKET_TYPE.heartbeat ? 0x1e : 6;
}

export interface PacketHeader {
  readonly payloadSize: number;
  readonly payloadType: number;
  /** The 2 bytes after the type (spec 2.14: 0x1e for heartbeats, 6 otherwise); read, not checked. */
  readonly option: number;
  /**
   * The NTP timestamp (spec 2.14, 4.5) as seconds and 2^-32 fractions: the 8 little-endian
   * bytes are one 64-bit number, seconds in its high half. The video packet's presentation time.
   */
  readonly ntpSeconds: number;
  readonly ntpFraction: number;
}

/** The header's fields; the rest of the 128 bytes stays zero. */
export function writePacketHeader(header: PacketHeader, into = new Uint8Array(PACKET_HEADER_BYTES)): Uint8Array {
  const view = new DataView(into.buffer, into.byteOffset, PACKET_HEADER_BYTES);
  view.setUint32(0, header.payloadSize, true);
  view.setUint16(4, header.payloadType, true);
  view.setUint16(6, header.option, true);
  view.setUint32(8, header.ntpFraction >>> 0, true);
  view.setUint32(12, header.ntpSeconds >>> 0, true);
  return into;
}

export function readPacketHeader(bytes: Uint8Array): PacketHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, PACKET_HEADER_BYTES);
  return {
    payloadSize: view.getUint32(0, true),
    payloadType: view.getUint16(4, true),
    option: view.getUint16(6, true),
    ntpFraction: view.getUint32(8, true),
    ntpSeconds: view.getUint32(12, true),
  };
}

/** A whole packet (header and payload), for senders and tests. */
export function writePacket(type: number, payload: Uint8Array, ntpSeconds = 0, ntpFraction = 0): Uint8Array {
  const packet = new Uint8Array(PACKET_HEADER_BYTES + payload.length);
  writePacketHeader({ payloadSize: payload.length, payloadType: type, option: packetOption(type), ntpSeconds, ntpFraction }, packet);
  packet.set(payload, PACKET_HEADER_BYTES);
  return packet;
}

export type PacketEvent =
  /** A packet of a known type with its payload (owned by the taker: a fresh array). */
  | { readonly type: 'packet'; readonly header: PacketHeader; readonly payload: Uint8Array }
  /** A packet of a type this reader does not know: its payload was read past, not kept. */
  | { readonly type: 'skipped'; readonly header: PacketHeader }
  /** The stream cannot go on (a payload over the limit); the reader reads nothing more. */
  | { readonly type: 'error'; readonly reason: string };

interface PacketReaderOptions {
  /** Largest payload taken (bigger: an error, nothing allocated). */
  readonly maxPayloadBytes: number;
  /** Payload types whose payloads are kept; others are skipped. */
  readonly knownTypes?: readonly number[];
}

const KNOWN_TYPES: readonly number[] = [PACKET_TYPE.video, PACKET_TYPE.codecData, PACKET_TYPE.heartbeat];

export class PacketReader {
  private readonly header = new Uint8Array(PACKET_HEADER_BYTES);
  private headerFill = 0;
  private current: PacketHeader | undefined;
  /** The payload being filled, or undefined while skipping one. */
  private payload: Uint8Array | undefined;
  private payloadFill = 0;
  /** Input not yet consumed (the reader copies from it into the header and payload). */
  private readonly input: Uint8Array[] = [];
  private inputBytes = 0;
  private failed: string | undefined;
  private readonly knownTypes: readonly number[];
  /** Packets read in whole since the start. */
  packets = 0;

  constructor(private readonly options: PacketReaderOptions) {
    this.knownTypes = options.knownTypes ?? KNOWN_TYPES;
  }

  /** Bytes held and not yet handed out: input not consumed and a partial packet. */
  get buffered(): number {
    return this.inputBytes + this.headerFill + this.payloadFill;
  }

  /**
   * How far the packet being read got (headerBytes < 128: inside its header), or undefined
   * between packets: for a clear message when the stream ends inside one.
   */
  get partial(): { readonly headerBytes: number; readonly payloadBytes: number; readonly payloadSize: number } | undefined {
    if (this.headerFill === 0 && this.current === undefined && this.inputBytes === 0) return undefined;
    if (this.current) return { headerBytes: PACKET_HEADER_BYTES, payloadBytes: this.payloadFill, payloadSize: this.current.payloadSize };
    return { headerBytes: this.headerFill + this.inputBytes, payloadBytes: 0, payloadSize: 0 };
  }

  receive(bytes: Uint8Array): void {
    if (this.failed !== undefined || bytes.length === 0) return;
    this.input.push(bytes);
    this.inputBytes += bytes.length;
  }

  /** The next event, or undefined when more bytes are needed. */
  next(): PacketEvent | undefined {
    if (this.failed !== undefined) return undefined;
    for (;;) {
      if (!this.current) {
        this.headerFill += this.take(this.header, this.headerFill, PACKET_HEADER_BYTES - this.headerFill);
        if (this.headerFill < PACKET_HEADER_BYTES) return undefined;
        const header = readPacketHeader(this.header);
        if (header.payloadSize > this.options.maxPayloadBytes) {
          this.failed = `packet ${this.packets + 1} (type ${header.payloadType}) announces a ${header.payloadSize}-byte payload; the limit is ${this.options.maxPayloadBytes} (limits.maxMirrorPayloadBytes)`;
          this.input.length = 0;
          this.inputBytes = 0;
          return { type: 'error', reason: this.failed };
        }
        this.current = header;
        this.payload = this.knownTypes.includes(header.payloadType) ? new Uint8Array(header.payloadSize) : undefined;
        this.payloadFill = 0;
      }
      const header = this.current;
      const wanted = header.payloadSize - this.payloadFill;
      this.payloadFill += this.payload ? this.take(this.payload, this.payloadFill, wanted) : this.drop(wanted);
      if (this.payloadFill < header.payloadSize) return undefined;
      const payload = this.payload;
      this.current = undefined;
      this.payload = undefined;
      this.headerFill = 0;
      this.payloadFill = 0;
      this.packets++;
      return payload ? { type: 'packet', header, payload } : { type: 'skipped', header };
    }
  }

  /** Copies up to `count` input bytes into `target` at `at`; returns how many. */
  private take(target: Uint8Array, at: number, count: number): number {
    let copied = 0;
    while (copied < count && this.input.length > 0) {
      const chunk = this.input[0];
      const n = Math.min(count - copied, chunk.length);
      target.set(n === chunk.length ? chunk : chunk.subarray(0, n), at + copied);
      copied += n;
      this.consume(n);
    }
    return copied;
  }

  /** Reads past up to `count` input bytes; returns how many. */
  private drop(count: number): number {
    let dropped = 0;
    while (dropped < count && this.input.length > 0) {
      const n = Math.min(count - dropped, this.input[0].length);
      dropped += n;
      this.consume(n);
    }
    return dropped;
  }

  private consume(n: number): void {
    const chunk = this.input[0];
    this.inputBytes -= n;
    if (n === chunk.length) this.input.shift();
    else this.input[0] = chunk.subarray(n);
  }
}
