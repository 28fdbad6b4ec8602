// Messages from a byte stream (src/http/assembler.ts): whole, streamed or skipped bodies, the
// same result however the bytes are split, and the switch to a secure channel mid-stream.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, latin1Decode, latin1Encode } from '../../src/bytes';
import { BODY_PIECE_MIN_BYTES, BODY_STAGING_BYTES, BODY_WHOLE_SHARE, ChannelError, MessageAssembler, type AssembledEvent } from '../../src/http/assembler';
import type { SecureChannel } from '../../src/http/secure-channel';
import type { MessageHead } from '../../src/http/message';

/**
 * A toy channel with the SecureChannel contract: frames are a length byte and the plaintext XOR
 * 0x55; partial frames are kept; a frame of length 0xff fails "authentication".
 */
class XorChannel implements SecureChannel {
  private pending: Uint8Array = new Uint8Array(0);
  disposed = false;
  open(bytes: Uint8Array): Uint8Array[] {
    this.pending = concat(this.pending, bytes);
    const out: Uint8Array[] = [];
    while (this.pending.length > 0) {
      const length = this.pending[0];
      if (length === 0xff) throw new Error('frame 1 failed authentication');
      if (this.pending.length < 1 + length) break;
      out.push(this.pending.slice(1, 1 + length).map((byte) => byte ^ 0x55));
      this.pending = this.pending.subarray(1 + length);
    }
    return out;
  }
  seal(plaintext: Uint8Array): Uint8Array {
    const frames: Uint8Array[] = [];
    for (let at = 0; at < plaintext.length; at += 200) {
      const piece = plaintext.subarray(at, at + 200);
      frames.push(concat(Uint8Array.of(piece.length), piece.map((byte) => byte ^ 0x55)));
    }
    return concat(...frames);
  }
  dispose(): void {
    this.disposed = true;
  }
  get buffered(): number {
    return this.pending.length;
  }
}

const bytes = (text: string) => latin1Encode(text);

/**
 * The events of `assembler` as short strings, until it needs more bytes, or after the first
 * message when `untilMessage` (a connection that changes mode reads no further).
 */
function drain<H extends MessageHead>(assembler: { next(): AssembledEvent<H> | null }, onHead?: () => void, untilMessage = false): string[] {
  const events: string[] = [];
  for (let event = assembler.next(); event; event = untilMessage && event.type === 'message' ? null : assembler.next()) {
    if (event.type === 'head') {
      events.push('head');
      onHead?.();
    } else if (event.type === 'chunk') events.push(`chunk ${latin1Decode(event.data)}`);
    else if (event.type === 'message') events.push(`message ${latin1Decode(event.body)}`);
    else events.push(`error ${event.error.status}`);
  }
  return events;
}

const TWO_REQUESTS = 'PUT /photo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello' + 'POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n';

test('whole bodies, by length and chunked, are the same however the bytes are split', () => {
  const input = bytes(TWO_REQUESTS);
  for (const size of [1, 2, 7, input.length]) {
    const assembler = new MessageAssembler('request');
    const events: string[] = [];
    for (let at = 0; at < input.length; at += size) {
      assembler.receive(input.subarray(at, at + size));
      events.push(...drain(assembler));
    }
    assert.deepEqual(events, ['head', 'message hello', 'head', 'message abcde'], `pieces of ${size}`);
  }
});

test('a body of declared length holds what arrived, not the declared length: 16 MB declared, 10 bytes sent', () => {
  const assembler = new MessageAssembler('request', { maxBodyBytes: 32 * 1024 * 1024 });
  assembler.receive(bytes(`PUT /photo HTTP/1.1\r\nContent-Length: ${16 * 1024 * 1024}\r\n\r\n0123456789`));
  assert.equal(assembler.next()?.type, 'head');
  assert.equal(assembler.next(), null);
  assert.equal(assembler.bodyCapacity, BODY_STAGING_BYTES, 'one staging array, not 16 MB');
  assert.ok(assembler.bodyCapacity <= 16 * 1024);
});

/** An allocator that notes each length it is asked for (a host's, which need not zero-fill). */
function countingAllocator(): { allocate: (length: number) => Uint8Array; lengths: number[] } {
  const lengths: number[] = [];
  return { lengths, allocate: (length) => (lengths.push(length), new Uint8Array(length).fill(0xee)) };
}

test('a body of declared length holds what arrived (plus one staging array at most) until a quarter of it arrived, then its own array of that length and nothing else, however it is split', () => {
  const length = 300_001;
  const body = new Uint8Array(length).map((_, i) => (i * 7) & 0xff);
  for (const piece of [1, 1000, BODY_PIECE_MIN_BYTES, 65_536, 3000 + BODY_PIECE_MIN_BYTES]) {
    const { allocate, lengths } = countingAllocator();
    const assembler = new MessageAssembler('request', { maxBodyBytes: 1024 * 1024 }, undefined, allocate);
    assembler.receive(bytes(`PUT /photo HTTP/1.1\r\nContent-Length: ${length}\r\n\r\n`));
    assert.equal(assembler.next()?.type, 'head');
    let message: AssembledEvent<MessageHead> | null = null;
    // Pieces alternate small and large, to mix staged and kept bytes.
    for (let at = 0, turn = 0; at < length; turn++) {
      const size = turn % 3 === 2 ? 7 : piece;
      assembler.receive(body.slice(at, at + size));
      at = Math.min(length, at + size);
      message = assembler.next();
      if (message) break;
      const held = assembler.bodyCapacity;
      if (at * BODY_WHOLE_SHARE < length) assert.ok(held <= at + BODY_STAGING_BYTES, `pieces of ${piece}: ${held} held for ${at} arrived`);
      else assert.equal(held, length, `pieces of ${piece}: the body's own array alone once a quarter arrived (${at})`);
    }
    assert.ok(message?.type === 'message', `pieces of ${piece}`);
    assert.deepEqual(message.body, body, `pieces of ${piece}`);
    assert.equal(lengths.at(-1), length, `pieces of ${piece}: the body is one array of the allocator's`);
    assert.equal(message.body.buffer.byteLength, length, 'an array of its own (a picture keeps it without a copy)');
    assert.ok(lengths.slice(0, -1).every((staged) => staged <= BODY_STAGING_BYTES), `staging arrays only before it: ${lengths.join(' ')}`);
    assert.equal(assembler.bodyCapacity, 0, 'handed over');
  }
});

test('a small body is its own staging array: no second copy at the end', () => {
  const { allocate, lengths } = countingAllocator();
  const assembler = new MessageAssembler('request', {}, undefined, allocate);
  assembler.receive(bytes('PUT /x HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello'));
  assert.deepEqual(drain(assembler), ['head']);
  assembler.receive(bytes(' world'));
  const message = assembler.next();
  assert.ok(message?.type === 'message');
  assert.equal(latin1Decode(message.body), 'hello world');
  assert.deepEqual(lengths, [11], 'one array, the size of the body');
});

test('a streamed body comes as chunks and the message has an empty body; a skipped one not at all', () => {
  const streamed = new MessageAssembler('request');
  streamed.receive(bytes('PUT /photo HTTP/1.1\r\nContent-Length: 6\r\n\r\nabc'));
  assert.deepEqual(drain(streamed, () => streamed.readBody('stream')), ['head', 'chunk abc']);
  streamed.receive(bytes('def'));
  assert.deepEqual(drain(streamed), ['chunk def', 'message ']);

  const skipped = new MessageAssembler('request');
  skipped.receive(bytes(TWO_REQUESTS));
  let heads = 0;
  assert.deepEqual(
    drain(skipped, () => {
      if (heads++ === 0) skipped.readBody('skip');
    }),
    ['head', 'message ', 'head', 'message abcde'],
    'the next message reads whole again by default',
  );
});

test('the head being read is current between its head and message events', () => {
  const assembler = new MessageAssembler('request');
  assembler.receive(bytes('PUT /photo HTTP/1.1\r\nContent-Length: 2\r\n\r\na'));
  assert.equal(assembler.next()?.type, 'head');
  assert.equal(assembler.current?.target, '/photo');
  assert.equal(assembler.next(), null);
  assembler.receive(bytes('b'));
  assert.equal(assembler.next()?.type, 'message');
  assert.equal(assembler.current, undefined);
});

test('a body over the reader\'s limit is an error event (413)', () => {
  const assembler = new MessageAssembler('request');
  assembler.receive(bytes('PUT /photo HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world'));
  assert.deepEqual(drain(assembler, () => assembler.readBody('whole', 10)), ['head', 'error 413']);
  assert.equal(assembler.current, undefined);
});

test('a response reader: a body to EOF ends with the connection; a HEAD response has none', () => {
  const toEof = new MessageAssembler('response');
  toEof.receive(bytes('HTTP/1.0 200 OK\r\n\r\npicture'));
  assert.deepEqual(drain(toEof), ['head']);
  toEof.receiveEnd();
  assert.deepEqual(drain(toEof), ['message picture']);

  const head = new MessageAssembler('response');
  head.expectResponseTo('HEAD');
  head.receive(bytes('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'));
  assert.deepEqual(drain(head), ['head', 'message ']);
});

test('encrypt: bytes pipelined after the key exchange are ciphertext and go through the channel', () => {
  const channel = new XorChannel();
  const assembler = new MessageAssembler('request');
  const second = channel.seal(bytes('GET /info HTTP/1.1\r\n\r\n'));
  assembler.receive(concat(bytes('POST /pair-verify HTTP/1.1\r\nContent-Length: 1\r\n\r\nx'), second.subarray(0, 5)));
  assert.deepEqual(drain(assembler, undefined, true), ['head', 'message x']);
  assert.equal(assembler.encrypted, false);
  assembler.encrypt(channel);
  assert.equal(assembler.encrypted, true);
  assert.equal(assembler.secureChannel, channel);
  assert.equal(assembler.buffered, 5, 'a partial frame, held by the channel');
  assembler.receive(second.subarray(5));
  assert.deepEqual(drain(assembler), ['head', 'message ']);
  assert.deepEqual(assembler.seal(bytes('ok')), channel.seal(bytes('ok')));
});

test('a frame that fails authentication is a ChannelError with the channel\'s reason', () => {
  const assembler = new MessageAssembler('request', {}, new XorChannel());
  assert.throws(() => assembler.receive(Uint8Array.of(0xff, 1, 2)), (error: unknown) => error instanceof ChannelError && error.message === 'frame 1 failed authentication');
});

test('without a channel, seal hands bytes through unchanged', () => {
  const plain = bytes('HTTP/1.1 200 OK\r\n\r\n');
  assert.equal(new MessageAssembler('response').seal(plain), plain);
});

test('takeRemaining hands over the plaintext not parsed, for the protocol that takes over', () => {
  const assembler = new MessageAssembler('request');
  assembler.receive(bytes('POST /stream HTTP/1.1\r\nContent-Length: 0\r\n\r\n\x00\x01packets'));
  assert.deepEqual(drain(assembler, undefined, true), ['head', 'message ']);
  assert.equal(latin1Decode(assembler.takeRemaining()), '\x00\x01packets');
});

test('receivePlaintext skips the channel; empty input is ignored; dispose wipes the channel', () => {
  const channel = new XorChannel();
  const assembler = new MessageAssembler('request', {}, channel);
  assembler.receive(new Uint8Array(0));
  assembler.receivePlaintext(bytes('GET /info HTTP/1.1\r\n\r\n'));
  assert.deepEqual(drain(assembler), ['head', 'message ']);
  assembler.dispose();
  assert.equal(channel.disposed, true);
});

test('a head the parser refuses is an error event with its status, and the message is dropped', () => {
  const assembler = new MessageAssembler('request');
  assembler.receive(bytes('GET /info HTTP/9.9\r\n\r\n'));
  const event = assembler.next();
  assert.equal(event?.type === 'error' && event.error.status, 505);
  assert.equal(event?.type === 'error' && event.error.fatal, true);
  assert.equal(assembler.current, undefined);
});
