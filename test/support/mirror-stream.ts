// What a mirroring sender sends first (spec 4.4, 2.13, 2.14), for the tests and benches that
// play one by hand: small H.264 units, the POST /stream plist and request, and codec data.
// Portable (the XS suite runs the tests that use it): ECMAScript and src/ only.

import { concat, latin1Encode } from '../../src/bytes';
import { buildAvcC } from '../../src/mirror/avcc';
import { PACKET_TYPE, writePacket } from '../../src/mirror/packet';
import { encodeBinaryPlist, type PlistDict } from '../../src/plist';

/** A sequence and a picture parameter set, and slices of an IDR and a P picture, and an SEI: a few bytes each. */
export const SPS = Uint8Array.of(0x67, 0x4d, 0x40, 0x1f, 0xec, 0xa0);
export const PPS = Uint8Array.of(0x68, 0xeb, 0xe3, 0xcb);
export const IDR = Uint8Array.of(0x65, 0x88, 0x84, 0x00, 0x10);
export const P_SLICE = Uint8Array.of(0x41, 0x9a, 0x02, 0x03);
export const SEI = Uint8Array.of(0x06, 0x05, 0x01, 0x80);

/** spec 2.13: a POST /stream body as senders send it. */
export const STREAM_REQUEST: PlistDict = {
  deviceID: 181221086727016,
  sessionID: -808788724,
  version: '130.16',
  latencyMs: 90,
  fpsInfo: [{ name: 'SubS' }],
  timestampInfo: [{ name: 'SubSu' }],
};

/** POST /stream with `plist` as its binary plist body, and the device id header senders add. */
export function postStream(plist: PlistDict = STREAM_REQUEST): Uint8Array {
  const body = encodeBinaryPlist(plist);
  return concat(latin1Encode(`POST /stream HTTP/1.1\r\nX-Vendor-Device-ID: 0xa4d1d2800b68\r\nContent-Length: ${body.length}\r\n\r\n`), body);
}

/** spec 2.14: the codec data packet of SPS and PPS with 4-byte NAL lengths. */
export const CODEC_DATA = writePacket(PACKET_TYPE.codecData, buildAvcC([SPS], [PPS], 4));
