// The built command evaluates @noble/curves when pairing first needs it, not at start
// (hosts/node/crypto-on-first-use.ts; the build's on-first-use-modules.bundled.ts): a start with
// the identity it made before (the first start makes one, which takes the curves) that answers
// /info has not taken them, and the first pair-verify takes them and is answered. The debug line
// the host says when it takes them is the sign.
//
// Network safety: the receiver runs with --no-mdns on the loopback interface only; the client
// connects to 127.0.0.1.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { CURVES_LOADED } from '../../hosts/node/crypto-on-first-use';
import { nodeRandom } from '../../hosts/node/io/ports';
import { decodeTlv8 } from '../../src/pairing/tlv8';
import { TLV } from '../../src/pairing/tlv-types';
import { newSenderIdentity, PairVerifyClient } from '../support/pairing-client';
import { exchange, freshDataDir, ReceiverProcess } from './receiver-process';
import { SocketSender } from './socket-sender';

test('the curves are evaluated at the first pair-verify, not at a start with its identity made', async () => {
  const dataDir = freshDataDir();
  const first = await ReceiverProcess.start({ dataDir, logLevel: 'debug' });
  await first.stop();
  assert.ok(first.stderr.includes('created a new receiver identity') && first.stderr.includes(CURVES_LOADED), 'a new identity takes the curves');
  const receiver = await ReceiverProcess.start({ dataDir, logLevel: 'debug' });
  try {
    const info = await exchange(receiver.port, 'GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    assert.equal(info.head.status, 200);
    assert.ok(!receiver.stderr.includes(CURVES_LOADED), receiver.stderr);
    const socket = await SocketSender.connect(receiver.port);
    try {
      const client = new PairVerifyClient(newSenderIdentity('crypto-on-first-use', nodeRandom), { id: 'unused', publicKey: new Uint8Array(32) }, nodeRandom);
      const m2 = await socket.request('POST', '/pair-verify', { protocol: 'RTSP', body: client.m1() });
      assert.equal(m2.head.status, 200);
      const items = decodeTlv8(m2.body);
      assert.equal(items.get(TLV.PublicKey)?.length, 32, 'M2 carries the receiver\'s X25519 key');
      await receiver.waitForLog(new RegExp(CURVES_LOADED.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
    } finally {
      socket.close();
    }
  } finally {
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
