// The NAL kernel builds on Node: the shared vectors (test/vectors/nal-annexb.json)
// through the portable build and the WebAssembly build (assemblyscript/nal-kernel.ts), seeded
// random payloads against the portable build, the module's memory growing for a large payload,
// and the host's choice between the builds. The XS test host runs the same vectors for the
// portable build and the C native (xs-host-suite.ts).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { equal } from '../../src/bytes';
import { portableNalKernel, type NalKernel } from '../../src/mirror/nal-kernel';
import type { LogLevel } from '../../src/platform';
import { NalKernelChosenOnFirstUse, sampleMirrorFrame, selectNalKernel, selfTestNalKernel, WasmNalKernel } from '../../hosts/node/kernels/nal-kernel';
import { registerNalAgreementTest, registerNalVectorTests } from '../support/nal-vectors';

const wasm = WasmNalKernel.fromFile();

registerNalVectorTests(portableNalKernel);
registerNalVectorTests(wasm);

registerNalAgreementTest(wasm, 1414, 600);

test('wasm: the module memory grows for a 3 MB payload and small payloads still convert after it', () => {
  const kernel = WasmNalKernel.fromFile();
  const small = sampleMirrorFrame(2, 100);
  assert.ok(equal(kernel.toAnnexB(small.payload.slice(), 2).accessUnit, small.annexB));
  for (const lengthSize of [4, 2] as const) {
    const large = sampleMirrorFrame(lengthSize, lengthSize === 4 ? 1_000_000 : 65_535);
    const result = kernel.toAnnexB(large.payload, lengthSize);
    assert.ok(equal(result.accessUnit, large.annexB), `${lengthSize}-byte lengths, ${large.payload.length} bytes`);
  }
  assert.ok(equal(kernel.toAnnexB(small.payload.slice(), 2).accessUnit, small.annexB));
});

test('selfTestNalKernel passes both builds and catches a build that converts wrongly or accepts a bad length', () => {
  assert.equal(selfTestNalKernel(portableNalKernel), undefined);
  assert.equal(selfTestNalKernel(wasm), undefined);
  const noStartCodes: NalKernel = { name: 'broken', toAnnexB: (payload) => ({ accessUnit: payload, keyFrame: false, nalCount: 4 }) };
  assert.match(selfTestNalKernel(noStartCodes)!, /sample frame with 4-byte lengths gave other bytes/);
  const lenient: NalKernel = {
    name: 'lenient',
    toAnnexB: (payload, lengthSize) => (payload.length === 11 ? { accessUnit: payload, keyFrame: false, nalCount: 1 } : portableNalKernel.toAnnexB(payload, lengthSize)),
  };
  assert.equal(selfTestNalKernel(lenient), 'a length past the end was accepted');
});

test('selectNalKernel: times both builds and logs the faster with its figures; a missing, broken or refused module leaves the portable build', () => {
  const lines: [LogLevel, string][] = [];
  const log = (level: LogLevel, message: string): void => void lines.push([level, message]);
  const directory = mkdtempSync(path.join(tmpdir(), 'vendorplay-nal-'));
  try {
    const timed = selectNalKernel(log, { choice: '' });
    assert.ok(timed.portableMbPerSec! > 0 && timed.wasmMbPerSec! > 0);
    const faster = timed.wasmMbPerSec! > timed.portableMbPerSec! ? 'wasm' : 'portable';
    assert.equal(timed.kernel.name, faster);
    assert.match(lines.at(-1)![1], new RegExp(`^NAL kernel: ${faster} .*; faster at start: portable \\d+ MB/s, wasm \\d+ MB/s on a 41 KB frame with 4-byte lengths$`));

    const forced = selectNalKernel(log, { choice: 'wasm' });
    assert.ok(forced.kernel instanceof WasmNalKernel);
    assert.match(lines.at(-1)![1], /^NAL kernel: wasm \(.*nal-kernel\.wasm\); VENDORPLAY_NAL_KERNEL=wasm$/);
    assert.equal(selectNalKernel(log, { choice: 'portable' }).kernel, portableNalKernel);
    assert.deepEqual(lines.at(-1), ['info', 'NAL kernel: portable (TypeScript); VENDORPLAY_NAL_KERNEL=portable']);
    assert.equal(selectNalKernel(log, { choice: 'fast' }).kernel, portableNalKernel);
    assert.equal(lines.at(-1)![0], 'warn');

    const missing = path.join(directory, 'none.wasm');
    assert.equal(selectNalKernel(log, { file: missing, choice: 'wasm' }).kernel, portableNalKernel);
    assert.deepEqual(lines.at(-1), ['info', `NAL kernel: portable (TypeScript); ${missing}: not built (npm run build:kernels)`]);
    const empty = path.join(directory, 'empty.wasm');
    writeFileSync(empty, Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
    assert.equal(selectNalKernel(log, { file: empty, choice: '' }).kernel, portableNalKernel);
    assert.equal(lines.at(-1)![0], 'warn');
    assert.match(lines.at(-1)![1], /does not export memory, inputRegion/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('NalKernelChosenOnFirstUse: chooses on the first frame, once, and converts with the build chosen', () => {
  let choices = 0;
  const kernel = new NalKernelChosenOnFirstUse(() => {
    choices++;
    return wasm;
  });
  assert.equal(choices, 0, 'nothing chosen when made');
  const { payload, annexB } = sampleMirrorFrame(2, 500);
  assert.ok(equal(kernel.toAnnexB(payload, 2).accessUnit, annexB));
  assert.equal(kernel.name, 'wasm');
  kernel.toAnnexB(sampleMirrorFrame(4, 500).payload, 4);
  assert.equal(choices, 1);
});
