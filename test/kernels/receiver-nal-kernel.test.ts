// The real `vendorplay-receiver` command chooses its mirroring NAL kernel when the first mirrored
// frame needs one (not at start, where it would delay the first answer): it times the portable and WebAssembly
// builds on a mirroring-sized frame and says which it passes on, with the figures;
// VENDORPLAY_NAL_KERNEL forces one and it says so. A sender played by hand on a real socket sends
// the stream request, the codec data and one frame.
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { concat } from '../../src/bytes';
import { lengthPrefixed } from '../../src/mirror/annexb-stream';
import { PACKET_TYPE, writePacket } from '../../src/mirror/packet';
import { NAL_KERNEL_ENV } from '../../hosts/node/kernels/nal-kernel';
import { ReceiverProcess } from '../e2e/receiver-process';
import { CODEC_DATA, IDR, postStream } from '../support/mirror-stream';


let work: string;
before(() => (work = mkdtempSync(path.join(tmpdir(), 'vendorplay-nal-kernel-'))));
after(() => rmSync(work, { recursive: true, force: true }));

async function startWith(choice: string | undefined): Promise<ReceiverProcess> {
  if (choice !== undefined) process.env[NAL_KERNEL_ENV] = choice;
  try {
    return await ReceiverProcess.start({ args: ['--no-screen', '--record', path.join(work, `${choice ?? 'timed'}.h264`)] });
  } finally {
    delete process.env[NAL_KERNEL_ENV];
  }
}

/** One mirroring session of one key frame, on the receiver's mirroring port; resolves when the frame is written. */
async function mirrorOneFrame(receiver: ReceiverProcess): Promise<void> {
  assert.ok(receiver.mirrorPort, receiver.stdout);
  const socket = net.connect({ host: '127.0.0.1', port: receiver.mirrorPort });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const frame = writePacket(PACKET_TYPE.video, lengthPrefixed([IDR], 4));
  await new Promise<void>((resolve) => socket.end(concat(postStream(), CODEC_DATA, frame), resolve));
  await receiver.waitForLog(/mirroring session -?\d+ ended: .*\(1 video packets, 1 codec configurations\)/);
}

test('the receiver chooses no NAL kernel at start; the first mirrored frame makes it name the faster build and its figures', async () => {
  const receiver = await startWith(undefined);
  try {
    assert.doesNotMatch(receiver.stderr, /NAL kernel: /, 'nothing chosen or timed before a frame needs it');
    await mirrorOneFrame(receiver);
    const line = await receiver.waitForLog(/NAL kernel: /);
    assert.match(line, / info  NAL kernel: (portable \(TypeScript\)|wasm \(.*assemblyscript\/build\/nal-kernel\.wasm\)); faster at start: portable \d+ MB\/s, wasm \d+ MB\/s on a 41 KB frame with 4-byte lengths$/);
    assert.equal(receiver.stderr.match(/NAL kernel: /g)?.length, 1, 'chosen once');
  } finally {
    await receiver.stop();
  }
});

test('VENDORPLAY_NAL_KERNEL=wasm and =portable: the receiver runs the build named and says so', async () => {
  for (const [choice, expected] of [
    ['wasm', / info  NAL kernel: wasm \(.*nal-kernel\.wasm\); VENDORPLAY_NAL_KERNEL=wasm$/],
    ['portable', / info  NAL kernel: portable \(TypeScript\); VENDORPLAY_NAL_KERNEL=portable$/],
  ] as const) {
    const receiver = await startWith(choice);
    try {
      await mirrorOneFrame(receiver);
      assert.match(await receiver.waitForLog(/NAL kernel: /), expected);
    } finally {
      await receiver.stop();
    }
  }
});
