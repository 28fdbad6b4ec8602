// Messages from a byte stream: the one owner of the loop that turns parser events into whole
// requests or responses, for the receiver's connections, its reverse connections and the sender
// tool alike. It also carries the connection's secure channel (spec 5.4), so a switch to
// encryption or to another protocol happens in one place (`encrypt`, `takeRemaining`).
//
//   bytes -> [SecureChannel.open] -> MessageParser -> head, then a body as the reader chose:
//     'whole'   collected up to a limit (its pieces kept as they arrive, joined once) -> message
//     'stream'  handed out piece by piece as `chunk` events (photos on boards, mirroring)
//     'skip'    read past and dropped (a refused request's body)

import type { HttpLimits } from './limits';
import type { MessageHeadOf, MessageKind } from './message';
import { MessageParser, type ErrorEvent } from './parser';
import type { SecureChannel } from './secure-channel';
import { describeError } from '../errors';
import { concat } from '../bytes';

export type BodyMode = 'whole' | 'stream' | 'skip';

export type AssembledEvent<H> =
  /** A head: the reader may call `readBody` before the next `next()` (default: whole). */
  | { readonly type: 'head'; readonly head: H }
  /** A piece of a streamed body, a view valid until the next receive(). */
  | { readonly type: 'chunk'; readonly data: Uint8Array }
  /** The message is complete; `body` is empty unless the body was read whole. */
  | { readonly type: 'message'; readonly head: H; readonly body: Uint8Array }
  /** The parser rejected the input (see ErrorEvent: fatal means answer, then close). */
  | { readonly type: 'error'; readonly error: ErrorEvent };

/** A frame failed authentication or the channel broke: the connection must close (spec 5.4). */
export class ChannelError extends Error {
  override name = 'ChannelError';
}

const EMPTY = new Uint8Array(0);

/**
 * Makes a new array of `length` bytes that the caller overwrites entirely before reading it, so
 * it need not be zero-filled (a host may hand memory it does not clear). It must be the whole of its
 * buffer (byteOffset 0, byteLength `length`): a picture keeps it as it is, without a copy.
 */
export type ByteAllocator = (length: number) => Uint8Array;

/** The portable allocator: a zero-filled array (what ECMAScript offers; XS hosts use it). */
export const zeroedBytes: ByteAllocator = (length) => new Uint8Array(length);

/**
 * A body read whole arrives in pieces, views of the bytes the host received: a piece of at least
 * this many bytes is kept as it is until the body has an array of its own (a declared length, a
 * quarter of it arrived: BODY_WHOLE_SHARE) or ends (then joined once), so each byte is copied
 * once; growing one buffer by doubling as the bytes came copied and zero-filled each byte about
 * twice. Smaller pieces are copied into a staging array (BODY_STAGING_BYTES), so a peer that sends
 * its body a few bytes at a time costs no object per piece. What is held is what arrived plus at
 * most one staging array until then: a head that declares 16 MB and sends 10 bytes holds the
 * staging array, not 16 MB.
 */
export const BODY_PIECE_MIN_BYTES = 4 * 1024;
/** The staging array for small pieces (or the body's length, when smaller: then it is the body, no copy at the end). */
export const BODY_STAGING_BYTES = 16 * 1024;
/**
 * A body of declared length gets its own array of that length once this share of it has
 * arrived (1/4): the pieces so far are copied in and the rest is written straight into it, so
 * the body is held once plus at most a quarter, never twice (pieces and their join side by
 * side: on a board's fixed heap a 2 MB photo then needed 4 MB and the app aborted). A peer must
 * send a quarter of what it declares before the whole length is set aside.
 */
export const BODY_WHOLE_SHARE = 4;

export class MessageAssembler<K extends MessageKind> {
  private parser: MessageParser<K>;
  private channel: SecureChannel | undefined;
  /** A channel waiting for the peer's first bytes to say whether it encrypts (encrypt's `unlessPlaintext`). */
  private pending: { readonly channel: SecureChannel; readonly onPlaintext: () => void; held: Uint8Array } | undefined;
  private head: MessageHeadOf<K> | undefined;
  private mode: BodyMode = 'whole';
  /** The body read whole so far, in order: views of received bytes, and filled parts of staging arrays. */
  private pieces: Uint8Array[] = [];
  private size = 0;
  /** The staging array small pieces are copied into; bytes [stagedFrom, stagedTo) are not in `pieces` yet. */
  private staging: Uint8Array | undefined;
  private stagedFrom = 0;
  private stagedTo = 0;
  /** Bytes the body holds: the pieces kept as views, and every staging array (bodyCapacity). */
  private held = 0;
  /** The body's own array of its declared length, once BODY_WHOLE_SHARE of it arrived; the first `size` bytes are filled. */
  private whole: Uint8Array | undefined;

  constructor(
    readonly kind: K,
    private readonly limits: Partial<HttpLimits> = {},
    channel?: SecureChannel,
    /** Where a body read whole is joined (and staged): a host may hand one that does not zero-fill. */
    private readonly allocate: ByteAllocator = zeroedBytes,
  ) {
    this.parser = new MessageParser(kind, limits);
    this.channel = channel;
  }

  /** True once the connection is encrypted. */
  get encrypted(): boolean {
    return this.channel !== undefined;
  }

  /** Bytes held and not yet handed out: unparsed input, partial frames, a body being collected. */
  get buffered(): number {
    return this.parser.buffered + (this.channel?.buffered ?? 0);
  }

  /**
   * Bytes set aside for the body being collected whole: the pieces kept and the staging array
   * (what arrived, plus at most BODY_STAGING_BYTES).
   */
  get bodyCapacity(): number {
    return this.held;
  }

  /** Bytes of an over-limit body the parser still drops after a non-fatal 413 (MessageParser.discarding). */
  get discarding(): number {
    return this.parser.discarding;
  }

  /** The head of the message being read, between its `head` and `message` events. */
  get current(): MessageHeadOf<K> | undefined {
    return this.head;
  }

  /** Adds bytes from the connection; throws ChannelError when an encrypted frame is bad. */
  receive(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.pending) {
      this.decide(bytes);
      return;
    }
    if (!this.channel) {
      this.parser.receive(bytes);
      return;
    }
    let plaintexts: Uint8Array[];
    try {
      plaintexts = this.channel.open(bytes);
    } catch (error) {
      throw new ChannelError(describeError(error));
    }
    for (const plaintext of plaintexts) if (plaintext.length > 0) this.parser.receive(plaintext);
  }

  /** Adds bytes already decrypted (what another mode's parser had not consumed). */
  receivePlaintext(bytes: Uint8Array): void {
    if (bytes.length > 0) this.parser.receive(bytes);
  }

  /** The peer closed its side: a body that runs to EOF ends, anything else incomplete is lost. */
  receiveEnd(): void {
    this.parser.receiveEnd();
  }

  /** For a response reader: the next request on this connection is `method` (HEAD has no body). */
  expectResponseTo(method: string): void {
    this.parser.expectResponseTo(method);
  }

  /**
   * How to read the body of the head just returned: whole up to `limit` bytes (413 over it),
   * streamed as chunks, or skipped. Call between the `head` event and the next `next()`.
   */
  readBody(mode: BodyMode, limit?: number): void {
    this.mode = mode;
    if (limit !== undefined) this.parser.setBodyLimit(limit);
  }

  /** The next assembled event, or null when more bytes are needed. */
  next(): AssembledEvent<MessageHeadOf<K>> | null {
    for (;;) {
      const event = this.parser.next();
      if (!event) return null;
      switch (event.type) {
        case 'head':
          this.head = event.head;
          this.mode = 'whole';
          this.dropBody();
          return event;
        case 'body':
          if (this.mode === 'stream') return { type: 'chunk', data: event.data };
          if (this.mode === 'whole') this.collect(event.data);
          break;
        case 'end': {
          const head = this.head;
          if (!head) continue;
          const body = this.mode === 'whole' ? this.takeBody() : EMPTY;
          this.head = undefined;
          return { type: 'message', head, body };
        }
        case 'error':
          this.head = undefined;
          this.dropBody();
          return { type: 'error', error: event };
      }
    }
  }

  /**
   * Encrypts the connection from here on (spec 5.4). Bytes the peer pipelined after the message
   * that established the keys are already ciphertext: they leave the parser and go through the
   * channel into a fresh one. With `unlessPlaintext`, the peer may go on in the clear instead
   * (see decide): then the channel is dropped and `unlessPlaintext` called.
   */
  encrypt(channel: SecureChannel, unlessPlaintext?: () => void): void {
    const pipelined = this.parser.takeRemaining();
    this.parser = new MessageParser(this.kind, this.limits);
    if (unlessPlaintext) this.pending = { channel, onPlaintext: unlessPlaintext, held: EMPTY };
    else this.channel = channel;
    this.receive(pipelined);
  }

  /**
   * encrypt() with `unlessPlaintext`: the peer's first two bytes say whether it encrypts. A frame
   * starts with its length (little-endian, at most 1024: the second byte is 0 to 4); a request
   * starts with its method, two letters (0x41 and up). Plaintext: the channel is dropped and
   * `onPlaintext` told; otherwise everything goes through the channel, as encrypt() does.
   */
  private decide(bytes: Uint8Array): void {
    const pending = this.pending!;
    const held = pending.held.length === 0 ? bytes : concat(pending.held, bytes);
    if (held.length < 2) {
      pending.held = held;
      return;
    }
    this.pending = undefined;
    if (held[1] >= 0x41) pending.onPlaintext();
    else this.channel = pending.channel;
    this.receive(held);
  }

  /** Frames outgoing bytes when the connection is encrypted. */
  seal(bytes: Uint8Array): Uint8Array {
    return this.channel ? this.channel.seal(bytes) : bytes;
  }

  /**
   * The plaintext not yet parsed, for the protocol that takes over the connection (after a 101,
   * or POST /stream); the assembler reads nothing more. The channel stays, for `seal`/`open`.
   */
  takeRemaining(): Uint8Array {
    return this.parser.takeRemaining();
  }

  /** The channel, for the protocol that takes over an encrypted connection. */
  get secureChannel(): SecureChannel | undefined {
    return this.channel;
  }

  /** Wipes the channel's keys (the connection has closed). */
  dispose(): void {
    this.channel?.dispose();
    this.dropBody();
  }

  private collect(data: Uint8Array): void {
    const count = data.length;
    if (this.whole) {
      this.whole.set(data, this.size);
      this.size += count;
      return;
    }
    const length = this.head?.contentLength;
    if (length !== undefined && length > BODY_STAGING_BYTES && (this.size + count) * BODY_WHOLE_SHARE >= length) {
      this.startWhole(length);
      this.whole!.set(data, this.size);
      this.size += count;
      return;
    }
    if (count >= BODY_PIECE_MIN_BYTES) {
      this.unstage();
      this.pieces.push(data);
      this.held += count;
    } else {
      // What fits goes into the staging array; the rest starts the next (each one filled whole).
      let staging = this.staging;
      let copied = 0;
      if (staging && this.stagedTo < staging.length) {
        copied = Math.min(count, staging.length - this.stagedTo);
        staging.set(copied === count ? data : data.subarray(0, copied), this.stagedTo);
        this.stagedTo += copied;
      }
      if (copied < count) {
        this.unstage();
        // The parser has checked a Content-Length against the limit before the first piece.
        const length = this.head?.contentLength;
        const left = (length === undefined ? BODY_STAGING_BYTES : length - this.size) - copied;
        staging = this.allocate(Math.max(count - copied, Math.min(BODY_STAGING_BYTES, left)));
        this.staging = staging;
        this.held += staging.length;
        staging.set(data.subarray(copied), 0);
        this.stagedFrom = 0;
        this.stagedTo = count - copied;
      }
    }
    this.size += count;
  }

  /** The body's own array of its declared `length`, with what arrived so far copied in; the pieces go. */
  private startWhole(length: number): void {
    this.unstage();
    const whole = this.allocate(length);
    let offset = 0;
    for (const piece of this.pieces) {
      whole.set(piece, offset);
      offset += piece.length;
    }
    this.pieces = [];
    this.staging = undefined;
    this.stagedFrom = 0;
    this.stagedTo = 0;
    this.whole = whole;
    this.held = length;
  }

  /** The staged bytes join the pieces (the staging array's rest stays for the next small ones). */
  private unstage(): void {
    if (!this.staging || this.stagedTo === this.stagedFrom) return;
    this.pieces.push(this.staging.subarray(this.stagedFrom, this.stagedTo));
    this.stagedFrom = this.stagedTo;
  }

  private takeBody(): Uint8Array {
    this.unstage();
    const { pieces, size, whole } = this;
    const staging = this.staging;
    this.dropBody();
    if (whole) return size === whole.length ? whole : whole.subarray(0, size);
    if (size === 0) return EMPTY;
    // A body that fitted its own staging array is that array.
    const only = pieces.length === 1 ? pieces[0] : undefined;
    if (only && only.buffer === staging?.buffer && only.byteOffset === 0 && only.length === staging.length) return staging;
    const body = this.allocate(size);
    let offset = 0;
    for (const piece of pieces) {
      body.set(piece, offset);
      offset += piece.length;
    }
    return body;
  }

  private dropBody(): void {
    this.whole = undefined;
    // A new array only when there is something to drop: most messages have no body, and this
    // runs twice for each (its head and its end). takeBody keeps the old array it read.
    if (this.pieces.length > 0) this.pieces = [];
    this.size = 0;
    this.staging = undefined;
    this.stagedFrom = 0;
    this.stagedTo = 0;
    this.held = 0;
  }
}
