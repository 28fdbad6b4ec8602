// Binary plist encode and decode throughput: ours against bplist-parser and bplist-creator on the
// same payloads in one run, reported as ratios (ours / theirs; above 1 means ours is faster).

import bplistCreator from 'bplist-creator';
import { parseBuffer } from 'bplist-parser';
import { decodeBinaryPlist, encodeBinaryPlist } from '../../src/plist/binary';
import { PlistReal, PlistUid, type PlistValue } from '../../src/plist/value';
import { PLIST_SAMPLES } from '../vectors/plist-samples';
import { makeRng } from '../support/arbitrary';
import { compare, report, round } from './measure';

/** The libraries take Buffers for data; give them the same bytes in the form they expect. */
function forLibrary(value: PlistValue): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(forLibrary);
  if (value instanceof Date || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = forLibrary((value as Record<string, PlistValue>)[key]);
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

function payloads(): Record<string, PlistValue> {
  const rng = makeRng(42);
  const accessLog = PLIST_SAMPLES['2.10 playback access log entry'];
  return {
    // spec 2.11: the audio information record, the reply every RTSP GET /info gets
    'info-record': PLIST_SAMPLES['2.11 audio-service information record'],
    // spec 2.8: a slideshow asset reply carrying a 150 KB JPEG
    'slideshow-asset-150k': { data: rng.bytes(150 * 1024), info: { id: 7, key: 1 } },
    // spec 4.2: /getProperty playbackAccessLog with 200 entries (separate objects with many
    // repeated strings and numbers, as a real log has)
    'access-log-200': { errorCode: 0, value: Array.from({ length: 200 }, () => deepCopy(accessLog)) },
    // spec 2.13: the mirroring stream request
    'stream-request': PLIST_SAMPLES['2.13 mirroring stream request'],
  };
}

export function runPlistBench(): void {
  for (const [name, value] of Object.entries(payloads())) {
    const libraryValue = forLibrary(value);
    const encoded = encodeBinaryPlist(value);
    const encodedBuffer = Buffer.from(encoded);

    const decode = compare({
      ours: () => decodeBinaryPlist(encoded),
      'bplist-parser': () => parseBuffer(encodedBuffer),
    });
    report({ bench: 'bplist.decode', payload: name, bytes: encoded.length, lib: 'ours', opsPerSec: round(decode.ours, 1) });
    report({ bench: 'bplist.decode', payload: name, bytes: encoded.length, lib: 'bplist-parser', opsPerSec: round(decode['bplist-parser'], 1) });
    report({ bench: 'bplist.decode', payload: name, ratio: round(decode.ours / decode['bplist-parser']), of: 'ours/bplist-parser' });

    const encode = compare({
      ours: () => encodeBinaryPlist(value),
      'bplist-creator': () => bplistCreator(libraryValue as Record<string, unknown>),
    });
    report({ bench: 'bplist.encode', payload: name, lib: 'ours', opsPerSec: round(encode.ours, 1) });
    report({ bench: 'bplist.encode', payload: name, lib: 'bplist-creator', opsPerSec: round(encode['bplist-creator'], 1) });
    report({ bench: 'bplist.encode', payload: name, ratio: round(encode.ours / encode['bplist-creator']), of: 'ours/bplist-creator' });
  }
}
