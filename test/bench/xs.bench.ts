// `npm run bench -- xs`: the crypto kernels' figures inside the XS test host (modules/native/xs-host),
// C natives against @noble: channel open of 1 MB in 1024-byte frames, transient pair-setup and
// pair-verify on the receiver side, XS heap while a 1 MB photo arrives over a paired channel.
// The sender's messages are computed here on Node (the receiver is seeded, so its replies are
// the same in XS), then xs-host-bench.ts runs the receiver's side 5 times per build and prints
// one line per figure; each becomes one JSON line here.

import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toHex } from '../../src/bytes';
import { createSenderChannel } from '../../src/pairing/channel';
import { encodePeers, PEERS_KEY } from '../../src/pairing/peers';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { buildXsHost } from '../../modules/native/xs-host/build.mjs';
import { ManualClock, MemoryStore, RecordingDisplay, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { newSenderIdentity, PairVerifyClient, pairSetupM1, srpClientStep } from '../support/pairing-client';
import { bundlePortableSuites } from '../xs/bundle';
import { runInXs } from '../xs/xsnap';
import { report } from './measure';
import type { BenchInput } from './xs-host-bench';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SEED = 21;
const DEVICE_ID = '58:55:CA:1A:E2:88';

/** The receiver xs-host-bench.ts makes, here on the portable kernels (same seed: same replies). */
function receiverWith(store = new MemoryStore()): { receiver: Receiver; sender: MemorySender } {
  const clock = new ManualClock();
  const receiver = new Receiver(makeConfig({ name: 'Frame', deviceId: DEVICE_ID, profile: 'photo-frame' }), {
    crypto: portableCryptoKernels,
    clock,
    random: seededRandom(SEED),
    store,
    log: () => {},
    display: new RecordingDisplay(clock),
  });
  return { receiver, sender: new MemorySender(receiver) };
}

async function benchInput(): Promise<BenchInput> {
  const setupSide = receiverWith();
  const m1 = pairSetupM1({ transient: true });
  const m2 = await setupSide.sender.pairing('/pair-setup', m1);
  const step = srpClientStep(m2.body, '3939', seededRandom(77));

  const peer = newSenderIdentity('6E5A4B0C-0A44-4B5E-9C0D-2F3E4A5B6C7D', seededRandom(5));
  const store = new MemoryStore();
  store.put(PEERS_KEY, encodePeers([{ id: peer.id, publicKey: peer.keys.publicKey, permissions: 1 }]));
  const verifySide = receiverWith(store);
  const client = new PairVerifyClient(peer, { id: DEVICE_ID, publicKey: verifySide.receiver.identity.publicKey }, seededRandom(6));
  const v1 = client.m1();
  const v2 = await verifySide.sender.pairing('/pair-verify', v1);
  const v3 = client.m3(v2.body);

  const shared = new Uint8Array(randomBytes(64));
  const plaintext = new Uint8Array(randomBytes(1 << 20));
  return {
    seed: SEED,
    deviceId: DEVICE_ID,
    setup: { m1: toHex(m1), m3: toHex(step.m3), proof: toHex(step.expectedProof), sessionKey: toHex(step.sessionKey) },
    verify: { peerId: peer.id, peerKey: toHex(peer.keys.publicKey), m1: toHex(v1), m3: toHex(v3) },
    channel: { shared: toHex(shared), framed: toHex(createSenderChannel(shared, portableCryptoKernels).seal(plaintext)), digest: createHash('sha512').update(plaintext).digest('hex') },
  };
}

export async function runXsBench(): Promise<void> {
  const worker = await buildXsHost({ quiet: true });
  const input = await benchInput();
  const script = `var BENCH_INPUT = ${JSON.stringify(input)};\n${await bundlePortableSuites([path.join(HERE, 'xs-host-bench.ts')])}`;
  const run = await runInXs(script, 900_000, worker);
  const lines = run.stdout.split('\n');
  const failed = lines.filter((line) => line.startsWith('not ok'));
  if (run.error || failed.length > 0) throw new Error(`XS bench failed: ${run.error ?? failed.join('\n')}`);
  for (const line of lines) {
    if (line.startsWith('# bench ')) report({ ...JSON.parse(line.slice('# bench '.length)), bench: `xs.${JSON.parse(line.slice('# bench '.length)).bench}`, host: 'xs-test-host' });
  }
}
