// XS meter figures of the receiver's side of a transient pair-setup (spec 5.3): how many XS
// byte-code steps and live heap slots M1->M2 (SRP verifier and B: two 3072-bit exponentiations)
// and M3->M4 (the shared secret: two more, plus the proof) cost on the engine boards run.
//
// The sender's messages are computed here on Node (same seeded receiver, so the same M2), and
// only the receiver runs inside XS; three runs (receiver only, up to M2, up to M4) are
// subtracted to give each step's share. The meter counts (compute, heap slots) are exact and
// checked to be the same in every repetition; the wall time of a step is a difference of two
// separate XS processes' times, so it is repeated (REPETITIONS) and given as min/median/max.
// Run: `npm run bench -- xs-pair-setup`.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toHex } from '../../src/bytes';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { pairSetupM1, srpClientStep } from '../support/pairing-client';
import { bundlePortableSuites } from '../xs/bundle';
import { runInXs, type XsMeter } from '../xs/xsnap';
import { report, spread, verify } from './measure';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SEED = 21;
const REPETITIONS = 5;

/** The sender's side, on Node: M1, and M3 for the M2 a receiver seeded with SEED answers. */
async function senderMessages(): Promise<{ m1: string; m3: string; proof: string }> {
  const receiver = new Receiver(makeConfig({ deviceId: '58:55:CA:1A:E2:88' }), {
    crypto: portableCryptoKernels,
    clock: new ManualClock(),
    random: seededRandom(SEED),
    store: new MemoryStore(),
    log: recordingLogger(),
  });
  const sender = new MemorySender(receiver);
  const m1 = pairSetupM1({ transient: true });
  const m2 = await sender.pairing('/pair-setup', m1);
  const step = srpClientStep(m2.body, '3939', seededRandom(77));
  return { m1: toHex(m1), m3: toHex(step.m3), proof: toHex(step.expectedProof) };
}

/** A one-test suite that runs the receiver up to `upTo` inside XS. */
function suiteSource(upTo: 'receiver' | 'M2' | 'M4', messages: { m1: string; m3: string; proof: string }): string {
  const at = (file: string) => JSON.stringify(path.join(ROOT, file));
  return `
import { test } from 'node:test';
import { fromHex, toHex } from ${at('src/bytes')};
import { makeConfig } from ${at('src/receiver/config')};
import { Receiver } from ${at('src/receiver/receiver')};
import { decodeTlv8 } from ${at('src/pairing/tlv8')};
import { ManualClock, MemoryStore, recordingLogger, seededRandom } from ${at('test/support/memory-ports')};
import { MemorySender } from ${at('test/support/memory-sender')};
import { portableCryptoKernels } from ${at('src/pairing/portable-crypto-kernels')};

test('transient pair-setup, receiver side, up to ${upTo}', async () => {
  const receiver = new Receiver(makeConfig({ deviceId: '58:55:CA:1A:E2:88' }), {
    clock: new ManualClock(), random: seededRandom(${SEED}), crypto: portableCryptoKernels, store: new MemoryStore(), log: recordingLogger(),
  });
  const sender = new MemorySender(receiver);
  if (${JSON.stringify(upTo)} === 'receiver') return;
  const m2 = await sender.pairing('/pair-setup', fromHex(${JSON.stringify(messages.m1)}));
  if (decodeTlv8(m2.body).get(3)?.length !== 384) throw new Error('no B in M2');
  if (${JSON.stringify(upTo)} === 'M2') return;
  const m4 = await sender.pairing('/pair-setup', fromHex(${JSON.stringify(messages.m3)}));
  const proof = decodeTlv8(m4.body).get(4);
  if (!proof || toHex(proof) !== ${JSON.stringify(messages.proof)}) throw new Error('M4 proof differs from the one computed on Node');
});
`;
}

async function meterOf(upTo: 'receiver' | 'M2' | 'M4', messages: { m1: string; m3: string; proof: string }, dir: string): Promise<XsMeter & { ms: number }> {
  const file = path.join(dir, `pair-setup-${upTo}.test.ts`);
  writeFileSync(file, suiteSource(upTo, messages));
  const run = await runInXs(await bundlePortableSuites([file]));
  if (run.error || !/"failed":0/.test(run.stdout)) throw new Error(`XS run up to ${upTo} failed: ${run.error ?? run.stdout}`);
  const stamps = (run.meter as unknown as { timestamps?: number[] }).timestamps ?? [];
  const ms = stamps.length >= 2 ? Math.round((stamps[stamps.length - 1] - stamps[0]) * 1000) : NaN;
  return { ...run.meter, ms };
}

type Metered = XsMeter & { ms: number };
const STEPS = ['receiver', 'M2', 'M4'] as const;

export async function runXsPairSetupBench(repetitions = REPETITIONS): Promise<void> {
  const messages = await senderMessages();
  const dir = mkdtempSync(path.join(tmpdir(), 'xs-pair-setup-'));
  try {
    const runs: Record<(typeof STEPS)[number], Metered[]> = { receiver: [], M2: [], M4: [] };
    // Interleaved, so each step's runs spread over the same stretch of machine time.
    for (let i = 0; i < repetitions; i++) for (const step of STEPS) runs[step].push(await meterOf(step, messages, dir));
    for (const step of STEPS) {
      for (const run of runs[step]) {
        verify(run.compute === runs[step][0].compute && run.currentHeapCount === runs[step][0].currentHeapCount, `XS meter of the run up to ${step} is the same every time`);
      }
    }
    const msSpread = (values: number[]) => {
      const { min, median, max } = spread(values, 0);
      return { msMin: min, msMedian: median, msMax: max };
    };
    const line = (name: string, upper: (typeof STEPS)[number], lower: (typeof STEPS)[number]) => {
      const [a, b] = [runs[upper][0], runs[lower][0]];
      report({
        bench: 'xs-pair-setup',
        step: name,
        compute: a.compute - b.compute,
        heapSlots: a.currentHeapCount - b.currentHeapCount,
        ...msSpread(runs[upper].map((run, i) => run.ms - runs[lower][i].ms)),
        repetitions,
      });
    };
    // `allocate` is what the machine has taken from the host (it grows in large chunks);
    // heapSlots is the live slot count at the end of each run.
    const base = runs.receiver[0];
    report({ bench: 'xs-pair-setup', step: 'receiver start (identity, routes)', compute: base.compute, allocate: base.allocate, heapSlots: base.currentHeapCount, ...msSpread(runs.receiver.map((run) => run.ms)), repetitions });
    line('M1 -> M2 (SRP verifier, B)', 'M2', 'receiver');
    line('M3 -> M4 (SRP shared secret, proofs)', 'M4', 'M2');
    line('transient pair-setup total', 'M4', 'receiver');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
