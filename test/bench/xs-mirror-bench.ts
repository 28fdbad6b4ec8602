// Runs inside the XS test host (mirror.bench.ts bundles it): the NAL kernel on the
// payloads of mirror-payloads.ts, the C native (modules/native/vp-nal.c) against the portable
// build, 5 runs of a batch of conversions each, printed as `# bench {json}` lines: MB/s of
// payload and microseconds per frame (min/median/max), XS compute steps per frame, and the
// ratio native/portable of the medians. Every run's last output is checked against the Annex B
// built by concatenation. With 4-byte lengths every call first puts back the length fields.

import { test } from 'node:test';
import { equal } from '../../src/bytes';
import { portableNalKernel, type NalKernel } from '../../src/mirror/nal-kernel';
import { createNativeNalKernel } from '../../modules/native/nal-kernel';
import type { NativeNal } from '../../modules/native/natives';
import { round, spread } from './measure';
import { mirrorPayloads, restoreLengths, type MirrorPayload } from './mirror-payloads';

declare function print(...values: unknown[]): void;
declare const performance: { now(): number };
declare function __vpMeter(): number;

const RUNS = 5;
/** Conversions per run: enough for a few milliseconds at least of the faster build. */
const BATCH = 200;
const MB = 1024 * 1024;

function emit(figure: Record<string, unknown>): void {
  print(`# bench ${JSON.stringify(figure)}`);
}

/** MB/s, microseconds and compute steps per frame of each run of `kernel` on `sample`. */
function measure(kernel: NalKernel, sample: MirrorPayload): { mbPerSec: number[]; usPerFrame: number[]; stepsPerFrame: number[] } {
  const payload = sample.payload.slice();
  const mbPerSec: number[] = [];
  const usPerFrame: number[] = [];
  const stepsPerFrame: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let result = kernel.toAnnexB(sample.lengthSize === 4 ? (restoreLengths(sample, payload), payload) : payload, sample.lengthSize);
    const steps = __vpMeter();
    const started = performance.now();
    for (let i = 0; i < BATCH; i++) {
      if (sample.lengthSize === 4) restoreLengths(sample, payload);
      result = kernel.toAnnexB(payload, sample.lengthSize);
    }
    const ms = performance.now() - started;
    // The meter is a 32-bit count that wraps: the difference modulo 2^32.
    const used = (__vpMeter() - steps + 2 ** 32) % 2 ** 32;
    if (!equal(result.accessUnit, sample.annexB) || result.keyFrame !== sample.keyFrame || result.nalCount !== sample.nalCount) {
      throw new Error(`${kernel.name}: ${sample.kind} with ${sample.lengthSize}-byte lengths gave other bytes`);
    }
    mbPerSec.push((BATCH * sample.payload.length) / MB / (ms / 1000));
    usPerFrame.push((ms * 1000) / BATCH);
    stepsPerFrame.push(used / BATCH);
  }
  return { mbPerSec, usPerFrame, stepsPerFrame };
}

test('NAL kernel figures inside the XS test host', () => {
  const natives = (globalThis as { __vpNatives?: NativeNal }).__vpNatives;
  if (natives === undefined) throw new Error('not the XS test host');
  const builds = [createNativeNalKernel(natives), portableNalKernel];
  for (const lengthSize of [4, 2] as const) {
    for (const sample of mirrorPayloads(lengthSize)) {
      const common = { workload: sample.kind, lengthSize, payloadBytes: sample.payload.length, nalUnits: sample.nalCount, runs: RUNS, framesPerRun: BATCH };
      const medians: Record<string, number> = {};
      for (const kernel of builds) {
        const figures = measure(kernel, sample);
        const mb = spread(figures.mbPerSec);
        const us = spread(figures.usPerFrame);
        const steps = spread(figures.stepsPerFrame);
        medians[kernel.name] = mb.median;
        emit({ bench: 'mirror.nal', lib: kernel.name, mbPerSecMin: mb.min, mbPerSecMedian: mb.median, mbPerSecMax: mb.max, usPerFrameMin: us.min, usPerFrameMedian: us.median, usPerFrameMax: us.max, stepsPerFrameMedian: steps.median, ...common });
      }
      emit({ bench: 'mirror.nal', of: 'native/portable', ratio: round(medians.native / medians.portable), ...common });
    }
  }
});
