// Mirroring's time packets (spec 4.5): NTP (RFC 5905) version 4, 48 bytes, the receiver's
// client requests to the sender's port 7010 and the sender's server answers. The exchange logic
// (schedule, checks, filter, clock recovery) is the same for every timing format: clock.ts.

import type { TimingAnswer, TimingFormat } from './clock';
import { readTimestamp, writeTimestamp } from './timestamps';

/** RFC 5905 7.3: the packet is 48 bytes without extensions. */
export const NTP_PACKET_BYTES = 48;

/** spec 4.5: the sender serves its clock on 7010; the receiver asks from 7011. */
export const NTP_SENDER_PORT = 7010;
export const NTP_RECEIVER_PORT = 7011;

/** spec 4.5: version 4, mode client (LI 0, VN 4, mode 3), and the server's mode 4. */
const NTP_CLIENT_FIRST_BYTE = 0x23;
const NTP_SERVER_FIRST_BYTE = 0x24;

const MODE_CLIENT = 3;
const MODE_SERVER = 4;

/** Offsets of the fields RFC 5905 7.3 lays out. */
const FIELD = { stratum: 1, referenceId: 12, reference: 16, origin: 24, receive: 32, transmit: 40 } as const;

/** spec 4.5: the client's request: first byte 0x23, every field zero but the transmit timestamp. */
export function ntpRequest(transmitMs: number): Uint8Array {
  const packet = new Uint8Array(NTP_PACKET_BYTES);
  packet[0] = NTP_CLIENT_FIRST_BYTE;
  writeTimestamp(packet, FIELD.transmit, transmitMs);
  return packet;
}

/**
 * spec 4.5: the server's answer: first byte 0x24, stratum 1, a four-character reference id,
 * origin = the request's transmit timestamp (copied byte for byte, RFC 5905 8), receive and
 * transmit from the server's clock.
 */
export function ntpServerReply(request: Uint8Array, receiveMs: number, transmitMs: number, referenceId = 'LOCL'): Uint8Array {
  const packet = new Uint8Array(NTP_PACKET_BYTES);
  packet[0] = NTP_SERVER_FIRST_BYTE;
  packet[FIELD.stratum] = 1;
  for (let i = 0; i < 4; i++) packet[FIELD.referenceId + i] = referenceId.charCodeAt(i) & 0x7f;
  writeTimestamp(packet, FIELD.reference, receiveMs);
  packet.set(request.subarray(FIELD.transmit, FIELD.transmit + 8), FIELD.origin);
  writeTimestamp(packet, FIELD.receive, receiveMs);
  writeTimestamp(packet, FIELD.transmit, transmitMs);
  return packet;
}

/** Whether a datagram is a client request a server should answer. */
export function isNtpClientRequest(packet: Uint8Array): boolean {
  return packet.length >= NTP_PACKET_BYTES && (packet[0] & 0x07) === MODE_CLIENT;
}

function readNtpAnswer(packet: Uint8Array): TimingAnswer | string {
  if (packet.length < NTP_PACKET_BYTES) return `${packet.length}-byte datagram, not an NTP packet (${NTP_PACKET_BYTES} bytes)`;
  if ((packet[0] & 0x07) !== MODE_SERVER) return `NTP mode ${packet[0] & 0x07}, not a server answer (4)`;
  if (packet[FIELD.stratum] === 0) return 'NTP kiss-o-death (stratum 0)';
  return {
    origin: packet.subarray(FIELD.origin, FIELD.origin + 8),
    receive: readTimestamp(packet, FIELD.receive),
    transmit: readTimestamp(packet, FIELD.transmit),
  };
}

/** Mirroring's NTP, as a timing format for the clock client. */
export const NTP_FORMAT: TimingFormat = {
  name: 'NTP',
  request: ntpRequest,
  requestTransmitAt: FIELD.transmit,
  readAnswer: readNtpAnswer,
};
