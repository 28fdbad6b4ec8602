// Binary plist codec against Python's plistlib: random values both ways, the spec's sample
// shapes, and byte-for-byte agreement of the object layout with plistlib's writer.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeBinaryPlist, encodeBinaryPlist } from '../../src/plist/binary';
import { PlistReal, PlistUid, type PlistValue } from '../../src/plist/value';
import type { ArbitraryOptions } from '../support/arbitrary';
import { bplistTrailer, randomBatch, sortedCopy } from '../support/plist-cases';
import { plistlibDumps, plistlibLoads, toTagged } from '../support/oracle';
import { PLIST_SAMPLES } from '../vectors/plist-samples';

const BATCHES: { seed: number; count: number; options: ArbitraryOptions }[] = [
  { seed: 1, count: 200, options: { uid: true } },
  { seed: 2, count: 200, options: { uid: true, maxDepth: 6, maxEntries: 10 } },
  { seed: 3, count: 150, options: { maxDepth: 2, maxEntries: 40 } },
];

function offsetsOf(doc: Uint8Array): number[] {
  const { offsetSize, numObjects, tableOffset } = bplistTrailer(doc);
  const offsets: number[] = [];
  for (let i = 0; i < numObjects; i++) {
    let n = 0;
    for (let k = 0; k < offsetSize; k++) n = n * 256 + doc[tableOffset + i * offsetSize + k];
    offsets.push(n);
  }
  return offsets;
}

/**
 * Our document and plistlib's agree object for object: same count, same top, same object
 * bytes, same offsets. Only the widths of references and offsets may differ, because plistlib
 * (like CoreFoundation) sizes them by the object count and the offset-table position, we by
 * the largest value actually stored; where the reference width differs, the object bytes do too.
 */
function assertSameLayout(ours: Uint8Array, theirs: Uint8Array, label: string): boolean {
  const a = bplistTrailer(ours);
  const b = bplistTrailer(theirs);
  assert.equal(a.numObjects, b.numObjects, `${label}: object count`);
  assert.equal(a.top, b.top, `${label}: top object`);
  assert.equal(a.tableOffset, b.tableOffset, `${label}: object area size`);
  assert.deepEqual(offsetsOf(ours), offsetsOf(theirs), `${label}: offsets`);
  if (a.refSize !== b.refSize) return false;
  assert.deepEqual(ours.subarray(0, a.tableOffset), theirs.subarray(0, b.tableOffset), `${label}: object bytes`);
  if (a.offsetSize === b.offsetSize) assert.deepEqual(ours, theirs, `${label}: whole document`);
  return true;
}

describe('bplist against plistlib', () => {
  for (const batch of BATCHES) {
    test(`plistlib loads what we encode, value for value (seed ${batch.seed}, ${batch.count} values)`, () => {
      const values = randomBatch(batch.seed, batch.count, batch.options);
      const loaded = plistlibLoads(values.map(encodeBinaryPlist));
      values.forEach((value, i) => assert.deepEqual(loaded[i], toTagged(value), `value ${i}`));
    });

    test(`we decode what plistlib dumps, value for value (seed ${batch.seed}, ${batch.count} values)`, () => {
      const values = randomBatch(batch.seed + 100, batch.count, batch.options);
      const docs = plistlibDumps(values, 'binary');
      docs.forEach((doc, i) => {
        assert.deepEqual(toTagged(decodeBinaryPlist(doc, { exactReals: true })), toTagged(values[i]), `value ${i}`);
      });
    });
  }

  test('our object layout is byte-identical to plistlib for random values with keys in its order', () => {
    // UIDs left out: plistlib writes each UID instance separately, we deduplicate them by value.
    const values = randomBatch(7, 300, { maxDepth: 4, maxEntries: 8 })
      .map(sortedCopy)
      .filter((value): value is PlistValue => value !== undefined);
    assert.ok(values.length > 200, `${values.length} comparable values`);
    const theirs = plistlibDumps(values, 'binary');
    let identical = 0;
    values.forEach((value, i) => {
      if (assertSameLayout(encodeBinaryPlist(value), theirs[i], `value ${i}`)) identical++;
    });
    assert.ok(identical > values.length * 0.9, `${identical} of ${values.length} compared byte for byte`);
  });

  test('plistlib documents with 2-byte and 4-byte references and offsets decode', () => {
    const values: PlistValue[] = [
      Array.from({ length: 300 }, (_, i) => i * 3),
      Array.from({ length: 70000 }, (_, i) => (i % 2 === 0 ? i : `s${i}`)),
      [new Uint8Array(70000).fill(1), 'tail'],
    ];
    const docs = plistlibDumps(values, 'binary');
    assert.deepEqual(docs.map((doc) => bplistTrailer(doc).refSize), [2, 4, 1]);
    assert.deepEqual(docs.map((doc) => bplistTrailer(doc).offsetSize), [2, 4, 4]);
    docs.forEach((doc, i) => assert.deepEqual(toTagged(decodeBinaryPlist(doc, { exactReals: true })), toTagged(values[i])));
    const loaded = plistlibLoads(values.map(encodeBinaryPlist));
    loaded.forEach((tagged, i) => assert.deepEqual(tagged, toTagged(values[i])));
  });

  test('integer edges agree byte for byte: 64-bit signed and the 16-byte unsigned form', () => {
    const values: PlistValue[] = [
      [0, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -1, -(2 ** 31), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER],
      [2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n), 2n ** 63n, 2n ** 64n - 1n],
    ];
    const docs = plistlibDumps(values, 'binary');
    values.forEach((value, i) => {
      assert.deepEqual(encodeBinaryPlist(value), docs[i], `integers ${i} byte for byte`);
      assert.deepEqual(toTagged(decodeBinaryPlist(docs[i])), toTagged(value));
    });
  });

  test('reals, dates and strings agree byte for byte', () => {
    const values: PlistValue[] = [
      [new PlistReal(0), new PlistReal(1), 0.1, -2.5e-300, 5e-324, 1.7976931348623157e308, new PlistReal(Infinity), new PlistReal(-Infinity)],
      [new Date(Date.UTC(2001, 0, 1)), new Date(0), new Date(Date.UTC(2012, 8, 15, 17, 28, 8)), new Date(Date.UTC(1850, 1, 2, 3, 4, 5))],
      ['', 'ascii', 'ünïcödé', '😀𝄞', 'x'.repeat(14), 'x'.repeat(15), 'é'.repeat(300), 'a'.repeat(70000)],
      { b: new Uint8Array([1, 2, 3]), a: new Uint8Array(0), c: new Uint8Array(20).fill(9) },
    ];
    const docs = plistlibDumps(values, 'binary');
    values.forEach((value, i) => {
      assertSameLayout(encodeBinaryPlist(sortedCopy(value)!), docs[i], `value ${i}`);
      assert.deepEqual(toTagged(decodeBinaryPlist(docs[i], { exactReals: true })), toTagged(value));
    });
  });

  test('plistlib reads UIDs we write and we read UIDs it writes', () => {
    const value: PlistValue = { $top: { root: new PlistUid(1) }, $objects: ['$null', new PlistUid(300), new PlistUid(70000), new PlistUid(2 ** 40)] };
    const [loaded] = plistlibLoads([encodeBinaryPlist(value)]);
    assert.deepEqual(loaded, toTagged(value));
    const [doc] = plistlibDumps([value], 'binary');
    assert.deepEqual(toTagged(decodeBinaryPlist(doc)), toTagged(value));
  });
});

describe('bplist spec sample shapes against plistlib', () => {
  const names = Object.keys(PLIST_SAMPLES);
  const samples = names.map((name) => PLIST_SAMPLES[name]);

  test('every sample we encode loads in plistlib as the same value', () => {
    const loaded = plistlibLoads(samples.map(encodeBinaryPlist));
    names.forEach((name, i) => assert.deepEqual(loaded[i], toTagged(samples[i]), name));
  });

  test('every sample plistlib dumps decodes to the same value', () => {
    const docs = plistlibDumps(samples, 'binary');
    names.forEach((name, i) => assert.deepEqual(toTagged(decodeBinaryPlist(docs[i], { exactReals: true })), toTagged(samples[i]), name));
  });

  test('every sample encodes byte for byte as plistlib writes it (keys in the same order)', () => {
    const docs = plistlibDumps(samples, 'binary');
    names.forEach((name, i) => {
      const sorted = sortedCopy(samples[i]);
      assert.ok(sorted !== undefined, name);
      assert.equal(assertSameLayout(encodeBinaryPlist(sorted), docs[i], name), true, `${name}: reference widths differ`);
    });
  });
});
