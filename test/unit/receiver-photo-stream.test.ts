// Photos drawn as they arrive (src/receiver/photo/photo-stream.ts, the connection's body streams):
// a PUT /photo that need not be kept goes to a streaming screen piece by piece, whole and in
// order; reading pauses while the screen holds more than limits.maxStreamedPhotoHeldBytes and the
// body's progress deadline does not count that time; 413 over maxStreamedPhotoBytes on the head;
// a picture that would be cached goes whole; a lost body aborts the screen's picture; what the
// decoder refuses is 415. Portable (runs in XS).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, latin1Decode } from '../../src/bytes';
import { writeRequest } from '../../src/http';
import type { JpegFrame, PhotoStreamSink } from '../../src/platform';
import { makeConfig, type ReceiverLimits } from '../../src/receiver/config';
import { endOfImage, JpegError, readJpegHeader } from '../../src/receiver/media/jpeg';
import { Receiver } from '../../src/receiver/receiver';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { sampleJpeg, SAMPLE_JPEG_SCAN_START } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';

const KEY = 'B3C9E0A8-1F2D-4E5A-9B6C-7D8E9F0A1B2C';
const KB = 1024;

/** A streaming screen's sink that keeps every byte written and holds them until drained. */
class RecordingSink implements PhotoStreamSink {
  readonly pieces: Uint8Array[] = [];
  heldBytes = 0;
  aborted: string | undefined;
  done: ((failure: string | undefined) => void) | undefined;
  onDrained: () => void = () => {};

  constructor(
    readonly frame: JpegFrame,
    /** Consume every piece at once (a decoder that keeps up). */
    private readonly keepsUp: boolean,
  ) {}

  write(bytes: Uint8Array): void {
    this.pieces.push(bytes.slice());
    if (!this.keepsUp) this.heldBytes += bytes.length;
  }

  end(done: (failure: string | undefined) => void): void {
    this.done = done;
  }

  abort(reason: string): void {
    this.aborted = reason;
  }

  /** The decoder consumed everything held. */
  drain(): void {
    this.heldBytes = 0;
    this.onDrained();
  }

  get written(): Uint8Array {
    return concat(...this.pieces);
  }
}

/** A screen that draws pictures as they arrive: every stream it opened, in order. */
class StreamingDisplay extends RecordingDisplay {
  readonly streams: RecordingSink[] = [];
  keepsUp = true;
  /** What the decoder refuses (Display.cannotShow), or nothing. */
  refuse: string | undefined;

  cannotShow(): string | undefined {
    return this.refuse;
  }

  openPhotoStream(frame: JpegFrame): PhotoStreamSink {
    const sink = new RecordingSink(frame, this.keepsUp);
    this.streams.push(sink);
    return sink;
  }
}

function setup(limits: Partial<ReceiverLimits> = {}) {
  const clock = new ManualClock();
  const display = new StreamingDisplay(clock);
  const log = recordingLogger();
  const receiver = new Receiver(makeConfig({ name: 'Frame', profile: 'photo-frame', limits }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(9),
    store: new MemoryStore(),
    log,
    display,
  });
  return { clock, display, log, receiver, sender: new MemorySender(receiver) };
}

/** A PUT /photo's bytes; `length` stands in for the body's Content-Length when given. */
function photoRequest(body: Uint8Array, headers: [string, string][] = []): Uint8Array {
  return writeRequest({ protocol: 'HTTP', version: '1.1', method: 'PUT', target: '/photo', headers: [['X-Vendor-Session-ID', 'a3a0b9f8-2c5e-4d7a-9b1e-5f0c6d2e8a41'], ...headers], body });
}

/** The request's head alone (its Content-Length says the body's size). */
function headOnly(request: Uint8Array, body: Uint8Array): Uint8Array {
  return request.subarray(0, request.length - body.length);
}

/** Sends `bytes` in pieces of `size`. */
function sendInPieces(sender: MemorySender, bytes: Uint8Array, size: number): void {
  for (let at = 0; at < bytes.length; at += size) sender.sendBytes(bytes.subarray(at, at + size));
}

function responseText(sender: MemorySender): string {
  return sender.connection.text;
}

test('a photo without a key reaches the streaming screen whole and in order, however it is split, and is answered 200 once drawn', () => {
  const { display, receiver, sender } = setup();
  const jpeg = sampleJpeg(300 * KB, 7);
  const request = photoRequest(jpeg);
  sendInPieces(sender, request, 1000);
  assert.equal(display.streams.length, 1);
  const sink = display.streams[0];
  assert.deepEqual(sink.written, jpeg, 'every byte, in order');
  assert.equal(display.photos.length, 0, 'never handed over whole');
  assert.equal(responseText(sender), '', 'no answer before the screen has finished');
  sink.done!(undefined);
  assert.equal(sender.response().head.status, 200);
  assert.equal(receiver.pictures.usedBytes, 0, 'the screen keeps none of it');
});

test('reading stops while the screen holds more than maxStreamedPhotoHeldBytes and goes on when it drained', () => {
  const { clock, display, sender } = setup({ maxStreamedPhotoHeldBytes: 64 * KB });
  display.keepsUp = false;
  const jpeg = sampleJpeg(400 * KB, 8);
  const request = photoRequest(jpeg);
  sender.sendBytes(headOnly(request, jpeg));
  let sent = 0;
  while (!sender.connection.paused && sent < jpeg.length) {
    sender.sendBytes(jpeg.subarray(sent, sent + 16 * KB));
    sent += 16 * KB;
  }
  const sink = display.streams[0];
  assert.ok(sender.connection.paused, 'the socket is no longer read');
  assert.equal(sent, 80 * KB, 'paused at the first piece that took it past 64 KB');
  assert.equal(sink.heldBytes, 80 * KB);
  // Bytes the sender had in flight wait in the connection, not in the screen.
  sender.sendBytes(jpeg.subarray(sent, sent + 16 * KB));
  sent += 16 * KB;
  assert.equal(sink.heldBytes, 80 * KB, 'nothing more to the screen while it is full');
  sink.drain();
  clock.advance(0);
  assert.ok(!sender.connection.paused, 'reading goes on');
  assert.equal(sink.written.length, sent, 'the waiting piece went on');
  sink.drain();
  while (sent < jpeg.length) {
    sender.sendBytes(jpeg.subarray(sent, sent + 16 * KB));
    sent += 16 * KB;
    sink.drain();
    clock.advance(0);
  }
  assert.deepEqual(sink.written, jpeg);
  sink.done!(undefined);
  assert.equal(sender.response().head.status, 200);
});

test('the time the receiver held a streamed body back does not count against the sender (minBodyBytesPerSecond)', () => {
  const { clock, display, sender } = setup({ maxStreamedPhotoHeldBytes: 64 * KB, minBodyBytesPerSecond: 1024, bodyGraceMs: 10_000 });
  display.keepsUp = false;
  const jpeg = sampleJpeg(200 * KB, 9);
  sender.sendBytes(headOnly(photoRequest(jpeg), jpeg));
  sender.sendBytes(jpeg.subarray(0, 80 * KB));
  assert.ok(sender.connection.paused);
  // 80 KB at 1 KB/s after 10 s of grace are owed by 90 s: the screen takes 100 s to drain
  // (within the idle deadline, which still runs: a screen that never drains frees the connection).
  clock.advance(100_000 - 1);
  assert.ok(!sender.connection.closed, 'no 408 while the receiver holds the body back');
  display.streams[0].drain();
  clock.advance(1);
  assert.ok(!sender.connection.paused);
  // The sender goes on at once: it is owed the time it was held back, not blamed for it.
  sender.sendBytes(jpeg.subarray(80 * KB));
  clock.advance(0);
  assert.ok(!sender.connection.closed, responseText(sender));
  display.streams[0].done!(undefined);
  assert.equal(sender.response().head.status, 200);
});

test('a streamed photo over maxStreamedPhotoBytes is answered 413 on its head, naming the limit, and the screen is not touched', () => {
  const { display, receiver, sender } = setup({ maxStreamedPhotoBytes: 256 * KB });
  const jpeg = sampleJpeg(256 * KB + 1, 10);
  sender.sendBytes(headOnly(photoRequest(jpeg), jpeg));
  const response = sender.response();
  assert.equal(response.head.status, 413);
  assert.match(latin1Decode(response.body), /limits\.maxStreamedPhotoBytes \(262144\)/);
  assert.equal(display.streams.length, 0);
  assert.equal(receiver.pictures.usedBytes, 0);
});

test('on the 8 MB PSRAM frame a streamed photo may be 8 MB while one read whole stays at maxPhotoBytes', () => {
  const { receiver } = setup();
  assert.equal(receiver.config.limits.maxStreamedPhotoBytes, 8 * 1024 * 1024);
  assert.equal(receiver.config.limits.maxPhotoBytes, 2 * 1024 * 1024);
});

test('a streamed photo counts maxStreamedPhotoHeldBytes in the picture budget, not its length', () => {
  const { display, receiver, sender } = setup({ maxStreamedPhotoHeldBytes: 64 * KB, pictureBudgetBytes: 128 * KB });
  const jpeg = sampleJpeg(1024 * KB, 11);
  sender.sendBytes(headOnly(photoRequest(jpeg), jpeg));
  assert.equal(receiver.pictures.usedBytes, 64 * KB);
  sendInPieces(sender, jpeg, 32 * KB);
  display.streams[0].done!(undefined);
  assert.equal(sender.response().head.status, 200);
  assert.equal(receiver.pictures.usedBytes, 0);
});

test('a photo that would be cached goes the whole path, as does any with an AssetAction', () => {
  const { display, sender } = setup();
  const keyed = sampleJpeg(100 * KB, 12);
  sender.sendBytes(photoRequest(keyed, [['X-Vendor-AssetKey', KEY]]));
  assert.equal(sender.response().head.status, 200);
  const cacheOnly = sampleJpeg(100 * KB, 13);
  sender.sendBytes(photoRequest(cacheOnly, [['X-Vendor-AssetKey', 'C4DAF1B9-2031-4F6B-8C7D-8E9FA0B1C2D3'], ['X-Vendor-AssetAction', 'cacheOnly']]));
  assert.equal(sender.response().head.status, 200);
  assert.equal(display.streams.length, 0);
  assert.deepEqual(display.photos.map((photo) => photo.jpeg), [keyed]);
});

test('a keyed photo larger than the whole cache is streamed (it would not be cached), over maxPhotoBytes too', () => {
  const { display, sender } = setup({ photoCacheBytes: 64 * KB, maxPhotoBytes: 64 * KB });
  const jpeg = sampleJpeg(100 * KB, 14);
  sender.sendBytes(photoRequest(jpeg, [['X-Vendor-AssetKey', KEY]]));
  assert.deepEqual(display.streams[0].written, jpeg);
  display.streams[0].done!(undefined);
  assert.equal(sender.response().head.status, 200);
});

test('a display without a streaming entry takes the photo whole, up to maxPhotoBytes', () => {
  const clock = new ManualClock();
  const display = new RecordingDisplay(clock);
  const receiver = new Receiver(makeConfig({ name: 'Frame', profile: 'photo-frame' }), { crypto: portableCryptoKernels, clock, random: seededRandom(9), store: new MemoryStore(), log: recordingLogger(), display });
  const sender = new MemorySender(receiver);
  const jpeg = sampleJpeg(2 * 1024 * 1024 + 1, 15);
  sender.sendBytes(headOnly(photoRequest(jpeg), jpeg));
  const response = sender.response();
  assert.equal(response.head.status, 413);
  assert.match(latin1Decode(response.body), /limit of 2097152 bytes/);
});

test('a streamed photo whose connection closes before its end aborts the screen and gives back its bytes', () => {
  const { display, receiver, sender } = setup();
  const jpeg = sampleJpeg(300 * KB, 16);
  const request = photoRequest(jpeg);
  sendInPieces(sender, request.subarray(0, request.length - 100 * KB), 16 * KB);
  const sink = display.streams[0];
  assert.equal(sink.aborted, undefined);
  sender.close();
  assert.equal(sink.aborted, 'the body did not arrive whole');
  assert.equal(receiver.pictures.usedBytes, 0);
});

test('a JPEG the streaming decoder cannot read from its header is answered 415 naming why, without opening the screen', () => {
  const { display, sender } = setup();
  display.refuse = 'progressive; picojpeg reads baseline JPEGs only';
  const jpeg = sampleJpeg(200 * KB, 17);
  sendInPieces(sender, photoRequest(jpeg), 4096);
  const response = sender.response();
  assert.equal(response.head.status, 415);
  assert.match(latin1Decode(response.body), /the screen cannot show this JPEG \(32x16 baseline grayscale\): progressive; picojpeg reads baseline JPEGs only/);
  assert.equal(display.streams.length, 0);
});

test('a picture the decoder fails on while drawing is answered 415 with the decoder\'s reason', () => {
  const { display, sender } = setup();
  const jpeg = sampleJpeg(200 * KB, 18);
  sendInPieces(sender, photoRequest(jpeg), 16 * KB);
  display.streams[0].done!('jpeg read failed');
  const response = sender.response();
  assert.equal(response.head.status, 415);
  assert.match(latin1Decode(response.body), /the screen cannot show this JPEG \(32x16 baseline grayscale\): jpeg read failed/);
});

test('a streamed body that is not a JPEG, or is cut short before its end marker, is 415 as a whole one would be', () => {
  const { display, sender } = setup();
  const png = new Uint8Array(50 * KB).fill(0x89);
  sender.sendBytes(photoRequest(png));
  const notJpeg = sender.response();
  assert.equal(notJpeg.head.status, 415);
  assert.match(latin1Decode(notJpeg.body), /the body is not a JPEG: no JPEG start-of-image marker/);
  const cut = sampleJpeg(100 * KB, 19).subarray(0, 90 * KB);
  sender.sendBytes(photoRequest(cut));
  const cutShort = sender.response();
  assert.equal(cutShort.head.status, 415);
  assert.match(latin1Decode(cutShort.body), /no end-of-image marker \(FF D9\) after the start of scan at offset \d+: the picture is cut short/);
  assert.match(display.streams[0].aborted ?? '', /cut short/);
});

test('bytes after the end-of-image marker are read past, never handed to the screen', () => {
  const { display, sender } = setup({ maxStreamedPhotoHeldBytes: 64 * KB });
  display.keepsUp = false;
  const jpeg = sampleJpeg(20 * KB, 20);
  // A motion photo's video after the picture: far more than the screen may hold.
  const body = concat(jpeg, new Uint8Array(200 * KB).fill(0x42));
  sendInPieces(sender, photoRequest(body), 8 * KB);
  const sink = display.streams[0];
  assert.deepEqual(sink.written, jpeg);
  assert.ok(!sender.connection.paused);
  sink.done!(undefined);
  assert.equal(sender.response().head.status, 200);
});

test('a streamed photo asked before one already shown does not open the screen, and is answered 200', () => {
  const { display, sender, receiver } = setup();
  const first = sampleJpeg(100 * KB, 21);
  const firstRequest = photoRequest(first);
  // Its head only: the later request takes the screen before its header arrives.
  sender.sendBytes(headOnly(firstRequest, first));
  const other = new MemorySender(receiver, 50001);
  const second = sampleJpeg(30 * KB, 22);
  other.sendBytes(photoRequest(second));
  display.streams[0].done!(undefined);
  assert.equal(other.response().head.status, 200);
  sender.sendBytes(first);
  assert.equal(display.streams.length, 1, 'only the later one drew');
  assert.equal(sender.response().head.status, 200);
});

test('readJpegHeader of a partial header waits for more; endOfImage finds the marker even when split', () => {
  const jpeg = sampleJpeg(1000, 23);
  for (let length = 0; length < SAMPLE_JPEG_SCAN_START; length++) assert.equal(readJpegHeader(jpeg.subarray(0, length), true), undefined, `${length} bytes`);
  assert.equal(readJpegHeader(jpeg.subarray(0, SAMPLE_JPEG_SCAN_START), true)?.scanOffset, SAMPLE_JPEG_SCAN_START);
  assert.throws(() => readJpegHeader(jpeg.subarray(0, 10), false), JpegError);
  assert.throws(() => readJpegHeader(new Uint8Array([0xff, 0xd9]), true), JpegError);
  assert.equal(endOfImage(jpeg, SAMPLE_JPEG_SCAN_START, false), 1000);
  assert.equal(endOfImage(jpeg.subarray(0, 999), SAMPLE_JPEG_SCAN_START, false), -1);
  assert.equal(endOfImage(jpeg.subarray(999), 0, true), 1);
  assert.equal(endOfImage(jpeg.subarray(999), 0, false), -1);
});
