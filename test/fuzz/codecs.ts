// Fuzz campaigns of the decoders of the core: XML and binary property lists and text/parameters
// (src/plist), TLV8 (src/pairing/tlv8.ts), the framed ChaCha20-Poly1305 channel's open
// (src/pairing/channel.ts), the JPEG inspector (src/receiver/media/jpeg.ts), the slideshow asset reply
// reader (src/receiver/slideshow/slideshow.ts) and the unicast mDNS query reader
// (src/discovery/mdns-unicast.ts). Each may throw only its own error type for bad input.
// Portable: ECMAScript only.

import { concat, equal, latin1Encode, utf8Encode } from '../../src/bytes';
import { DiscoveryError } from '../../src/discovery/error';
import { answerQuery, readQuery, type Zone } from '../../src/discovery/mdns-unicast';
import { txtBytes } from '../../src/discovery/txt-bytes';
import { ControlChannel } from '../../src/pairing/channel';
import { PairingError } from '../../src/pairing/errors';
import { decodeTlv8, decodeTlv8Groups, decodeTlv8List, decodeTlvUint, encodeTlv8 } from '../../src/pairing/tlv8';
import { decodeBinaryPlist, encodeBinaryPlist } from '../../src/plist/binary';
import { decodeParameters } from '../../src/plist/parameters';
import { PlistError, type PlistValue } from '../../src/plist/value';
import { decodeXmlPlist, encodeXmlPlistBytes } from '../../src/plist/xml';
import { inspectJpeg, JpegError } from '../../src/receiver/media/jpeg';
import { readAssetReply, SlideshowError } from '../../src/receiver/slideshow/slideshow';
import { randomPlistValue, type Rng } from '../support/arbitrary';
import { sampleJpeg } from '../support/jpeg-samples';
import { FuzzFailure, type Campaign } from './engine';
import { mutate, randomSplit, tokens } from './mutate';

/** Documents generated on purpose beyond a limit or malformed (deep nesting): not "valid". */
const BEYOND_LIMITS = new WeakSet<Uint8Array>();
const beyondLimits = (bytes: Uint8Array): Uint8Array => (BEYOND_LIMITS.add(bytes), bytes);

/** A decoder input: the bytes, and whether they are the valid document unchanged. */
interface DocInput {
  readonly bytes: Uint8Array;
  readonly valid: boolean;
}

const XML_TOKENS = tokens(
  '<dict>', '</dict>', '<array>', '</array>', '<key>', '</key>', '<string>', '</string>', '<integer>', '</integer>', '<real>',
  '</real>', '<true/>', '<false/>', '<data>', '</data>', '<date>', '</date>', '<dict/>', '<array/>', '<string/>', '<![CDATA[', ']]>',
  '<!--', '-->', '&amp;', '&lt;', '&#x1F600;', '&#0;', '&#xD800;', '&#99999999999;', '&bogus;', '<?xml version="1.0"?>',
  '<!DOCTYPE plist [<!ENTITY a "aaaa">]>', '<plist version="1.0">', '</plist>', '\u00ef\u00bb\u00bf', '=', '"', "'", '9223372036854775808',
  '-9223372036854775809', '0x7fffffffffffffff', '1e309', 'nan', '2001-01-01T00:00:00Z', '99999-01-01T00:00:00Z', 'AAAA====', '\x00',
);

function nestedXml(rng: Rng): Uint8Array {
  const depth = rng.pick([63, 64, 65, 200, 5000, 100000]);
  const open = rng.pick(['<array>', '<dict><key>k</key>']);
  const close = open === '<array>' ? '</array>' : '</dict>';
  return beyondLimits(latin1Encode(`<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">${open.repeat(depth)}${close.repeat(rng.next() < 0.5 ? depth : 1)}</plist>`));
}

function docCampaign(
  name: string,
  expected: (error: unknown) => boolean,
  make: (rng: Rng) => Uint8Array,
  decode: (bytes: Uint8Array) => void,
  mutateOptions: { tokens?: Uint8Array[]; extra?: (rng: Rng, bytes: Uint8Array) => Uint8Array } = {},
): Campaign<DocInput> {
  return {
    name,
    expected,
    generate(rng) {
      const bytes = make(rng);
      const roll = rng.next();
      if (roll < 0.1) return { bytes, valid: !BEYOND_LIMITS.has(bytes) };
      if (roll < 0.2 && mutateOptions.extra) return { bytes: mutateOptions.extra(rng, bytes), valid: false };
      return { bytes: mutate(rng, bytes, { tokens: mutateOptions.tokens, corpus: [make(rng)] }), valid: false };
    },
    check(input) {
      try {
        decode(input.bytes);
      } catch (error) {
        if (input.valid && expected(error)) throw new FuzzFailure(`a valid document was refused: ${(error as Error).message}`);
        throw error;
      }
    },
  };
}

const isPlistError = (error: unknown): boolean => error instanceof PlistError;
const isPairingError = (error: unknown): boolean => error instanceof PairingError;

export const plistXml = docCampaign(
  'plist-xml',
  isPlistError,
  (rng) => (rng.next() < 0.03 ? nestedXml(rng) : encodeXmlPlistBytes(randomPlistValue(rng, { maxDepth: 4, maxEntries: 6 }))),
  (bytes) => void decodeXmlPlist(bytes),
  { tokens: XML_TOKENS },
);

function nestedBinary(rng: Rng): Uint8Array {
  let value: PlistValue = 1;
  const depth = rng.pick([63, 64, 65, 200]);
  for (let i = 0; i < depth; i++) value = rng.next() < 0.5 ? [value] : { k: value };
  return depth > 64 ? beyondLimits(encodeBinaryPlist(value)) : encodeBinaryPlist(value);
}

/** Edits the trailer (offset size, reference size, object count, top, table offset) or the offset table. */
function trailerEdit(rng: Rng, doc: Uint8Array): Uint8Array {
  const out = doc.slice();
  if (out.length < 40) return out;
  const t = out.length - 32;
  const field = rng.pick([6, 7, 8, 16, 24]);
  if (field < 8) out[t + field] = rng.pick([0, 1, 2, 3, 4, 5, 8, 16, 255]);
  else {
    const value = rng.pick([0, 1, 2, 0x7fffffff, 0xffffffff, 2 ** 53, out.length, out.length - 32, out.length - 33]);
    let v = value;
    for (let i = 7; i >= 0; i--) {
      out[t + field + i] = v % 256;
      v = Math.floor(v / 256);
    }
    if (rng.next() < 0.2) out.fill(0xff, t + field, t + field + 8);
  }
  return out;
}

export const plistBinary = docCampaign(
  'plist-binary',
  isPlistError,
  (rng) => (rng.next() < 0.03 ? nestedBinary(rng) : encodeBinaryPlist(randomPlistValue(rng, { uid: true, maxDepth: 4, maxEntries: 6 }))),
  (bytes) => void decodeBinaryPlist(bytes),
  { tokens: tokens('bplist00', '\x5f\xff', '\x4f\x10\x7f', '\xdf', '\xaf\x13\x00\x00\x00\x00\xff\xff\xff\xff', '\x13\xff\xff\xff\xff\xff\xff\xff\xff'), extra: trailerEdit },
);

const PARAMETER_NAMES = ['position', 'rate', 'volume', 'duration', 'Content-Location', 'Start-Position', 'progress', ''];
export const plistParameters = docCampaign(
  'plist-parameters',
  isPlistError,
  (rng) => {
    let text = '';
    const lines = rng.int(0, 6);
    for (let i = 0; i < lines; i++) text += `${rng.pick(PARAMETER_NAMES) || 'x'}: ${rng.int(-5, 5000) / 4}${rng.pick(['\r\n', '\n', '\r'])}`;
    return utf8Encode(text);
  },
  (bytes) => void decodeParameters(bytes, { maxLines: 200, maxBytes: 8192 }),
  { tokens: tokens(':', '\r\n', '\n', '\r', ' ', '\t', '\xc3\x28', '\xed\xa0\x80', '\xf4\x90\x80\x80', '\xef\xbb\xbf') },
);

const TLV_TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 0x13, 0xff];
export const tlv8 = docCampaign(
  'tlv8',
  isPairingError,
  (rng) => {
    const items: [number, Uint8Array][] = [];
    const count = rng.int(0, 8);
    for (let i = 0; i < count; i++) {
      const type = rng.pick(TLV_TYPES);
      const size = rng.pick([0, 1, 4, rng.int(0, 300), 255, 256, 600]);
      items.push([type, rng.bytes(size)]);
      // Separator-delimited groups (a pairings list) now and then.
      if (rng.next() < 0.1) items.push([0xff, new Uint8Array(0)]);
    }
    return encodeTlv8(items);
  },
  (bytes) => {
    const list = decodeTlv8List(bytes);
    let groups: Map<number, Uint8Array>[] | undefined;
    try {
      groups = decodeTlv8Groups(bytes);
    } catch (error) {
      if (!isPairingError(error)) throw error;
    }
    try {
      const map = decodeTlv8(bytes);
      // The map and the list agree on every value the map holds.
      for (const [type, value] of map) {
        if (!list.some(([t, v]) => t === type && equal(v, value))) throw new FuzzFailure(`decodeTlv8 has type ${type} that decodeTlv8List does not`);
      }
    } catch (error) {
      if (!isPairingError(error)) throw error;
    }
    for (const [, value] of list) {
      try {
        decodeTlvUint(value);
      } catch (error) {
        if (!isPairingError(error)) throw error;
      }
    }
    // Re-encoding what was read reads back the same (fragments of 255 joined either way).
    const again = decodeTlv8List(encodeTlv8(list));
    if (again.length !== list.length || again.some(([t, v], i) => t !== list[i][0] || !equal(v, list[i][1]))) {
      throw new FuzzFailure('decode(encode(decode(x))) differs from decode(x)');
    }
    void groups;
  },
);

interface ChannelInput {
  readonly keys: [Uint8Array, Uint8Array];
  readonly plaintext: Uint8Array;
  readonly wire: Uint8Array;
  readonly pieces: Uint8Array[];
  readonly intact: boolean;
}

/** The framed channel's open (spec 5.4): tampered, truncated, reordered, repeated frames. */
export const channelOpen: Campaign<ChannelInput> = {
  name: 'channel-open',
  expected: isPairingError,
  generate(rng) {
    const keys: [Uint8Array, Uint8Array] = [rng.bytes(32), rng.bytes(32)];
    const sender = new ControlChannel(keys[1].slice(), keys[0].slice());
    const plaintext = rng.bytes(rng.pick([1, rng.int(1, 100), rng.int(100, 3000), 1024, 1025]));
    let frames: Uint8Array[] = [];
    for (let offset = 0; offset < plaintext.length; ) {
      const size = rng.int(1, 1200);
      frames.push(sender.seal(plaintext.subarray(offset, offset + size)));
      offset += size;
    }
    const edit = rng.int(0, 6);
    if (edit === 2 && frames.length > 1) {
      const a = rng.int(0, frames.length - 2);
      [frames[a], frames[a + 1]] = [frames[a + 1], frames[a]];
    } else if (edit === 3) {
      const a = rng.int(0, frames.length - 1);
      frames = [...frames.slice(0, a + 1), frames[a], ...frames.slice(a + 1)];
    } else if (edit === 4) {
      frames = frames.slice(0, rng.int(0, frames.length - 1)).concat([frames[frames.length - 1]]); // a frame dropped
    }
    let wire = concat(...frames);
    if (edit === 0) wire = mutate(rng, wire, { maxEdits: 3 });
    if (edit === 1) wire = wire.slice(0, rng.int(0, wire.length));
    if (edit === 5) wire = concat(wire, rng.bytes(rng.int(1, 40)));
    const intact = edit === 6 || (edit === 2 && frames.length <= 1);
    return { keys, plaintext, wire, pieces: randomSplit(rng, wire), intact };
  },
  check(input) {
    const receiver = new ControlChannel(input.keys[0].slice(), input.keys[1].slice());
    const opened: Uint8Array[] = [];
    let threw: unknown;
    try {
      for (const piece of input.pieces) {
        for (const plaintext of receiver.open(piece)) opened.push(plaintext);
        if ((receiver.buffered ?? 0) > 1042) throw new FuzzFailure(`channel holds ${receiver.buffered} bytes of a partial frame`);
      }
    } catch (error) {
      if (!isPairingError(error)) throw error;
      threw = error;
    }
    // Whatever was opened is what the sender sealed, in order: a prefix of the plaintext.
    const got = concat(...opened);
    if (!equal(got, input.plaintext.subarray(0, got.length))) throw new FuzzFailure(`opened ${got.length} bytes that the sender did not send`);
    if (input.intact) {
      if (threw) throw new FuzzFailure(`an intact stream was refused: ${(threw as Error).message}`);
      if (got.length !== input.plaintext.length) throw new FuzzFailure(`an intact stream opened ${got.length} of ${input.plaintext.length} bytes`);
    }
    if (threw) {
      // After an error the channel refuses everything (the stream cannot be trusted again).
      let refused = false;
      try {
        receiver.open(Uint8Array.of(1, 0));
      } catch (error) {
        if (!isPairingError(error)) throw error;
        refused = true;
      }
      if (!refused) throw new FuzzFailure('the channel accepted input after an error');
      throw threw;
    }
  },
};

const JPEG_TOKENS = tokens('\xff\xd8', '\xff\xd9', '\xff\xda\x00\x08', '\xff\xc0\x00\x0b', '\xff\xc2\x00\x02', '\xff\xe1\xff\xff', '\xff\xff\xff', '\xff\x01', '\xff\xd0', '\xff\x00');
export const jpeg = docCampaign(
  'jpeg',
  (error) => error instanceof JpegError,
  (rng) => sampleJpeg(rng.int(46, 600), rng.int(1, 1000)),
  (bytes) => void inspectJpeg(bytes),
  { tokens: JPEG_TOKENS },
);

/** A sender's reply to GET /slideshows/1/assets/1 (spec 2.8): {data: JPEG, info: {id, key}}. */
function assetReply(rng: Rng): Uint8Array {
  const info: Record<string, PlistValue> = {};
  if (rng.next() < 0.9) info.id = rng.pick<PlistValue>([rng.int(0, 1000), 2n ** 62n, -1, 'x', 1.5]);
  if (rng.next() < 0.8) info.key = rng.pick<PlistValue>([rng.int(0, 1000), 'A1B2', true]);
  const reply: Record<string, PlistValue> = { data: sampleJpeg(rng.int(46, 400), rng.int(1, 100)), info };
  return rng.next() < 0.7 ? encodeBinaryPlist(reply) : encodeXmlPlistBytes(reply);
}

export const slideshowAssetReply = docCampaign(
  'slideshow-asset-reply',
  (error) => error instanceof SlideshowError,
  assetReply,
  (bytes) => {
    const slide = readAssetReply(bytes);
    inspectJpeg(slide.jpeg); // what it returns passed the inspector
  },
  { tokens: [...JPEG_TOKENS, ...XML_TOKENS.slice(0, 20)] },
);

const ZONE: Zone = {
  ipv4: Uint8Array.of(10, 0, 0, 7),
  services: [
    { instance: 'Living Room', type: '_vendorplay._tcp', port: 7000, txt: txtBytes([['deviceid', '58:55:CA:1A:E2:88'], ['features', '0x40000000,0x10040']]), host: 'Living-Room' },
    { instance: '5855CA1AE288@Living Room', type: '_raop._tcp', port: 7000, txt: txtBytes([['txtvers', '1'], ['am', 'VendorDesktop1,1']]), host: 'Living-Room' },
  ],
};
const NAMES = [
  ['_vendorplay', '_tcp', 'local'], ['_raop', '_tcp', 'local'], ['Living Room', '_vendorplay', '_tcp', 'local'],
  ['5855CA1AE288@Living Room', '_raop', '_tcp', 'local'], ['Living-Room', 'local'], ['_services', '_dns-sd', '_udp', 'local'], ['other', 'local'], [],
];

function dnsName(labels: string[]): number[] {
  const out: number[] = [];
  for (const label of labels) {
    const bytes = utf8Encode(label);
    out.push(bytes.length, ...bytes);
  }
  out.push(0);
  return out;
}

/** A query: questions (some names compressed), maybe known answers and an OPT record. */
function dnsQuery(rng: Rng): Uint8Array {
  const questions = rng.int(0, 4);
  const answers = rng.next() < 0.2 ? rng.int(1, 2) : 0;
  const opt = rng.next() < 0.3;
  const bytes = [rng.int(0, 255), rng.int(0, 255), 0, 0, 0, questions, 0, answers, 0, 0, 0, opt ? 1 : 0];
  for (let i = 0; i < questions; i++) {
    if (i > 0 && rng.next() < 0.3) bytes.push(0xc0, 12);
    else bytes.push(...dnsName(rng.pick(NAMES)));
    bytes.push(0, rng.pick([1, 12, 16, 28, 33, 255]), rng.pick([0, 0x80]), 1);
  }
  for (let i = 0; i < answers; i++) {
    bytes.push(...dnsName(rng.pick(NAMES)), 0, 12, 0, 1, 0, 0, 0x11, 0x94, 0, 2, 0xc0, 12);
  }
  if (opt) bytes.push(0, 0, 41, (rng.pick([512, 1232, 4096, 65535, 0]) >> 8) & 0xff, 0, 0, 0, 0, 0, 0, 0);
  return Uint8Array.from(bytes);
}

export const mdnsUnicast = docCampaign(
  'mdns-unicast',
  (error) => error instanceof DiscoveryError,
  dnsQuery,
  (bytes) => {
    readQuery(bytes);
    const legacy = answerQuery(bytes, ZONE, { port: 49152 });
    const multicast = answerQuery(bytes, ZONE, { port: 5353 });
    for (const answer of [legacy, multicast]) {
      if (!answer) continue;
      if (answer.length > 9000) throw new FuzzFailure(`an answer of ${answer.length} bytes`);
      try {
        readQuery(answer); // what we send is a well-formed DNS message
      } catch (error) {
        throw new FuzzFailure(`our answer does not read back: ${(error as Error).message}`);
      }
    }
    // A legacy answer fits 512 bytes, or the querier's OPT size, or 1440 when a TXT record
    // would not fit otherwise (src/discovery/mdns-unicast.ts LEGACY_SIZE_FOR_TXT).
    if (legacy && legacy.length > 512) {
      const query = readQuery(bytes);
      const allowed = Math.max(1440, query.udpPayloadSize ?? 0);
      if (legacy.length > allowed) throw new FuzzFailure(`a legacy answer of ${legacy.length} bytes (the querier takes ${query.udpPayloadSize ?? 512})`);
    }
  },
  { tokens: tokens('\xc0\x0c', '\xc0\x00', '\xc0\xff', '\x3f', '\x40', '\x80', '\x00\x29\x10\x00', '\xff\xff') },
);
