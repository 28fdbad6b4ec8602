// The timing packets of audio sessions (RAOP timing, as session SETUP's `timingProtocol: NTP`
// and classic RTSP SETUP's `timing_port` use them): 32 bytes, an RTP-like first byte 0x80, then
// the payload type 0x52 for a request or 0x53 for an answer with the marker bit set (0xD2,
// 0xD3), a sequence number of 7, four zero bytes, and three NTP timestamps: origin (the
// request's transmit timestamp, copied), receive, transmit. The spec shows none of it ("other
// audio requests: not shown"); this is what senders and receivers in the field exchange
// (shairport-sync, pyatv's timing server). Either side may ask: the receiver asks the sender's
// timing port, and answers a sender that asks it.

import type { TimingAnswer, TimingFormat } from './clock';
import { readTimestamp, writeTimestamp } from './timestamps';

export const RAOP_TIMING_BYTES = 32;

/** Second byte: the payload type with the marker bit. */
const TYPE = { request: 0xd2, answer: 0xd3 } as const;
const FIRST_BYTE = 0x80;
/** The sequence number senders and receivers put in every timing packet. */
const SEQUENCE = 7;

const FIELD = { sequence: 2, origin: 8, receive: 16, transmit: 24 } as const;

function packet(type: number, transmitMs: number): Uint8Array {
  const bytes = new Uint8Array(RAOP_TIMING_BYTES);
  bytes[0] = FIRST_BYTE;
  bytes[1] = type;
  bytes[FIELD.sequence + 1] = SEQUENCE;
  writeTimestamp(bytes, FIELD.transmit, transmitMs);
  return bytes;
}

/** A timing request sent at `transmitMs` (the asker's clock). */
export function raopTimingRequest(transmitMs: number): Uint8Array {
  return packet(TYPE.request, transmitMs);
}

/** The answer to `request`: its transmit timestamp as origin, byte for byte, and ours. */
export function raopTimingReply(request: Uint8Array, receiveMs: number, transmitMs: number): Uint8Array {
  const reply = packet(TYPE.answer, transmitMs);
  reply.set(request.subarray(FIELD.transmit, FIELD.transmit + 8), FIELD.origin);
  writeTimestamp(reply, FIELD.receive, receiveMs);
  return reply;
}

export function isRaopTimingRequest(bytes: Uint8Array): boolean {
  return bytes.length === RAOP_TIMING_BYTES && (bytes[1] & 0x7f) === (TYPE.request & 0x7f);
}

function readRaopAnswer(bytes: Uint8Array): TimingAnswer | string {
  if (bytes.length !== RAOP_TIMING_BYTES) return `${bytes.length}-byte datagram, not a timing packet (${RAOP_TIMING_BYTES} bytes)`;
  if ((bytes[1] & 0x7f) !== (TYPE.answer & 0x7f)) return `timing packet of type 0x${(bytes[1] & 0x7f).toString(16)}, not an answer (0x53)`;
  return {
    origin: bytes.subarray(FIELD.origin, FIELD.origin + 8),
    receive: readTimestamp(bytes, FIELD.receive),
    transmit: readTimestamp(bytes, FIELD.transmit),
  };
}

/** RAOP timing, as a timing format for the clock client. */
export const RAOP_TIMING_FORMAT: TimingFormat = {
  name: 'RAOP timing',
  request: raopTimingRequest,
  requestTransmitAt: FIELD.transmit,
  readAnswer: readRaopAnswer,
};
