// Pairing and the encrypted channel end to end through a Receiver whose ports carry one
// CryptoKernels build: transient pair-setup, normal M1-M6, pair-verify, encrypted
// GET /server-info and RTSP GET /info, a photo over the paired channel, a wrong PIN. The sender
// side is the test client on the portable build, so a native receiver is checked against the
// other implementation. Registered by xs-host-suite.ts inside the XS test host (portable and
// native) and by pairing-flows.test.ts on Node.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Decode } from '../../src/bytes';
import { createSenderChannel } from '../../src/pairing/channel';
import type { CryptoKernels } from '../../src/pairing/crypto-kernels';
import { PAIR_METHOD, TLV, TLV_ERROR } from '../../src/pairing/tlv-types';
import { decodeBinaryPlist } from '../../src/plist/binary';
import { decodeXmlPlist } from '../../src/plist/xml';
import { makeConfig } from '../../src/receiver/config';
import { Receiver } from '../../src/receiver/receiver';
import { sampleJpeg } from '../support/jpeg-samples';
import { MemoryStore, ManualClock, RecordingDisplay, recordingLogger, seededRandom } from '../support/memory-ports';
import { MemorySender } from '../support/memory-sender';
import { PairVerifyClient, newSenderIdentity, openPairSetupM6, pairSetupM1, pairSetupM5, replyItems, srpClientStep } from '../support/pairing-client';
import { portableCryptoKernels } from '../../src/pairing/portable-crypto-kernels';

const DEVICE_ID = '58:55:CA:1A:E2:88';
/** A password: a secret every pair-setup takes, transient ones too (a required PIN refuses transient pairing). */
const PASSWORD = '4711';

function receiverWith(crypto: CryptoKernels, store = new MemoryStore()): Receiver {
  const clock = new ManualClock();
  return new Receiver(makeConfig({ name: 'Frame', deviceId: DEVICE_ID, pinRequired: true, password: PASSWORD, profile: 'photo-frame' }), {
    clock,
    random: seededRandom(21),
    store,
    log: recordingLogger(),
    display: new RecordingDisplay(clock),
    crypto,
  });
}

function stateItems(body: Uint8Array, state: number): Map<number, Uint8Array> {
  const items = replyItems(body);
  assert.deepEqual(items.get(TLV.State), Uint8Array.of(state));
  return items;
}

async function encryptedInfo(sender: MemorySender): Promise<void> {
  const info = await sender.request('GET', '/server-info');
  assert.equal(info.head.status, 200);
  assert.equal((decodeXmlPlist(utf8Decode(info.body)) as Record<string, unknown>).deviceid, DEVICE_ID);
  const rtsp = await sender.request('GET', '/info', { protocol: 'RTSP' });
  assert.equal(rtsp.head.status, 200);
  assert.equal((decodeBinaryPlist(rtsp.body) as Record<string, unknown>).deviceID, DEVICE_ID);
}

/** Registers the flows for a receiver on `crypto`, named after it. */
export function registerPairingFlowTests(crypto: CryptoKernels): void {
  const name = (what: string) => `${crypto.name} receiver: ${what}`;
  const clientRandom = seededRandom(77);

  test(name('a wrong PIN is Authentication; transient pair-setup then encrypts /server-info, RTSP /info and a photo'), async () => {
    const receiver = receiverWith(crypto);
    const sender = new MemorySender(receiver);
    const m2 = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }));
    const wrong = srpClientStep(m2.body, '0000', clientRandom);
    assert.deepEqual(stateItems((await sender.pairing('/pair-setup', wrong.m3)).body, 4).get(TLV.Error), Uint8Array.of(TLV_ERROR.Authentication));
    const again = await sender.pairing('/pair-setup', pairSetupM1({ transient: true }));
    const right = srpClientStep(again.body, PASSWORD, clientRandom);
    const m4 = stateItems((await sender.pairing('/pair-setup', right.m3)).body, 4);
    assert.equal(m4.get(TLV.Error), undefined);
    assert.deepEqual(m4.get(TLV.Proof), right.expectedProof);
    sender.encrypt(createSenderChannel(right.sessionKey, portableCryptoKernels));
    await encryptedInfo(sender);
    // A photo of some 40 frames over the channel (spec 6.1).
    const put = await sender.request('PUT', '/photo', { body: sampleJpeg(40_000), contentType: 'image/jpeg' });
    assert.equal(put.head.status, 200);
  });

  test(name('normal pair-setup M1-M6, then pair-verify encrypts another connection; a forged signature is refused'), async () => {
    const receiver = receiverWith(crypto);
    const senderId = newSenderIdentity('6E5A4B0C-0A44-4B5E-9C0D-2F3E4A5B6C7D', clientRandom);
    const sender = new MemorySender(receiver);
    const m2 = await sender.pairing('/pair-setup', pairSetupM1({ method: PAIR_METHOD.PairSetup }), 'RTSP');
    const srp = srpClientStep(m2.body, PASSWORD, clientRandom);
    assert.deepEqual(stateItems((await sender.pairing('/pair-setup', srp.m3, 'RTSP')).body, 4).get(TLV.Proof), srp.expectedProof);
    const m6 = await sender.pairing('/pair-setup', pairSetupM5(srp.sessionKey, senderId), 'RTSP');
    stateItems(m6.body, 6);
    const paired = openPairSetupM6(srp.sessionKey, m6.body);
    assert.deepEqual(paired.publicKey, receiver.identity.publicKey);

    const connection = new MemorySender(receiver, 50001);
    const client = new PairVerifyClient(senderId, paired, clientRandom);
    const v2 = await connection.pairing('/pair-verify', client.m1());
    const v4 = stateItems((await connection.pairing('/pair-verify', client.m3(v2.body))).body, 4);
    assert.equal(v4.get(TLV.Error), undefined);
    connection.encrypt(client.channel());
    await encryptedInfo(connection);

    const forger = new MemorySender(receiver, 50002);
    const forged = new PairVerifyClient(senderId, paired, clientRandom);
    const f2 = await forger.pairing('/pair-verify', forged.m1());
    const f4 = stateItems((await forger.pairing('/pair-verify', forged.m3(f2.body, { signWith: newSenderIdentity('x', clientRandom).keys }))).body, 4);
    assert.deepEqual(f4.get(TLV.Error), Uint8Array.of(TLV_ERROR.Authentication));
  });
}
