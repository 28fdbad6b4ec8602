// `npm run bench -- audio`: ALAC decoding (src/audio/alac) in times real time (seconds of audio
// decoded per second) on the packets of audio-workloads.bench.ts (ffmpeg's encoder, 4096-sample
// frames), every build's output checked against the expected PCM before it is timed:
//   - on Node: the portable TypeScript build against the WebAssembly build (the copies in and
//     out included, as the host runs it);
//   - in the XS test host (modules/native/xs-host): the portable build inside XS against the C
//     native (audio-xs.bench.ts). Boards need the native: the goal there is 50x real time.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { portableAlacKernel, type AlacKernel } from '../../src/audio/alac';
import { ALAC_KERNEL_WASM, WasmAlacKernel } from '../../hosts/node/kernels/alac-kernel';
import { buildXsHost } from '../../modules/native/xs-host/build.mjs';
import { bundlePortableSuites } from '../xs/bundle';
import { runInXs } from '../xs/xsnap';
import { alacWorkloads, checkDecode, outputFor } from './audio-workloads.bench';
import { compare, ratioFigure, report, spreadFields } from './measure';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = 7;
const ROUND_MS = 200;

function runNode(): void {
  const kernels: AlacKernel[] = [portableAlacKernel];
  try {
    kernels.push(WasmAlacKernel.fromFile());
  } catch (error) {
    report({ bench: 'audio.alac', lib: 'wasm', skipped: `${ALAC_KERNEL_WASM}: ${(error as Error).message}` });
  }
  for (const workload of alacWorkloads()) {
    const common = { workload: workload.name, bitDepth: workload.config.bitDepth, channels: workload.config.numChannels, frames: workload.frames, packetBytes: workload.packet.length, host: 'node' };
    const fns: Record<string, () => unknown> = {};
    for (const kernel of kernels) {
      const output = outputFor(workload);
      checkDecode(kernel, workload, output);
      fns[kernel.name] = () => kernel.decode(workload.config, workload.packet, output);
    }
    const samples = compare(fns, ROUNDS, ROUND_MS);
    const realTime: Record<string, number[]> = {};
    for (const [lib, rates] of Object.entries(samples)) {
      realTime[lib] = rates.map((rate) => rate * workload.seconds);
      report({ bench: 'audio.alac', lib, ...spreadFields('xRealTime', realTime[lib], 1), ...spreadFields('usPerPacket', rates.map((rate) => 1e6 / rate), 2), ...common });
    }
    if (realTime.wasm) report({ bench: 'audio.alac', of: 'wasm/portable', ...ratioFigure(realTime.wasm, realTime.portable), ...common });
  }
}

/** The same packets inside the XS test host, the C native against the portable build in XS. */
async function runXs(): Promise<void> {
  const worker = await buildXsHost({ quiet: true });
  const script = await bundlePortableSuites([path.join(HERE, 'audio-xs.bench.ts')]);
  const run = await runInXs(script, 600_000, worker);
  const lines = run.stdout.split('\n');
  const failed = lines.filter((line) => line.startsWith('not ok'));
  if (run.error || failed.length > 0) throw new Error(`XS audio bench failed: ${run.error ?? failed.join('\n')}`);
  for (const line of lines) {
    if (!line.startsWith('# bench ')) continue;
    const figure = JSON.parse(line.slice('# bench '.length)) as { bench: string };
    report({ ...figure, bench: `xs.${figure.bench}`, host: 'xs-test-host' });
  }
}

export async function runAudioBench(): Promise<void> {
  runNode();
  await runXs();
}
