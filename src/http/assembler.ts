// Messages from a byte stream: the one owner of the loop that turns parser events into whole
// requests or responses, for the receiver's connections, its reverse connections and the sender
// tool alike. It also carries the connection's secure channel (spec 5.4), so a switch to
// encryption or to another protocol happens in one place (`encrypt`, `takeRemaining`).
//
//   bytes -> [SecureChannel.open] -> MessageParser -> head, then a body as the reader chose:
//     'whole'   collected up to a limit (grown as it arrives when Content-Length is known) -> message
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
 * The first buffer of a body whose Content-Length is known: that length when smaller, else this,
 * doubled as bytes arrive (capped at the length, so the last buffer is the body itself, no copy
 * at the end). Not the whole length at the first byte: a head that declares 16 MB and sends 10
 * bytes held 16 MB (2 GB of address space for 128 such connections). Measured on Node, 64 KB
 * pieces, per body (noisy shared machine): 1 MB 0.8-0.9 ms whole at once, 1.8-2.0 ms doubled,
 * 0.2-0.4 ms kept as pieces and joined at the end; 4 MB 2.6-3.2 / 2.2-3.3 / 2.6-5.4 ms; 16 MB
 * 6.3-15 / 8.6-9.0 / 7.6-10.9 ms. Doubling costs about what one buffer does and holds at most
 * twice what arrived, with no object per piece (a peer sending its body a few bytes at a time
 * would make pieces cost more than their bytes) and no second buffer at the end.
 */
export const BODY_FIRST_CAPACITY = 64 * 1024;

export class MessageAssembler<K extends MessageKind> {
  private parser: MessageParser<K>;
  private channel: SecureChannel | undefined;
  /** A channel waiting for the peer's first bytes to say whether it encrypts (encrypt's `unlessPlaintext`). */
  private pending: { readonly channel: SecureChannel; readonly onPlaintext: () => void; held: Uint8Array } | undefined;
  private head: MessageHeadOf<K> | undefined;
  private mode: BodyMode = 'whole';
  /** Whole body with a known length: filled in place, grown as it arrives (bodyCapacity). */
  private body: Uint8Array | undefined;
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(
    readonly kind: K,
    private readonly limits: Partial<HttpLimits> = {},
    channel?: SecureChannel,
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
   * Bytes set aside for the body being collected whole: the buffer it is filled into (at most
   * twice what arrived, or BODY_FIRST_CAPACITY), or the pieces of a chunked body.
   */
  get bodyCapacity(): number {
    return this.body ? this.body.length : this.chunks.length > 0 ? this.size : 0;
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
          this.body = undefined;
          this.chunks = [];
          this.size = 0;
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
          this.body = undefined;
          this.chunks = [];
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
    this.body = undefined;
    this.chunks = [];
  }

  private collect(data: Uint8Array): void {
    const length = this.head?.contentLength;
    if (length !== undefined) {
      // The parser has checked Content-Length against the limit before the first piece.
      this.body = grown(this.body, this.size, this.size + data.length, length);
      this.body.set(data, this.size);
    } else {
      // Chunked: pieces are views of received bytes, joined at the end.
      this.chunks.push(data);
    }
    this.size += data.length;
  }

  private takeBody(): Uint8Array {
    if (this.body) {
      const body = this.body;
      this.body = undefined;
      // Grown up to the Content-Length it ends at, so the buffer is the body; a copy otherwise.
      return body.length === this.size ? body : body.slice(0, this.size);
    }
    if (this.chunks.length === 0) return EMPTY;
    if (this.chunks.length === 1) {
      const only = this.chunks[0].slice();
      this.chunks = [];
      return only;
    }
    const body = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      body.set(chunk, offset);
      offset += chunk.length;
    }
    this.chunks = [];
    return body;
  }
}

/** `body` (holding `size` bytes), or a larger buffer with them, able to take `needed` of at most `length` bytes. */
function grown(body: Uint8Array | undefined, size: number, needed: number, length: number): Uint8Array {
  if (body && body.length >= needed) return body;
  const capacity = Math.min(length, Math.max(needed, body ? body.length * 2 : BODY_FIRST_CAPACITY));
  const next = new Uint8Array(capacity);
  if (body) next.set(body.subarray(0, size));
  return next;
}
