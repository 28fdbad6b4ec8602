// The encrypted control channel after pairing (spec 5.4): frames of a 2-byte little-endian
// length N (1 to 1024), N bytes of ChaCha20-Poly1305 ciphertext and the 16-byte tag, with the
// length bytes as AAD and a 64-bit frame counter per direction as the nonce.

import { StateKey } from '../connection-state';
import type { SecureChannel } from '../http/secure-channel';
import { PairingError } from './errors';
import type { CryptoKernels } from './crypto-kernels';
import { portableFrameKernel, type FrameKernel } from './frame-kernel';
import { PAIRING_HKDF, derivePairingKey } from './hkdf';
import { checkBytes } from './_util';
import { describeError } from '../errors';

export type { FrameKernel } from './frame-kernel';

/** Most plaintext bytes in one frame. */
export const MAX_FRAME_PLAINTEXT = 1024;
const LENGTH_BYTES = 2;
const TAG_BYTES = 16;
const FRAME_OVERHEAD = LENGTH_BYTES + TAG_BYTES;

/**
 * One direction pair of the framed channel. `open` accepts bytes in any split and keeps a
 * partial frame (at most 1042 bytes, in a buffer allocated once); after a bad tag or a bad
 * length it throws a PairingError and refuses all further input, since the stream can no
 * longer be trusted or re-synchronised. Per frame it allocates the plaintext only (open) or
 * nothing beyond the output (seal).
 */
export class ControlChannel implements SecureChannel {
  private readonly pending = new Uint8Array(LENGTH_BYTES + MAX_FRAME_PLAINTEXT + TAG_BYTES);
  private pendingLength = 0;
  private failure: string | undefined;
  private openCounter = 0n;
  private sealCounter = 0n;

  constructor(
    private readonly openKey: Uint8Array,
    private readonly sealKey: Uint8Array,
    private readonly kernel: FrameKernel = portableFrameKernel,
  ) {
    checkBytes(openKey, 'control channel key', 32);
    checkBytes(sealKey, 'control channel key', 32);
  }

  /** Frames opened so far (the counter of the next incoming frame). */
  get framesOpened(): bigint {
    return this.openCounter;
  }

  /** Frames sealed so far (the counter of the next outgoing frame). */
  get framesSealed(): bigint {
    return this.sealCounter;
  }

  open(bytes: Uint8Array): Uint8Array[] {
    if (this.failure !== undefined) throw new PairingError(`control channel: input refused after an earlier error (${this.failure})`);
    const plaintexts: Uint8Array[] = [];
    try {
      let offset = 0;
      while (offset < bytes.length) {
        if (this.pendingLength === 0) {
          const available = bytes.length - offset;
          if (available >= LENGTH_BYTES) {
            const size = frameSize(bytes, offset);
            if (available >= size) {
              plaintexts.push(this.openFrame(bytes, offset, size));
              offset += size;
              continue;
            }
          }
          // A partial frame: fewer bytes than one frame, so it fits the pending buffer.
          this.pending.set(bytes.subarray(offset), 0);
          this.pendingLength = available;
          break;
        }
        if (this.pendingLength < LENGTH_BYTES) {
          this.pending[this.pendingLength++] = bytes[offset++];
          continue;
        }
        const size = frameSize(this.pending, 0);
        const take = Math.min(size - this.pendingLength, bytes.length - offset);
        this.pending.set(bytes.subarray(offset, offset + take), this.pendingLength);
        this.pendingLength += take;
        offset += take;
        if (this.pendingLength === size) {
          this.pendingLength = 0;
          plaintexts.push(this.openFrame(this.pending, 0, size));
        }
      }
      // A completed header is checked at once, not only when its frame is complete.
      if (this.pendingLength >= LENGTH_BYTES) frameSize(this.pending, 0);
    } catch (error) {
      this.failure = describeError(error);
      this.pending.fill(0);
      this.pendingLength = 0;
      throw error instanceof PairingError ? error : new PairingError(`control channel: ${this.failure}`);
    }
    return plaintexts;
  }

  seal(plaintext: Uint8Array): Uint8Array {
    const frames = Math.ceil(plaintext.length / MAX_FRAME_PLAINTEXT);
    const out = new Uint8Array(plaintext.length + frames * FRAME_OVERHEAD);
    let position = 0;
    for (let start = 0; start < plaintext.length; start += MAX_FRAME_PLAINTEXT) {
      const length = Math.min(MAX_FRAME_PLAINTEXT, plaintext.length - start);
      out[position] = length & 0xff;
      out[position + 1] = length >>> 8;
      const body = out.subarray(position + LENGTH_BYTES, position + LENGTH_BYTES + length + TAG_BYTES);
      const sealed = this.kernel.seal(
        this.sealKey,
        this.sealCounter,
        out.subarray(position, position + LENGTH_BYTES),
        plaintext.subarray(start, start + length),
        body,
      );
      if (sealed !== body) body.set(sealed);
      this.sealCounter++;
      position += LENGTH_BYTES + length + TAG_BYTES;
    }
    return out;
  }

  /** Ciphertext held until its frame is complete. */
  get buffered(): number {
    return this.pendingLength;
  }

  /** Wipes the keys and any buffered input; the channel refuses everything afterwards. */
  dispose(): void {
    this.openKey.fill(0);
    this.sealKey.fill(0);
    this.pending.fill(0);
    this.pendingLength = 0;
    this.failure = 'disposed';
  }

  private openFrame(source: Uint8Array, offset: number, size: number): Uint8Array {
    const output = new Uint8Array(size - FRAME_OVERHEAD);
    const plaintext = this.kernel.open(
      this.openKey,
      this.openCounter,
      source.subarray(offset, offset + LENGTH_BYTES),
      source.subarray(offset + LENGTH_BYTES, offset + size),
      output,
    );
    this.openCounter++;
    return plaintext;
  }
}

/** Whole size of the frame whose length bytes are at `offset`; throws when N is not 1 to 1024. */
function frameSize(bytes: Uint8Array, offset: number): number {
  const length = bytes[offset] | (bytes[offset + 1] << 8);
  if (length === 0 || length > MAX_FRAME_PLAINTEXT) {
    throw new PairingError(`control channel: frame length ${length} is not 1 to ${MAX_FRAME_PLAINTEXT}`);
  }
  return length + FRAME_OVERHEAD;
}

/**
 * The EncryptionKey a connection's channel came from (pair-verify's shared secret, transient
 * pair-setup's session key; spec 5.3, 5.4), kept on the connection while it is open: the
 * sender's session on it derives the event channel's keys from it too.
 */
export const ENCRYPTION_KEY = new StateKey<Uint8Array>('EncryptionKey');

/**
 * The event channel's keys by direction: the receiver opens what the sender writes. The names
 * are the receiver's view, the other way round from the control channel: the receiver would send
 * requests on it (it writes with `Write`), so the sender writes with the `Read` key (pyatv's
 * setup_channel: "Read/Write info reversed here as connection originates from receiver").
 */
const EVENT_CHANNEL_KEYS: ChannelLabels = { senderWrites: PAIRING_HKDF.EventsRead, senderReads: PAIRING_HKDF.EventsWrite };

/** One direction pair of HKDF labels: what the sender writes, and what it reads. */
interface ChannelLabels {
  readonly senderWrites: (typeof PAIRING_HKDF)[keyof typeof PAIRING_HKDF];
  readonly senderReads: (typeof PAIRING_HKDF)[keyof typeof PAIRING_HKDF];
}

/** spec 5.4: the sender writes with Control-Write and reads with Control-Read. */
const CONTROL_CHANNEL_KEYS: ChannelLabels = { senderWrites: PAIRING_HKDF.ControlWrite, senderReads: PAIRING_HKDF.ControlRead };

/** A framed channel from the EncryptionKey: the receiver's side opens what the sender writes; the sender's, the other way. */
function framedChannel(encryptionKey: Uint8Array, labels: ChannelLabels, side: 'receiver' | 'sender', crypto: CryptoKernels): ControlChannel {
  checkBytes(encryptionKey, 'EncryptionKey');
  const [opens, seals] = side === 'receiver' ? [labels.senderWrites, labels.senderReads] : [labels.senderReads, labels.senderWrites];
  return new ControlChannel(derivePairingKey(encryptionKey, opens, 32, crypto), derivePairingKey(encryptionKey, seals, 32, crypto), crypto.frame);
}

/** The receiver's side of a session's event channel, framed as the control channel. */
export function createEventChannel(encryptionKey: Uint8Array, crypto: CryptoKernels): ControlChannel {
  return framedChannel(encryptionKey, EVENT_CHANNEL_KEYS, 'receiver', crypto);
}

/** The sender's side of the event channel (keys swapped), for tests and the sender tool. */
export function createSenderEventChannel(encryptionKey: Uint8Array, crypto: CryptoKernels): ControlChannel {
  return framedChannel(encryptionKey, EVENT_CHANNEL_KEYS, 'sender', crypto);
}

/**
 * The receiver's channel (spec 5.4): opens with HKDF(EncryptionKey, Control-Salt,
 * Control-Write-Encryption-Key), the sender-to-receiver key, and seals with
 * Control-Read-Encryption-Key, both on `crypto` (HKDF and the frame kernel).
 */
export function createControlChannel(sharedSecret: Uint8Array, crypto: CryptoKernels): ControlChannel {
  return framedChannel(sharedSecret, CONTROL_CHANNEL_KEYS, 'receiver', crypto);
}

/** The sender's side of the same channel (keys swapped), for tests and the sender tool. */
export function createSenderChannel(sharedSecret: Uint8Array, crypto: CryptoKernels): ControlChannel {
  return framedChannel(sharedSecret, CONTROL_CHANNEL_KEYS, 'sender', crypto);
}
