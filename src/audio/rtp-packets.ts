// The RTP packets of realtime audio (RFC 3550 5.1 headers, RAOP's payload types): audio on the
// data port, sync, retransmit requests and resent packets on the control ports. The spec shows
// none of them ("the RTP streams: not shown"); this is what senders and receivers in the field
// exchange (pyatv 0.14.5's packets.py and stream_client.py, shairport-sync). Timing packets
// (0x52/0x53) live in src/timing/raop-timing.ts. Readers return a refusal (a kind to count by and
// a reason to log) instead of throwing: a receiver counts and drops a bad datagram.

import { readU16BE, readU32BE, writeU16BE, writeU32BE } from '../bytes';
import { readTimestamp, writeTimestamp } from '../timing/timestamps';

/** The payload types (the second byte without its marker bit), one row each. */
export const PAYLOAD_TYPE = {
  /** Audio on the data port (96; the first packet after RECORD or a flush has the marker bit). */
  audio: 0x60,
  /** Sender -> receiver control port, every second: which RTP time is heard when. */
  sync: 0x54,
  /** Receiver -> sender control port: send these packets again. */
  retransmitRequest: 0x55,
  /** Sender -> receiver control port: a packet sent again, whole, behind a 4-byte header. */
  resent: 0x56,
} as const;

/** RFC 3550 5.1: the version in the first byte's top two bits. */
export const RTP_VERSION = 2;
const VERSION_BYTE = RTP_VERSION << 6;
const EXTENSION_BIT = 0x10;
const MARKER_BIT = 0x80;

export const AUDIO_HEADER_BYTES = 12;
export const SYNC_PACKET_BYTES = 20;
export const RETRANSMIT_REQUEST_BYTES = 8;
export const RESENT_HEADER_BYTES = 4;
/**
 * Largest audio datagram read by default: 4096 frames of 16-bit stereo (the most frames per
 * packet a stream may ask), its header and a cipher's tag and nonce. Senders send 352 frames
 * (1408 bytes of PCM) in one Ethernet frame.
 */
export const MAX_AUDIO_PACKET_BYTES = 4096 * 4 + AUDIO_HEADER_BYTES + 24;

/** The sequence number senders put in sync packets (pyatv, shairport-sync: 7). */
const SYNC_SEQUENCE = 7;
/** The sequence number receivers put in retransmit requests (shairport-sync: 1; senders ignore it). */
const RETRANSMIT_REQUEST_SEQUENCE = 1;

/** Why a datagram was not read: a kind to count drops by, and a sentence for the log. */
export interface PacketRefusal {
  readonly refused: 'version' | 'truncated' | 'oversized' | 'type';
  readonly reason: string;
}

export function isRefusal(value: object): value is PacketRefusal {
  return 'refused' in value;
}

function refusal(refused: PacketRefusal['refused'], reason: string): PacketRefusal {
  return { refused, reason };
}

function typeName(type: number): string {
  return `0x${type.toString(16).padStart(2, '0')}`;
}

/** The checks every RTP datagram passes: at least `min` bytes, at most `max`, version 2. */
function checkHeader(bytes: Uint8Array, what: string, min: number, max: number): PacketRefusal | undefined {
  if (bytes.length < min) return refusal('truncated', `${what} of ${bytes.length} bytes, shorter than ${min}`);
  if (bytes.length > max) return refusal('oversized', `${what} of ${bytes.length} bytes, longer than ${max}`);
  const version = bytes[0] >> 6;
  if (version !== RTP_VERSION) return refusal('version', `${what} of RTP version ${version}, not ${RTP_VERSION}`);
  return undefined;
}

/** The payload type of an RTP datagram (marker bit taken off), or undefined when it has no second byte. */
export function payloadTypeOf(bytes: Uint8Array): number | undefined {
  return bytes.length < 2 ? undefined : bytes[1] & 0x7f;
}

// --- audio -------------------------------------------------------------------------------------

/** An audio packet (RFC 3550 5.1 header, no CSRCs): views into the datagram, not copies. */
export interface AudioPacket {
  readonly marker: boolean;
  readonly payloadType: number;
  readonly sequence: number;
  /** RTP time of the packet's first frame (frames at the stream's rate, wrapping at 2^32). */
  readonly timestamp: number;
  readonly ssrc: number;
  /** The 12 header bytes (a sealed payload's AAD is bytes 4..11 of them). */
  readonly header: Uint8Array;
  readonly payload: Uint8Array;
}

export function readAudioPacket(bytes: Uint8Array, maxBytes = MAX_AUDIO_PACKET_BYTES): AudioPacket | PacketRefusal {
  const bad = checkHeader(bytes, 'audio packet', AUDIO_HEADER_BYTES, maxBytes);
  if (bad) return bad;
  const payloadType = bytes[1] & 0x7f;
  if (payloadType !== PAYLOAD_TYPE.audio) return refusal('type', `RTP packet of type ${typeName(payloadType)} on the audio port, not audio (${typeName(PAYLOAD_TYPE.audio)})`);
  return {
    marker: (bytes[1] & MARKER_BIT) !== 0,
    payloadType,
    sequence: readU16BE(bytes, 2),
    timestamp: readU32BE(bytes, 4),
    ssrc: readU32BE(bytes, 8),
    header: bytes.subarray(0, AUDIO_HEADER_BYTES),
    payload: bytes.subarray(AUDIO_HEADER_BYTES),
  };
}

export interface AudioPacketFields {
  readonly marker: boolean;
  readonly sequence: number;
  readonly timestamp: number;
  readonly ssrc: number;
}

/** The 12-byte header (pyatv: 0x80, then 0xE0 on the first packet and 0x60 after). */
export function writeAudioHeader(fields: AudioPacketFields, into = new Uint8Array(AUDIO_HEADER_BYTES)): Uint8Array {
  into[0] = VERSION_BYTE;
  into[1] = PAYLOAD_TYPE.audio | (fields.marker ? MARKER_BIT : 0);
  writeU16BE(into, 2, fields.sequence & 0xffff);
  writeU32BE(into, 4, fields.timestamp >>> 0);
  writeU32BE(into, 8, fields.ssrc >>> 0);
  return into;
}

/** A whole audio packet: header, then `payload` (PCM, an ALAC frame, or a sealed payload). */
export function writeAudioPacket(fields: AudioPacketFields, payload: Uint8Array): Uint8Array {
  const packet = new Uint8Array(AUDIO_HEADER_BYTES + payload.length);
  writeAudioHeader(fields, packet);
  packet.set(payload, AUDIO_HEADER_BYTES);
  return packet;
}

// --- sync --------------------------------------------------------------------------------------

/**
 * A sync packet: RTP time `presentedRtpTime` is heard at the sender-clock time `senderTimeMs`
 * (NTP, read as ms); `currentRtpTime` is the frame the sender is sending now, so their difference
 * is the stream's latency in frames. The first after RECORD or a flush has the extension bit.
 */
export interface SyncPacket {
  readonly first: boolean;
  readonly presentedRtpTime: number;
  readonly senderTimeMs: number;
  readonly currentRtpTime: number;
}

const SYNC_FIELD = { presentedRtpTime: 4, ntp: 8, currentRtpTime: 16 } as const;

export function readSyncPacket(bytes: Uint8Array): SyncPacket | PacketRefusal {
  const bad = checkHeader(bytes, 'sync packet', SYNC_PACKET_BYTES, SYNC_PACKET_BYTES);
  if (bad) return bad;
  const payloadType = bytes[1] & 0x7f;
  if (payloadType !== PAYLOAD_TYPE.sync) return refusal('type', `RTP packet of type ${typeName(payloadType)}, not sync (${typeName(PAYLOAD_TYPE.sync)})`);
  return {
    first: (bytes[0] & EXTENSION_BIT) !== 0,
    presentedRtpTime: readU32BE(bytes, SYNC_FIELD.presentedRtpTime),
    senderTimeMs: readTimestamp(bytes, SYNC_FIELD.ntp),
    currentRtpTime: readU32BE(bytes, SYNC_FIELD.currentRtpTime),
  };
}

/** pyatv: `0x90 (first) / 0x80, 0xD4, 0x0007`, then the three times. */
export function writeSyncPacket(sync: SyncPacket): Uint8Array {
  const bytes = new Uint8Array(SYNC_PACKET_BYTES);
  bytes[0] = VERSION_BYTE | (sync.first ? EXTENSION_BIT : 0);
  bytes[1] = PAYLOAD_TYPE.sync | MARKER_BIT;
  writeU16BE(bytes, 2, SYNC_SEQUENCE);
  writeU32BE(bytes, SYNC_FIELD.presentedRtpTime, sync.presentedRtpTime >>> 0);
  writeTimestamp(bytes, SYNC_FIELD.ntp, sync.senderTimeMs);
  writeU32BE(bytes, SYNC_FIELD.currentRtpTime, sync.currentRtpTime >>> 0);
  return bytes;
}

// --- retransmit request ------------------------------------------------------------------------

/** Send again `count` packets from sequence number `firstSequence` on (wrapping at 2^16). */
export interface RetransmitRequest {
  readonly firstSequence: number;
  readonly count: number;
}

export function readRetransmitRequest(bytes: Uint8Array): RetransmitRequest | PacketRefusal {
  const bad = checkHeader(bytes, 'retransmit request', RETRANSMIT_REQUEST_BYTES, RETRANSMIT_REQUEST_BYTES);
  if (bad) return bad;
  const payloadType = bytes[1] & 0x7f;
  if (payloadType !== PAYLOAD_TYPE.retransmitRequest) return refusal('type', `RTP packet of type ${typeName(payloadType)}, not a retransmit request (${typeName(PAYLOAD_TYPE.retransmitRequest)})`);
  return { firstSequence: readU16BE(bytes, 4), count: readU16BE(bytes, 6) };
}

/** shairport-sync's: `0x80, 0xD5, 0x0001, first lost, count` (pyatv reads the last two fields). */
export function writeRetransmitRequest(request: RetransmitRequest): Uint8Array {
  const bytes = new Uint8Array(RETRANSMIT_REQUEST_BYTES);
  bytes[0] = VERSION_BYTE;
  bytes[1] = PAYLOAD_TYPE.retransmitRequest | MARKER_BIT;
  writeU16BE(bytes, 2, RETRANSMIT_REQUEST_SEQUENCE);
  writeU16BE(bytes, 4, request.firstSequence & 0xffff);
  writeU16BE(bytes, 6, request.count & 0xffff);
  return bytes;
}

// --- resent ------------------------------------------------------------------------------------

/**
 * A resent packet: `0x80, 0xD6`, the original's sequence number, then the original audio packet
 * whole (pyatv, shairport-sync). Returns the original, read as an audio packet.
 */
export function readResentPacket(bytes: Uint8Array, maxBytes = MAX_AUDIO_PACKET_BYTES + RESENT_HEADER_BYTES): AudioPacket | PacketRefusal {
  const bad = checkHeader(bytes, 'resent packet', RESENT_HEADER_BYTES + AUDIO_HEADER_BYTES, maxBytes);
  if (bad) return bad;
  const payloadType = bytes[1] & 0x7f;
  if (payloadType !== PAYLOAD_TYPE.resent) return refusal('type', `RTP packet of type ${typeName(payloadType)}, not a resent packet (${typeName(PAYLOAD_TYPE.resent)})`);
  const original = readAudioPacket(bytes.subarray(RESENT_HEADER_BYTES), maxBytes);
  if (isRefusal(original)) return refusal(original.refused, `resent packet: ${original.reason}`);
  return original;
}

/** pyatv: `b"\x80\xD6" + packet[2:4] + packet`. */
export function writeResentPacket(original: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(RESENT_HEADER_BYTES + original.length);
  bytes[0] = VERSION_BYTE;
  bytes[1] = PAYLOAD_TYPE.resent | MARKER_BIT;
  bytes[2] = original[2];
  bytes[3] = original[3];
  bytes.set(original, RESENT_HEADER_BYTES);
  return bytes;
}

// --- the control port --------------------------------------------------------------------------

/** What arrives on a receiver's control port. */
export type ControlPacket =
  | { readonly type: 'sync'; readonly sync: SyncPacket }
  | { readonly type: 'resent'; readonly packet: AudioPacket }
  | { readonly type: 'retransmitRequest'; readonly request: RetransmitRequest };

/** Reads a control-port datagram by its payload type. */
export function readControlPacket(bytes: Uint8Array, maxBytes = MAX_AUDIO_PACKET_BYTES + RESENT_HEADER_BYTES): ControlPacket | PacketRefusal {
  const type = payloadTypeOf(bytes);
  if (type === undefined) return refusal('truncated', `control packet of ${bytes.length} bytes`);
  switch (type) {
    case PAYLOAD_TYPE.sync: {
      const sync = readSyncPacket(bytes);
      return isRefusal(sync) ? sync : { type: 'sync', sync };
    }
    case PAYLOAD_TYPE.resent: {
      const packet = readResentPacket(bytes, maxBytes);
      return isRefusal(packet) ? packet : { type: 'resent', packet };
    }
    case PAYLOAD_TYPE.retransmitRequest: {
      const request = readRetransmitRequest(bytes);
      return isRefusal(request) ? request : { type: 'retransmitRequest', request };
    }
    default:
      return refusal('type', `control packet of type ${typeName(type)}, not sync, resent or a retransmit request`);
  }
}
