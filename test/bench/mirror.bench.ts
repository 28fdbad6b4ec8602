// `npm run bench -- mirror`: the mirroring stream's NAL kernel, length-prefixed H.264
// to Annex B on the payloads of mirror-payloads.ts (a 42 KB P frame, a 200 KB IDR frame; 4- and
// 2-byte lengths), in MB/s of payload:
//   - on Node: the portable TypeScript build against the WebAssembly build, and the two copies
//     the WebAssembly build cannot avoid (payload into its memory, result out) timed alone;
//   - in the XS test host (modules/native/xs-host): the portable build inside XS against the C
//     native (xs-mirror-bench.ts).
// Every build's output is checked against the Annex B built by concatenation before it is timed.
// With 4-byte lengths the conversion is in place: every call (of every build) first puts back the
// length fields the previous one overwrote (a few bytes per unit).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { equal } from '../../src/bytes';
import { portableNalKernel, type NalKernel } from '../../src/mirror/nal-kernel';
import { NAL_KERNEL_WASM, WasmNalKernel } from '../../hosts/node/kernels/nal-kernel';
import { buildXsHost } from '../../modules/native/xs-host/build.mjs';
import { bundlePortableSuites } from '../xs/bundle';
import { runInXs } from '../xs/xsnap';
import { compare, ratioFigure, report, spreadFields, verify } from './measure';
import { mirrorPayloads, restoreLengths, type MirrorPayload } from './mirror-payloads';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = 7;
const ROUND_MS = 200;
const MB = 1024 * 1024;

/** One conversion of `sample` by `kernel`, the lengths put back first when it converts in place. */
function conversion(kernel: NalKernel, sample: MirrorPayload): () => unknown {
  const payload = sample.payload.slice();
  if (sample.lengthSize !== 4) return () => kernel.toAnnexB(payload, sample.lengthSize);
  return () => {
    restoreLengths(sample, payload);
    return kernel.toAnnexB(payload, 4);
  };
}

/**
 * The copies the WebAssembly build makes around its call, alone: the payload into a buffer as
 * large as its memory and the Annex B out (back onto the payload with 4-byte lengths, into a
 * new array otherwise). Its MB/s against the build's says how much of the build's time they are.
 */
function copiesAlone(sample: MirrorPayload): () => unknown {
  const payload = sample.payload.slice();
  const memory = new Uint8Array(sample.payload.length + sample.annexB.length + 64);
  if (sample.lengthSize === 4) {
    return () => {
      memory.set(payload, 16);
      payload.set(memory.subarray(16, 16 + payload.length));
    };
  }
  const output = 16 + payload.length;
  return () => {
    memory.set(payload, 16);
    return memory.slice(output, output + sample.annexB.length);
  };
}

function check(kernel: NalKernel, sample: MirrorPayload): void {
  const payload = sample.payload.slice();
  for (let i = 0; i < 2; i++) {
    restoreLengths(sample, payload);
    const result = kernel.toAnnexB(payload, sample.lengthSize);
    const what = `${kernel.name} ${sample.kind} with ${sample.lengthSize}-byte lengths`;
    verify(equal(result.accessUnit, sample.annexB), `${what}: Annex B`);
    verify(result.keyFrame === sample.keyFrame && result.nalCount === sample.nalCount, `${what}: keyFrame and nalCount`);
  }
}

function runNode(): void {
  let wasm: WasmNalKernel | undefined;
  try {
    wasm = WasmNalKernel.fromFile();
  } catch (error) {
    report({ bench: 'mirror.nal', lib: 'wasm', skipped: `${NAL_KERNEL_WASM}: ${(error as Error).message}` });
  }
  for (const lengthSize of [4, 2] as const) {
    for (const sample of mirrorPayloads(lengthSize)) {
      const common = { workload: sample.kind, lengthSize, payloadBytes: sample.payload.length, nalUnits: sample.nalCount, host: 'node' };
      const fns: Record<string, () => unknown> = { portable: conversion(portableNalKernel, sample) };
      check(portableNalKernel, sample);
      if (wasm) {
        check(wasm, sample);
        fns.wasm = conversion(wasm, sample);
        fns['wasm-copies-alone'] = copiesAlone(sample);
      }
      const samples = compare(fns, ROUNDS, ROUND_MS);
      const mbPerSec: Record<string, number[]> = {};
      for (const [lib, rates] of Object.entries(samples)) {
        mbPerSec[lib] = rates.map((rate) => (rate * sample.payload.length) / MB);
        const microseconds = rates.map((rate) => 1e6 / rate);
        report({ bench: 'mirror.nal', lib, ...spreadFields('mbPerSec', mbPerSec[lib], 1), ...spreadFields('usPerFrame', microseconds, 3), ...common });
      }
      if (wasm) {
        report({ bench: 'mirror.nal', of: 'wasm/portable', ...ratioFigure(mbPerSec.wasm, mbPerSec.portable), ...common });
        // Time share of the copies in the WebAssembly build's call: its rate over theirs.
        report({ bench: 'mirror.nal', of: 'wasm/wasm-copies-alone (copies share of wasm time)', ...ratioFigure(mbPerSec.wasm, mbPerSec['wasm-copies-alone']), ...common });
      }
    }
  }
}

/** The same payloads inside the XS test host, the C native against the portable build in XS. */
async function runXs(): Promise<void> {
  const worker = await buildXsHost({ quiet: true });
  const script = await bundlePortableSuites([path.join(HERE, 'xs-mirror-bench.ts')]);
  const run = await runInXs(script, 600_000, worker);
  const lines = run.stdout.split('\n');
  const failed = lines.filter((line) => line.startsWith('not ok'));
  if (run.error || failed.length > 0) throw new Error(`XS mirror bench failed: ${run.error ?? failed.join('\n')}`);
  for (const line of lines) {
    if (!line.startsWith('# bench ')) continue;
    const figure = JSON.parse(line.slice('# bench '.length)) as { bench: string };
    report({ ...figure, bench: `xs.${figure.bench}`, host: 'xs-test-host' });
  }
}

export async function runMirrorBench(): Promise<void> {
  runNode();
  await runXs();
}
