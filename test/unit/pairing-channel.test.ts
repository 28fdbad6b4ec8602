// The encrypted control channel (spec 5.4) against vectors made with Node's OpenSSL: exact
// framed bytes per direction, any split of the input, bad tags and lengths, and the kernel.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, fromHex, toHex, utf8Decode, utf8Encode } from '../../src/bytes';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { createControlChannel, createEventChannel, createSenderChannel, createSenderEventChannel, ControlChannel, MAX_FRAME_PLAINTEXT } from '../../src/pairing/channel';
import { PairingError } from '../../src/pairing/errors';
import { withFrameKernel } from '../../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { createPortableFrameKernel, portableFrameKernel, type FrameKernel } from '../../src/pairing/frame-kernel';
import { PAIRING_HKDF, derivePairingKey } from '../../src/pairing/hkdf';
import { makeRng } from '../support/arbitrary';
import vectors from '../vectors/control-channel.json' with { type: 'json' };

const shared = fromHex(vectors.sharedSecret);
const senderBytes = concat(...vectors.senderToReceiver.map((message) => fromHex(message.framed)));

test('the channel keys are HKDF-SHA-512 of the EncryptionKey with the Control labels', () => {
  assert.equal(toHex(derivePairingKey(shared, PAIRING_HKDF.ControlWrite, 32, portableCryptoKernels)), vectors.writeKey);
  assert.equal(toHex(derivePairingKey(shared, PAIRING_HKDF.ControlRead, 32, portableCryptoKernels)), vectors.readKey);
});

test('the receiver seals each message to the exact framed bytes, counters running on', () => {
  const channel = createControlChannel(shared, portableCryptoKernels);
  for (const message of vectors.receiverToSender) {
    assert.equal(channel.framesSealed, BigInt(message.firstCounter));
    assert.equal(toHex(channel.seal(fromHex(message.plaintext))), message.framed);
  }
  assert.equal(channel.framesSealed, 3n);
});

test('the sender side seals the sender-to-receiver vectors exactly', () => {
  const sender = createSenderChannel(shared, portableCryptoKernels);
  for (const message of vectors.senderToReceiver) assert.equal(toHex(sender.seal(fromHex(message.plaintext))), message.framed);
});

test('the receiver opens the sender-to-receiver vectors, one plaintext per frame', () => {
  const channel = createControlChannel(shared, portableCryptoKernels);
  const expected = vectors.senderToReceiver.flatMap((message) => {
    const plaintext = fromHex(message.plaintext);
    return message.frames.map((frame, i) => toHex(plaintext.subarray(i * MAX_FRAME_PLAINTEXT, i * MAX_FRAME_PLAINTEXT + frame.length)));
  });
  assert.deepEqual(channel.open(senderBytes).map((plaintext) => toHex(plaintext)), expected);
  assert.equal(channel.framesOpened, BigInt(expected.length));
  // and the sender opens what the receiver sealed
  const sender = createSenderChannel(shared, portableCryptoKernels);
  const opened = concat(...sender.open(concat(...vectors.receiverToSender.map((message) => fromHex(message.framed)))));
  assert.equal(toHex(opened), vectors.receiverToSender.map((message) => message.plaintext).join(''));
});

test('input split anywhere (byte by byte, random cuts) opens to the same plaintext', () => {
  const whole = vectors.senderToReceiver.map((message) => message.plaintext).join('');
  const byteByByte = createControlChannel(shared, portableCryptoKernels);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < senderBytes.length; i++) parts.push(...byteByByte.open(senderBytes.subarray(i, i + 1)));
  assert.equal(toHex(concat(...parts)), whole);
  const rng = makeRng(6);
  for (let round = 0; round < 5; round++) {
    const channel = createControlChannel(shared, portableCryptoKernels);
    const out: Uint8Array[] = [];
    let offset = 0;
    while (offset < senderBytes.length) {
      const size = 1 + Math.floor(rng.next() * 1500);
      out.push(...channel.open(senderBytes.subarray(offset, offset + size)));
      offset += size;
    }
    assert.equal(toHex(concat(...out)), whole);
  }
});

test('a partial frame yields nothing until it completes', () => {
  const channel = createControlChannel(shared, portableCryptoKernels);
  const first = fromHex(vectors.senderToReceiver[0].framed);
  assert.deepEqual(channel.open(first.subarray(0, 1)), []);
  assert.deepEqual(channel.open(first.subarray(1, first.length - 1)), []);
  assert.equal(toHex(channel.open(first.subarray(first.length - 1))[0]), vectors.senderToReceiver[0].plaintext);
  assert.deepEqual(channel.open(new Uint8Array(0)), []);
});

test('a changed byte anywhere in a frame is a PairingError, and the channel then refuses input', () => {
  const first = fromHex(vectors.senderToReceiver[0].framed);
  for (const index of [2, 20, first.length - 1]) {
    const channel = createControlChannel(shared, portableCryptoKernels);
    const tampered = first.slice();
    tampered[index] ^= 0x01;
    assert.throws(() => channel.open(tampered), PairingError);
    assert.throws(() => channel.open(first), /refused after an earlier error/);
  }
  // a frame replayed (its counter has passed) fails too
  const channel = createControlChannel(shared, portableCryptoKernels);
  channel.open(first);
  assert.throws(() => channel.open(first), PairingError);
});

test('a length of 0 or over 1024 is refused as soon as the length bytes arrive', () => {
  for (const header of ['0104', 'ffff', '0000']) {
    const channel = createControlChannel(shared, portableCryptoKernels);
    assert.throws(() => channel.open(fromHex(header)), (error: unknown) => error instanceof PairingError && /frame length/.test(error.message));
    assert.throws(() => channel.open(new Uint8Array(1)), PairingError);
  }
  const split = createControlChannel(shared, portableCryptoKernels);
  assert.deepEqual(split.open(fromHex('01')), []);
  assert.throws(() => split.open(fromHex('04')), /frame length 1025/);
});

test('seal splits long plaintext into 1024-byte frames, and nothing for empty input', () => {
  const receiver = createControlChannel(shared, portableCryptoKernels);
  const sender = createSenderChannel(shared, portableCryptoKernels);
  const plaintext = Uint8Array.from({ length: 3000 }, (_, i) => i & 0xff);
  const framed = receiver.seal(plaintext);
  assert.equal(framed.length, 3000 + 3 * 18);
  assert.deepEqual([framed[0], framed[1]], [0x00, 0x04]);
  assert.deepEqual(concat(...sender.open(framed)), plaintext);
  assert.equal(receiver.seal(new Uint8Array(0)).length, 0);
  assert.equal(receiver.framesSealed, 3n);
});

test('the portable kernel matches the single-frame vectors, counters above 2^32 included', () => {
  const kernel = createPortableFrameKernel();
  for (const vector of vectors.kernel) {
    const key = fromHex(vector.key);
    const counter = BigInt(vector.counter);
    const aad = fromHex(vector.aad);
    const sealed = kernel.seal(key, counter, aad, fromHex(vector.plaintext));
    assert.equal(toHex(sealed), vector.ciphertextAndTag, `counter ${vector.counter}`);
    assert.equal(toHex(kernel.open(key, counter, aad, sealed)), vector.plaintext);
    assert.throws(() => kernel.open(key, counter + 1n, aad, sealed), PairingError);
  }
  assert.throws(() => kernel.seal(new Uint8Array(32), 1n << 64n, new Uint8Array(2), new Uint8Array(1)), PairingError);
  assert.throws(() => kernel.seal(new Uint8Array(32), -1n, new Uint8Array(2), new Uint8Array(1)), PairingError);
});

test('the frame kernel of the CryptoKernels passed in does the work; one that returns new arrays works too', () => {
  let calls = 0;
  const counting: FrameKernel = {
    seal: (key, counter, aad, plaintext) => {
      calls++;
      return portableFrameKernel.seal(key, counter, aad, plaintext);
    },
    open: (key, counter, aad, sealed) => {
      calls++;
      return portableFrameKernel.open(key, counter, aad, sealed);
    },
  };
  const channel = createControlChannel(shared, withFrameKernel(portableCryptoKernels, counting));
  assert.equal(toHex(channel.seal(fromHex(vectors.receiverToSender[0].plaintext))), vectors.receiverToSender[0].framed);
  assert.equal(channel.open(senderBytes).length, 6);
  assert.equal(calls, 7);
  // Without one, the portable kernels: the counting kernel is not called.
  createControlChannel(shared, portableCryptoKernels).seal(new Uint8Array(1));
  assert.equal(calls, 7);
});

test('dispose wipes the keys and refuses further input', () => {
  const openKey = new Uint8Array(32).fill(1);
  const sealKey = new Uint8Array(32).fill(2);
  const channel = new ControlChannel(openKey, sealKey);
  channel.dispose();
  assert.deepEqual(openKey, new Uint8Array(32));
  assert.deepEqual(sealKey, new Uint8Array(32));
  assert.throws(() => channel.open(new Uint8Array(1)), PairingError);
  assert.throws(() => new ControlChannel(new Uint8Array(16), sealKey), PairingError);
});

test("a session's event channel: keys from the same EncryptionKey under Events-Salt, the sender writing with Events-Read (as pyatv)", () => {
  // Derived here with @noble/hashes' own HKDF, not the receiver's.
  const key = (info: string) => hkdf(sha512, shared, utf8Encode('Events-Salt'), utf8Encode(info), 32);
  // ControlChannel(openKey, sealKey): the sender opens with Write and seals with Read.
  const senderSide = new ControlChannel(key('Events-Write-Encryption-Key'), key('Events-Read-Encryption-Key'));
  const receiverSide = createEventChannel(shared, portableCryptoKernels);
  const request = utf8Encode('POST /command RTSP/1.0\r\nCSeq: 1\r\n\r\n');
  assert.equal(utf8Decode(concat(...senderSide.open(receiverSide.seal(request)))), utf8Decode(request), 'what the receiver writes, the sender reads');
  const answer = utf8Encode('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n');
  assert.equal(utf8Decode(concat(...receiverSide.open(senderSide.seal(answer)))), utf8Decode(answer), 'and back');
  assert.equal(toHex(concat(...createSenderEventChannel(shared, portableCryptoKernels).open(createEventChannel(shared, portableCryptoKernels).seal(request)))), toHex(request), "the sender tool's side matches");
  assert.notEqual(toHex(createEventChannel(shared, portableCryptoKernels).seal(request)), toHex(createControlChannel(shared, portableCryptoKernels).seal(request)), 'not the control channel keys');
});
