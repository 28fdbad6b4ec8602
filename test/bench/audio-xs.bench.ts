// Runs inside the XS test host (audio.bench.ts bundles it): ALAC decoding on the packets of
// audio-workloads.bench.ts, the C native (modules/native/vp-alac.c) against the portable build,
// 5 runs each of at least RUN_MS of decoding, printed as `# bench {json}` lines: times real time
// and microseconds per packet (min/median/max), XS compute steps per packet, and the ratio
// native/portable of the medians. Each run's last output is checked against the expected PCM.

import { test } from 'node:test';
import { portableAlacKernel, type AlacKernel } from '../../src/audio/alac';
import { createNativeAlacKernel } from '../../modules/native/alac-kernel';
import type { NativeAlac } from '../../modules/native/natives';
import { alacWorkloads, checkDecode, outputFor, type AlacWorkload } from './audio-workloads.bench';
import { round, spread } from './measure';

declare function print(...values: unknown[]): void;
declare const performance: { now(): number };
declare function __vpMeter(): number;

const RUNS = 5;
/** Each run decodes for at least this long (a whole number of packets). */
const RUN_MS = 150;

function emit(figure: Record<string, unknown>): void {
  print(`# bench ${JSON.stringify(figure)}`);
}

function measure(kernel: AlacKernel, workload: AlacWorkload): { xRealTime: number[]; usPerPacket: number[]; stepsPerPacket: number[] } {
  const output = outputFor(workload);
  const xRealTime: number[] = [];
  const usPerPacket: number[] = [];
  const stepsPerPacket: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    output.fill(0);
    const steps = __vpMeter();
    const started = performance.now();
    let packets = 0;
    let ms = 0;
    do {
      kernel.decode(workload.config, workload.packet, output);
      packets++;
      ms = performance.now() - started;
    } while (ms < RUN_MS);
    // The meter is a 32-bit count that wraps: the difference modulo 2^32.
    const used = (__vpMeter() - steps + 2 ** 32) % 2 ** 32;
    checkDecode(kernel, workload, output);
    xRealTime.push((packets * workload.seconds) / (ms / 1000));
    usPerPacket.push((ms * 1000) / packets);
    stepsPerPacket.push(used / packets);
  }
  return { xRealTime, usPerPacket, stepsPerPacket };
}

test('ALAC decoding figures inside the XS test host', () => {
  const natives = (globalThis as { __vpNatives?: NativeAlac }).__vpNatives;
  if (natives === undefined) throw new Error('not the XS test host');
  const builds = [createNativeAlacKernel(natives), portableAlacKernel];
  for (const workload of alacWorkloads()) {
    const common = { workload: workload.name, bitDepth: workload.config.bitDepth, channels: workload.config.numChannels, frames: workload.frames, packetBytes: workload.packet.length, runs: RUNS };
    const medians: Record<string, number> = {};
    for (const kernel of builds) {
      checkDecode(kernel, workload, outputFor(workload));
      const figures = measure(kernel, workload);
      const x = spread(figures.xRealTime, 1);
      const us = spread(figures.usPerPacket, 1);
      medians[kernel.name] = x.median;
      emit({ bench: 'audio.alac', lib: kernel.name, xRealTimeMin: x.min, xRealTimeMedian: x.median, xRealTimeMax: x.max, usPerPacketMin: us.min, usPerPacketMedian: us.median, usPerPacketMax: us.max, stepsPerPacketMedian: Math.round(spread(figures.stepsPerPacket).median), ...common });
    }
    emit({ bench: 'audio.alac', of: 'native/portable', ratio: round(medians.native / medians.portable), ...common });
  }
});
