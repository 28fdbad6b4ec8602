// The core's PUT /photo latency (group photo-core; what users run is measured by
// photo-command.bench.ts, group photo): from the first byte of a picture handed to the socket to
// its hand-off to the display, at 1, 4 and 16 MB, on the Node host (the Receiver in this process on a real
// loopback socket, hosts/node/io/tcp.ts, with a Display that notes the time), against a bare
// node:http server receiving the same request and doing the same work with it: joining the
// body's chunks into one buffer and handing that on (the receiver builds one body too; it also
// checks the JPEG's structure, src/receiver/media/jpeg.ts, which Node's side does not). One client,
// one keep-alive connection per server, rounds alternating between them (and which goes first).
// Every round checks that the bytes handed on are the picture sent.
//
// The rounds run in several fresh processes, one after another, each holding both servers and
// the client. On this machine the medians of one process's rounds differ from the next
// process's far more than rounds differ within a process (1 MB: receiver/node-http 0.71 in one
// process, 1.25 in the next, each over 201 rounds), so one process's figure is a draw. Reported:
// min/median/max per server over every round of every process, and the ratio as the median of
// the processes' ratios, with their spread (`processes`; ratioMin/Max are per process here).

import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import { equal } from '../../src/bytes';
import type { Display } from '../../src/platform';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { nodeClock, nodeRandom } from '../../hosts/node/io/ports';
import { listen } from '../../hosts/node/io/tcp';
import { within } from '../e2e/receiver-process';
import { sampleJpeg } from '../support/jpeg-samples';
import { MemoryStore } from '../support/memory-ports';
import { report, round, spread, spreadFields, verify } from './measure';
import { PhotoClient, photoRequest } from './photo-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

export interface PhotoLoad {
  /** Picture sizes in bytes, each with its measured rounds per server and process (odd, so there is a median). */
  sizes: { bytes: number; rounds: number }[];
  warmUpRounds: number;
  /** Processes the rounds run in, one after another (odd). */
  processes: number;
}

// A 1 MB round takes about 1 ms, in which a neighbour on the machine moves a round by up to 3x,
// so the small sizes get more rounds; 16 MB rounds take ~20 ms. Seven processes: the ratio is a
// median of seven draws. (A full garbage collection before every round, tried to make rounds
// independent, made it worse: each 16 MB round then faulted its pages in afresh, and the two
// servers allocate their bodies differently.)
export const DEFAULT_PHOTO_LOAD: PhotoLoad = {
  sizes: [
    { bytes: 1 * 1024 * 1024, rounds: 61 },
    { bytes: 4 * 1024 * 1024, rounds: 41 },
    { bytes: 16 * 1024 * 1024, rounds: 21 },
  ],
  warmUpRounds: 10,
  processes: 7,
};

/** Set in a process that runs the rounds (see runPhotoCoreBench): the load, as JSON. */
const ROUNDS_PROCESS = 'VENDORPLAY_PHOTO_BENCH_ROUNDS';

/** What one process measured: per size, each server's round times in ms. */
type ProcessSamples = { bytes: number; receiver: number[]; 'node-http': number[] }[];

/** When and what a server handed on: the display's picture, or Node's joined body. */
interface Handed {
  at: number;
  bytes: Uint8Array;
}

/** Where a request ends on the server: the receiver's display hand-off or Node's joined body. */
type Arrival = () => Promise<Handed>;

interface Target {
  readonly name: 'receiver' | 'node-http';
  readonly port: number;
  /** Resolves with performance.now() of the next arrival. */
  readonly nextArrival: Arrival;
  close(): Promise<void>;
}

/** Resolvers of a "next arrival" promise, fed by `arrived()`. */
function arrivals(): { next: Arrival; arrived: (bytes: Uint8Array) => void } {
  let waiting: ((handed: Handed) => void) | undefined;
  let early: Handed | undefined;
  return {
    next: () =>
      new Promise<Handed>((resolve) => {
        if (early !== undefined) {
          resolve(early);
          early = undefined;
        } else waiting = resolve;
      }),
    arrived: (bytes) => {
      const handed = { at: performance.now(), bytes };
      const resolve = waiting;
      waiting = undefined;
      if (resolve) resolve(handed);
      else early = handed;
    },
  };
}

function largest(load: PhotoLoad): number {
  return Math.max(...load.sizes.map((size) => size.bytes));
}

async function startReceiver(load: PhotoLoad): Promise<Target> {
  const { next, arrived } = arrivals();
  const display: Display = { showPhoto: (jpeg) => arrived(jpeg), clear() {}, showStatus() {}, showPin() {}, hidePin() {} };
  const receiver = new Receiver(makeConfig({ name: 'Bench', profile: 'desktop', limits: { maxPhotoBytes: largest(load) + 1024, photoCacheBytes: 4 * largest(load) } }), {
    crypto: portableCryptoKernels,
    clock: nodeClock,
    random: nodeRandom,
    store: new MemoryStore(),
    // Lines are dropped as at the default log level (info), where a line nobody sees is not built.
    log: Object.assign(() => {}, { level: 'info' as const }),
    display,
  });
  const server = await listen(0, '127.0.0.1', (connection) => receiver.accept(connection));
  return {
    name: 'receiver',
    port: (server.address() as net.AddressInfo).port,
    nextArrival: next,
    close: async () => {
      receiver.stop();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function startNodeHttp(): Promise<Target> {
  const { next, arrived } = arrivals();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The same work as the receiver's: one body, handed on.
      arrived(Buffer.concat(chunks));
      response.writeHead(200, { 'Content-Length': 0 });
      response.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name: 'node-http',
    port: (server.address() as net.AddressInfo).port,
    nextArrival: next,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The photo bench. In the parent (`npm run bench`): runs load.processes fresh processes of this
 * same script, one after another, and reports over all of them. In such a process (ROUNDS_PROCESS
 * set): measures the rounds and prints them as one JSON line for the parent.
 */
export async function runPhotoCoreBench(load: PhotoLoad = DEFAULT_PHOTO_LOAD): Promise<void> {
  const asked = process.env[ROUNDS_PROCESS];
  if (asked !== undefined) {
    console.log(JSON.stringify(await measureRounds(JSON.parse(asked) as PhotoLoad)));
    return;
  }
  const runs: ProcessSamples[] = [];
  for (let i = 0; i < load.processes; i++) runs.push(await roundsInProcess(load));
  for (const [index, { bytes, rounds }] of load.sizes.entries()) {
    const common = { bytes, rounds: rounds * load.processes, processes: load.processes };
    for (const name of ['receiver', 'node-http'] as const) {
      report({ bench: 'photo-core.put-first-byte-to-handoff', server: name, ...spreadFields('ms', runs.flatMap((run) => run[index][name]), 3), ...common });
    }
    const perProcess = runs.map((run) => spread(run[index].receiver).median / spread(run[index]['node-http']).median);
    const ratios = spread(perProcess);
    report({
      bench: 'photo-core.put-first-byte-to-handoff',
      of: 'receiver/node-http (latency: above 1 means the receiver takes longer)',
      ratio: ratios.median,
      ratioMin: ratios.min,
      ratioMax: ratios.max,
      perProcess: perProcess.map((ratio) => round(ratio)).join(' '),
      ...common,
    });
  }
}

/**
 * Runs the compiled bench (scripts/bench.mjs names it in VENDORPLAY_BENCH_RUN) again, for this
 * group only, with ROUNDS_PROCESS set; returns what that process measured.
 */
async function roundsInProcess(load: PhotoLoad): Promise<ProcessSamples> {
  const script = process.env.VENDORPLAY_BENCH_RUN;
  if (!script) throw new Error('the photo bench runs its rounds in processes of the compiled bench: run it with npm run bench -- photo-core');
  const child = spawn(process.execPath, [...process.execArgv, script, 'photo-core'], {
    env: { ...process.env, [ROUNDS_PROCESS]: JSON.stringify(load) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
  const code = await within(300_000, 'a photo bench process', new Promise<number | null>((resolve) => child.once('exit', resolve)));
  const line = out.split('\n').find((text) => text.startsWith('['));
  if (code !== 0 || !line) throw new Error(`photo bench process failed (exit ${code}): ${out}`);
  return JSON.parse(line) as ProcessSamples;
}

async function measureRounds(load: PhotoLoad): Promise<ProcessSamples> {
  const measured: ProcessSamples = [];
  const targets = [await startReceiver(load), await startNodeHttp()];
  const clients = await Promise.all(targets.map((target) => PhotoClient.connect(target.port)));
  try {
    for (const { bytes, rounds } of load.sizes) {
      const jpeg = sampleJpeg(bytes, 11);
      const request = photoRequest(jpeg);
      const samples: Record<Target['name'], number[]> = { receiver: [], 'node-http': [] };
      for (let round = 0; round < load.warmUpRounds + rounds; round++) {
        // Turn about: neither server always runs right after the other's garbage.
        for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
          const arrival = targets[i].nextArrival();
          const { firstByteAt } = await clients[i].send(request);
          const handed = await arrival;
          verify(equal(handed.bytes, jpeg), `${targets[i].name} handed on the picture sent (${bytes} bytes)`);
          if (round >= load.warmUpRounds) samples[targets[i].name].push(handed.at - firstByteAt);
        }
      }
      measured.push({ bytes, ...samples });
    }
  } finally {
    for (const client of clients) client.close();
    for (const target of targets) await target.close();
  }
  return measured;
}
