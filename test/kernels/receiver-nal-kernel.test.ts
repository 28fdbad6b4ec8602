// The real `vendorplay-receiver` command chooses its mirroring NAL kernel at start (issue 14):
// it times the portable and WebAssembly builds on a mirroring-sized frame and says which it
// passes to the receiver, with the figures; VENDORPLAY_NAL_KERNEL forces one and it says so.
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NAL_KERNEL_ENV } from '../../hosts/node/nal-kernel';
import { ReceiverProcess } from '../e2e/receiver-process';

async function startWith(choice: string | undefined): Promise<ReceiverProcess> {
  if (choice !== undefined) process.env[NAL_KERNEL_ENV] = choice;
  try {
    return await ReceiverProcess.start({ args: ['--no-screen'] });
  } finally {
    delete process.env[NAL_KERNEL_ENV];
  }
}

test('the receiver names the NAL kernel it runs and the figures it chose by', async () => {
  const receiver = await startWith(undefined);
  try {
    const line = await receiver.waitForLog(/NAL kernel: /);
    assert.match(line, / info  NAL kernel: (portable \(TypeScript\)|wasm \(.*assemblyscript\/build\/nal-kernel\.wasm\)); faster at start: portable \d+ MB\/s, wasm \d+ MB\/s on a 41 KB frame with 4-byte lengths$/);
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
      assert.match(await receiver.waitForLog(/NAL kernel: /), expected);
    } finally {
      await receiver.stop();
    }
  }
});
