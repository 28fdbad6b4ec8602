// The real `vendorplay-receiver` command runs its control channel on the WebAssembly frame kernel:
// it says so when the first encrypted frame needs it (not at start: nothing at start does), and a HomeKit-style client nobody here wrote (npm hap-controller, whose
// ChaCha20-Poly1305 is libsodium's) pairs and talks through it. With VENDORPLAY_FRAME_KERNEL=ours-ts
// it runs the portable kernel and says that instead.
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only; the client
// connects to 127.0.0.1.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpClient, PairMethods } from 'hap-controller';
import { decodeXmlPlist } from '../../src/plist/xml';
import { FRAME_KERNEL_ENV } from '../../hosts/node/kernels/kernels';
import { ReceiverProcess } from '../e2e/receiver-process';

/** hap-controller wants a HomeKit setup code (XXX-XX-XXX); the protocol's PIN is 4 digits (spec 5.3). */
class PinClient extends HttpClient {
  override verifyPin(): void {}
}

interface HapConnection {
  get(path: string): Promise<{ statusCode: number; body: Buffer }>;
  close(): void;
}

/** Pairs with the PIN, pair-verifies, and GETs /server-info twice over the encrypted connection. */
async function pairAndAsk(receiver: ReceiverProcess): Promise<void> {
  const setup = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port);
  await setup.pairSetup('3939', PairMethods.PairSetup);
  const client = new PinClient(receiver.deviceId, '127.0.0.1', receiver.port, setup.getLongTermData()!);
  const connection = await (client as unknown as { getDefaultVerifiedConnection(): Promise<HapConnection> }).getDefaultVerifiedConnection();
  try {
    for (let i = 0; i < 2; i++) {
      const response = await connection.get('/server-info');
      assert.equal(response.statusCode, 200);
      assert.equal((decodeXmlPlist(response.body.toString('utf8')) as Record<string, unknown>).deviceid, receiver.deviceId);
    }
  } finally {
    connection.close();
  }
}

test('the receiver installs the WebAssembly frame kernel at its first encrypted frame, and an encrypted session runs on it', async () => {
  const receiver = await ReceiverProcess.start({ args: ['--no-screen'] });
  try {
    assert.doesNotMatch(receiver.stderr, /frame kernel: /, 'chosen at start, before any sender paired');
    await pairAndAsk(receiver);
    assert.match(await receiver.waitForLog(/frame kernel: /), / info  frame kernel: ours-wasm \(.*assemblyscript\/build\/frame-kernel\.wasm\)$/);
  } finally {
    await receiver.stop();
  }
});

test('VENDORPLAY_FRAME_KERNEL=ours-ts: the receiver says it runs the portable kernel, and serves the same', async () => {
  process.env[FRAME_KERNEL_ENV] = 'ours-ts';
  let receiver: ReceiverProcess;
  try {
    receiver = await ReceiverProcess.start({ args: ['--no-screen'] });
  } finally {
    delete process.env[FRAME_KERNEL_ENV];
  }
  try {
    await pairAndAsk(receiver);
    assert.match(await receiver.waitForLog(/frame kernel: /), / info  frame kernel: ours-ts \(portable TypeScript\); VENDORPLAY_FRAME_KERNEL=ours-ts$/);
  } finally {
    await receiver.stop();
  }
});
