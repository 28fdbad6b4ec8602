// The payload cipher of a session's audio stream: header | sealed payload | tag | 8-byte nonce,
// AAD = header bytes 4..11, the nonce as the frame kernel's little-endian counter. A packet built
// the way pyatv builds it (ChaCha20-Poly1305 with the nonce padded by 4 zero bytes in front)
// opens; a changed byte or a short packet is a refusal, never a throw.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { concat, toHex } from '../../src/bytes';
import { PacketCipher } from '../../src/audio/packet-cipher';
import { writeAudioHeader } from '../../src/audio/rtp-packets';
import { portableFrameKernel } from '../../src/pairing/frame-kernel';

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const HEADER = writeAudioHeader({ marker: false, sequence: 0x0102, timestamp: 0x03040506, ssrc: 0x0708090a });
const PCM = Uint8Array.from({ length: 1408 }, (_, i) => (i * 7) & 0xff);

/** pyatv: packet = header + encrypt(audio, nonce=8 bytes LE, aad=header[4:12]) + nonce. */
function pyatvPacket(nonce: Uint8Array): Uint8Array {
  const sealed = chacha20poly1305(KEY, concat(new Uint8Array(4), nonce), HEADER.subarray(4, 12)).encrypt(PCM);
  return concat(HEADER, sealed, nonce);
}

test('a packet sealed as pyatv seals it (nonce 0) opens to its PCM', () => {
  const cipher = new PacketCipher(KEY, portableFrameKernel);
  const opened = cipher.open(pyatvPacket(new Uint8Array(8)));
  assert.ok(opened instanceof Uint8Array);
  assert.equal(toHex(opened), toHex(PCM));
});

test('the 8 nonce bytes are the counter, little-endian; seal() writes the same packet', () => {
  const cipher = new PacketCipher(KEY, portableFrameKernel);
  const nonce = Uint8Array.of(0x01, 0x02, 0, 0, 0, 0, 0, 0x80);
  const packet = pyatvPacket(nonce);
  const opened = cipher.open(packet);
  assert.ok(opened instanceof Uint8Array);
  assert.equal(toHex(cipher.seal(HEADER, PCM, 0x8000_0000_0000_0201n)), toHex(packet));
});

test('a changed header byte (the AAD), payload byte or nonce byte is an authentication refusal', () => {
  const cipher = new PacketCipher(KEY, portableFrameKernel);
  const packet = pyatvPacket(new Uint8Array(8));
  for (const at of [4, 11, 12, 500, packet.length - 20, packet.length - 1]) {
    const changed = Uint8Array.from(packet);
    changed[at] ^= 1;
    const result = cipher.open(changed);
    assert.ok(!(result instanceof Uint8Array) && result.refused === 'authentication', `byte ${at}`);
  }
  const header = Uint8Array.from(packet);
  header[2] ^= 1;
  assert.ok(cipher.open(header) instanceof Uint8Array, 'the sequence number is not in the AAD');
});

test('a packet shorter than header, tag and nonce is refused as truncated', () => {
  const cipher = new PacketCipher(KEY, portableFrameKernel);
  const result = cipher.open(new Uint8Array(35));
  assert.ok(!(result instanceof Uint8Array) && result.refused === 'truncated');
  assert.match(result.reason, /35 bytes, shorter than .* \(36\)/);
  assert.ok(cipher.open(cipher.seal(HEADER, new Uint8Array(0))) instanceof Uint8Array, 'an empty payload: 36 bytes, opens');
  assert.throws(() => new PacketCipher(new Uint8Array(16), portableFrameKernel), /16 bytes, not 32/);
});
