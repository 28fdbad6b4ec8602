// The real `vendorplay-receiver` command chooses its mirroring NAL kernel when the first mirrored
// frame needs one (issue 14; not at start, issue 11): it times the portable and WebAssembly
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
import { concat, latin1Encode } from '../../src/bytes';
import { lengthPrefixed } from '../../src/mirror/annexb-stream';
import { buildAvcC } from '../../src/mirror/avcc';
import { PACKET_TYPE, writePacket } from '../../src/mirror/packet';
import { encodeBinaryPlist } from '../../src/plist';
import { NAL_KERNEL_ENV } from '../../hosts/node/nal-kernel';
import { ReceiverProcess } from '../e2e/receiver-process';

const SPS = Uint8Array.of(0x67, 0x4d, 0x40, 0x1f, 0xec, 0xa0);
const PPS = Uint8Array.of(0x68, 0xeb, 0xe3, 0xcb);
const IDR = Uint8Array.of(0x65, 0x88, 0x84, 0x00, 0x10);
const STREAM_REQUEST = encodeBinaryPlist({ deviceID: 181221086727016, sessionID: 77, version: '130.16', latencyMs: 90, fpsInfo: [{ name: 'SubS' }], timestampInfo: [{ name: 'SubSu' }] });

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
  const head = latin1Encode(`POST /stream HTTP/1.1\r\nX-Vendor-Device-ID: 0xa4d1d2800b68\r\nContent-Length: ${STREAM_REQUEST.length}\r\n\r\n`);
  const frame = writePacket(PACKET_TYPE.video, lengthPrefixed([IDR], 4));
  await new Promise<void>((resolve) => socket.end(concat(head, STREAM_REQUEST, writePacket(PACKET_TYPE.codecData, buildAvcC([SPS], [PPS], 4)), frame), resolve));
  await receiver.waitForLog(/mirroring session -?\d+ ended: .*\(1 video packets, 1 codec configurations\)/, 5000);
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
