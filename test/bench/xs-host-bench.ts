// Runs inside the XS test host (xs.bench.ts bundles it): the crypto kernels' figures, each for the
// C natives and for @noble, 5 runs, printed as `# bench {json}` lines with min/median/max of
// wall time (ms) and XS compute steps. Every run's output is checked before it counts.
//   channel.open   1 MB in 1024-byte frames through the control channel (spec 5.4)
//   pair-setup     transient, receiver side: M1 -> M2 and M3 -> M4 (spec 5.3)
//   pair-verify    receiver side: M1 -> M2 and M3 -> M4
//   photo.heap.*   XS heap above the baseline while a 1 MB photo arrives over a paired channel:
//                  allocated at the peak (garbage included) and live (collected after each 64 KB)
// The sender's messages come from Node (BENCH_INPUT, replaced at bundling), so only the
// receiver's work runs here.

import { test } from 'node:test';
import { fromHex, toHex, joinBytes } from '../../src/bytes';
import { createControlChannel, createSenderChannel } from '../../src/pairing/channel';
import { type CryptoKernels } from '../../src/pairing/crypto-kernels';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';
import { encodePeers, PEERS_KEY } from '../../src/pairing/peers';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import { TLV } from '../../src/pairing/tlv-types';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { createNativeCryptoKernels } from '../../modules/native/kernels';
import type { NativeCrypto } from '../../modules/native/natives';
import { sampleJpeg } from '../support/jpeg-samples';
import { ManualClock, MemoryStore, RecordingDisplay, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';

declare function print(...values: unknown[]): void;
declare function gc(): void;
declare const performance: { now(): number };
declare function __vpMeter(): number;
declare function __vpHeap(): { chunks: number; peakChunks: number; slots: number; peakSlots: number };
declare function __vpHeapReset(): void;

/** What Node computed: see xs.bench.ts. */
export interface BenchInput {
  seed: number;
  deviceId: string;
  setup: { m1: string; m3: string; proof: string; sessionKey: string };
  verify: { peerId: string; peerKey: string; m1: string; m3: string };
  channel: { shared: string; framed: string; digest: string };
}
declare const BENCH_INPUT: BenchInput;

const RUNS = 5;

interface Sample {
  ms: number;
  steps: number;
}

function summary(values: number[]): { min: number; median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
}

function emit(figure: Record<string, unknown>): void {
  print(`# bench ${JSON.stringify(figure)}`);
}

function report(bench: string, kernels: string, samples: Sample[], extra: Record<string, unknown> = {}): void {
  const ms = summary(samples.map((sample) => sample.ms));
  const steps = summary(samples.map((sample) => sample.steps));
  emit({ bench, kernels, runs: samples.length, msMin: ms.min, msMedian: ms.median, msMax: ms.max, stepsMin: steps.min, stepsMedian: steps.median, stepsMax: steps.max, ...extra });
}

/** Time and compute steps of `fn` (awaited). */
async function measure(fn: () => unknown): Promise<Sample> {
  const steps = __vpMeter();
  const started = performance.now();
  await fn();
  // The meter is a 32-bit count that wraps (txU4): the difference modulo 2^32.
  return { ms: Math.round((performance.now() - started) * 100) / 100, steps: (__vpMeter() - steps + 2 ** 32) % 2 ** 32 };
}

function receiverWith(crypto: CryptoKernels, store = new MemoryStore()): { receiver: Receiver; sender: MemorySender } {
  const clock = new ManualClock();
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: BENCH_INPUT.deviceId, profile: 'photo-frame' }), {
    clock,
    random: seededRandom(BENCH_INPUT.seed),
    store,
    log: () => {},
    display: new RecordingDisplay(clock),
    crypto,
  });
  return { receiver, sender: new MemorySender(receiver) };
}

async function channelOpen(crypto: CryptoKernels): Promise<void> {
  const shared = fromHex(BENCH_INPUT.channel.shared);
  const framed = fromHex(BENCH_INPUT.channel.framed);
  const samples: Sample[] = [];
  for (let run = 0; run < RUNS; run++) {
    let opened: Uint8Array[] = [];
    samples.push(await measure(() => (opened = createControlChannel(shared, crypto).open(framed))));
    // Checked outside the timing: every frame, and the plaintext's SHA-512 against Node's.
    const whole = joinBytes(opened);
    if (opened.length !== 1024 || toHex(portableCryptoKernels.sha512([whole])) !== BENCH_INPUT.channel.digest) throw new Error(`${crypto.name}: channel.open gave other bytes`);
  }
  const median = summary(samples.map((sample) => sample.ms)).median;
  report('channel.open', crypto.name, samples, { bytes: 1 << 20, frame: 1024, mbPerSecondMedian: Math.round((1000 / median) * 1000) / 1000 });
}

async function pairSetup(crypto: CryptoKernels): Promise<void> {
  const m2s: Sample[] = [];
  const m4s: Sample[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { sender } = receiverWith(crypto);
    let m4: Uint8Array = new Uint8Array(0);
    m2s.push(await measure(async () => void (await sender.pairing('/pair-setup', fromHex(BENCH_INPUT.setup.m1)))));
    m4s.push(await measure(async () => (m4 = (await sender.pairing('/pair-setup', fromHex(BENCH_INPUT.setup.m3))).body)));
    const proof = decodeTlv8(m4).get(TLV.Proof);
    if (!proof || toHex(proof) !== BENCH_INPUT.setup.proof) throw new Error(`${crypto.name}: pair-setup M4 proof is not the one Node computed`);
  }
  report('pair-setup.transient.M1-M2', crypto.name, m2s);
  report('pair-setup.transient.M3-M4', crypto.name, m4s);
  report('pair-setup.transient.total', crypto.name, m2s.map((m2, i) => ({ ms: Math.round((m2.ms + m4s[i].ms) * 100) / 100, steps: m2.steps + m4s[i].steps })));
}

async function pairVerify(crypto: CryptoKernels): Promise<void> {
  const m2s: Sample[] = [];
  const m4s: Sample[] = [];
  for (let run = 0; run < RUNS; run++) {
    const store = new MemoryStore();
    store.put(PEERS_KEY, encodePeers([{ id: BENCH_INPUT.verify.peerId, publicKey: fromHex(BENCH_INPUT.verify.peerKey), permissions: 1 }]));
    const { sender } = receiverWith(crypto, store);
    let m4: Uint8Array = new Uint8Array(0);
    m2s.push(await measure(async () => void (await sender.pairing('/pair-verify', fromHex(BENCH_INPUT.verify.m1)))));
    m4s.push(await measure(async () => (m4 = (await sender.pairing('/pair-verify', fromHex(BENCH_INPUT.verify.m3))).body)));
    const items = decodeTlv8(m4);
    if (items.get(TLV.State)?.[0] !== 4 || items.has(TLV.Error)) throw new Error(`${crypto.name}: pair-verify did not reach M4 without an error`);
  }
  report('pair-verify.M1-M2', crypto.name, m2s);
  report('pair-verify.M3-M4', crypto.name, m4s);
  report('pair-verify.total', crypto.name, m2s.map((m2, i) => ({ ms: Math.round((m2.ms + m4s[i].ms) * 100) / 100, steps: m2.steps + m4s[i].steps })));
}

async function photoHeap(crypto: CryptoKernels, sealer: CryptoKernels): Promise<void> {
  const photo = sampleJpeg(1 << 20, 9);
  const head = new TextEncoder().encode(`PUT /photo HTTP/1.1\r\nContent-Type: image/jpeg\r\nContent-Length: ${photo.length}\r\n\r\n`);
  const slice = 64 * 1024;
  /**
   * A receiver, a sender paired to it by transient pair-setup (Node's messages) on an encrypted
   * connection, and the PUT /photo sealed in 64 KB pieces as a socket would carry it. Sealed
   * before the baseline, so the heap figures are the receiver's alone: opening, parsing, keeping.
   */
  const pairedPhotoUpload = async () => {
    const { sender } = receiverWith(crypto);
    await sender.pairing('/pair-setup', fromHex(BENCH_INPUT.setup.m1));
    await sender.pairing('/pair-setup', fromHex(BENCH_INPUT.setup.m3));
    const channel = createSenderChannel(fromHex(BENCH_INPUT.setup.sessionKey), sealer);
    sender.encrypt(channel);
    const pieces = [channel.seal(head)];
    for (let offset = 0; offset < photo.length; offset += slice) pieces.push(channel.seal(photo.subarray(offset, offset + slice)));
    return { sender, pieces };
  };
  const samples: Sample[] = [];
  const chunkPeaks: number[] = [];
  const slotPeaks: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { sender, pieces } = await pairedPhotoUpload();
    gc();
    __vpHeapReset();
    const base = __vpHeap();
    let status = 0;
    samples.push(
      await measure(async () => {
        for (const piece of pieces) sender.connection.send(piece);
        status = (await sender.response()).head.status;
      }),
    );
    const peak = __vpHeap();
    if (status !== 200) throw new Error(`${crypto.name}: PUT /photo answered ${status}`);
    chunkPeaks.push(peak.peakChunks - base.chunks);
    slotPeaks.push(peak.peakSlots - base.slots);
  }
  const chunks = summary(chunkPeaks);
  const slots = summary(slotPeaks);
  // Allocated at the peak: garbage included, as XS's heap here is large enough never to collect
  // during the photo; a board collects when its heap is full, so what it needs is the live peak.
  report('photo.heap.allocated', crypto.name, samples, {
    photoBytes: photo.length,
    chunkAbovePhotoMin: chunks.min - photo.length,
    chunkAbovePhotoMedian: chunks.median - photo.length,
    chunkAbovePhotoMax: chunks.max - photo.length,
    slotBytesMin: slots.min,
    slotBytesMedian: slots.median,
    slotBytesMax: slots.max,
  });
  // The live peak: collected after each 64 KB piece, the largest live heap above the baseline.
  const liveChunks: number[] = [];
  const liveSlots: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { sender, pieces } = await pairedPhotoUpload();
    gc();
    const base = __vpHeap();
    let chunkMax = 0;
    let slotMax = 0;
    for (const piece of pieces) {
      sender.connection.send(piece);
      gc();
      const now = __vpHeap();
      chunkMax = Math.max(chunkMax, now.chunks - base.chunks);
      slotMax = Math.max(slotMax, now.slots - base.slots);
    }
    if ((await sender.response()).head.status !== 200) throw new Error(`${crypto.name}: PUT /photo failed`);
    liveChunks.push(chunkMax);
    liveSlots.push(slotMax);
  }
  const live = summary(liveChunks);
  const liveSlot = summary(liveSlots);
  emit({
    bench: 'photo.heap.live',
    kernels: crypto.name,
    runs: RUNS,
    photoBytes: photo.length,
    chunkAbovePhotoMin: live.min - photo.length,
    chunkAbovePhotoMedian: live.median - photo.length,
    chunkAbovePhotoMax: live.max - photo.length,
    slotBytesMin: liveSlot.min,
    slotBytesMedian: liveSlot.median,
    slotBytesMax: liveSlot.max,
  });
}

test('crypto kernel figures inside the XS test host', async () => {
  const natives = (globalThis as { __vpNatives?: NativeCrypto }).__vpNatives;
  if (natives === undefined) throw new Error('not the XS test host');
  const builds = [createNativeCryptoKernels(natives), portableCryptoKernels];
  for (const crypto of builds) await channelOpen(crypto);
  for (const crypto of builds) await pairSetup(crypto);
  for (const crypto of builds) await pairVerify(crypto);
  for (const crypto of builds) await photoHeap(crypto, builds[0]);
});
