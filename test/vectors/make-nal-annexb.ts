// Writes nal-annexb.json: length-prefixed H.264 payloads (spec 2.14, ISO/IEC 14496-15 5.3.3) and
// the Annex B each must become, built here by plain concatenation of the units (no kernel of
// ours is involved). Run once; the JSON is committed and checked by every build of the NAL
// kernel (TypeScript, AssemblyScript, C):
//   node --import tsx test/vectors/make-nal-annexb.ts

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

/** Deterministic filler bytes (no randomness: rerunning gives the same file). */
function pattern(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A unit of `bytes` bytes: the NAL header byte, then filler. */
function unit(header: number, bytes: number, seed: number): Buffer {
  return Buffer.concat([Buffer.of(header), pattern(bytes - 1, seed)]);
}

function lengthField(length: number, lengthSize: number): Buffer {
  const field = Buffer.alloc(lengthSize);
  field.writeUIntBE(length, 0, lengthSize);
  return field;
}

function lengthPrefixed(units: Buffer[], lengthSize: number): Buffer {
  return Buffer.concat(units.flatMap((nal) => [lengthField(nal.length, lengthSize), nal]));
}

function annexB(units: Buffer[]): Buffer {
  return Buffer.concat(units.flatMap((nal) => [Buffer.of(0, 0, 0, 1), nal]));
}

const isKeyFrame = (units: Buffer[]) => units.some((nal) => (nal[0] & 0x1f) === 5);

interface Converted {
  name: string;
  lengthSize: number;
  payload: string;
  annexB: string;
  keyFrame: boolean;
  nalCount: number;
}

interface Described {
  name: string;
  lengthSize: number;
  /** The payload's units: header byte, size in bytes (header included), filler seed (see test/support/nal-vectors.ts). */
  units: { header: string; bytes: number; seed: number }[];
  payloadSha256: string;
  annexBSha256: string;
  annexBBytes: number;
  keyFrame: boolean;
  nalCount: number;
}

interface Refused {
  name: string;
  lengthSize: number;
  payload: string;
  /** Index of the unit whose length is bad, and offset of its length field. */
  unit: number;
  at: number;
  message: string;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function converted(name: string, lengthSize: number, units: Buffer[]): Converted {
  return { name, lengthSize, payload: lengthPrefixed(units, lengthSize).toString('hex'), annexB: annexB(units).toString('hex'), keyFrame: isKeyFrame(units), nalCount: units.length };
}

function described(name: string, lengthSize: number, spec: { header: number; bytes: number; seed: number }[]): Described {
  const units = spec.map((part) => unit(part.header, part.bytes, part.seed));
  const output = annexB(units);
  return {
    name,
    lengthSize,
    units: spec.map((part) => ({ header: part.header.toString(16).padStart(2, '0'), bytes: part.bytes, seed: part.seed })),
    payloadSha256: sha256(lengthPrefixed(units, lengthSize)),
    annexBSha256: sha256(output),
    annexBBytes: output.length,
    keyFrame: isKeyFrame(units),
    nalCount: units.length,
  };
}

// NAL headers: forbidden bit 0, nal_ref_idc, nal_unit_type (ITU-T H.264 7.3.1, table 7-1).
const IDR = 0x65; // ref_idc 3, type 5
const IDR_REF1 = 0x25; // ref_idc 1, type 5
const NON_IDR = 0x41; // ref_idc 2, type 1
const NON_REF = 0x01; // ref_idc 0, type 1 (a disposable B or P slice)
const SEI = 0x06;
const SPS = 0x67;
const PPS = 0x68;
const AUD = 0x09;

const small = (header: number, bytes: number, seed: number) => unit(header, bytes, seed);

const cases: Converted[] = [
  converted('4-byte lengths: one IDR slice', 4, [small(IDR, 12, 1)]),
  converted('4-byte lengths: SEI and three non-IDR slices', 4, [small(SEI, 5, 2), small(NON_IDR, 40, 3), small(NON_IDR, 33, 4), small(NON_REF, 9, 5)]),
  converted('4-byte lengths: SPS, PPS, SEI and an IDR slice with nal_ref_idc 1', 4, [small(SPS, 10, 6), small(PPS, 4, 7), small(SEI, 3, 8), small(IDR_REF1, 50, 9)]),
  converted('4-byte lengths: units of one byte (a length of 1 next to start-code-like bytes)', 4, [Buffer.of(AUD), Buffer.of(NON_REF), Buffer.of(0x00), Buffer.of(0x01)]),
  converted('4-byte lengths: a unit holding 00 00 00 01 inside it is copied as it is', 4, [Buffer.of(NON_IDR, 0, 0, 0, 1, 0, 0, 1, 7)]),
  converted('2-byte lengths: one non-IDR slice', 2, [small(NON_IDR, 21, 10)]),
  converted('2-byte lengths: AUD, SEI, IDR slices of one picture', 2, [Buffer.of(AUD, 0xf0), small(SEI, 7, 11), small(IDR, 300, 12), small(IDR, 301, 13)]),
  converted('2-byte lengths: a unit of 256 bytes (both length bytes used)', 2, [small(NON_IDR, 256, 14), small(NON_REF, 2, 15)]),
  converted('1-byte lengths: two non-IDR slices', 1, [small(NON_IDR, 6, 16), small(NON_REF, 7, 17)]),
  converted('1-byte lengths: a unit of 255 bytes, the most one byte says, and an IDR slice', 1, [small(NON_IDR, 255, 18), small(IDR, 3, 19)]),
  converted('1-byte lengths: ten one-byte units', 1, Array.from({ length: 10 }, (_, i) => Buffer.of(i % 2 === 0 ? NON_REF : SEI))),
  converted('4-byte lengths: empty payload, no units', 4, []),
  converted('2-byte lengths: empty payload, no units', 2, []),
  converted('1-byte lengths: empty payload, no units', 1, []),
];

const large: Described[] = [
  described('4-byte lengths: one IDR slice of 70,000 bytes (a length above 64 KB)', 4, [{ header: IDR, bytes: 70_000, seed: 20 }]),
  described('4-byte lengths: an IDR frame of about 200 KB (SEI and four slices)', 4, [
    { header: SEI, bytes: 24, seed: 21 },
    { header: IDR, bytes: 51_200, seed: 22 },
    { header: IDR, bytes: 50_001, seed: 23 },
    { header: IDR, bytes: 49_999, seed: 24 },
    { header: IDR, bytes: 52_000, seed: 25 },
  ]),
  described('2-byte lengths: a unit of 65,535 bytes, the most two bytes say, then a non-IDR slice', 2, [
    { header: NON_IDR, bytes: 65_535, seed: 26 },
    { header: NON_IDR, bytes: 4_000, seed: 27 },
  ]),
  described('2-byte lengths: a P frame of about 42 KB in three slices', 2, [
    { header: SEI, bytes: 18, seed: 28 },
    { header: NON_IDR, bytes: 14_000, seed: 29 },
    { header: NON_IDR, bytes: 14_000, seed: 30 },
    { header: NON_IDR, bytes: 14_000, seed: 31 },
  ]),
];

const oneUnit = (lengthSize: number) => lengthPrefixed([small(NON_IDR, 5, 40)], lengthSize);

function refused(name: string, lengthSize: number, payload: Buffer, unitIndex: number, at: number, message: string): Refused {
  return { name, lengthSize, payload: payload.toString('hex'), unit: unitIndex, at, message };
}

const errors: Refused[] = [
  refused('4-byte lengths: a payload of 3 bytes cannot hold a length', 4, Buffer.of(0, 0, 0), 0, 0, 'NAL unit 0: 3 bytes left, less than its 4-byte length'),
  refused('4-byte lengths: 2 bytes after a whole unit', 4, Buffer.concat([oneUnit(4), Buffer.of(0, 0)]), 1, 9, 'NAL unit 1: 2 bytes left, less than its 4-byte length'),
  refused('2-byte lengths: 1 byte after a whole unit', 2, Buffer.concat([oneUnit(2), Buffer.of(0)]), 1, 7, 'NAL unit 1: 1 bytes left, less than its 2-byte length'),
  refused('4-byte lengths: the first length runs past the end', 4, Buffer.concat([lengthField(10, 4), small(IDR, 5, 41)]), 0, 0, 'NAL unit 0: length 10 runs 5 bytes past the payload'),
  refused('4-byte lengths: a length of 2^32 - 1', 4, Buffer.concat([lengthField(0xffffffff, 4), small(IDR, 5, 42)]), 0, 0, 'NAL unit 0: length 4294967295 runs 4294967290 bytes past the payload'),
  refused('4-byte lengths: the second length runs past the end by one byte', 4, Buffer.concat([oneUnit(4), lengthField(6, 4), small(NON_IDR, 5, 43)]), 1, 9, 'NAL unit 1: length 6 runs 1 bytes past the payload'),
  refused('2-byte lengths: the third length runs past the end', 2, Buffer.concat([oneUnit(2), oneUnit(2), lengthField(0x1234, 2), small(NON_IDR, 16, 44)]), 2, 14, 'NAL unit 2: length 4660 runs 4644 bytes past the payload'),
  refused('1-byte lengths: a length past the end', 1, Buffer.concat([oneUnit(1), Buffer.of(200, NON_IDR, 1)]), 1, 6, 'NAL unit 1: length 200 runs 198 bytes past the payload'),
  refused('4-byte lengths: a zero length first', 4, Buffer.concat([lengthField(0, 4), oneUnit(4)]), 0, 0, 'NAL unit 0: zero length'),
  refused('4-byte lengths: a zero length after a whole IDR slice (nothing converted)', 4, Buffer.concat([lengthPrefixed([small(IDR, 8, 45)], 4), lengthField(0, 4)]), 1, 12, 'NAL unit 1: zero length'),
  refused('2-byte lengths: a zero length second', 2, Buffer.concat([oneUnit(2), lengthField(0, 2), oneUnit(2)]), 1, 7, 'NAL unit 1: zero length'),
  refused('1-byte lengths: a zero length last', 1, Buffer.concat([oneUnit(1), oneUnit(1), Buffer.of(0)]), 2, 12, 'NAL unit 2: zero length'),
];

const vectors = {
  description:
    'NAL kernel (src/mirror/nal-kernel.ts): a video payload of spec 2.14 is H.264 NAL units each behind a big-endian length of lengthSize bytes (avcC, ISO/IEC 14496-15 5.3.3); toAnnexB puts a 4-byte start code 00 00 00 01 before each instead, in place for lengthSize 4. keyFrame: a unit has nal_unit_type 5 (header & 0x1f). ' +
    '"cases" give payload and Annex B in hex; "large" describe their units (header byte, then bytes - 1 filler bytes: x = (x * 1103515245 + 12345) mod 2^32 from x = seed, each byte x >>> 24) with SHA-256 of the payload and of the Annex B; "errors" must throw NalError with the message and leave the payload untouched; "badLengthSizes" must throw RangeError. Generated by make-nal-annexb.ts by concatenation.',
  cases,
  large,
  errors,
  badLengthSizes: [0, 3, 8],
};

writeFileSync(new URL('./nal-annexb.json', import.meta.url), JSON.stringify(vectors, null, 2) + '\n');
console.log(`nal-annexb.json: ${cases.length} cases, ${large.length} large, ${errors.length} errors`);
