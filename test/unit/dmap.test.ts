// DMAP metadata (src/audio/dmap.ts): pyatv's exact SET_PARAMETER body, its code-point string
// lengths for non-ASCII titles, numbers, unknown tags passed over, and data that is not DMAP
// refused naming the offset; seeded bodies read back as written, seeded damage only DmapError.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, utf8Encode } from '../../src/bytes';
import { DMAP_TAGS, DmapError, MAX_DMAP_BYTES, MAX_DMAP_DEPTH, MAX_DMAP_ITEMS, readDmapMetadata, type DmapMetadata } from '../../src/audio/dmap';
import { makeRng, type Rng } from '../support/arbitrary';

/** A DMAP item: tag, the given length (the value's byte count unless told), the value. */
function item(tag: string, value: Uint8Array, length = value.length): Uint8Array {
  const out = new Uint8Array(8 + value.length);
  out.set(utf8Encode(tag), 0);
  new DataView(out.buffer).setUint32(4, length);
  out.set(value, 8);
  return out;
}

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const text = (tag: string, value: string) => item(tag, utf8Encode(value));

test('pyatv\'s body (rtsp.py set_metadata: minm, asal, asar in an mlit) reads as title, album, artist', () => {
  // Python: container_tag('mlit', string_tag('minm', 'Title') + string_tag('asal', 'Album') + string_tag('asar', 'Artist'))
  const body = fromHex('6d6c6974000000286d696e6d000000055469746c656173616c00000005416c62756d6173617200000006417274697374');
  assert.deepEqual(readDmapMetadata(body), { title: 'Title', album: 'Album', artist: 'Artist' });
});

test('pyatv\'s non-ASCII strings, whose lengths count code points, read whole and keep the tags after them', () => {
  // The same call with 'Café del Mar' (12 code points, 13 bytes) and 'Ибица' (5 code points, 10 bytes).
  const body = fromHex('6d6c6974000000356d696e6d0000000c436166c3a92064656c204d61726173616c00000005d098d0b1d0b8d186d0b06173617200000006417274697374');
  assert.deepEqual(readDmapMetadata(body), { title: 'Café del Mar', album: 'Ибица', artist: 'Artist' });
});

test('byte lengths of non-ASCII strings (iTunes, the spec\'s DMAP) read as they say', () => {
  const body = item('mlit', join(text('minm', 'Café'), text('asar', 'Ибица'), text('asgn', 'Jazz')));
  assert.deepEqual(readDmapMetadata(body), { title: 'Café', artist: 'Ибица', genre: 'Jazz' });
});

test('numbers of 1, 2, 4 and 8 bytes, album artist and composer; tags outside a container count too', () => {
  const body = join(
    item('mlit', join(item('astn', fromHex('0007')), item('astc', fromHex('0c')), item('astm', fromHex('0003a3ab')), item('asdn', fromHex('0000000000000002')), text('asaa', 'Band'), text('ascp', 'Writer'))),
    text('minm', 'Outside'),
  );
  assert.deepEqual(readDmapMetadata(body), { trackNumber: 7, trackCount: 12, durationMs: 238507, discNumber: 2, albumArtist: 'Band', composer: 'Writer', title: 'Outside' });
});

test('unknown tags are passed over by their length, known ones after them still read', () => {
  const body = item('mlit', join(item('mper', fromHex('0102030405060708')), item('caps', fromHex('01')), item('xyzw', utf8Encode('anything at all')), text('minm', 'Kept')));
  assert.deepEqual(readDmapMetadata(body), { title: 'Kept' });
});

test('a tag seen twice keeps the last; an empty string is an empty title', () => {
  assert.deepEqual(readDmapMetadata(item('mlit', join(text('minm', 'First'), text('minm', 'Second')))), { title: 'Second' });
  assert.deepEqual(readDmapMetadata(item('mlit', text('minm', ''))), { title: '' });
});

test('malformed UTF-8 in a string becomes U+FFFD rather than a refusal', () => {
  assert.deepEqual(readDmapMetadata(item('mlit', item('minm', fromHex('41ff42')))), { title: 'A\ufffdB' });
});

test('an item longer than its container is refused naming the offset and the lengths', () => {
  const body = item('mlit', join(item('minm', utf8Encode('Title'), 40)));
  assert.throws(() => readDmapMetadata(body), (error: unknown) => error instanceof DmapError && error.message === 'offset 8: minm says 40 bytes, 5 remain');
});

test('an item header cut short is refused', () => {
  const body = join(text('minm', 'A'), fromHex('6173'));
  assert.throws(() => readDmapMetadata(body), { name: 'DmapError', message: 'offset 9: 2 bytes left, too few for an item header (8)' });
});

test('a tag that is not four ASCII letters is refused (not DMAP: a plist, a JPEG)', () => {
  assert.throws(() => readDmapMetadata(fromHex('ffd8ffe000104a4649460001')), { name: 'DmapError', message: 'offset 0: tag bytes ffd8ffe0 are not four ASCII letters' });
  // A binary plist's magic reads as a tag `bpli` of 0x73743030 bytes: longer than the body.
  assert.throws(() => readDmapMetadata(utf8Encode('bplist00\u00d1')), { name: 'DmapError', message: 'offset 0: bpli says 1936994352 bytes, 2 remain' });
});

test('a number of 3 bytes is refused', () => {
  assert.throws(() => readDmapMetadata(item('astn', fromHex('000001'))), { name: 'DmapError', message: 'offset 0: astn is a number of 3 bytes (1, 2, 4 or 8)' });
});

test('an empty body, a body over the bound, too many items and containers nested too deep are refused', () => {
  assert.throws(() => readDmapMetadata(new Uint8Array(0)), { name: 'DmapError', message: 'DMAP body is empty' });
  assert.throws(() => readDmapMetadata(new Uint8Array(MAX_DMAP_BYTES + 1)), { name: 'DmapError', message: `DMAP body of ${MAX_DMAP_BYTES + 1} bytes is longer than ${MAX_DMAP_BYTES}` });
  const many = join(...Array.from({ length: MAX_DMAP_ITEMS + 1 }, () => item('caps', fromHex('01'))));
  assert.throws(() => readDmapMetadata(many), { name: 'DmapError', message: `offset ${MAX_DMAP_ITEMS * 9}: more than ${MAX_DMAP_ITEMS} DMAP items` });
  let nested = text('minm', 'deep');
  for (let depth = 0; depth < MAX_DMAP_DEPTH - 1; depth++) nested = item('mlit', nested);
  assert.deepEqual(readDmapMetadata(nested), { title: 'deep' });
  assert.throws(() => readDmapMetadata(item('mlit', nested)), { name: 'DmapError', message: `offset ${8 * (MAX_DMAP_DEPTH - 1)}: mlit nests deeper than ${MAX_DMAP_DEPTH} containers` });
});

// Properties over seeded bodies (the seed and the case name a failing input, to rebuild it).

const TEXT_PIECES = ['a', 'Z', ' ', '0', 'é', 'ß', 'Ж', '日本', '€', '🎵', 'mlit', 'minm'];
const STRING_TAGS = Object.keys(DMAP_TAGS).filter((tag) => DMAP_TAGS[tag].kind === 'string');
const NUMBER_TAGS = Object.keys(DMAP_TAGS).filter((tag) => DMAP_TAGS[tag].kind === 'uint');

function randomText(rng: Rng): string {
  let text = '';
  for (let i = rng.int(0, 12); i > 0; i--) text += rng.pick(TEXT_PIECES);
  return text;
}

/** A listing item of random known and unknown tags, what it says, and it as pyatv writes strings (lengths in code points). */
function randomBody(rng: Rng): { bytes: Uint8Array; pyatv: Uint8Array; says: DmapMetadata } {
  const items: Uint8Array[] = [];
  const pyatvItems: Uint8Array[] = [];
  const says: DmapMetadata = {};
  for (let i = rng.int(1, 8); i > 0; i--) {
    const kind = rng.int(0, 2);
    if (kind === 0) {
      const tag = rng.pick(STRING_TAGS);
      const text = randomText(rng);
      const bytes = utf8Encode(text);
      items.push(item(tag, bytes));
      pyatvItems.push(item(tag, bytes, [...text].length));
      (says as Record<string, unknown>)[DMAP_TAGS[tag].field!] = text;
    } else if (kind === 1) {
      const tag = rng.pick(NUMBER_TAGS);
      const size = rng.pick([1, 2, 4]);
      const value = rng.int(0, 2 ** (8 * size) - 1);
      const bytes = new Uint8Array(size);
      for (let b = 0; b < size; b++) bytes[b] = Math.floor(value / 2 ** (8 * (size - 1 - b))) % 256;
      items.push(item(tag, bytes));
      pyatvItems.push(item(tag, bytes));
      (says as Record<string, unknown>)[DMAP_TAGS[tag].field!] = value;
    } else {
      const unknown = item(rng.pick(['mper', 'caps', 'asbr', 'asdk']), rng.bytes(rng.int(0, 9)));
      items.push(unknown);
      pyatvItems.push(unknown);
    }
  }
  return { bytes: item('mlit', join(...items)), pyatv: item('mlit', join(...pyatvItems)), says };
}

test('seeded bodies of known and unknown tags read as they were written, byte lengths and pyatv\'s alike', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const { bytes, pyatv, says } = randomBody(makeRng(seed));
    assert.deepEqual(readDmapMetadata(bytes), says, `seed ${seed}, byte lengths`);
    assert.deepEqual(readDmapMetadata(pyatv), says, `seed ${seed}, pyatv's lengths`);
  }
});

test('seeded damage (bytes changed, cut short, grown) reads or is a DmapError, never anything else', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rng = makeRng(seed);
    const body = randomBody(rng).bytes.slice();
    for (let i = rng.int(1, 4); i > 0; i--) body[rng.int(0, body.length - 1)] = rng.int(0, 255);
    const damaged = rng.pick([body, body.subarray(0, rng.int(0, body.length)), join(body, rng.bytes(rng.int(1, 20)))]);
    try {
      readDmapMetadata(damaged);
    } catch (error) {
      assert.ok(error instanceof DmapError, `seed ${seed}: ${String(error)}`);
    }
  }
});
