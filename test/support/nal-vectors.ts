// The shared vectors of test/vectors/nal-annexb.json against one NalKernel build: the portable
// build in test/unit (on Node and in XS), the WebAssembly build on Node (test/kernels), the C
// native in the XS test host (test/kernels/xs-host-suite.ts). Portable: src/ and JSON only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { equal, fromHex, toHex } from '../../src/bytes';
import { annexB, lengthPrefixed } from '../../src/mirror/annexb-stream';
import { NalError, portableNalKernel, type NalKernel } from '../../src/mirror/nal-kernel';
import { fillerUnit as describedUnit, makeRng, type Rng } from './arbitrary';
import vectors from '../vectors/nal-annexb.json' with { type: 'json' };

export type NalVectors = typeof vectors;
export { vectors as nalVectors };

/** The units of a described vector as a length-prefixed payload and as Annex B. */
export function buildDescribed(units: readonly { header: string; bytes: number; seed: number }[], lengthSize: number): { payload: Uint8Array; annexB: Uint8Array } {
  const nals = units.map((unit) => describedUnit(Number.parseInt(unit.header, 16), unit.bytes, unit.seed));
  // Plain concatenation (annexb-stream's writers), never a NAL kernel: the expectation stays independent.
  return { payload: lengthPrefixed(nals, lengthSize as 1 | 2 | 4), annexB: annexB(nals) };
}

const GUARD = 7;

/** `bytes` inside a larger buffer, GUARD bytes of 0xee on each side: a view at a non-zero offset. */
function inGuardedView(bytes: Uint8Array): Uint8Array {
  const backing = new Uint8Array(bytes.length + 2 * GUARD).fill(0xee);
  backing.set(bytes, GUARD);
  return backing.subarray(GUARD, GUARD + bytes.length);
}

function guardsIntact(view: Uint8Array): boolean {
  const backing = new Uint8Array(view.buffer, view.byteOffset - GUARD, view.length + 2 * GUARD);
  for (let i = 0; i < GUARD; i++) if (backing[i] !== 0xee || backing[backing.length - 1 - i] !== 0xee) return false;
  return true;
}

/** Converts `payload` with `kernel` and checks the contract's shape: in place for 4, a new array otherwise, the input kept. */
function convert(kernel: NalKernel, payload: Uint8Array, lengthSize: number, what: string): ReturnType<NalKernel['toAnnexB']> {
  const before = lengthSize === 4 ? undefined : payload.slice();
  const result = kernel.toAnnexB(payload, lengthSize as 1 | 2 | 4);
  if (lengthSize === 4) {
    assert.equal(result.accessUnit, payload, `${what}: 4-byte lengths are converted in place, the payload returned`);
  } else {
    assert.notEqual(result.accessUnit.buffer, payload.buffer, `${what}: a new array for ${lengthSize}-byte lengths`);
    assert.deepEqual(payload, before, `${what}: the payload is left as it was`);
  }
  return result;
}

/** Registers the vector tests of `kernel`, named after it. */
export function registerNalVectorTests(kernel: NalKernel): void {
  const name = (what: string) => `${kernel.name}: ${what}`;

  test(name('every NAL vector converts to its Annex B, key frame flag and unit count'), () => {
    for (const vector of vectors.cases) {
      const result = convert(kernel, fromHex(vector.payload), vector.lengthSize, vector.name);
      assert.equal(toHex(result.accessUnit), vector.annexB, vector.name);
      assert.equal(result.keyFrame, vector.keyFrame, `${vector.name}: keyFrame`);
      assert.equal(result.nalCount, vector.nalCount, `${vector.name}: nalCount`);
    }
  });

  test(name('payloads that are views at an offset in a larger buffer convert without touching the bytes around them'), () => {
    for (const vector of vectors.cases) {
      const payload = inGuardedView(fromHex(vector.payload));
      const result = convert(kernel, payload, vector.lengthSize, vector.name);
      assert.equal(toHex(result.accessUnit), vector.annexB, vector.name);
      assert.ok(guardsIntact(payload), `${vector.name}: bytes around the view changed`);
    }
  });

  test(name('large units (above 64 KB, the 2-byte maximum, a 200 KB IDR frame) convert exactly'), () => {
    for (const vector of vectors.large) {
      const { payload, annexB } = buildDescribed(vector.units, vector.lengthSize);
      assert.equal(toHex(sha256(payload)), vector.payloadSha256, `${vector.name}: the payload built from its description`);
      const result = convert(kernel, payload, vector.lengthSize, vector.name);
      assert.equal(result.accessUnit.length, vector.annexBBytes, vector.name);
      assert.ok(equal(result.accessUnit, annexB), `${vector.name}: other bytes`);
      assert.equal(toHex(sha256(result.accessUnit)), vector.annexBSha256, `${vector.name}: SHA-256 of the Annex B`);
      assert.equal(result.keyFrame, vector.keyFrame, `${vector.name}: keyFrame`);
      assert.equal(result.nalCount, vector.nalCount, `${vector.name}: nalCount`);
    }
  });

  test(name('malformed payloads throw a NalError naming the unit and the fault, and stay untouched'), () => {
    for (const vector of vectors.errors) {
      for (const payload of [fromHex(vector.payload), inGuardedView(fromHex(vector.payload))]) {
        assert.throws(
          () => kernel.toAnnexB(payload, vector.lengthSize as 1 | 2 | 4),
          (error: unknown) => error instanceof NalError && error.message === vector.message,
          vector.name,
        );
        assert.equal(toHex(payload), vector.payload, `${vector.name}: the payload changed`);
      }
    }
  });

  test(name('a length size other than 1, 2 or 4 is a RangeError'), () => {
    const payload = fromHex(vectors.cases[0].payload);
    for (const lengthSize of vectors.badLengthSizes) {
      assert.throws(() => kernel.toAnnexB(payload, lengthSize as 1 | 2 | 4), RangeError, `lengthSize ${lengthSize}`);
    }
    assert.equal(toHex(payload), vectors.cases[0].payload);
  });

  test(name('the same payload converts alike twice over (no state kept between calls)'), () => {
    const vector = vectors.cases[6];
    const first = kernel.toAnnexB(fromHex(vector.payload), vector.lengthSize as 1 | 2 | 4);
    const second = kernel.toAnnexB(fromHex(vector.payload), vector.lengthSize as 1 | 2 | 4);
    assert.equal(toHex(first.accessUnit), vector.annexB);
    assert.equal(toHex(second.accessUnit), vector.annexB);
    assert.notEqual(first.accessUnit, second.accessUnit);
  });
}


/** A random payload: up to 5 units of random sizes and bytes, sometimes cut short or ending in a zero length. */
function randomPayload(rng: Rng, lengthSize: 1 | 2 | 4): Uint8Array {
  const max = lengthSize === 1 ? 255 : 3000;
  const parts: Uint8Array[] = [];
  const count = rng.int(0, 5);
  for (let unit = 0; unit < count; unit++) {
    const length = rng.int(1, max);
    const field = new Uint8Array(lengthSize);
    for (let i = 0; i < lengthSize; i++) field[i] = Math.floor(length / 256 ** (lengthSize - 1 - i)) & 0xff;
    parts.push(field, rng.bytes(length));
  }
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const fault = rng.next();
  const payload = new Uint8Array(total + (fault >= 0.15 && fault < 0.25 ? lengthSize : 0));
  let at = 0;
  for (const part of parts) {
    payload.set(part, at);
    at += part.length;
  }
  if (fault < 0.15 && total > 0) return payload.subarray(0, total - rng.int(1, Math.min(total, 8)));
  return payload;
}

/** What a kernel did with a payload: its Annex B, flag and count, or its error's message. */
function outcome(kernel: NalKernel, payload: Uint8Array, lengthSize: 1 | 2 | 4): string {
  try {
    const result = kernel.toAnnexB(payload, lengthSize);
    return `${toHex(result.accessUnit)} ${result.keyFrame} ${result.nalCount}`;
  } catch (error) {
    assert.ok(error instanceof NalError, `${kernel.name} threw ${String(error)}`);
    return `NalError: ${error.message}`;
  }
}

/** Registers a test that `kernel` does what the portable build does on `count` seeded random payloads. */
export function registerNalAgreementTest(kernel: NalKernel, seed: number, count: number): void {
  test(`${kernel.name}: ${count} seeded random payloads (some cut short or with a zero length) give what the portable build gives`, () => {
    const rng = makeRng(seed);
    for (let i = 0; i < count; i++) {
      const lengthSize = ([1, 2, 4] as const)[i % 3];
      const payload = randomPayload(rng, lengthSize);
      assert.equal(outcome(kernel, payload.slice(), lengthSize), outcome(portableNalKernel, payload.slice(), lengthSize), `payload ${i} (${payload.length} bytes, ${lengthSize}-byte lengths)`);
    }
  });
}
