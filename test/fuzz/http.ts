// Fuzz campaigns of the HTTP/RTSP layer: the request and response parser (src/http/parser.ts)
// and the message assembler (src/http/assembler.ts) in the clear and behind a secure channel.
// Portable: ECMAScript only.
//
// The parser has no error type of its own: bad input is an `error` event, so any exception is a
// crash. Beyond "no exception", the campaigns check what the parser promises: the same events
// however the bytes are split, nothing after a fatal error, a bounded number of events, and a
// bounded amount held.

import { concat } from '../../src/bytes';
import { ChannelError, MessageAssembler, type BodyMode } from '../../src/http/assembler';
import type { MessageKind, RequestHead, ResponseHead } from '../../src/http/message';
import { MessageParser } from '../../src/http/parser';
import { ControlChannel } from '../../src/pairing/channel';
import type { Rng } from '../support/arbitrary';
import { FuzzFailure, type Campaign } from './engine';
import { HTTP_TOKENS, requestStream, responseBytes } from './http-shapes';
import { mutate, randomSplit } from './mutate';

/** Limits small enough that mutations reach them. */
const FUZZ_LIMITS = { maxHeadBytes: 2048, maxHeaderCount: 16, maxTargetLength: 512, maxBodyBytes: 4096, maxDiscardBytes: 8192, maxChunkLineBytes: 64, maxTrailerBytes: 512 };

interface ParserInput {
  readonly bytes: Uint8Array;
  readonly pieces: Uint8Array[];
  readonly eof: boolean;
  /** Body limit set at each head (undefined: the default). */
  readonly bodyLimit: number | undefined;
  /** Methods the responses answer (response parser). */
  readonly expect: string[];
}

function describeHead(head: RequestHead | ResponseHead): string {
  const start = head.kind === 'request' ? `${head.method} ${head.target}` : `${head.status} ${head.reason}`;
  return `head ${start} ${head.protocol}/${head.version} ${JSON.stringify([...head.headers.entries()])} ${head.framing} ${head.contentLength} ${head.keepAlive}`;
}

/** Runs the parser over `pieces`; returns its events as comparable text (bodies joined). */
function parseEvents(kind: MessageKind, input: ParserInput, pieces: readonly Uint8Array[]): string[] {
  const parser = new MessageParser(kind, FUZZ_LIMITS);
  for (const method of input.expect) parser.expectResponseTo(method);
  const events: string[] = [];
  let body: Uint8Array[] = [];
  let fatal = false;
  /** After a 101 the bytes belong to another protocol: the parser keeps them for takeRemaining. */
  let switched = false;
  let count = 0;
  const bound = input.bytes.length * 2 + 64;
  const flushBody = (): void => {
    if (body.length > 0) events.push(`body ${concat(...body).join(',')}`);
    body = [];
  };
  const drain = (): void => {
    for (let event = parser.next(); event; event = parser.next()) {
      if (fatal) throw new FuzzFailure(`parser returned ${event.type} after a fatal error`);
      if (++count > bound) throw new FuzzFailure(`parser returned more than ${bound} events for ${input.bytes.length} bytes`);
      if (event.type === 'body') {
        if (event.data.length === 0) throw new FuzzFailure('empty body event');
        body.push(event.data.slice());
        continue;
      }
      flushBody();
      if (event.type === 'head') {
        events.push(describeHead(event.head));
        if (event.head.kind === 'response' && event.head.status === 101) switched = true;
        if (input.bodyLimit !== undefined) parser.setBodyLimit(input.bodyLimit);
      } else if (event.type === 'end') events.push('end');
      else {
        if (!(event.status >= 400 && event.status <= 505)) throw new FuzzFailure(`error status ${event.status}`);
        if (typeof event.reason !== 'string' || event.reason.length === 0) throw new FuzzFailure('error without a reason');
        events.push(`error ${event.status} ${event.fatal}`);
        fatal = event.fatal;
      }
    }
  };
  let largest = 0;
  for (const piece of pieces) {
    parser.receive(piece);
    largest = Math.max(largest, piece.length);
    drain();
    // Everything before an incomplete head, chunk line or trailer is parsed: what is held is at
    // most one such section plus the piece that has not completed it.
    const bound = FUZZ_LIMITS.maxHeadBytes + FUZZ_LIMITS.maxTrailerBytes + largest + 4;
    if (!fatal && !switched && parser.buffered > bound) throw new FuzzFailure(`parser holds ${parser.buffered} bytes (bound ${bound})`);
  }
  if (input.eof) {
    parser.receiveEnd();
    drain();
  }
  flushBody();
  return events;
}

function parserCampaign(kind: MessageKind): Campaign<ParserInput> {
  return {
    name: `http-${kind}-parser`,
    expected: () => false,
    generate(rng) {
      const parts: Uint8Array[] = [];
      const expect: string[] = [];
      if (kind === 'request') parts.push(requestStream(rng));
      else {
        const count = rng.int(1, 3);
        for (let i = 0; i < count; i++) {
          parts.push(responseBytes(rng, i === count - 1));
          expect.push(rng.next() < 0.1 ? 'HEAD' : 'GET');
        }
      }
      let bytes = concat(...parts);
      if (rng.next() < 0.85) bytes = mutate(rng, bytes, { tokens: HTTP_TOKENS, maxEdits: 6 });
      return { bytes, pieces: randomSplit(rng, bytes), eof: rng.next() < 0.5, bodyLimit: rng.next() < 0.3 ? rng.int(0, 5000) : undefined, expect };
    },
    check(input) {
      const split = parseEvents(kind, input, input.pieces);
      const whole = parseEvents(kind, input, [input.bytes]);
      if (split.length !== whole.length || split.some((event, i) => event !== whole[i])) {
        const at = split.findIndex((event, i) => event !== whole[i]);
        throw new FuzzFailure(`events depend on the split (${input.pieces.length} pieces): event ${at} is ${split[at]} split, ${whole[at]} whole`);
      }
    },
  };
}

export const httpRequestParser = parserCampaign('request');
export const httpResponseParser = parserCampaign('response');

interface AssemblerInput {
  readonly plaintext: Uint8Array;
  /** What reaches the assembler: the plaintext, or sealed frames, maybe tampered. */
  readonly wire: Uint8Array;
  readonly pieces: Uint8Array[];
  readonly encrypted: boolean;
  /** The wire bytes are exactly what the sender sealed. */
  readonly intact: boolean;
  readonly keys: [Uint8Array, Uint8Array] | undefined;
  readonly modes: BodyMode[];
}

/** Sealed frames of `plaintext` in random frame sizes (a sender writes as it goes). */
function sealInPieces(rng: Rng, channel: ControlChannel, plaintext: Uint8Array): Uint8Array[] {
  const frames: Uint8Array[] = [];
  let offset = 0;
  while (offset < plaintext.length) {
    const size = rng.int(1, 1500);
    frames.push(channel.seal(plaintext.subarray(offset, offset + size)));
    offset += size;
  }
  return frames;
}

/** The messages as text, read with the body modes given in order (cycled). */
function assemble(input: AssemblerInput, pieces: readonly Uint8Array[]): string[] {
  const channel = input.keys ? new ControlChannel(input.keys[0].slice(), input.keys[1].slice()) : undefined;
  const assembler = new MessageAssembler('request', FUZZ_LIMITS, channel);
  const out: string[] = [];
  let heads = 0;
  let streamed: Uint8Array[] = [];
  let failed = false;
  let largest = 0;
  try {
    for (const piece of pieces) {
      largest = Math.max(largest, piece.length);
      try {
        assembler.receive(piece);
      } catch (error) {
        if (!(error instanceof ChannelError)) throw error;
        out.push('channel error');
        return out;
      }
      for (let event = assembler.next(); event; event = assembler.next()) {
        if (failed) throw new FuzzFailure(`assembler returned ${event.type} after a fatal error`);
        if (event.type === 'head') {
          const mode = input.modes[heads++ % input.modes.length];
          assembler.readBody(mode, mode === 'whole' ? 3000 : undefined);
          if (assembler.current !== event.head) throw new FuzzFailure('current is not the head just returned');
        } else if (event.type === 'chunk') streamed.push(event.data.slice());
        else if (event.type === 'message') {
          const body = streamed.length > 0 ? concat(...streamed) : event.body;
          streamed = [];
          out.push(`${describeHead(event.head)} body ${body.length} ${body.join(',')}`);
        } else {
          out.push(`error ${event.error.status} ${event.error.fatal}`);
          failed = event.error.fatal;
        }
      }
      const bound = FUZZ_LIMITS.maxHeadBytes + FUZZ_LIMITS.maxTrailerBytes + largest + 1042 + 4;
      if (!failed && assembler.buffered > bound) throw new FuzzFailure(`assembler holds ${assembler.buffered} bytes (bound ${bound})`);
    }
    return out;
  } finally {
    assembler.dispose();
  }
}

const MODES: BodyMode[] = ['whole', 'stream', 'skip'];

export const httpAssembler: Campaign<AssemblerInput> = {
  name: 'http-assembler',
  expected: () => false,
  generate(rng) {
    let plaintext = requestStream(rng);
    if (rng.next() < 0.5) plaintext = mutate(rng, plaintext, { tokens: HTTP_TOKENS });
    const modes = Array.from({ length: rng.int(1, 3) }, () => rng.pick(MODES));
    const encrypted = rng.next() < 0.6;
    if (!encrypted) return { plaintext, wire: plaintext, pieces: randomSplit(rng, plaintext), encrypted, intact: true, keys: undefined, modes };
    const keys: [Uint8Array, Uint8Array] = [rng.bytes(32), rng.bytes(32)];
    const sender = new ControlChannel(keys[1].slice(), keys[0].slice());
    let frames = sealInPieces(rng, sender, plaintext);
    const intact = rng.next() < 0.5;
    if (!intact) {
      // Tampered, truncated, reordered or repeated frames.
      const edit = rng.int(0, 3);
      if (edit === 2 && frames.length > 1) {
        const a = rng.int(0, frames.length - 1);
        const b = rng.int(0, frames.length - 1);
        [frames[a], frames[b]] = [frames[b], frames[a]];
      } else if (edit === 3 && frames.length > 0) {
        const a = rng.int(0, frames.length - 1);
        frames = [...frames.slice(0, a + 1), frames[a], ...frames.slice(a + 1)];
      }
      let wire = concat(...frames);
      if (edit === 0) wire = mutate(rng, wire, { maxEdits: 2 });
      if (edit === 1) wire = wire.slice(0, rng.int(0, wire.length));
      return { plaintext, wire, pieces: randomSplit(rng, wire), encrypted, intact, keys, modes };
    }
    const wire = concat(...frames);
    return { plaintext, wire, pieces: randomSplit(rng, wire), encrypted, intact, keys, modes };
  },
  check(input) {
    const got = assemble(input, input.pieces);
    if (!input.encrypted || !input.intact) {
      if (input.encrypted) {
        // Whatever a tampered stream yields before its error must be what the sender sent.
        const clear = assemble({ ...input, keys: undefined }, [input.plaintext]);
        const accepted = got[got.length - 1] === 'channel error' ? got.slice(0, -1) : got;
        for (let i = 0; i < accepted.length; i++) {
          if (accepted[i] !== clear[i] && !accepted[i].startsWith('error')) {
            throw new FuzzFailure(`a tampered stream yielded message ${i} that the sender did not send: ${accepted[i].slice(0, 200)}`);
          }
        }
      }
      return;
    }
    // An intact encrypted stream reads exactly as its plaintext does.
    const clear = assemble({ ...input, keys: undefined }, [input.plaintext]);
    if (got.length !== clear.length || got.some((line, i) => line !== clear[i])) {
      throw new FuzzFailure(`encrypted stream read differently from its plaintext: ${got.length} vs ${clear.length} events`);
    }
  },
};

