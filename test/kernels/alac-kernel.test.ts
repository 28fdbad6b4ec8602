// The ALAC kernel builds on Node: the shared vectors (test/vectors/alac.json) through the
// portable build and the WebAssembly build (assemblyscript/alac-kernel.ts), the module's memory
// growing for long frames, and the host's choice. The XS test host runs the same vectors for the
// portable build and the C native (xs-host-suite.ts).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { portableAlacKernel, type AlacKernel } from '../../src/audio/alac';
import type { LogLevel } from '../../src/platform';
import { selectAlacKernel, selfTestAlacKernel, WasmAlacKernel } from '../../hosts/node/kernels/alac-kernel';
import { alacVectors, casePackets, registerAlacAgreementTest, registerAlacVectorTests } from './alac-vectors';

const wasm = WasmAlacKernel.fromFile();

registerAlacVectorTests(portableAlacKernel);
registerAlacVectorTests(wasm);
registerAlacAgreementTest(wasm, 2024, 400, portableAlacKernel);

test('wasm: the memory grows for 16384-sample frames of 8 channels, and RAOP frames still decode after it', () => {
  const kernel = WasmAlacKernel.fromFile();
  const vector = alacVectors.cases[3];
  const packet = casePackets(vector)[1];
  const expected = new Int32Array(vector.config.frameLength * 2);
  portableAlacKernel.decode(vector.config, packet, expected);
  const big = { ...vector.config, frameLength: 16384, numChannels: 8 };
  // A verbatim frame of silence for 8 single channels would be long; END alone is refused: the memory still grew.
  assert.throws(() => kernel.decode(big, Uint8Array.of(0xe0), new Int32Array(16384 * 8)), /the frame ends before every channel/);
  const output = new Int32Array(vector.config.frameLength * 2);
  assert.equal(kernel.decode(vector.config, packet, output), vector.frames - 4096);
  assert.deepEqual(output, expected);
});

test('selfTestAlacKernel passes both builds and catches a build that decodes wrongly or accepts a cut packet', () => {
  assert.equal(selfTestAlacKernel(portableAlacKernel), undefined);
  assert.equal(selfTestAlacKernel(wasm), undefined);
  const silent: AlacKernel = { name: 'silent', decode: () => 3 };
  assert.match(selfTestAlacKernel(silent)!, /the self-test packet gave 0,0,0,0,0,0/);
  const lenient: AlacKernel = {
    name: 'lenient',
    decode: (config, packet, output) => (packet.length === 10 ? 3 : portableAlacKernel.decode(config, packet, output)),
  };
  assert.equal(selfTestAlacKernel(lenient), 'a packet cut short was decoded');
});

test('selectAlacKernel: the WebAssembly build when it loads and passes; a missing, broken or refused module leaves the portable build', () => {
  const lines: [LogLevel, string][] = [];
  const log = (level: LogLevel, message: string): void => void lines.push([level, message]);
  const directory = mkdtempSync(path.join(tmpdir(), 'vendorplay-alac-'));
  try {
    assert.ok(selectAlacKernel(log, { choice: '' }) instanceof WasmAlacKernel);
    assert.match(lines.at(-1)![1], /^ALAC kernel: wasm \(.*alac-kernel\.wasm\)$/);
    assert.equal(selectAlacKernel(log, { choice: 'portable' }), portableAlacKernel);
    assert.deepEqual(lines.at(-1), ['info', 'ALAC kernel: portable (TypeScript); VENDORPLAY_ALAC_KERNEL=portable']);
    assert.equal(selectAlacKernel(log, { choice: 'fast' }), portableAlacKernel);
    assert.equal(lines.at(-1)![0], 'warn');
    const missing = path.join(directory, 'none.wasm');
    assert.equal(selectAlacKernel(log, { file: missing }), portableAlacKernel);
    assert.deepEqual(lines.at(-1), ['info', `ALAC kernel: portable (TypeScript); ${missing}: not built (npm run build:kernels)`]);
    const empty = path.join(directory, 'empty.wasm');
    writeFileSync(empty, Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
    assert.equal(selectAlacKernel(log, { file: empty }), portableAlacKernel);
    assert.match(lines.at(-1)![1], /does not export memory, inputRegion/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
