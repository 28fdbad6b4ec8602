// Binary plist encode and decode throughput: ours against bplist-parser and bplist-creator on the
// same documents in one run, reported as ratios (ours / theirs; above 1 means ours is faster).
//
// Same document on both sides: reals are handed to bplist-creator as its Real type (a plain
// number would be written as an integer or a different real; an object would be a dict), and
// before any timing every output is checked: each decoder's result equals the document, and each
// encoder's bytes decode (with both decoders) to the document.
//
// Our encoder writes a repeated value once and refers to it again (the access log repeats most
// keys and many values), so decoding our encoding is less work than decoding an encoding without
// sharing. Both decoders are therefore timed on both encodings: `encodedBy: ours` (shared) and
// `encodedBy: bplist-creator` (every value written where it occurs).

import { deepStrictEqual } from 'node:assert/strict';
import bplistCreator from 'bplist-creator';
import { parseBuffer } from 'bplist-parser';
import { decodeBinaryPlist, encodeBinaryPlist } from '../../src/plist/binary';
import { PlistReal, PlistUid, type PlistValue } from '../../src/plist/value';
import { PLIST_SAMPLES } from '../vectors/plist-samples';
import { makeRng } from '../support/arbitrary';
import { compare, ratioFigure, report, spreadFields } from './measure';

/** The document in bplist-creator's terms: Buffers for data, its Real for reals. */
function forCreator(value: PlistValue): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof PlistReal) return new bplistCreator.Real(value.value);
  if (value instanceof PlistUid) throw new Error('bplist-creator has no UID type; keep UIDs out of the bench documents');
  if (Array.isArray(value)) return value.map(forCreator);
  if (value instanceof Date || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = forCreator(value[key]);
  return out;
}

/** What bplist-parser returns for the document: reals as numbers, data as Buffers. */
function asParsed(value: PlistValue): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof PlistReal) return value.value;
  if (Array.isArray(value)) return value.map(asParsed);
  if (value instanceof Date || typeof value !== 'object' || value instanceof PlistUid) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = asParsed(value[key]);
  return out;
}

/** A copy with no shared containers, so encoders cannot write a repeated container once. */
function deepCopy(value: PlistValue): PlistValue {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (value instanceof Uint8Array) return value.slice();
  if (value instanceof Date) return new Date(value.getTime());
  if (value instanceof PlistReal) return new PlistReal(value.value);
  if (typeof value !== 'object' || value instanceof PlistUid) return value;
  const out: Record<string, PlistValue> = {};
  for (const key of Object.keys(value)) out[key] = deepCopy(value[key]);
  return out;
}

interface Payload {
  value: PlistValue;
  /** Whether decoding must look at every byte; false: say what it measures instead. */
  note?: string;
}

function payloads(): Record<string, Payload> {
  const rng = makeRng(42);
  const accessLog = PLIST_SAMPLES['2.10 playback access log entry'];
  return {
    // spec 2.11: the audio information record, the reply every RTSP GET /info gets
    'info-record': { value: PLIST_SAMPLES['2.11 audio-service information record'] },
    // spec 2.8: a slideshow asset reply carrying a 150 KB JPEG. Neither decoder walks the
    // picture's bytes (both return a view of them) and both encoders copy them once: this
    // measures the per-document cost around a large data object, not per-byte work.
    'slideshow-asset-150k': { value: { data: rng.bytes(150 * 1024), info: { id: 7, key: 1 } }, note: 'data copied or viewed, not walked: per-document cost only' },
    // spec 4.2: /getProperty playbackAccessLog with 200 entries (separate objects with many
    // repeated strings and numbers, as a real log has)
    'access-log-200': { value: { errorCode: 0, value: Array.from({ length: 200 }, () => deepCopy(accessLog)) } },
    // spec 2.13: the mirroring stream request
    'stream-request': { value: PLIST_SAMPLES['2.13 mirroring stream request'] },
  };
}

/** Checks that `encoded` decodes, with both decoders, to `value`. */
function checkEncoding(encoded: Uint8Array, value: PlistValue, encodedBy: string): void {
  deepStrictEqual(decodeBinaryPlist(encoded, { exactReals: true }), value, `ours decoding ${encodedBy}'s encoding`);
  const parsed = parseBuffer(Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength)) as unknown[];
  deepStrictEqual(parsed[0], asParsed(value), `bplist-parser decoding ${encodedBy}'s encoding`);
}

export function runPlistBench(): void {
  for (const [name, { value, note }] of Object.entries(payloads())) {
    const creatorValue = forCreator(value) as Record<string, unknown>;
    const encodings = { ours: encodeBinaryPlist(value), 'bplist-creator': new Uint8Array(bplistCreator(creatorValue)) };
    for (const [encodedBy, encoded] of Object.entries(encodings)) checkEncoding(encoded, value, encodedBy);
    const extra: Record<string, string> = note === undefined ? {} : { note };

    for (const [encodedBy, encoded] of Object.entries(encodings)) {
      const buffer = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
      const decode = compare({
        ours: () => decodeBinaryPlist(encoded),
        'bplist-parser': () => parseBuffer(buffer),
      });
      for (const lib of ['ours', 'bplist-parser'] as const) {
        report({ bench: 'bplist.decode', payload: name, encodedBy, bytes: encoded.length, lib, ...spreadFields('opsPerSec', decode[lib], 1), ...extra });
      }
      report({ bench: 'bplist.decode', payload: name, encodedBy, of: 'ours/bplist-parser', ...ratioFigure(decode.ours, decode['bplist-parser']) });
    }

    const encode = compare({
      ours: () => encodeBinaryPlist(value),
      'bplist-creator': () => bplistCreator(creatorValue),
    });
    for (const lib of ['ours', 'bplist-creator'] as const) {
      report({ bench: 'bplist.encode', payload: name, lib, bytes: encodings[lib].length, ...spreadFields('opsPerSec', encode[lib], 1), ...extra });
    }
    report({ bench: 'bplist.encode', payload: name, of: 'ours/bplist-creator', ...ratioFigure(encode.ours, encode['bplist-creator']) });
  }
}

