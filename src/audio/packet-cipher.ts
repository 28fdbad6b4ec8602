// The payload cipher of a session's realtime audio stream (type 96 after a session SETUP): each
// RTP packet is the 12-byte header, the ChaCha20-Poly1305 sealed payload, its 16-byte tag, then
// the 8-byte nonce. The AAD is header bytes 4..11 (timestamp and SSRC); the 12-byte nonce is 4
// zero bytes and those 8, which is the FrameKernel contract with counter = the 8 bytes read
// little-endian (pyatv 0.14.5, airplayv2.py send_audio_packet: it sends nonce 0 every time).
// The key is the stream's `shk` from SETUP.

import type { FrameKernel } from '../pairing/frame-kernel';
import { AUDIO_HEADER_BYTES } from './rtp-packets';

export const TAG_BYTES = 16;
export const NONCE_BYTES = 8;
/** The AAD is the header from the timestamp to the end of the SSRC. */
const AAD_START = 4;
const AAD_END = AUDIO_HEADER_BYTES;
const KEY_BYTES = 32;

/** Why a packet did not open: a kind to count drops by, a reason for the log. */
export interface CipherRefusal {
  readonly refused: 'truncated' | 'authentication';
  readonly reason: string;
}

/** The little-endian 8-byte counter at `at`. */
function readCounter(bytes: Uint8Array, at: number): bigint {
  let counter = 0n;
  for (let i = NONCE_BYTES - 1; i >= 0; i--) counter = (counter << 8n) | BigInt(bytes[at + i]);
  return counter;
}

function writeCounter(bytes: Uint8Array, at: number, counter: bigint): void {
  let rest = counter;
  for (let i = 0; i < NONCE_BYTES; i++) {
    bytes[at + i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
}

/**
 * Opens and seals a stream's packets under its key. open() never throws for a packet's fault: a
 * short packet or a tag that does not match is a refusal the engine counts and drops.
 */
export class PacketCipher {
  private readonly key: Uint8Array;

  constructor(
    key: Uint8Array,
    private readonly kernel: FrameKernel,
  ) {
    if (key.length !== KEY_BYTES) throw new RangeError(`audio stream key of ${key.length} bytes, not ${KEY_BYTES}`);
    this.key = Uint8Array.from(key);
  }

  /** The plaintext payload of a whole sealed packet (header included), or why it did not open. */
  open(packet: Uint8Array): Uint8Array | CipherRefusal {
    const sealedEnd = packet.length - NONCE_BYTES;
    if (sealedEnd - AUDIO_HEADER_BYTES < TAG_BYTES) {
      return { refused: 'truncated', reason: `sealed audio packet of ${packet.length} bytes, shorter than header, tag and nonce (${AUDIO_HEADER_BYTES + TAG_BYTES + NONCE_BYTES})` };
    }
    const counter = readCounter(packet, sealedEnd);
    try {
      return this.kernel.open(this.key, counter, packet.subarray(AAD_START, AAD_END), packet.subarray(AUDIO_HEADER_BYTES, sealedEnd));
    } catch (error) {
      return { refused: 'authentication', reason: `sealed audio packet does not open (${error instanceof Error ? error.message : String(error)})` };
    }
  }

  /** A whole sealed packet: `header` (12 bytes), `payload` sealed, tag, nonce `counter` (the sender tool). */
  seal(header: Uint8Array, payload: Uint8Array, counter = 0n): Uint8Array {
    if (header.length !== AUDIO_HEADER_BYTES) throw new RangeError(`audio header of ${header.length} bytes, not ${AUDIO_HEADER_BYTES}`);
    const sealed = this.kernel.seal(this.key, counter, header.subarray(AAD_START, AAD_END), payload);
    const packet = new Uint8Array(AUDIO_HEADER_BYTES + sealed.length + NONCE_BYTES);
    packet.set(header, 0);
    packet.set(sealed, AUDIO_HEADER_BYTES);
    writeCounter(packet, AUDIO_HEADER_BYTES + sealed.length, counter);
    return packet;
  }

  /** The key is wiped when the stream ends. */
  wipe(): void {
    this.key.fill(0);
  }
}
